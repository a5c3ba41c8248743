//! The `file-scope` rewrite, C only: a function's local `int` declaration moves to file scope,
//! before the function: `f() { mode_t b; int c; c == b; }` to `int c; f() { mode_t b; c ==
//! b; }`. As many tokens, but a file-scope declaration may then lose its type, which a local
//! one cannot (C89's implicit int, in the finale: `c;`), so the program ends a token smaller
//! for each. C-Vise and C-Reduce reach such results through their own moves of locals.

use super::lists::{field_child, kept_tokens};
use super::sites::Sites;
use super::{Edit, Program};
use crate::tree::NodeId;
use crate::unparse::unparse_refs_with;

/// A local declaration and the function whose body holds it.
pub type Site = (NodeId, NodeId);

pub fn pass(prog: &Program) -> Sites<Site> {
    Sites::new(sites(prog), edit)
}

/// The declarations, in order, of type `int` without an initial value (one would read the
/// function's parameters or locals more often than not), directly in the body of a function
/// defined at file scope.
fn sites(prog: &Program) -> Vec<Site> {
    let tree = &prog.tree;
    let kinds = tree.lang.kinds();
    let (Some(implicit), Some(function), Some(declaration)) = (
        kinds.types.implicit,
        kinds.function_definition,
        kinds.declaration,
    ) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for &f in &tree.node(tree.root()).children {
        if tree.node(f).kind != function || !prog.alive(f) {
            continue;
        }
        let Some(body) = field_child(tree, f, "body") else {
            continue;
        };
        for &d in &tree.node(body).children {
            let node = tree.node(d);
            let int = field_child(tree, d, "type").is_some_and(|t| tree.node_text(t) == implicit);
            // The declarators themselves: no `x = ...`.
            let plain = node
                .children
                .iter()
                .filter(|&&c| tree.node(c).field == Some("declarator"))
                .all(|&c| field_child(tree, c, "value").is_none());
            if node.kind == declaration && prog.alive(d) && int && plain {
                out.push((d, f));
            }
        }
    }
    out
}

/// The declaration goes from the body and comes back before the function's first token.
fn edit(prog: &Program, &(d, f): &Site) -> Option<Edit> {
    let tree = &prog.tree;
    if !prog.alive(d) || !prog.alive(f) {
        return None;
    }
    let kept = kept_tokens(prog, d);
    let text = unparse_refs_with(&[tree], kept.iter().map(|&t| (0, t)), &[&prog.subst]);
    let first = *kept_tokens(prog, f).first()?;
    Some(Edit {
        delete: vec![tree.node(d).tokens()],
        replace: vec![(first, format!("{}\n{}", text.trim(), prog.text_of(first)))],
        ..Edit::default()
    })
}
