//! What the rules need to know of a program's variables: where one is used, which are
//! visible at a point, and their declared types ([`Scopes`]). Which scope a variable is
//! declared in is the engine's one scope analysis ([`Symbols::of_variables`]), with the
//! blocks, loops and classes of the language's table ([`Variables::scopes`]).

use crate::grammars::kinds::Variables;
use crate::reduce::symbols::Symbols;
use crate::reduce::Program;
use crate::tree::{NodeId, TokenId, Tree};

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
        let symbols = Symbols::of_variables(&Program::new(tree.clone()));
        // The scope a name is declared in: its symbol's.
        let scope_of = |t: TokenId| symbols.of_token(t).and_then(|s| s.scope);
        let mut out = vec![];
        for id in 0..tree.nodes.len() as NodeId {
            let n = tree.node(id);
            let parameter = vars.parameters.contains(&n.kind);
            let bare = Some(n.kind) == vars.bare_parameters;
            if !parameter && !bare && !vars.declarations.contains(&n.kind) {
                continue;
            }
            let ty = type_text(tree, id);
            let names = match bare {
                true => bare_parameters(tree, id),
                false => declared_names(tree, id),
            };
            for (name, shape, token) in names {
                let Some(scope) = scope_of(token) else {
                    continue;
                };
                // A prototype's parameters are in no function's scope.
                if parameter && !vars.functions.contains(&tree.node(scope).kind) {
                    continue;
                }
                // A typedef at file scope declares a type, no variable.
                if scope == tree.root() && is_typedef(tree, id) {
                    continue;
                }
                let s = tree.node(scope);
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

/// An untyped function's parameters: plain identifiers in its parameter list, each with its
/// token.
fn bare_parameters(tree: &Tree, id: NodeId) -> Vec<(String, String, TokenId)> {
    tree.node(id)
        .children
        .iter()
        .filter(|&&c| tree.node(c).kind == tree.lang.kinds().identifier)
        .map(|&c| {
            (
                tree.node_text(c).to_string(),
                String::new(),
                tree.node(c).first_token,
            )
        })
        .collect()
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

/// The names a declaration declares, each with its declarator's shape (`*`, `[]`) and its
/// token; none for functions.
fn declared_names(tree: &Tree, id: NodeId) -> Vec<(String, String, TokenId)> {
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

fn declarator_name(tree: &Tree, id: NodeId, shape: String) -> Option<(String, String, TokenId)> {
    let n = tree.node(id);
    let kinds = tree.lang.kinds();
    if n.kind == kinds.identifier {
        Some((tree.node_text(id).to_string(), shape, n.first_token))
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
