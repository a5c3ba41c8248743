//! The `tag-into-use` rewrite: a struct, union or enum defined on its own and named once more
//! is defined where it is used, `struct S {...}; struct S x;` to `struct S {...} x;` (or
//! `struct S {...} f() {...}`), or without its tag (`struct {...} x;`). Deletion cannot get there: the definition's `;` and the use's
//! `struct S` go only together, and the body moves.
//!
//! The kinds are the language's tag specifiers ([`crate::grammars::Names::tag_specifiers`]):
//! C and C++. The same for a function declared on its own and used once as a value, where its
//! declaration reads as an expression too ([`crate::grammars::Names::function_declarations`]):
//! JavaScript's `exports.f = f; function f() {...}` to `exports.f = function f() {...}` or
//! `function () {...}`.

use super::lists::{field_child, kept_tokens};
use super::sites::Sites;
use super::{Edit, Program};
use crate::tree::{NodeId, TokenId};
use crate::unparse::unparse_refs_with;
use std::collections::HashMap;

/// A definition, its one use, and whether the tag goes (the one use needs no name).
pub type Site = (NodeId, NodeId, bool);

pub fn pass(prog: &Program) -> Sites<Site> {
    Sites::new(sites(prog), edit)
}

fn sites(prog: &Program) -> Vec<Site> {
    let mut out = tag_sites(prog);
    out.extend(function_sites(prog));
    out
}

fn tag_sites(prog: &Program) -> Vec<Site> {
    let tree = &prog.tree;
    let tags = tree.lang.kinds().names.tag_specifiers;
    let name = |n: NodeId| {
        let t = kept_tokens(prog, field_child(tree, n, "name")?);
        (t.len() == 1).then(|| prog.text_of(t[0]).to_string())
    };
    // The specifiers by kind and name, so that a definition finds its uses in one lookup
    // (a preprocessed C++ file has thousands of them).
    let mut named: HashMap<(_, String), Vec<NodeId>> = HashMap::new();
    for n in 0..tree.nodes.len() as NodeId {
        let node = tree.node(n);
        if node.extra || !tags.contains(&node.kind) || !prog.alive(n) {
            continue;
        }
        if let Some(tag) = name(n) {
            named.entry((node.kind, tag)).or_default().push(n);
        }
    }
    let mut out = Vec::new();
    // Nodes in tree order, so the sites come in the order of the definitions.
    let mut groups: Vec<&Vec<NodeId>> = named.values().filter(|g| g.len() == 2).collect();
    groups.sort_unstable_by_key(|g| g[0]);
    for group in groups {
        for (d, u) in [(group[0], group[1]), (group[1], group[0])] {
            // Not a use inside the body itself (`struct S { struct S *next; }`).
            let inside = tree.node(d).tokens().contains(&tree.node(u).first_token);
            if field_child(tree, d, "body").is_none()
                || field_child(tree, u, "body").is_some()
                || inside
                || standalone(prog, d).is_none()
            {
                continue;
            }
            out.extend([(d, u, true), (d, u, false)]);
        }
    }
    out
}

/// Function declarations whose name occurs once more, as a value (not called: a call of a
/// function expression needs parentheses), outside the function.
fn function_sites(prog: &Program) -> Vec<Site> {
    let tree = &prog.tree;
    let kinds = tree.lang.kinds();
    let declarations = kinds.names.function_declarations;
    if declarations.is_empty() {
        return Vec::new();
    }
    let identifier = kinds.identifier;
    // Each name's kept occurrences, once for the whole program.
    let mut occurrences: HashMap<&str, Vec<TokenId>> = HashMap::new();
    for (t, token) in tree.tokens.iter().enumerate() {
        let t = t as TokenId;
        if prog.kept(t) && tree.node(token.node).kind == identifier {
            occurrences.entry(prog.text_of(t)).or_default().push(t);
        }
    }
    let mut out = Vec::new();
    for d in 0..tree.nodes.len() as NodeId {
        let node = tree.node(d);
        if !declarations.contains(&node.kind) || !prog.alive(d) {
            continue;
        }
        let Some(name) = field_child(tree, d, "name") else {
            continue;
        };
        let name = tree.node(name);
        let Some(uses) = occurrences.get(prog.text_of(name.first_token)) else {
            continue;
        };
        let &[a, b] = uses.as_slice() else {
            continue;
        };
        let used = if a == name.first_token { b } else { a };
        let leaf = tree.tokens[used as usize].node;
        // A call's callee is its `function` field.
        let called = tree.node(leaf).field == Some("function");
        if called || node.tokens().contains(&used) {
            continue;
        }
        out.extend([(d, leaf, false), (d, leaf, true)]);
    }
    out
}

/// The tokens of definition `d` standing alone with its `;`, if it does: a declaration of
/// nothing else, or `d` and a `;` of its parent (C's `struct S {...};` at file scope).
fn standalone(prog: &Program, d: NodeId) -> Option<std::ops::Range<TokenId>> {
    let tree = &prog.tree;
    let parent = tree.node(d).parent?;
    let (outer, inner) = (kept_tokens(prog, parent), kept_tokens(prog, d));
    if outer.len() == inner.len() + 1
        && outer.starts_with(&inner)
        && prog.text_of(*outer.last()?) == ";"
    {
        return Some(tree.node(parent).tokens());
    }
    let end = tree.node(d).tokens().end;
    let semicolon = *outer.iter().find(|&&t| t >= end)?;
    let leaf = tree.tokens[semicolon as usize].node;
    (prog.text_of(semicolon) == ";" && tree.node(leaf).parent == Some(parent))
        .then(|| tree.node(d).first_token..semicolon + 1)
}

/// The definition's declaration goes; the use's name becomes the body (`struct {...} x;`), or
/// the name and the body.
fn edit(prog: &Program, &(d, u, anonymous): &Site) -> Option<Edit> {
    let tree = &prog.tree;
    if !prog.alive(d) || !prog.alive(u) {
        return None;
    }
    let functions = tree.lang.kinds().names.function_declarations;
    if functions.contains(&tree.node(d).kind) {
        return function_edit(prog, d, u, anonymous);
    }
    let definition = standalone(prog, d)?;
    let body = kept_tokens(prog, field_child(tree, d, "body")?);
    let name = *kept_tokens(prog, field_child(tree, u, "name")?).first()?;
    let mut text = if anonymous {
        String::new()
    } else {
        prog.text_of(name).to_string()
    };
    for t in body {
        text.push(' ');
        text.push_str(prog.text_of(t));
    }
    Some(Edit {
        delete: vec![definition],
        replace: vec![(name, text)],
        ..Edit::default()
    })
}

/// The declaration goes; its text (without its name, if `anonymous`), with its own spacing
/// (a string's quotes and text are tokens apart), takes the use's place.
fn function_edit(prog: &Program, d: NodeId, u: NodeId, anonymous: bool) -> Option<Edit> {
    let tree = &prog.tree;
    let name = tree.node(field_child(tree, d, "name")?).tokens();
    let kept = kept_tokens(prog, d)
        .into_iter()
        .filter(|t| !(anonymous && name.contains(t)));
    let text = unparse_refs_with(&[tree], kept.map(|t| (0, t)), &[&prog.subst]);
    let used = tree.node(u).first_token;
    Some(Edit {
        delete: vec![tree.node(d).tokens()],
        replace: vec![(used, text.trim().to_string())],
        ..Edit::default()
    })
}
