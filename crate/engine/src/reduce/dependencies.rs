//! A declared thing removed together with every use of it: C-Reduce removes an unused
//! function with its calls, DRReduce repairs what a deletion breaks. A definition cannot go
//! alone while something uses it, and its uses rarely go alone either; together they can, so
//! chains of items used only by each other go one link a query.
//!
//! Two candidates per symbol (a function, method, type, field or variable), the one that
//! removes most first:
//! - *delete*: every declaration and every use goes with the statement or item around it;
//! - *zero*: the declarations go, and each use read as a value becomes the language's
//!   trivial expression (a call with its arguments, `a.f` whole); a use that is its
//!   statement's whole expression, or that is not a value (a type), goes with its statement.
//!
//! And a third for a type parameter, whose statement is the whole item: *elements*, the
//! declaration and each use go as the list elements they are, a list left empty with them
//! where it may (`struct S<T>(T);` to `struct S();`).

use super::lists::{deletion_edit, in_repeated_slot, is_a, is_assigned, replace_by};
use super::sites::Sites;
use super::symbols::Symbols;
use super::{Edit, Program};
use crate::tree::{NodeId, TokenId, Tree};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// At most this many candidates in one round, those that remove most first.
const MAX_SITES: usize = 300;
/// Lists with at most this many declarations get a candidate per declaration that keeps it
/// alone.
const MAX_SIBLINGS: usize = 8;

#[derive(Clone)]
pub struct Site {
    declarations: Vec<TokenId>,
    uses: Vec<TokenId>,
    how: How,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum How {
    Delete,
    Zero,
    Elements,
}

pub fn pass(prog: &Program) -> Sites<Site> {
    let trivial = prog.tree.lang.kinds().trivial_expression.is_some();
    let mut deletes: Vec<(usize, Site)> = Vec::new();
    let mut zeros: Vec<(usize, Site)> = Vec::new();
    let mut elements: Vec<(usize, Site)> = Vec::new();
    // Groups of siblings often come to the same edit as one symbol: each edit is tried once.
    let mut seen = HashSet::new();
    for site in symbols_and_sibling_groups(prog) {
        let type_parameter = site.declarations.iter().all(|&t| {
            let name = prog.tree.tokens[t as usize].node;
            let declaring = prog.tree.node(name).parent.map(|p| prog.tree.node(p).kind);
            declaring.is_some_and(|k| k.contains("type_parameter"))
        });
        let as_elements = Site {
            how: How::Elements,
            ..site.clone()
        };
        if let Some(e) = type_parameter.then(|| edit(prog, &as_elements)).flatten() {
            if seen.insert(effect(prog, &e)) {
                elements.push((prog.size() - prog.after(&e).size(), as_elements));
            }
        }
        let Some(units) = statements_around(prog, site.declarations.iter().chain(&site.uses))
        else {
            continue;
        };
        // Every use inside the declaration's own item: deleting that item says it all, and
        // Perses tries it. Nor is the whole program worth a query.
        if units.len() < 2 || prog.after(&deletion_edit(prog, &units)).size() == 0 {
            continue;
        }
        let size = units.iter().map(|&n| prog.size_of(n)).sum();
        if trivial {
            let zero = Site {
                how: How::Zero,
                ..site.clone()
            };
            if edit(prog, &zero).is_some_and(|e| seen.insert(effect(prog, &e))) {
                zeros.push((size, zero));
            }
        }
        if edit(prog, &site).is_some_and(|e| seen.insert(effect(prog, &e))) {
            deletes.push((size, site));
        }
    }
    let largest_first =
        |v: &mut Vec<(usize, Site)>| v.sort_by_key(|(size, _)| std::cmp::Reverse(*size));
    largest_first(&mut deletes);
    largest_first(&mut zeros);
    largest_first(&mut elements);
    let sites = deletes
        .into_iter()
        .chain(zeros)
        .chain(elements)
        .take(MAX_SITES)
        .map(|(_, site)| site)
        .collect();
    Sites::new(sites, edit)
}

/// A file's tokens that name things of file scope, by name: its file-scope symbols' (and
/// whether it declares them), and its uses of names it does not declare (another file's, a
/// header's). What a folder's `delete-symbol` takes from every file at once.
pub(crate) fn file_scope_names(prog: &Program) -> BTreeMap<String, (Vec<TokenId>, bool)> {
    let symbols = Symbols::new(prog);
    let mut out: BTreeMap<String, (Vec<TokenId>, bool)> = BTreeMap::new();
    for s in symbols.symbols.iter().filter(|s| s.scope.is_none()) {
        if let Some(&first) = s.tokens.first() {
            let entry = out.entry(prog.text_of(first).to_string()).or_default();
            entry.0.extend(&s.tokens);
            entry.1 |= !s.declarations.is_empty();
        }
    }
    let names = &prog.tree.lang.kinds().names;
    for t in (0..prog.tree.tokens.len() as TokenId).filter(|&t| prog.kept(t)) {
        let node = prog.tree.node(prog.tree.tokens[t as usize].node);
        let text = prog.text_of(t);
        let foreign = symbols.of_token(t).is_none() && symbols.foreign.contains(text);
        if foreign && names.kinds.contains(&node.kind) && !node.extra {
            out.entry(text.to_string()).or_default().0.push(t);
        }
    }
    out
}

/// The edit that deletes the statements or items around `tokens` (none if one has none).
pub(crate) fn deleting(prog: &Program, tokens: &[TokenId]) -> Option<Edit> {
    let units = statements_around(prog, tokens.iter())?;
    Some(deletion_edit(prog, &units))
}

fn edit(prog: &Program, site: &Site) -> Option<Edit> {
    let tree = &prog.tree;
    let alive = |t: &&TokenId| prog.kept(**t);
    match site.how {
        How::Delete => {
            let units = statements_around(prog, site.declarations.iter().chain(&site.uses))?;
            return Some(deletion_edit(prog, &units));
        }
        How::Elements => {
            let units = elements_around(prog, site.declarations.iter().chain(&site.uses))?;
            return Some(deletion_edit(prog, &units));
        }
        How::Zero => {}
    }
    let trivial = tree.lang.kinds().trivial_expression?;
    let mut doomed = statements_around(prog, site.declarations.iter())?;
    let mut replace = Vec::new();
    let mut delete = Vec::new();
    for &t in site.uses.iter().filter(alive) {
        let name = tree.tokens[t as usize].node;
        match value_read(tree, name) {
            Some(value) if !is_whole_statement(tree, value) && !is_assigned(tree, value) => {
                let e = replace_by(prog, value, trivial)?;
                delete.extend(e.delete);
                replace.extend(e.replace);
            }
            _ => doomed.push(statement_around(tree, name)?),
        }
    }
    // No use read as a value: the same as the delete candidate, already tried.
    if replace.is_empty() {
        return None;
    }
    let mut edit = deletion_edit(prog, &outermost(tree, doomed));
    edit.delete.extend(delete);
    edit.replace = replace;
    Some(edit)
}

/// Each symbol with declarations and uses; then, for each short list of declarations (a
/// struct's fields, a file's functions), one group per declaration that holds the symbols of
/// all the others. A field may only go with its siblings: a warning about one unread field
/// changes its words while others are unread too, and their reads go together.
fn symbols_and_sibling_groups(prog: &Program) -> Vec<Site> {
    let tree = &prog.tree;
    let mut sites: Vec<Site> = Symbols::new(prog)
        .symbols
        .into_iter()
        .filter_map(|symbol| {
            let (declarations, uses): (Vec<TokenId>, Vec<TokenId>) = symbol
                .tokens
                .iter()
                .partition(|t| symbol.declarations.contains(t));
            // Without declarations nothing is removed. (One without uses is a sibling; alone,
            // Perses deletes it.)
            (!declarations.is_empty()).then_some(Site {
                declarations,
                uses,
                how: How::Delete,
            })
        })
        .collect();
    // For each list, its elements that declare one symbol each: (element, symbol).
    let mut lists: BTreeMap<NodeId, Vec<(NodeId, usize)>> = BTreeMap::new();
    for (i, site) in sites.iter().enumerate() {
        if let Some(&[unit]) = statements_around(prog, site.declarations.iter()).as_deref() {
            if let Some(list) = tree.node(unit).parent {
                lists.entry(list).or_default().push((unit, i));
            }
        }
    }
    for members in lists.values() {
        let elements: BTreeSet<NodeId> = members.iter().map(|&(unit, _)| unit).collect();
        if elements.len() < 2 || elements.len() > MAX_SIBLINGS {
            continue;
        }
        for &alone in &elements {
            let mut group = Site {
                declarations: Vec::new(),
                uses: Vec::new(),
                how: How::Delete,
            };
            for &(_, i) in members.iter().filter(|&&(unit, _)| unit != alone) {
                group.declarations.extend(&sites[i].declarations);
                group.uses.extend(&sites[i].uses);
            }
            sites.push(group);
        }
    }
    sites
}

/// What an edit does: the tokens left, and the rewrites of those.
fn effect(prog: &Program, edit: &Edit) -> (Vec<bool>, Vec<(TokenId, String)>) {
    let keep = prog.mask_after(edit);
    let mut replace: Vec<(TokenId, String)> = edit
        .replace
        .iter()
        .filter(|(t, _)| keep[*t as usize])
        .cloned()
        .collect();
    replace.sort_unstable();
    (keep, replace)
}

/// The statements or items around the kept ones of `tokens`, none inside another; `None`
/// when one has none.
fn statements_around<'a>(
    prog: &Program,
    tokens: impl Iterator<Item = &'a TokenId>,
) -> Option<Vec<NodeId>> {
    let tree = &prog.tree;
    let units = tokens
        .filter(|&&t| prog.kept(t))
        .map(|&t| statement_around(tree, tree.tokens[t as usize].node))
        .collect::<Option<Vec<NodeId>>>()?;
    Some(outermost(tree, units))
}

/// The list elements around the kept ones of `tokens` (the nearest node up from each that a
/// list holds: a parameter, an argument, a field's type), none inside another; `None` when
/// one has none.
fn elements_around<'a>(
    prog: &Program,
    tokens: impl Iterator<Item = &'a TokenId>,
) -> Option<Vec<NodeId>> {
    let tree = &prog.tree;
    let element = |mut n: NodeId| loop {
        if in_repeated_slot(tree, n) {
            return Some(whole_list_if_alone(prog, n));
        }
        n = tree.node(n).parent?;
    };
    let units = tokens
        .filter(|&&t| prog.kept(t))
        .map(|&t| element(tree.tokens[t as usize].node))
        .collect::<Option<Vec<NodeId>>>()?;
    Some(outermost(tree, units))
}

/// The list holding element `n` when `n` is its only element left and the list may be
/// left out where it is (`<T>` of `struct S<T>`: an empty `<>` need not parse); else `n`.
fn whole_list_if_alone(prog: &Program, n: NodeId) -> NodeId {
    let tree = &prog.tree;
    let Some(list) = tree.node(n).parent else {
        return n;
    };
    let field = tree.node(n).field;
    let others = tree.node(list).children.iter().any(|&c| {
        let child = tree.node(c);
        c != n && child.named && !child.extra && child.field == field && prog.alive(c)
    });
    let optional = tree.node(list).parent.is_some_and(|outer| {
        let info = tree.lang.node_types().kind(tree.node(outer).kind);
        info.and_then(|i| i.slot(tree.node(list).field))
            .is_some_and(|s| !s.required)
    });
    if others || !optional {
        return n;
    }
    list
}

/// The nearest node from `n` up that a list holds as a whole statement, item, field or
/// declaration: not a name, a declarator, an expression, an argument or a parameter (those
/// would leave a statement half there).
pub fn statement_around(tree: &Tree, mut n: NodeId) -> Option<NodeId> {
    let k = tree.lang.kinds();
    loop {
        let node = tree.node(n);
        let parent = tree.node(node.parent?).kind;
        let whole = in_repeated_slot(tree, n)
            && !k.names.kinds.contains(&node.kind)
            && !node.kind.contains("declarator")
            && !is_a(tree, node.kind, k.expression)
            && !parent.contains("argument")
            && !parent.contains("parameter");
        if whole {
            return Some(n);
        }
        n = node.parent?;
    }
}

/// `nodes` without those inside another of them, in order, once each.
fn outermost(tree: &Tree, mut nodes: Vec<NodeId>) -> Vec<NodeId> {
    nodes.sort_by_key(|&n| {
        (
            tree.node(n).first_token,
            std::cmp::Reverse(tree.node(n).end_token),
        )
    });
    nodes.dedup();
    let mut out: Vec<NodeId> = Vec::new();
    for n in nodes {
        let inside = out
            .last()
            .is_some_and(|&o| tree.node(n).end_token <= tree.node(o).end_token);
        if !inside {
            out.push(n);
        }
    }
    out
}

/// The value name `n` is read as: the call it names, the member access, subscript or path
/// it is part of; `None` when it is not a value (a type's name).
fn value_read(tree: &Tree, mut n: NodeId) -> Option<NodeId> {
    let k = tree.lang.kinds();
    let is_value = |n: NodeId| {
        let kind = tree.node(n).kind;
        kind == k.identifier || Some(kind) == k.call || is_a(tree, kind, k.expression)
    };
    while let Some(parent) = tree.node(n).parent {
        let part = matches!(
            tree.node(n).field,
            Some(
                "function"
                    | "field"
                    | "property"
                    | "name"
                    | "path"
                    | "object"
                    | "argument"
                    | "value"
            )
        );
        if !(part && is_value(parent)) {
            break;
        }
        n = parent;
    }
    is_value(n).then_some(n)
}

/// Whether expression `n` is all of the statement it is in (`f(x);`): `0;` would be no
/// better than no statement. (`return f(x);` keeps its `return 0;`, which typed languages
/// need.)
fn is_whole_statement(tree: &Tree, n: NodeId) -> bool {
    tree.node(n)
        .parent
        .is_some_and(|p| Some(tree.node(p).kind) == tree.lang.kinds().expression_statement)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Lang;

    fn candidates(lang: Lang, text: &str) -> Vec<String> {
        crate::reduce::tests::candidates(lang, text, pass)
    }

    #[test]
    fn c_a_variable_and_a_function_go_with_their_uses() {
        let text = "int g;\nint f(int x) { return x + g; }\nint main(void) { int y = f(2); f(3); g = 1; return y; }\n";
        assert_eq!(
            candidates(Lang::C, text),
            [
                // `f` with the statements that call it; then `g`, `y`, each with its uses.
                "int g;\nint main(void) { g = 1; return y; }\n",
                "int f(int x) { }\nint main(void) { int y = f(2); f(3); return y; }\n",
                "int g;\nint f(int x) { return x + g; }\nint main(void) { f(3); g = 1; }\n",
                // Read as values, they become `0`; a call that is a whole statement goes,
                // and so does an assignment to the variable.
                "int g;\nint main(void) { int y = 0; g = 1; return y; }\n",
                "int f(int x) { return x + 0; }\nint main(void) { int y = f(2); f(3); return y; }\n",
                // A returned value stays a `return`: a typed function needs one.
                "int g;\nint f(int x) { return x + g; }\nint main(void) { f(3); g = 1; return 0; }\n",
            ]
        );
    }

    #[test]
    fn cpp_a_field_goes_with_its_uses() {
        let text = "struct S { int a; int b; };\nint h(S s) { s.a = 1; return s.b; }\n";
        assert_eq!(
            candidates(Lang::Cpp, text),
            [
                "struct S { int b; };\nint h(S s) { return s.b; }\n",
                "struct S { int a; };\nint h(S s) { s.a = 1; }\n",
                "struct S { int a; };\nint h(S s) { s.a = 1; return 0; }\n",
            ]
        );
    }

    #[test]
    fn rust_a_field_goes_from_the_struct_its_readers_and_its_initialisers() {
        let text = "struct D { m: u8, memo: String }\nfn j(d: &D) -> u8 { let x = d.m; x }\nfn k() { j(&D { m: 1, memo: String::new() }); }\n";
        let all = candidates(Lang::Rust, text);
        // `m` read as a value becomes `0`; its initialiser goes with it.
        assert!(all.contains(&"struct D { memo: String }\nfn j(d: &D) -> u8 { let x = 0; x }\nfn k() { j(&D { memo: String::new() }); }\n".to_string()), "{all:#?}");
        // `j` with its one call, and the struct with every function that names its type.
        assert!(
            all.contains(&"struct D { m: u8, memo: String }\nfn k() { }\n".to_string()),
            "{all:#?}"
        );
        assert_eq!(all[0], "fn k() { }\n");
    }

    #[test]
    fn javascript_a_function_and_an_object_go_with_their_uses() {
        let text =
            "function f(a) { return a; }\nconst o = { p: 1 };\nconsole.log(f(o.p));\nf(2);\n";
        assert_eq!(
            candidates(Lang::JavaScript, text),
            [
                "const o = { p: 1 };\n",
                "function f(a) { return a; }\nf(2);\n",
                "function f(a) { return a; }\nconst o = { };\nf(2);\n",
                // A library's function keeps its call, with `0` for the argument.
                "const o = { p: 1 };\nconsole.log(0);\n",
                "function f(a) { return a; }\nconsole.log(f(0));\nf(2);\n",
                "function f(a) { return a; }\nconst o = { };\nconsole.log(f(0));\nf(2);\n",
            ]
        );
    }

    #[test]
    fn java_a_field_and_a_method_go_with_their_uses() {
        let text = "class A { int n; int get() { return n; } void set() { n = 2; get(); } }\n";
        assert_eq!(
            candidates(Lang::Java, text),
            [
                // Each member alone, the others gone with their uses.
                "class A { int n; }\n",
                "class A { int get() { } }\n",
                "class A { int n; void set() { n = 2; } }\n",
                "class A { int get() { } void set() { get(); } }\n",
                "class A { int get() { return 0; } }\n",
                "class A { void set() { } }\n",
                "class A { int get() { return 0; } void set() { get(); } }\n",
            ]
        );
    }

    #[test]
    fn siblings_go_together_leaving_one_alone() {
        let text =
            "struct S { int a; int b; int memo; };\nint get(struct S *s) { return s->a + s->b; }\n";
        let all = candidates(Lang::C, text);
        assert!(
            all.contains(&"struct S { int memo; };\nint get(struct S *s) { }\n".to_string()),
            "{all:#?}"
        );
        assert!(
            all.contains(
                &"struct S { int a; };\nint get(struct S *s) { return s->a + 0; }\n".to_string()
            ),
            "{all:#?}"
        );
    }

    /// A field read nowhere is what the warning is about; every other field must be read, or
    /// the warning names it too (as rustc's dead-code lint does). Only a field deleted with
    /// its reads keeps that true.
    #[test]
    fn a_field_goes_with_the_only_function_that_reads_it() {
        use crate::reduce::tests::{drive, session};
        use crate::reduce::Strategy;
        let text = "struct S { int a; int memo; };\nint get(struct S *s) { return s->a; }\n";
        let oracle = |t: &str| {
            let fields: Vec<&str> = ["a", "memo"]
                .into_iter()
                .filter(|f| t.contains(&format!("int {f};")))
                .collect();
            let reads: Vec<&str> = t
                .match_indices("->")
                .map(|(i, _)| &t[i + 2..i + 3])
                .collect();
            t.contains("struct S {")
                && fields.contains(&"memo")
                && fields.iter().all(|f| *f == "memo" || reads.contains(f))
                && reads.iter().all(|r| fields.contains(r))
        };
        let s = drive(session(Lang::C, text, Strategy::Perses), 2, false, &oracle);
        assert_eq!(s.best(), "struct S { int memo; };\n");
    }

    /// rustc refuses a type parameter no field uses, and a field of a type not declared:
    /// `<T>` and `(T)` go together or not at all.
    #[test]
    fn rust_a_type_parameter_goes_with_its_uses() {
        use crate::reduce::tests::drive;
        use crate::reduce::{Session, Settings};
        let text = "pub struct Wrap<T: Copy>(pub T);\npub fn keep() {}\n";
        let oracle = |t: &str| {
            let (declared, used) = (t.contains("<T"), t.contains("T)"));
            declared == used && t.contains("pub struct Wrap") && t.contains("fn keep")
        };
        let session = Session::new(Lang::Rust, text, Settings::default()).unwrap();
        let best = drive(session, 2, false, &oracle).best().to_string();
        assert!(
            !best.contains('T') && best.contains("pub struct Wrap"),
            "{best}"
        );
    }
}
