//! What the rules need to know of a program's variables: where one is used, which are
//! visible at a point, and their declared types ([`Scopes`]).

use crate::grammars::kinds::Variables;
use crate::tree::{NodeId, Tree};

/// Whether an identifier is read or written as a variable here (not declared, not called,
/// not a field or a label).
pub(super) fn is_use(tree: &Tree, id: NodeId) -> bool {
    let n = tree.node(id);
    if matches!(
        n.field,
        Some("declarator" | "name" | "pattern" | "function" | "label" | "type" | "field" | "macro")
    ) {
        return false;
    }
    let parent = n.parent.map_or("", |p| tree.node(p).kind);
    !variables(tree).not_uses_under.contains(&parent)
}

fn variables(tree: &Tree) -> &'static Variables {
    &tree.lang.kinds().variables
}

/// A declared variable: its name, its type as written (with `*` and `[]` for pointer and
/// array declarators), where it is visible from and in which scope.
#[derive(Clone, Debug)]
pub(super) struct Declared {
    pub(super) name: String,
    pub(super) ty: String,
    from: u32,
    scope: (u32, u32),
}

/// The variables of a program, for finding the ones visible at a point.
#[derive(Debug, Default)]
pub(super) struct Scopes(Vec<Declared>);

impl Scopes {
    pub(super) fn of(tree: &Tree) -> Scopes {
        let vars = variables(tree);
        let mut out = vec![];
        for id in 0..tree.nodes.len() as NodeId {
            let n = tree.node(id);
            let parameter = vars.parameters.contains(&n.kind);
            if Some(n.kind) == vars.bare_parameters {
                out.extend(bare_parameters(tree, id));
                continue;
            }
            if !parameter && !vars.declarations.contains(&n.kind) {
                continue;
            }
            let Some(scope) = scope_of(tree, id) else {
                continue;
            };
            // A prototype's parameters are in no function's scope.
            if parameter && !vars.functions.contains(&tree.node(scope).kind) {
                continue;
            }
            if tree.node(scope).kind == vars.file && is_typedef(tree, id) {
                continue;
            }
            let ty = type_text(tree, id);
            let s = tree.node(scope);
            for (name, shape) in declared_names(tree, id) {
                out.push(Declared {
                    name,
                    ty: format!("{ty}{shape}"),
                    from: n.end,
                    scope: (s.start, s.end),
                });
            }
        }
        Scopes(out)
    }

    /// The variables visible at byte `at`.
    pub(super) fn visible(&self, at: u32) -> Vec<&Declared> {
        self.0
            .iter()
            .filter(|d| d.from <= at && d.scope.0 <= at && at < d.scope.1)
            .collect()
    }

    /// The type of the variable `name` visible at `at` (the innermost one).
    pub(super) fn type_of(&self, name: &str, at: u32) -> Option<String> {
        self.visible(at)
            .into_iter()
            .filter(|d| d.name == name)
            .max_by_key(|d| d.scope.0)
            .map(|d| d.ty.clone())
    }
}

/// An untyped function's parameters: plain identifiers in its parameter list.
fn bare_parameters(tree: &Tree, id: NodeId) -> Vec<Declared> {
    let Some(function) = tree.node(id).parent else {
        return vec![];
    };
    let f = tree.node(function);
    tree.node(id)
        .children
        .iter()
        .filter(|&&c| tree.node(c).kind == tree.lang.kinds().identifier)
        .map(|&c| Declared {
            name: tree.node_text(c).to_string(),
            ty: "any".into(),
            from: tree.node(id).end,
            scope: (f.start, f.end),
        })
        .collect()
}

fn scope_of(tree: &Tree, id: NodeId) -> Option<NodeId> {
    let mut at = tree.node(id).parent;
    while let Some(p) = at {
        if variables(tree).scopes.contains(&tree.node(p).kind) {
            return Some(p);
        }
        at = tree.node(p).parent;
    }
    None
}

pub(super) fn is_typedef(tree: &Tree, id: NodeId) -> bool {
    tree.node(id)
        .children
        .iter()
        .any(|&c| tree.node_text(c) == "typedef")
}

/// The declared type's text, one space between words; `?` where none is written (a Rust
/// `let` without a type), `any` in an untyped language.
fn type_text(tree: &Tree, id: NodeId) -> String {
    if !variables(tree).typed {
        return "any".into();
    }
    tree.node(id)
        .children
        .iter()
        .find(|&&c| tree.node(c).field == Some("type"))
        .map(|&c| {
            tree.node_text(c)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|| "?".into())
}

/// The names a declaration declares, each with its declarator's shape (`*`, `[]`); none for
/// functions.
fn declared_names(tree: &Tree, id: NodeId) -> Vec<(String, String)> {
    let n = tree.node(id);
    let mut out = vec![];
    for &c in &n.children {
        let child = tree.node(c);
        match child.field {
            Some("declarator") | Some("pattern") | Some("name") => {
                if let Some(found) = declarator_name(tree, c, String::new()) {
                    out.push(found);
                }
            }
            _ => {}
        }
    }
    out
}

fn declarator_name(tree: &Tree, id: NodeId, shape: String) -> Option<(String, String)> {
    let n = tree.node(id);
    let kinds = tree.lang.kinds();
    if n.kind == kinds.identifier {
        Some((tree.node_text(id).to_string(), shape))
    } else if Some(n.kind) == kinds.types.pointer_declarator {
        declarator_name(tree, *n.children.last()?, format!("{shape}*"))
    } else if Some(n.kind) == kinds.array_declarator {
        declarator_name(tree, n.children[0], format!("{shape}[]"))
    } else if kinds.variables.wrappers.contains(&n.kind) {
        declarator_name(tree, n.children[0], shape)
    } else {
        None // a function's declarator, or one in parentheses
    }
}
