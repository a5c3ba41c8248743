//! Transformations beyond deletion, C-Reduce's lesson: a program often shrinks further
//! only by rewriting it. Each is found from the tree and tried once per fine round:
//!
//! - inline a typedef: its uses get the type it names, and the typedef goes;
//! - drop a function parameter together with the matching argument of every call;
//! - drop an array's last dimension together with the last subscript of every use;
//! - propagate a constant: a variable initialised with a literal and never written is read
//!   as that literal everywhere, and its declaration goes;
//! - replace a function's body by `;` (a declaration, when only its type matters; in Rust
//!   by `{ loop { } }`, which type-checks for any return type);
//! - make a function return nothing (Rust): its `-> T`, its body's tail expression and the
//!   values of its `return`s go together (C-Reduce's return-void);
//! - fold a constant expression into its value (`0x7EBAL + 1` to `32443`, see `fold.rs`);
//! - replace a statement by the trivial one, `0;` (a loop or a branch is often kept only for
//!   being a statement there);
//! - replace an expression, or a variable where it is read, by `0`;
//! - shorten a number inside its token (`32443` to `32`, see `literals.rs`).
//!
//! The node kinds each rewrite looks for come from the language's table
//! ([`crate::grammars::Kinds`]); a rewrite whose kinds a language lacks is not tried there.

use super::lists::{
    deletion_edit, field_child, function_declarator, is_a, is_read, kept_tokens, list_slots,
    replace_by,
};
use super::literals::{is_number, is_string_text, shorter_spellings, shorter_strings};
use super::sites::Sites;
use super::{Edit, Program};
use crate::grammars::Kinds;
use crate::tree::{NodeId, TokenId, Tree};

/// A typedef whose type is longer than this many tokens is copied into its uses only where
/// that leaves fewer tokens.
const MAX_INLINED_TYPE_TOKENS: usize = 3;
/// At most this many expressions are tried as `0` in one round, largest first.
const MAX_ZERO_SITES: usize = 400;
/// At most this many statements are tried as `0;` in one round, largest first.
const MAX_STATEMENT_SITES: usize = 200;
/// At most this many numbers are shortened in one round, longest first.
const MAX_NUMBER_SITES: usize = 100;
/// At most this many strings are shortened in one round, longest first.
const MAX_STRING_SITES: usize = 50;

#[derive(Clone, Debug)]
pub enum Site {
    Typedef(NodeId),
    /// A function's parameter list (of its definition) and the parameter's index.
    Parameter {
        list: NodeId,
        index: usize,
    },
    /// An outermost `array_declarator`.
    Dimension(NodeId),
    /// An `init_declarator` whose value is a literal.
    Constant(NodeId),
    Statement(NodeId),
    /// An expression of integer literals and operators, and its value.
    Fold(NodeId, i128),
    Zero(NodeId),
    /// A number's or string's token and a shorter text for it.
    Shorten(TokenId, String),
    /// A function definition's body, which the language's stub may replace (`;`: a
    /// declaration is enough when only the function's type matters).
    Body(NodeId),
    /// A function with a `return_type`, to return nothing.
    NoReturn(NodeId),
}

/// Whether statement `n` is a keyword and `;` (`continue;`, `break;`, `return;`).
fn is_jump(prog: &Program, n: NodeId) -> bool {
    let tokens = kept_tokens(prog, n);
    let tree = &prog.tree;
    tokens.len() == 2
        && !tree.node(tree.tokens[tokens[0] as usize].node).named
        && prog
            .text_of(tokens[0])
            .chars()
            .all(|c| c.is_ascii_alphabetic())
}

/// The pass over `prog`: its sites, in the order above (statements and expressions largest
/// first).
pub fn pass(prog: &Program) -> Sites<Site> {
    let tree = &prog.tree;
    let k = tree.lang.kinds();
    let is = |kind: &str, of: Option<&str>| of == Some(kind);
    let mut typedefs = Vec::new();
    let mut params = Vec::new();
    let mut dimensions = Vec::new();
    let mut constants = Vec::new();
    let mut bodies = Vec::new();
    let mut no_returns = Vec::new();
    let mut zeros: Vec<(usize, NodeId)> = Vec::new();
    let mut folds: Vec<(usize, NodeId, i128)> = Vec::new();
    let mut statements: Vec<(usize, NodeId)> = Vec::new();
    for n in 0..tree.nodes.len() as NodeId {
        let node = tree.node(n);
        if node.extra || !prog.alive(n) {
            continue;
        }
        let kind = node.kind;
        if k.return_expression.is_some()
            && field_child(tree, n, "return_type").is_some()
            && field_child(tree, n, "body").is_some()
        {
            no_returns.push(Site::NoReturn(n));
        }
        if is(kind, k.type_definition) {
            typedefs.push(Site::Typedef(n));
        } else if is(kind, k.array_declarator)
            && node.parent.is_some_and(|p| tree.node(p).kind != kind)
        {
            dimensions.push(Site::Dimension(n));
        } else if is(kind, k.init_declarator) && constant_value(tree, n).is_some() {
            constants.push(Site::Constant(n));
        } else if is(kind, k.function_definition) {
            let stub = k.stub_body.split_whitespace().count();
            if let Some(body) = field_child(tree, n, "body").filter(|&b| prog.size_of(b) > stub) {
                bodies.push(Site::Body(body));
            }
            let list = field_child(tree, n, "declarator")
                .and_then(|d| function_declarator(tree, d))
                .and_then(|f| field_child(tree, f, "parameters"));
            if let Some(list) = list {
                let count = list_slots(tree, list).concat().len();
                // Last parameter first: calls keep their earlier arguments' positions.
                params.extend(
                    (0..count)
                        .rev()
                        .map(|index| Site::Parameter { list, index }),
                );
            }
        } else if k.trivial_statement.is_some()
            && node.named
            && is_a(tree, kind, k.statement)
            && (prog.size_of(n) > 2 || is_jump(prog, n))
        {
            // `{}` and `x;` are no bigger than `0;`; `continue;` is not either, but a loop
            // around it may go once it is `0;`.
            statements.push((prog.size_of(n), n));
        } else if k.trivial_expression.is_some()
            && node.named
            && is_a(tree, kind, k.expression)
            && !super::chains::is_inner(tree, n)
        {
            let size = prog.size_of(n);
            if size >= 3 {
                let texts: Vec<&str> = kept_tokens(prog, n)
                    .iter()
                    .map(|&t| prog.text_of(t))
                    .collect();
                if let Some(v) = super::fold::value(&texts) {
                    folds.push((size, n, v));
                }
            }
            // A variable read as `0` no longer needs its declaration (C-Reduce's
            // "replace a variable by a constant"); names being declared or called stay.
            if size >= 2 || is_read(tree, n) {
                zeros.push((size, n));
            }
        }
    }
    zeros.sort_by_key(|&(size, n)| (std::cmp::Reverse(size), n));
    folds.sort_by_key(|&(size, n, _)| (std::cmp::Reverse(size), n));
    statements.sort_by_key(|&(size, n)| (std::cmp::Reverse(size), n));
    let mut sites = typedefs;
    sites.extend(params);
    sites.extend(dimensions);
    sites.extend(constants);
    sites.extend(bodies);
    sites.extend(no_returns);
    sites.extend(folds.into_iter().map(|(_, n, v)| Site::Fold(n, v)));
    sites.extend(
        statements
            .into_iter()
            .take(MAX_STATEMENT_SITES)
            .map(|(_, n)| Site::Statement(n)),
    );
    sites.extend(
        zeros
            .into_iter()
            .take(MAX_ZERO_SITES)
            .map(|(_, n)| Site::Zero(n)),
    );
    sites.extend(shortenings(
        prog,
        is_number,
        shorter_spellings,
        MAX_NUMBER_SITES,
    ));
    sites.extend(shortenings(
        prog,
        is_string_text,
        shorter_strings,
        MAX_STRING_SITES,
    ));
    Sites::new(sites, edit)
}

/// Shorter texts for the longest `max` literals that `is` picks, from `shorter`.
fn shortenings(
    prog: &Program,
    is: fn(&Program, TokenId) -> bool,
    shorter: fn(&str) -> Vec<String>,
    max: usize,
) -> Vec<Site> {
    let mut literals: Vec<TokenId> = (0..prog.tree.tokens.len() as TokenId)
        .filter(|&t| prog.kept(t) && is(prog, t))
        .collect();
    literals.sort_by_key(|&t| (std::cmp::Reverse(prog.text_of(t).len()), t));
    literals
        .into_iter()
        .take(max)
        .flat_map(|t| {
            shorter(prog.text_of(t))
                .into_iter()
                .map(move |s| Site::Shorten(t, s))
        })
        .collect()
}

fn edit(prog: &Program, site: &Site) -> Option<Edit> {
    let k = prog.tree.lang.kinds();
    match *site {
        Site::Typedef(n) => inline_typedef(prog, n),
        Site::Parameter { list, index } => drop_parameter(prog, list, index),
        Site::Dimension(n) => drop_dimension(prog, n),
        Site::Constant(n) => propagate_constant(prog, n),
        Site::Statement(n) => replace_by(prog, n, k.trivial_statement?),
        Site::Fold(n, v) => replace_by(prog, n, &v.to_string()),
        Site::Zero(n) => replace_by(prog, n, k.trivial_expression?),
        // Once a shorter spelling is in, the longer ones after it are not worth a query.
        Site::Shorten(t, ref text) => {
            (prog.kept(t) && text.len() < prog.text_of(t).len()).then(|| Edit {
                replace: vec![(t, text.clone())],
                ..Edit::default()
            })
        }
        Site::Body(n) => replace_by(prog, n, prog.tree.lang.kinds().stub_body),
        Site::NoReturn(f) => no_return(prog, f),
    }
}

/// Function `f` returns nothing: its return type goes with the `->` before it, and so do its
/// body's tail expression and the values of its `return`s (not those of functions in it).
fn no_return(prog: &Program, f: NodeId) -> Option<Edit> {
    let tree = &prog.tree;
    let k = tree.lang.kinds();
    let ret = field_child(tree, f, "return_type")?;
    let body = field_child(tree, f, "body")?;
    if !prog.alive(ret) {
        return None;
    }
    let start = tree.node(ret).first_token;
    let arrow = (0..start)
        .rev()
        .find(|&t| prog.kept(t) && tree.is_counted(t))?;
    if prog.text_of(arrow) != "->" {
        return None;
    }
    let mut delete = vec![arrow..arrow + 1, tree.node(ret).tokens()];
    let named = |n: NodeId| {
        let node = tree.node(n);
        node.named && !node.extra && prog.alive(n)
    };
    let tail = tree
        .node(body)
        .children
        .iter()
        .rev()
        .copied()
        .find(|&c| named(c));
    if let Some(tail) = tail.filter(|&t| is_a(tree, tree.node(t).kind, k.expression)) {
        delete.push(tree.node(tail).tokens());
    }
    let mut stack: Vec<NodeId> = tree.node(body).children.clone();
    while let Some(n) = stack.pop() {
        let node = tree.node(n);
        if Some(node.kind) == k.return_expression {
            // Everything after `return`.
            let value = node.children.iter().copied().find(|&c| named(c));
            delete.extend(value.map(|v| tree.node(v).tokens()));
        } else if !k.names.scopes.contains(&node.kind) {
            stack.extend(node.children.iter().copied());
        }
    }
    Some(Edit::deleting(delete))
}

fn inline_typedef(prog: &Program, n: NodeId) -> Option<Edit> {
    let tree = &prog.tree;
    let name_node = field_child(tree, n, "declarator")?;
    let type_node = field_child(tree, n, "type")?;
    // tree-sitter-c knows `int32_t` and friends as primitive types, typedef or not.
    let is_type_name = |kind: &str| tree.lang.kinds().type_names.contains(&kind);
    if !is_type_name(tree.node(name_node).kind) || !prog.alive(name_node) {
        return None;
    }
    let type_tokens = kept_tokens(prog, type_node);
    if type_tokens.is_empty() {
        return None;
    }
    let type_text: Vec<&str> = type_tokens.iter().map(|&t| prog.text_of(t)).collect();
    let type_text = type_text.join(" ");
    let name = prog.text_of(kept_tokens(prog, name_node).first().copied()?);
    let inside = tree.node(n).tokens();
    let uses: Vec<(TokenId, String)> = (0..tree.tokens.len() as TokenId)
        .filter(|&t| prog.kept(t) && !inside.contains(&t))
        .filter(|&t| {
            is_type_name(tree.node(tree.tokens[t as usize].node).kind) && prog.text_of(t) == name
        })
        .map(|t| (t, type_text.clone()))
        .collect();
    // A longer type is copied only where that leaves fewer tokens than the typedef takes
    // (`typedef basic_string<char> b;` used once).
    let grows = uses.len() * (type_tokens.len() - 1) >= kept_tokens(prog, n).len();
    if type_tokens.len() > MAX_INLINED_TYPE_TOKENS && grows {
        return None;
    }
    let mut edit = deletion_edit(prog, &[n]);
    edit.replace = uses;
    Some(edit)
}

fn drop_parameter(prog: &Program, list: NodeId, index: usize) -> Option<Edit> {
    let tree = &prog.tree;
    let k = tree.lang.kinds();
    let param = *list_slots(tree, list).concat().get(index)?;
    if !prog.alive(param) || tree.node(param).kind == k.variadic_parameter {
        return None;
    }
    let func = tree.node(list).parent?;
    let name_node = field_child(tree, func, "declarator")?;
    let name = tree.node_text(name_node);
    let mut doomed = vec![param];
    for c in 0..tree.nodes.len() as NodeId {
        let node = tree.node(c);
        if Some(node.kind) != k.call || !prog.alive(c) {
            continue;
        }
        let callee = field_child(tree, c, "function");
        if callee.is_some_and(|f| tree.node_text(f) == name) {
            let args = field_child(tree, c, "arguments")
                .map(|a| list_slots(tree, a).concat())
                .unwrap_or_default();
            let alive: Vec<NodeId> = args.into_iter().filter(|&a| prog.alive(a)).collect();
            if let Some(&arg) = alive.get(index) {
                doomed.push(arg);
            }
        }
    }
    Some(deletion_edit(prog, &doomed))
}

/// The identifier at the bottom of a chain of `field` children (`a` in `a[1][2]`).
fn innermost(tree: &Tree, mut n: NodeId, kind: &str, field: &str) -> Option<NodeId> {
    while tree.node(n).kind == kind {
        n = field_child(tree, n, field)?;
    }
    (tree.node(n).kind == tree.lang.kinds().identifier).then_some(n)
}

/// Tokens of node `n` after its child `inner`: the `[...]` of `a[...]`.
fn suffix(tree: &Tree, n: NodeId, inner: NodeId) -> std::ops::Range<TokenId> {
    tree.node(inner).end_token..tree.node(n).end_token
}

fn drop_dimension(prog: &Program, decl: NodeId) -> Option<Edit> {
    let tree = &prog.tree;
    let subscript = tree.lang.kinds().subscript?;
    let inner = field_child(tree, decl, "declarator")?;
    let name = tree.node_text(innermost(tree, decl, tree.node(decl).kind, "declarator")?);
    let mut delete = vec![suffix(tree, decl, inner)];
    for s in 0..tree.nodes.len() as NodeId {
        let node = tree.node(s);
        let outermost = node.parent.is_none_or(|p| tree.node(p).kind != subscript);
        if node.kind != subscript || !outermost || !prog.alive(s) {
            continue;
        }
        let Some(arg) = field_child(tree, s, "argument") else {
            continue;
        };
        if innermost(tree, s, subscript, "argument").is_some_and(|id| tree.node_text(id) == name) {
            delete.push(suffix(tree, s, arg));
        }
    }
    Some(Edit::deleting(delete))
}

/// The literal `n = literal` initialises its variable with, for a plain variable name.
fn constant_value(tree: &Tree, n: NodeId) -> Option<NodeId> {
    let name = field_child(tree, n, "declarator")?;
    let value = field_child(tree, n, "value")?;
    let k = tree.lang.kinds();
    let literal = k.literals.contains(&tree.node(value).kind);
    (tree.node(name).kind == k.identifier && literal).then_some(value)
}

/// Whether identifier `n` is declared, assigned, incremented or has its address taken there:
/// a variable so used is not a constant.
fn written(tree: &Tree, n: NodeId) -> bool {
    let node = tree.node(n);
    let Some(parent) = node.parent.map(|p| tree.node(p)) else {
        return false;
    };
    let k: &Kinds = tree.lang.kinds();
    match parent.kind {
        kind if kind == k.assignment => node.field == Some("left"),
        kind if kind == k.update => true,
        kind if kind == k.address_of => tree.node_text(parent.children[0]) == "&",
        _ => node.field == Some("declarator") || parent.kind.ends_with("declarator"),
    }
}

fn propagate_constant(prog: &Program, init: NodeId) -> Option<Edit> {
    let tree = &prog.tree;
    let value = constant_value(tree, init)?;
    let value_tokens = kept_tokens(prog, value);
    let ([literal], true) = (value_tokens.as_slice(), prog.alive(init)) else {
        return None;
    };
    let name = tree.node_text(field_child(tree, init, "declarator")?);
    let declaration = tree.node(init).parent?;
    let inside = tree.node(declaration).tokens();
    let mut uses = Vec::new();
    for t in (0..tree.tokens.len() as TokenId).filter(|&t| prog.kept(t) && !inside.contains(&t)) {
        let n = tree.tokens[t as usize].node;
        // A constant read in a template argument (`std::array<T, N>`) parses as a type name.
        let (kind, k) = (tree.node(n).kind, tree.lang.kinds());
        let a_name = kind == k.identifier || k.type_names.contains(&kind);
        if !a_name || prog.text_of(t) != name {
            continue;
        }
        if written(tree, n) {
            return None;
        }
        uses.push((t, prog.text_of(*literal).to_string()));
    }
    // The whole declaration goes when this is its only declarator left.
    let declarators = tree
        .node(declaration)
        .children
        .iter()
        .filter(|&&c| tree.node(c).field == Some("declarator") && prog.alive(c))
        .count();
    let doomed = if declarators == 1 { declaration } else { init };
    let mut edit = deletion_edit(prog, &[doomed]);
    edit.replace = uses;
    Some(edit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Lang;

    /// The candidates that leave no typedef.
    fn inlined(text: &str) -> Vec<String> {
        let all = crate::reduce::tests::candidates(Lang::Cpp, text, pass);
        all.into_iter().filter(|c| !c.contains("typedef")).collect()
    }

    #[test]
    fn a_long_typedef_is_inlined_only_where_that_leaves_fewer_tokens() {
        // Six tokens for the typedef; the type is four: one use saves three, three uses
        // would add three.
        let once = "typedef basic_string<char> b;\nb x;\n";
        let found = inlined(once);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(found[0].contains("basic_string") && found[0].contains("x;"));
        assert_eq!(
            inlined("typedef basic_string<char> b;\nb x;\nb y;\nb z;\n"),
            Vec::<String>::new()
        );
        // A short type goes into every use, as before.
        assert_eq!(inlined("typedef unsigned u;\nu x;\nu y;\nu z;\n").len(), 1);
    }

    #[test]
    fn a_body_becomes_the_languages_stub_where_that_is_shorter() {
        let squeezed = |lang, text| -> Vec<String> {
            let all = crate::reduce::tests::candidates(lang, text, pass);
            all.iter().map(|c| c.split_whitespace().collect()).collect()
        };
        // Rust: `loop { }` type-checks for any return type; a body of two tokens stays.
        let rust = squeezed(
            Lang::Rust,
            "fn f(x: u8) -> u8 { let y = x; y }\nfn g() { }\n",
        );
        assert!(
            rust.iter().any(|c| c == "fnf(x:u8)->u8{loop{}}fng(){}"),
            "{rust:?}"
        );
        assert!(
            !rust.iter().any(|c| c.ends_with("fng(){loop{}}")),
            "{rust:?}"
        );
        // C: a declaration.
        let c = squeezed(Lang::C, "int f(int x) { return x; }\n");
        assert!(c.iter().any(|c| c == "intf(intx);"), "{c:?}");
    }
}
