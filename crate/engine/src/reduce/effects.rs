//! The `effects` rewrite: a statement becomes the expression statement of the part of it that
//! may matter, where deletion alone stops at the longer statement:
//!
//! - a branch or a loop without `else` keeps its condition alone: `if (E) S`, `while (E) S`,
//!   `do S while (E);` and `for (I; E; U) S` become `E;` (a diagnostic about `E` stays when the
//!   body goes, and `0;` would lose `E`);
//! - a `return E;` keeps its value alone: `E;` (a call in `E` keeps its diagnostic without the
//!   function's return).
//!
//! Sites are found from the tree's fields (`condition`, `consequence` or `body`, no
//! `alternative`), so every language whose grammar names them gets them.

use super::lists::{field_child, is_a, kept_tokens};
use super::sites::Sites;
use super::{Edit, Program};
use crate::tree::NodeId;

/// At most this many statements in one round, largest first.
const MAX_SITES: usize = 200;

#[derive(Clone, Copy, Debug)]
pub enum Site {
    /// An `if` without `else`, or a loop, to its condition.
    Condition(NodeId),
    /// A `return E;` to `E;`.
    Value(NodeId),
}

pub fn pass(prog: &Program) -> Sites<Site> {
    let tree = &prog.tree;
    let k = tree.lang.kinds();
    let mut sites: Vec<(usize, Site)> = Vec::new();
    for n in 0..tree.nodes.len() as NodeId {
        let node = tree.node(n);
        if node.extra || !node.named || !prog.alive(n) {
            continue;
        }
        // A statement, or an expression standing as one: its parent adds at most a `;`
        // (Rust's `if` and `return` in an expression statement).
        let statement = is_a(tree, node.kind, k.statement)
            || node.parent.is_some_and(|p| {
                let (outer, inner) = (kept_tokens(prog, p), kept_tokens(prog, n));
                !is_a(tree, tree.node(p).kind, k.expression)
                    && outer.starts_with(&inner)
                    && outer[inner.len()..].iter().all(|&t| prog.text_of(t) == ";")
                    && outer.len() <= inner.len() + 1
            });
        if !statement {
            continue;
        }
        if condition_alone(prog, n).is_some() {
            sites.push((prog.size_of(n), Site::Condition(n)));
        } else if value_alone(prog, n).is_some() {
            sites.push((prog.size_of(n), Site::Value(n)));
        }
    }
    sites.sort_by_key(|&(size, site)| {
        let (Site::Condition(n) | Site::Value(n)) = site;
        (std::cmp::Reverse(size), n)
    });
    let sites = sites.into_iter().take(MAX_SITES).map(|(_, s)| s).collect();
    Sites::new(sites, edit)
}

fn edit(prog: &Program, site: &Site) -> Option<Edit> {
    match *site {
        Site::Condition(n) => condition_alone(prog, n),
        Site::Value(n) => value_alone(prog, n),
    }
}

/// Statement `n` as its condition's expression statement: every token of `n` goes but the
/// condition's inside (without its parentheses or its `;`) and the token after it, which
/// becomes `;`. `None` where `n` has no condition and body, has an `else`, or the condition
/// is empty.
pub fn condition_alone(prog: &Program, n: NodeId) -> Option<Edit> {
    let tree = &prog.tree;
    let condition = field_child(tree, n, "condition")?;
    let body = field_child(tree, n, "consequence").or_else(|| field_child(tree, n, "body"))?;
    if field_child(tree, n, "alternative").is_some() || !prog.alive(body) {
        return None;
    }
    let mut inside: &[_] = &kept_tokens(prog, condition);
    let text = |i: &[_], at: usize| prog.text_of(i[at]);
    if inside.len() >= 2 && text(inside, 0) == "(" && text(inside, inside.len() - 1) == ")" {
        inside = &inside[1..inside.len() - 1];
    }
    if inside.last().is_some_and(|&t| prog.text_of(t) == ";") {
        inside = &inside[..inside.len() - 1];
    }
    let (&first, &last) = (inside.first()?, inside.last()?);
    let all = kept_tokens(prog, n);
    let after = *all.iter().find(|&&t| t > last)?;
    let range = tree.node(n).tokens();
    Some(Edit {
        delete: vec![range.start..first, after + 1..range.end],
        replace: vec![(after, ";".to_string())],
        ..Edit::default()
    })
}

/// `return E;` as `E;`: the keyword goes. `None` where `n` is no `return` with a value.
fn value_alone(prog: &Program, n: NodeId) -> Option<Edit> {
    let tokens = kept_tokens(prog, n);
    let &keyword = tokens.first()?;
    let keyword_node = prog.tree.tokens[keyword as usize].node;
    if prog.text_of(keyword) != "return" || prog.tree.node(keyword_node).named {
        return None;
    }
    // A value after the keyword, not only its `;`.
    if tokens.get(1).is_none_or(|&t| prog.text_of(t) == ";") {
        return None;
    }
    Some(Edit::deleting(vec![keyword..keyword + 1]))
}
