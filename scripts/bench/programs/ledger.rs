// A small program of our own for the bench's `rust-macro-rules` case. Its two macros are written
// `macro_rules ! name` (rustc accepts the spaces). rustc warns once with its default lints, that
// the private field `Posting::memo` is never read: the field is written by `Ledger::post`
// and copied by the derived Clone, but nothing reads it.

use std::collections::BTreeMap;
use std::fmt;

/// Declares a newtype id over `u32` with a constructor, an accessor and Display.
macro_rules ! newtype_id {
    ($(#[$meta:meta])* $name:ident, $prefix:literal) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(u32);

        impl $name {
            pub fn new(raw: u32) -> Self {
                $name(raw)
            }

            pub fn raw(self) -> u32 {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}{:04}", $prefix, self.0)
            }
        }
    };
}

/// Checks a condition and returns the given error from the enclosing function if it fails.
macro_rules ! ensure {
    ($cond:expr, $err:expr) => {
        if !($cond) {
            return Err($err);
        }
    };
    ($cond:expr, $err:expr, $($rest:tt)+) => {
        ensure!($cond, $err);
        ensure!($($rest)+);
    };
}

newtype_id!(
    /// An account of the ledger.
    AccountId,
    "A"
);
newtype_id!(
    /// One posted transaction.
    TxId,
    "T"
);

/// Amounts are in cents, so sums are exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Cents(i64);

impl Cents {
    pub fn from_units(units: i64, cents: i64) -> Cents {
        Cents(units * 100 + cents)
    }

    pub fn is_negative(self) -> bool {
        self.0 < 0
    }

    pub fn checked_add(self, other: Cents) -> Option<Cents> {
        self.0.checked_add(other.0).map(Cents)
    }
}

impl fmt::Display for Cents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.abs();
        write!(f, "{}{}.{:02}", sign, abs / 100, abs % 100)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LedgerError {
    UnknownAccount(AccountId),
    Unbalanced { debit: Cents, credit: Cents },
    Overdrawn(AccountId),
    Empty,
    Overflow,
}

impl fmt::Display for LedgerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LedgerError::UnknownAccount(id) => write!(f, "unknown account {}", id),
            LedgerError::Unbalanced { debit, credit } => {
                write!(f, "debits {} and credits {} differ", debit, credit)
            }
            LedgerError::Overdrawn(id) => write!(f, "account {} would be overdrawn", id),
            LedgerError::Empty => write!(f, "a transaction needs at least one line"),
            LedgerError::Overflow => write!(f, "the amounts overflow"),
        }
    }
}

impl std::error::Error for LedgerError {}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Debit,
    Credit,
}

#[derive(Debug, Clone)]
struct Posting {
    tx: TxId,
    account: AccountId,
    side: Side,
    amount: Cents,
    memo: String,
}

#[derive(Debug)]
struct Account {
    name: String,
    may_overdraw: bool,
    balance: Cents,
}

/// A double-entry ledger: every transaction's debits and credits are equal.
#[derive(Debug, Default)]
pub struct Ledger {
    accounts: BTreeMap<AccountId, Account>,
    postings: Vec<Posting>,
    next_account: u32,
    next_tx: u32,
}

impl Ledger {
    pub fn new() -> Ledger {
        Ledger::default()
    }

    pub fn open(&mut self, name: &str, may_overdraw: bool) -> AccountId {
        self.next_account += 1;
        let id = AccountId::new(self.next_account);
        let account = Account { name: name.to_string(), may_overdraw, balance: Cents::default() };
        self.accounts.insert(id, account);
        id
    }

    pub fn name(&self, id: AccountId) -> Option<&str> {
        self.accounts.get(&id).map(|a| a.name.as_str())
    }

    pub fn balance(&self, id: AccountId) -> Result<Cents, LedgerError> {
        self.accounts.get(&id).map(|a| a.balance).ok_or(LedgerError::UnknownAccount(id))
    }

    /// Posts one transaction, all of its lines or none.
    pub fn post(&mut self, memo: &str, lines: &[(AccountId, Side, Cents)]) -> Result<TxId, LedgerError> {
        ensure!(!lines.is_empty(), LedgerError::Empty);
        let (debit, credit) = totals(lines)?;
        ensure!(debit == credit, LedgerError::Unbalanced { debit, credit });

        let mut balances = BTreeMap::new();
        for &(account, side, amount) in lines {
            let current = match balances.get(&account) {
                Some(&b) => b,
                None => self.balance(account)?,
            };
            let signed = match side {
                Side::Debit => Cents(-amount.0),
                Side::Credit => amount,
            };
            let next = current.checked_add(signed).ok_or(LedgerError::Overflow)?;
            let may_overdraw = self.accounts[&account].may_overdraw;
            ensure!(may_overdraw || !next.is_negative(), LedgerError::Overdrawn(account));
            balances.insert(account, next);
        }

        self.next_tx += 1;
        let tx = TxId::new(self.next_tx);
        for (account, balance) in balances {
            if let Some(a) = self.accounts.get_mut(&account) {
                a.balance = balance;
            }
        }
        for &(account, side, amount) in lines {
            self.postings.push(Posting { tx, account, side, amount, memo: memo.to_string() });
        }
        Ok(tx)
    }

    /// The postings of one account, oldest first, as (transaction, signed amount).
    pub fn statement(&self, id: AccountId) -> Vec<(TxId, Cents)> {
        self.postings
            .iter()
            .filter(|p| p.account == id)
            .map(|p| {
                let amount = match p.side {
                    Side::Debit => Cents(-p.amount.0),
                    Side::Credit => p.amount,
                };
                (p.tx, amount)
            })
            .collect()
    }

    /// Copies the postings of one transaction, for an audit log.
    pub fn lines_of(&self, tx: TxId) -> Vec<(AccountId, Side, Cents)> {
        let copies: Vec<Posting> = self.postings.iter().filter(|p| p.tx == tx).cloned().collect();
        copies.into_iter().map(|p| (p.account, p.side, p.amount)).collect()
    }

    pub fn trial_balance(&self) -> Result<Cents, LedgerError> {
        let mut sum = Cents::default();
        for account in self.accounts.values() {
            sum = sum.checked_add(account.balance).ok_or(LedgerError::Overflow)?;
        }
        Ok(sum)
    }
}

fn totals(lines: &[(AccountId, Side, Cents)]) -> Result<(Cents, Cents), LedgerError> {
    let mut debit = Cents::default();
    let mut credit = Cents::default();
    for &(_, side, amount) in lines {
        ensure!(!amount.is_negative(), LedgerError::Overflow);
        let total = match side {
            Side::Debit => &mut debit,
            Side::Credit => &mut credit,
        };
        *total = total.checked_add(amount).ok_or(LedgerError::Overflow)?;
    }
    Ok((debit, credit))
}

/// Opens a small ledger and moves some money, for examples and tests.
pub fn example() -> Result<Ledger, LedgerError> {
    let mut ledger = Ledger::new();
    let bank = ledger.open("bank", true);
    let rent = ledger.open("rent", false);
    let food = ledger.open("food", false);
    ledger.post("salary", &[(bank, Side::Debit, Cents::from_units(2500, 0)), (rent, Side::Credit, Cents::from_units(900, 0)), (food, Side::Credit, Cents::from_units(1600, 0))])?;
    ledger.post("groceries", &[(food, Side::Debit, Cents::from_units(42, 50)), (bank, Side::Credit, Cents::from_units(42, 50))])?;
    ensure!(ledger.trial_balance()? == Cents::default(), LedgerError::Overflow, ledger.balance(rent)? == Cents::from_units(900, 0), LedgerError::UnknownAccount(rent));
    Ok(ledger)
}
