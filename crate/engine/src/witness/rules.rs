//! DiWi's witnessing mutation rules (Table 1 of the paper), over a parse tree: where each
//! rule can apply in a program (its sites) and what it may put there. A site is a byte range
//! of the original program and the texts that may replace it; a mutant is the original with
//! edits at some sites ([`super::mutant`]).
//!
//! Operators, unary operators, constants and variables are found by operator text and by
//! the node kinds of the language's table ([`Witness`]); qualifiers and modifiers where its
//! types have them (C's and C++'s).

use super::scopes::{is_typedef, is_use, Scopes};
use crate::grammars::kinds::{Kinds, Witness};
use crate::literal::Integer;
use crate::tree::{NodeId, Tree};
use std::collections::HashMap;

/// One mutation rule. A rule is what it does, wherever: replacing `x` by `y` and `x` by `z`
/// are one rule (DiWi §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// A variable replaced by another in scope of the same declared type.
    Variable,
    ArithmeticOp,
    RelationalOp,
    LogicalOp,
    BitwiseOp,
    AssignmentOp,
    /// `!x`, `-x`, `~x`, `x++` ... : the operator replaced by another.
    UnaryReplace,
    /// The unary operator dropped: `!x` to `x`, `x++` to `x`.
    UnaryRemove,
    /// A unary operator put before a variable.
    UnaryInsert,
    ConstZero,
    ConstOne,
    ConstMinusOne,
    ConstPlusOne,
    ConstMinusOneStep,
    ConstDouble,
    QualifierInsertConst,
    QualifierInsertVolatile,
    QualifierInsertRestrict,
    QualifierRemove,
    ModifierInsert,
    ModifierRemove,
    ModifierReplace,
    /// A local variable declared without a value gets `= 0` (`= {0}` for an array): beyond
    /// the paper's table, for bugs that hang on a read of an uninitialised variable.
    InitializerInsert,
    /// A variable's initial value, when it is not a literal, becomes `0`: beyond the paper's
    /// table, for bugs in how an initialiser converts.
    InitializerZero,
    /// The one statement an `if`, `else` or loop guards put in braces: beyond the paper's
    /// table, for diagnostics about layout (misleading indentation) that no token edit fixes.
    GuardBraces,
}

whittle_grammars::names!(Rule {
    Variable => "variable",
    ArithmeticOp => "arithmetic-operator",
    RelationalOp => "relational-operator",
    LogicalOp => "logical-operator",
    BitwiseOp => "bitwise-operator",
    AssignmentOp => "assignment-operator",
    UnaryReplace => "unary-replace",
    UnaryRemove => "unary-remove",
    UnaryInsert => "unary-insert",
    ConstZero => "constant-zero",
    ConstOne => "constant-one",
    ConstMinusOne => "constant-minus-one",
    ConstPlusOne => "constant-plus-one",
    ConstMinusOneStep => "constant-minus-one-step",
    ConstDouble => "constant-double",
    QualifierInsertConst => "qualifier-insert-const",
    QualifierInsertVolatile => "qualifier-insert-volatile",
    QualifierInsertRestrict => "qualifier-insert-restrict",
    QualifierRemove => "qualifier-remove",
    ModifierInsert => "modifier-insert",
    ModifierRemove => "modifier-remove",
    ModifierReplace => "modifier-replace",
    InitializerInsert => "initializer-insert",
    InitializerZero => "initializer-zero",
    GuardBraces => "guard-braces",
});

/// Where a rule applies: bytes `start..end` of the original may become any of `choices`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    pub start: u32,
    pub end: u32,
    pub choices: Vec<String>,
}

/// Every rule's sites in one program.
#[derive(Debug, Default)]
pub struct RuleSites(pub HashMap<Rule, Vec<Site>>);

impl RuleSites {
    pub fn of(tree: &Tree) -> RuleSites {
        let mut finder = Finder {
            tree,
            sites: HashMap::new(),
            scopes: Scopes::of(tree),
        };
        for id in 0..tree.nodes.len() as NodeId {
            if !finder.in_oracle(id) {
                finder.visit(id);
            }
        }
        finder.sites.retain(|_, v| !v.is_empty());
        RuleSites(finder.sites)
    }

    /// The rules that apply somewhere, in [`Rule::ALL`]'s order.
    pub fn rules(&self) -> Vec<Rule> {
        Rule::ALL
            .into_iter()
            .filter(|r| self.0.contains_key(r))
            .collect()
    }

    pub fn of_rule(&self, rule: Rule) -> &[Site] {
        self.0.get(&rule).map_or(&[], Vec::as_slice)
    }
}

const ARITHMETIC: &[&str] = &["+", "-", "*", "/", "%"];
const RELATIONAL: &[&str] = &["<", ">", "<=", ">=", "==", "!="];
const LOGICAL: &[&str] = &["&&", "||"];
const BITWISE: &[&str] = &["&", "|", "^", "<<", ">>"];
const ASSIGNMENT: &[&str] = &[
    "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=",
];
const UPDATE: &[&str] = &["++", "--"];
const MODIFIERS: &[&str] = &["long", "short", "signed", "unsigned"];

struct Finder<'t> {
    tree: &'t Tree,
    sites: HashMap<Rule, Vec<Site>>,
    scopes: Scopes,
}

impl<'t> Finder<'t> {
    fn kinds(&self) -> &'static Kinds {
        self.tree.lang.kinds()
    }

    fn witness(&self) -> &'static Witness {
        &self.kinds().witness
    }

    fn add(&mut self, rule: Rule, start: u32, end: u32, choices: Vec<String>) {
        if !choices.is_empty() {
            self.sites.entry(rule).or_default().push(Site {
                start,
                end,
                choices,
            });
        }
    }

    fn text(&self, id: NodeId) -> &'t str {
        let tree: &'t Tree = self.tree;
        tree.node_text(id)
    }

    fn parent_kind(&self, id: NodeId) -> &'static str {
        self.tree
            .node(id)
            .parent
            .map_or("", |p| self.tree.node(p).kind)
    }

    /// Whether `id` is inside an argument list of an output call.
    fn in_oracle(&self, mut id: NodeId) -> bool {
        let w = self.witness();
        while let Some(p) = self.tree.node(id).parent {
            let node = self.tree.node(p);
            if w.calls.contains(&node.kind) {
                let callee: String = node
                    .children
                    .iter()
                    .take_while(|&&c| !w.arguments.contains(&self.tree.node(c).kind))
                    .map(|&c| self.text(c))
                    .collect();
                if w.oracles.contains(&callee.as_str()) {
                    return true;
                }
            }
            id = p;
        }
        false
    }

    fn visit(&mut self, id: NodeId) {
        let node = self.tree.node(id);
        let parent = self.parent_kind(id);
        let text = self.text(id).to_string();
        if !node.named && node.children.is_empty() {
            self.operator(id, parent, &text);
            return;
        }
        let w = self.witness();
        if w.declarations.contains(&node.kind) {
            self.initializers(id);
        }
        if w.initialized.contains(&node.kind) {
            self.initial_value(id);
        }
        if is_guarded(self.tree, id) {
            let body = format!("{{ {text} }}");
            self.add(Rule::GuardBraces, node.start, node.end, vec![body]);
        }
        if w.integers.contains(&node.kind) {
            self.constant(node.start, node.end, &text);
        } else if node.kind == self.kinds().identifier {
            self.variable(id);
        } else if self.kinds().types.qualifier.is_some() {
            self.c_types(id);
        }
    }

    /// Binary, assignment and unary operators: the operator token replaced or dropped.
    fn operator(&mut self, id: NodeId, parent: &str, op: &str) {
        let n = self.tree.node(id);
        let (start, end) = (n.start, n.end);
        let others = |class: &[&str]| -> Vec<String> {
            class
                .iter()
                .filter(|&&o| o != op)
                .map(|o| o.to_string())
                .collect()
        };
        let w = self.witness();
        if w.binary.contains(&parent) {
            for (rule, class) in [
                (Rule::ArithmeticOp, ARITHMETIC),
                (Rule::RelationalOp, RELATIONAL),
                (Rule::LogicalOp, LOGICAL),
                (Rule::BitwiseOp, BITWISE),
            ] {
                if class.contains(&op) {
                    self.add(rule, start, end, others(class));
                }
            }
        } else if w.assignments.contains(&parent) && ASSIGNMENT.contains(&op) {
            // Rust's plain `=` is its own kind: it stays `=`.
            let class = match Some(parent) == w.compound_assignment {
                true => &ASSIGNMENT[1..],
                false => ASSIGNMENT,
            };
            self.add(Rule::AssignmentOp, start, end, others(class));
        } else if Some(parent) == w.unary && w.prefix_operators.contains(&op) {
            self.add(Rule::UnaryReplace, start, end, others(w.prefix_operators));
            self.add(Rule::UnaryRemove, start, end, vec![String::new()]);
        } else if Some(parent) == w.update && UPDATE.contains(&op) {
            self.add(Rule::UnaryReplace, start, end, others(UPDATE));
            self.add(Rule::UnaryRemove, start, end, vec![String::new()]);
        }
    }

    /// An integer literal: 0, 1, -1, n+1, n-1, 2n, keeping its suffix (`10UL`, `5i32`).
    fn constant(&mut self, start: u32, end: u32, text: &str) {
        let Some((value, suffix)) = parse_integer(text) else {
            return;
        };
        // `x-1` with `-1` for `1` would lex as `x--1`: such a minus gets parentheses.
        let before = self.tree.text.as_bytes()[..start as usize]
            .iter()
            .rev()
            .find(|b| !b.is_ascii_whitespace())
            .copied();
        let show = |v: i128| -> Option<String> {
            let t = format!("{v}{suffix}");
            if t == text {
                return None;
            }
            Some(if v < 0 && matches!(before, Some(b'-' | b'+')) {
                format!("({t})")
            } else {
                t
            })
        };
        for (rule, v) in [
            (Rule::ConstZero, 0),
            (Rule::ConstOne, 1),
            (Rule::ConstMinusOne, -1),
            (Rule::ConstPlusOne, value + 1),
            (Rule::ConstMinusOneStep, value - 1),
            (Rule::ConstDouble, value * 2),
        ] {
            if let Some(t) = show(v) {
                if value != v {
                    self.add(rule, start, end, vec![t]);
                }
            }
        }
    }

    /// A variable's use: another variable visible here with the same declared type, or a
    /// unary operator put before it.
    fn variable(&mut self, id: NodeId) {
        let n = self.tree.node(id);
        if !is_use(self.tree, id) {
            return;
        }
        let name = self.text(id);
        let Some(ty) = self.scopes.type_of(name, n.start) else {
            return; // not a variable this program declares (a function, a macro, ...)
        };
        let others: Vec<String> = self
            .scopes
            .visible(n.start)
            .into_iter()
            .filter(|d| d.ty == ty && d.name != name)
            .map(|d| d.name.clone())
            .collect();
        let (start, end) = (n.start, n.end);
        self.add(Rule::Variable, start, end, dedup(others));
        let before = self.tree.text.as_bytes()[..start as usize]
            .iter()
            .rev()
            .find(|b| !b.is_ascii_whitespace())
            .copied();
        let choices = self
            .witness()
            .prefix_operators
            .iter()
            .filter(|op| before != Some(op.as_bytes()[0]))
            .map(|op| format!("{op}{name}"))
            .collect();
        self.add(Rule::UnaryInsert, start, end, choices);
    }

    /// `int i;` in a function body: `int i = 0;` (an array `= {0}`).
    fn initializers(&mut self, id: NodeId) {
        if !self.in_function(id) || is_typedef(self.tree, id) || self.declares_function(id) {
            return;
        }
        let (n, kinds) = (self.tree.node(id), self.kinds());
        for &c in &n.children {
            let d = self.tree.node(c);
            if d.field != Some("declarator") {
                continue;
            }
            let target = if kinds.variables.wrappers.contains(&d.kind) {
                // A declarator without a value has only its name (Java's).
                if d.children.len() != 1 {
                    continue;
                }
                d.children[0]
            } else {
                c
            };
            let t = self.tree.node(target);
            let value =
                if t.kind == kinds.identifier || Some(t.kind) == kinds.types.pointer_declarator {
                    " = 0"
                } else if Some(t.kind) == kinds.array_declarator {
                    " = {0}"
                } else {
                    continue;
                };
            self.add(Rule::InitializerInsert, t.end, t.end, vec![value.into()]);
        }
    }

    /// `T x = f(y);` becomes `T x = 0;`: a value that is not already a literal.
    fn initial_value(&mut self, id: NodeId) {
        let Some(value) = self.field(id, "value") else {
            return;
        };
        let v = self.tree.node(value);
        if self.witness().literal_values.contains(&v.kind) {
            return;
        }
        self.add(Rule::InitializerZero, v.start, v.end, vec!["0".into()]);
    }

    fn in_function(&self, id: NodeId) -> bool {
        let mut at = self.tree.node(id).parent;
        while let Some(p) = at {
            if self
                .kinds()
                .variables
                .functions
                .contains(&self.tree.node(p).kind)
            {
                return true;
            }
            at = self.tree.node(p).parent;
        }
        false
    }

    /// C's qualifiers and modifiers: `const`, `volatile`, `restrict`; `long`, `short`,
    /// `signed`, `unsigned`.
    fn c_types(&mut self, id: NodeId) {
        let n = self.tree.node(id);
        let (start, end, kind) = (n.start, n.end, n.kind);
        let parent = self.parent_kind(id);
        let (kinds, types) = (self.kinds(), &self.kinds().types);
        if Some(kind) == types.qualifier {
            // The qualifier with the blank after it.
            let rest = &self.tree.text[end as usize..];
            let blank = rest.len() - rest.trim_start().len();
            self.add(
                Rule::QualifierRemove,
                start,
                end + blank as u32,
                vec![String::new()],
            );
        } else if Some(kind) == kinds.declaration {
            if self.declares_function(id) {
                return;
            }
            if let Some(ty) = self.field(id, "type") {
                let at = self.tree.node(ty).start;
                self.add(Rule::QualifierInsertConst, at, at, vec!["const ".into()]);
                self.add(
                    Rule::QualifierInsertVolatile,
                    at,
                    at,
                    vec!["volatile ".into()],
                );
            }
        } else if Some(kind) == types.pointer_declarator {
            let star = n.children.first().copied();
            let next = n.children.get(1).map(|&c| self.tree.node(c).kind);
            if let (Some(star), false) = (star, next == types.qualifier) {
                let at = self.tree.node(star).end;
                self.add(
                    Rule::QualifierInsertRestrict,
                    at,
                    at,
                    vec![" restrict ".into()],
                );
            }
        } else if Some(kind) == types.words {
            self.sized(id);
        } else if Some(kind) == types.primitive && kinds.witness.modified.contains(&parent) {
            let t = self.text(id);
            let choices: Vec<String> = match t {
                "int" => ["unsigned", "long", "short", "long long"]
                    .iter()
                    .map(|m| format!("{m} int"))
                    .collect(),
                "char" => vec!["unsigned char".into(), "signed char".into()],
                "double" => vec!["long double".into()],
                _ => vec![],
            };
            self.add(Rule::ModifierInsert, start, end, choices);
        }
    }

    /// `unsigned long`, `short int`: a modifier dropped, replaced, or one added.
    fn sized(&mut self, id: NodeId) {
        let n = self.tree.node(id);
        let words: Vec<&str> = self.text(id).split_whitespace().collect();
        let (start, end) = (n.start, n.end);
        let join = |w: Vec<&str>| -> String {
            if w.iter().all(|w| MODIFIERS.contains(w))
                && !w.iter().any(|w| matches!(*w, "long" | "short"))
            {
                // `unsigned` alone is `unsigned int`; nothing left is `int`.
                let mut w = w;
                w.push("int");
                return w.join(" ");
            }
            w.join(" ")
        };
        let mut removed = vec![];
        let mut replaced = vec![];
        for (i, w) in words.iter().enumerate() {
            if !MODIFIERS.contains(w) {
                continue;
            }
            let mut rest = words.clone();
            rest.remove(i);
            removed.push(join(rest));
            let other = match *w {
                "long" => "short",
                "short" => "long",
                "signed" => "unsigned",
                _ => "signed",
            };
            let mut swapped = words.clone();
            swapped[i] = other;
            replaced.push(join(swapped));
        }
        if !words.iter().any(|w| matches!(*w, "signed" | "unsigned")) {
            self.add(
                Rule::ModifierInsert,
                start,
                end,
                vec![format!("unsigned {}", words.join(" "))],
            );
        }
        let original = words.join(" ");
        let keep = |v: Vec<String>| {
            dedup(
                v.into_iter()
                    .filter(|t| *t != original && !t.is_empty())
                    .collect(),
            )
        };
        self.add(Rule::ModifierRemove, start, end, keep(removed));
        self.add(Rule::ModifierReplace, start, end, keep(replaced));
    }

    fn field(&self, id: NodeId, name: &str) -> Option<NodeId> {
        self.tree
            .node(id)
            .children
            .iter()
            .copied()
            .find(|&c| self.tree.node(c).field == Some(name))
    }

    /// A prototype or a typedef: qualifiers on it change no variable.
    fn declares_function(&self, id: NodeId) -> bool {
        let (n, kinds) = (self.tree.node(id), self.kinds());
        let function = |k: NodeId| self.tree.node(k).kind == kinds.function_declarator;
        n.children.iter().any(|&c| {
            let k = self.tree.node(c);
            Some(k.kind) == kinds.types.storage_class && self.text(c) == "extern"
                || k.field == Some("declarator")
                    && (function(c)
                        || (Some(k.kind) == kinds.init_declarator && function(k.children[0])))
        })
    }
}

/// Whether `id` is the single statement a guard runs (not a block, not the `if` of an
/// `else if`).
fn is_guarded(tree: &Tree, id: NodeId) -> bool {
    let n = tree.node(id);
    let Some(parent) = n.parent.map(|p| tree.node(p)) else {
        return false;
    };
    let w = &tree.lang.kinds().witness;
    let guarded = if Some(parent.kind) == w.else_clause {
        true
    } else if w.guards.contains(&parent.kind) {
        matches!(n.field, Some("consequence" | "body" | "alternative"))
    } else {
        false
    };
    let else_if = Some(n.kind) == w.if_statement
        && (Some(parent.kind) == w.else_clause || n.field == Some("alternative"));
    guarded && n.named && !w.blocks.contains(&n.kind) && Some(n.kind) != w.else_clause && !else_if
}

fn dedup(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v.dedup();
    v
}

/// The value and suffix of an integer literal (`0x10UL` is 16, `UL`); `None` for floats
/// and what does not fit.
pub(crate) fn parse_integer(text: &str) -> Option<(i128, &str)> {
    let int = Integer::read(text.trim())?;
    // Octal and binary would read back as decimal (`010` as 10): left alone.
    if !matches!(int.radix, 10 | 16) {
        return None;
    }
    let v = int.value()?;
    (v < 1 << 62).then_some((v as i128, int.suffix))
}

#[cfg(test)]
mod tests;
