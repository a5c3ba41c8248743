//! A variable read once is inlined (C-Reduce's lesson): its one read gets its initial value,
//! in parentheses unless it is one token, and its declaration goes. `int y = a + 1; return
//! y;` becomes `return (a + 1);`, which the `unwrap`-free passes then shrink as one
//! expression.
//!
//! A variable qualifies when one token declares it, in a node whose `value` field holds the
//! initial value (C's `init_declarator`, JavaScript's and Java's `variable_declarator`,
//! Rust's `let`), and one token reads it, outside that value.

use super::dependencies::statement_around;
use super::lists::{deletion_edit, field_child, is_assigned, kept_tokens};
use super::sites::Sites;
use super::symbols::Symbols;
use super::{Edit, Program};
use crate::tree::{NodeId, TokenId};
use std::ops::Range;

/// Values longer than this many tokens are not copied.
const MAX_VALUE_TOKENS: usize = 24;

#[derive(Clone)]
pub struct Site {
    /// The node with the name and its `value`.
    declarator: NodeId,
    read: TokenId,
}

pub fn pass(prog: &Program) -> Sites<Site> {
    let tree = &prog.tree;
    let mut sites = Vec::new();
    for symbol in Symbols::new(prog).symbols {
        let reads: Vec<TokenId> = symbol
            .tokens
            .iter()
            .filter(|t| !symbol.declarations.contains(t))
            .copied()
            .collect();
        let (&[name], &[read]) = (symbol.declarations.as_slice(), reads.as_slice()) else {
            continue;
        };
        let Some(declarator) = tree.node(tree.tokens[name as usize].node).parent else {
            continue;
        };
        // A write (`y = 3`, `y++`) is no read to inline into.
        let use_node = tree.tokens[read as usize].node;
        let updated = tree
            .node(use_node)
            .parent
            .is_some_and(|p| tree.node(p).kind.starts_with("update"));
        let written = updated || is_assigned(tree, use_node);
        if field_child(tree, declarator, "value").is_some() && !written {
            sites.push(Site { declarator, read });
        }
    }
    Sites::new(sites, edit)
}

fn edit(prog: &Program, site: &Site) -> Option<Edit> {
    let tree = &prog.tree;
    let value = field_child(tree, site.declarator, "value")?;
    let tokens = kept_tokens(prog, value);
    let inside = tree.node(value).tokens();
    if tokens.is_empty() || tokens.len() > MAX_VALUE_TOKENS || inside.contains(&site.read) {
        return None;
    }
    if !prog.kept(site.read) || !prog.alive(site.declarator) {
        return None;
    }
    let text: Vec<&str> = tokens.iter().map(|&t| prog.text_of(t)).collect();
    let text = match text.as_slice() {
        [one] => one.to_string(),
        _ => format!("({})", text.join(" ")),
    };
    let mut edit = declaration_removal(prog, site.declarator)?;
    if !edit.delete.iter().any(|r| r.contains(&site.read)) {
        edit.replace = vec![(site.read, text)];
        return Some(edit);
    }
    None
}

/// An edit that removes declarator `n` (a declared name, or the node around it with its
/// value): with a comma beside it when the declaration has others (`int a = 1, b;`), else
/// the whole statement.
pub fn declaration_removal(prog: &Program, n: NodeId) -> Option<Edit> {
    Some(match declarator_with_comma(prog, n) {
        Some(range) => Edit::deleting(vec![range]),
        None => deletion_edit(prog, &[statement_around(&prog.tree, n)?]),
    })
}

/// The tokens of declarator `n` and of the comma after it (or else before it), when its
/// declaration has another declarator still there.
fn declarator_with_comma(prog: &Program, n: NodeId) -> Option<Range<TokenId>> {
    let tree = &prog.tree;
    let siblings = &tree.node(tree.node(n).parent?).children;
    let at = siblings.iter().position(|&c| c == n)?;
    let comma = |i: usize| {
        let c = *siblings.get(i)?;
        (tree.node_text(c) == "," && prog.alive(c)).then_some(c)
    };
    let range = |a: NodeId, b: NodeId| tree.node(a).first_token..tree.node(b).end_token;
    let declarator =
        tree.node(n).kind.contains("declarator") || tree.node(n).field == Some("declarator");
    if !declarator || siblings_alive(prog, n) < 2 {
        return None;
    }
    match comma(at + 1) {
        Some(c) => Some(range(n, c)),
        None => comma(at.checked_sub(1)?).map(|c| range(c, n)),
    }
}

/// How many of `n`'s parent's children of `n`'s field are still there.
fn siblings_alive(prog: &Program, n: NodeId) -> usize {
    let tree = &prog.tree;
    let field = tree.node(n).field;
    tree.node(n).parent.map_or(0, |p| {
        tree.node(p)
            .children
            .iter()
            .filter(|&&c| tree.node(c).field == field && tree.node(c).named && prog.alive(c))
            .count()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Lang;

    fn candidates(lang: Lang, text: &str) -> Vec<String> {
        crate::reduce::tests::candidates(lang, text, pass)
    }

    #[test]
    fn c_variables_read_once_are_inlined() {
        let text = "int f(int a) { int y = a + 1, z = 2; int w = y * z; return w; }\n";
        assert_eq!(
            candidates(Lang::C, text),
            [
                // A declarator goes with its comma; its declaration stays for the other.
                "int f(int a) { int z = 2; int w = (a + 1) * z; return w; }\n",
                "int f(int a) { int y = a + 1; int w = y * 2; return w; }\n",
                "int f(int a) { int y = a + 1, z = 2; return (y * z); }\n",
            ]
        );
    }

    #[test]
    fn every_language_inlines_a_variable_read_once() {
        for (lang, text, inlined) in [
            (
                Lang::Cpp,
                "int f(int a) { auto y = a + 1; return y; }\n",
                "int f(int a) { return (a + 1); }\n",
            ),
            (
                Lang::Rust,
                "fn f(a: u8) -> u8 { let y = a + 1; y * 2 }\n",
                "fn f(a: u8) -> u8 { (a + 1) * 2 }\n",
            ),
            (
                Lang::JavaScript,
                "function f(a) { const y = a + 1; return y; }\n",
                "function f(a) { return (a + 1); }\n",
            ),
            (
                Lang::Java,
                "class A { int f(int a) { int y = a + 1; return y; } }\n",
                "class A { int f(int a) { return (a + 1); } }\n",
            ),
        ] {
            assert_eq!(candidates(lang, text), [inlined], "{lang:?}");
        }
    }

    #[test]
    fn a_variable_read_twice_or_written_stays() {
        let text = "int f(int a) { int y = a + 1; y = 3; return y; }\nint g(int a) { int y = a; return y + y; }\nint h(void) { int y = 1; y = 3; }\nint k(void) { int y = 1; y++; }\n";
        assert!(candidates(Lang::C, text).is_empty());
    }
}
