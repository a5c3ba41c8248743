//! What the rules need to know of a program's variables: where one is used, which are
//! visible at a point, and their declared types ([`Scopes`]).

use crate::tree::{NodeId, Tree};
use crate::Lang;

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
    !matches!(
        parent,
        "formal_parameters"
            | "parameter_list"
            | "goto_statement"
            | "labeled_statement"
            | "preproc_def"
            | "preproc_function_def"
            | "preproc_ifdef"
            | "preproc_defined"
            | "attribute_specifier"
            | "attribute"
            | "enumerator"
            | "scoped_identifier"
            | "token_tree"
    )
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

/// Nodes that open a scope in one of the five grammars.
const SCOPES: &[&str] = &[
    "translation_unit",
    "source_file",
    "program",
    "compound_statement",
    "block",
    "statement_block",
    "function_definition",
    "function_item",
    "function_declaration",
    "method_declaration",
    "class_body",
    "for_statement",
];
pub(super) const FUNCTIONS: &[&str] = &[
    "function_definition",
    "function_item",
    "function_declaration",
    "method_declaration",
    "arrow_function",
];

impl Scopes {
    pub(super) fn of(tree: &Tree) -> Scopes {
        let mut out = vec![];
        for id in 0..tree.nodes.len() as NodeId {
            let n = tree.node(id);
            let parameter = matches!(
                n.kind,
                "parameter_declaration" | "formal_parameter" | "parameter"
            );
            if n.kind == "formal_parameters" && tree.lang == Lang::JavaScript {
                out.extend(js_parameters(tree, id));
                continue;
            }
            // C's struct fields are no variables; Java's are, in their class.
            let declaration = matches!(
                n.kind,
                "declaration"
                    | "local_variable_declaration"
                    | "let_declaration"
                    | "variable_declarator"
            ) || (n.kind == "field_declaration" && tree.lang == Lang::Java)
                || parameter;
            if !declaration {
                continue;
            }
            let Some(scope) = scope_of(tree, id) else {
                continue;
            };
            // A prototype's parameters are in no function's scope.
            if parameter && !FUNCTIONS.contains(&tree.node(scope).kind) {
                continue;
            }
            if n.kind == "declaration"
                && tree.node(scope).kind == "translation_unit"
                && is_typedef(tree, id)
            {
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

/// A JavaScript function's parameters: plain identifiers in its parameter list.
fn js_parameters(tree: &Tree, id: NodeId) -> Vec<Declared> {
    let Some(function) = tree.node(id).parent else {
        return vec![];
    };
    let f = tree.node(function);
    tree.node(id)
        .children
        .iter()
        .filter(|&&c| tree.node(c).kind == "identifier")
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
        if SCOPES.contains(&tree.node(p).kind) {
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
/// `let` without a type), `any` in JavaScript.
fn type_text(tree: &Tree, id: NodeId) -> String {
    if tree.lang == Lang::JavaScript {
        return "any".into();
    }
    let n = tree.node(id);
    // A Java declarator's type is on the declaration around it.
    let owner = if n.kind == "variable_declarator" {
        n.parent.unwrap_or(id)
    } else {
        id
    };
    tree.node(owner)
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
    if n.kind == "variable_declarator" && tree.lang == Lang::Java {
        return vec![]; // taken with its local_variable_declaration
    }
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
    match n.kind {
        "identifier" => Some((tree.node_text(id).to_string(), shape)),
        "function_declarator" | "parenthesized_declarator" => None,
        "pointer_declarator" => declarator_name(tree, *n.children.last()?, format!("{shape}*")),
        "array_declarator" => declarator_name(tree, n.children[0], format!("{shape}[]")),
        "init_declarator" | "variable_declarator" => declarator_name(tree, n.children[0], shape),
        _ => None,
    }
}
