//! Constant folding for the `transform` pass: an expression made only of integer literals,
//! operators and parentheses (`0x7EBAL + 1`) becomes its value (`32443`). Arithmetic is
//! exact (128 bits); anything that might overflow a 64-bit value, divide by zero or shift
//! too far is left alone, and the test decides whether the value still does the job.

use crate::literal::Integer;

/// The value of an integer literal ([`Integer::read`]) that fits 64 bits, or `None` for
/// anything else (a float, a character, a name).
pub fn literal(text: &str) -> Option<i128> {
    let v = Integer::read(text)?.value()?;
    (v <= u64::MAX as u128).then_some(v as i128)
}

/// The value of `tokens` read as one integer expression, if they are one.
pub fn value(tokens: &[&str]) -> Option<i128> {
    let mut p = Folder { tokens, at: 0 };
    let v = p.expr(0)?;
    (p.at == tokens.len() && v.abs() <= i64::MAX as i128).then_some(v)
}

struct Folder<'a, 'b> {
    tokens: &'a [&'b str],
    at: usize,
}

/// Binding power of a binary operator (higher binds tighter), as in C.
fn power(op: &str) -> Option<u8> {
    Some(match op {
        "|" => 1,
        "^" => 2,
        "&" => 3,
        "<<" | ">>" => 4,
        "+" | "-" => 5,
        "*" | "/" | "%" => 6,
        _ => return None,
    })
}

impl<'b> Folder<'_, 'b> {
    fn peek(&self) -> Option<&'b str> {
        self.tokens.get(self.at).copied()
    }

    fn expr(&mut self, min: u8) -> Option<i128> {
        let mut lhs = self.unary()?;
        while let Some(op) = self.peek() {
            let Some(p) = power(op).filter(|&p| p > min) else {
                break;
            };
            self.at += 1;
            let rhs = self.expr(p)?;
            lhs = apply(op, lhs, rhs)?;
            if lhs.abs() > u64::MAX as i128 {
                return None;
            }
        }
        Some(lhs)
    }

    fn unary(&mut self) -> Option<i128> {
        let tok = self.peek()?;
        self.at += 1;
        match tok {
            "-" => self.unary().map(|v| -v),
            "+" => self.unary(),
            "~" => self.unary().map(|v| !v),
            "(" => {
                let v = self.expr(0)?;
                (self.peek() == Some(")")).then(|| self.at += 1)?;
                Some(v)
            }
            _ => literal(tok),
        }
    }
}

fn apply(op: &str, a: i128, b: i128) -> Option<i128> {
    match op {
        "+" => a.checked_add(b),
        "-" => a.checked_sub(b),
        "*" => a.checked_mul(b),
        "/" => a.checked_div(b),
        "%" => a.checked_rem(b),
        "<<" => (0..63)
            .contains(&b)
            .then(|| a.checked_shl(b as u32))
            .flatten(),
        ">>" => (0..63).contains(&b).then(|| a >> b),
        "&" => Some(a & b),
        "|" => Some(a | b),
        "^" => Some(a ^ b),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(text: &str) -> Option<i128> {
        let tokens: Vec<&str> = text.split(' ').collect();
        value(&tokens)
    }

    #[test]
    fn literals_in_every_spelling() {
        assert_eq!(literal("0x7EBAL"), Some(32442));
        assert_eq!(literal("65532UL"), Some(65532));
        assert_eq!(literal("017"), Some(15));
        assert_eq!(literal("0b101"), Some(5));
        assert_eq!(literal("1_000u32"), Some(1000));
        assert_eq!(literal("10n"), Some(10));
        assert_eq!(literal("0"), Some(0));
        assert_eq!(literal("1.5"), None);
        assert_eq!(literal("1e3"), None);
        assert_eq!(literal("x"), None);
    }

    #[test]
    fn expressions_fold_with_c_precedence() {
        assert_eq!(fold("0x7EBAL + 1"), Some(32443));
        assert_eq!(fold("1 + 2 * 3"), Some(7));
        assert_eq!(fold("( 1 + 2 ) * 3"), Some(9));
        assert_eq!(fold("- 4 >> 1"), Some(-2));
        assert_eq!(fold("1 << 4 | 1"), Some(17));
    }

    #[test]
    fn what_might_not_mean_the_same_is_left_alone() {
        assert_eq!(fold("1 / 0"), None);
        assert_eq!(fold("1 << 70"), None);
        assert_eq!(fold("x + 1"), None);
        assert_eq!(fold("1 +"), None);
        assert_eq!(fold("0xFFFFFFFFFFFFFFFF * 2"), None);
    }
}
