//! What the grammar lets us delete: elements of repeated slots (with their separators)
//! and optional children; what may replace a node: descendants its slot accepts; and the
//! small helpers the rewrites share (a node's child by field, its kept tokens, a node
//! rewritten as a text).

use super::{Edit, Program};
use crate::tree::{NodeId, TokenId, Tree};
use std::ops::Range;

/// Brackets and quotes are delimiters of a list (a string's parts), never separators
/// between its elements.
pub(super) fn is_bracket(text: &str) -> bool {
    matches!(
        text,
        "(" | ")" | "{" | "}" | "[" | "]" | "<" | ">" | "\"" | "'" | "`"
    )
}

fn range(tree: &Tree, n: NodeId) -> Range<TokenId> {
    tree.node(n).tokens()
}

/// The repeated slots of node `n`: for each, its elements in order.
pub fn list_slots(tree: &Tree, n: NodeId) -> Vec<Vec<NodeId>> {
    let node = tree.node(n);
    let Some(info) = tree.lang.node_types().kind(node.kind) else {
        return Vec::new();
    };
    let mut slots: Vec<(Option<&str>, Vec<NodeId>)> = Vec::new();
    for &c in &node.children {
        let child = tree.node(c);
        if !child.named || child.extra {
            continue;
        }
        let Some(slot) = info.slot(child.field) else {
            continue;
        };
        if !slot.multiple {
            continue;
        }
        match slots.iter_mut().find(|(f, _)| *f == child.field) {
            Some((_, v)) => v.push(c),
            None => slots.push((child.field, vec![c])),
        }
    }
    slots.into_iter().map(|(_, v)| v).collect()
}

/// Whether removing every element of the slot that `first` belongs to is allowed.
pub fn slot_may_be_empty(tree: &Tree, first: NodeId) -> bool {
    let child = tree.node(first);
    let Some(parent) = child.parent else {
        return false;
    };
    let info = tree.lang.node_types().kind(tree.node(parent).kind);
    info.and_then(|i| i.slot(child.field))
        .is_some_and(|s| !s.required)
}

/// Optional single children of `n` (fields or children that are neither required nor repeated).
pub fn optional_children(tree: &Tree, n: NodeId) -> Vec<NodeId> {
    let node = tree.node(n);
    let Some(info) = tree.lang.node_types().kind(node.kind) else {
        return Vec::new();
    };
    node.children
        .iter()
        .copied()
        .filter(|&c| {
            let child = tree.node(c);
            child.named
                && !child.extra
                && info
                    .slot(child.field)
                    .is_some_and(|s| !s.required && !s.multiple)
        })
        .collect()
}

/// Descendants of `n` that may stand in `n`'s place, nearest first (bounded BFS).
pub fn replacements(tree: &Tree, n: NodeId, max: usize, max_depth: u32) -> Vec<NodeId> {
    let node = tree.node(n);
    let Some(parent) = node.parent else {
        return Vec::new();
    };
    let nt = tree.lang.node_types();
    let Some(slot) = nt
        .kind(tree.node(parent).kind)
        .and_then(|i| i.slot(node.field))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut queue: std::collections::VecDeque<NodeId> = node.children.iter().copied().collect();
    while let Some(d) = queue.pop_front() {
        let dn = tree.node(d);
        if dn.depth > node.depth + max_depth || out.len() >= max {
            break;
        }
        if dn.named && !dn.extra && dn.kind != node.kind && nt.accepts(&slot.types, dn.kind, true) {
            out.push(d);
        } else if dn.named && !dn.extra && dn.kind == node.kind {
            // Same kind: always compatible (a nested block for a block, a call for a call).
            out.push(d);
        }
        queue.extend(dn.children.iter().copied());
    }
    out
}

/// The edit that deletes `doomed` nodes and tidies the separators of the lists they are in:
/// the separator after an element stays only while that element and a later one stay.
pub fn deletion_edit(prog: &Program, doomed: &[NodeId]) -> Edit {
    let tree = &prog.tree;
    let with_attributes = with_attributes(tree, doomed);
    let doomed = with_attributes.as_slice();
    let mut delete: Vec<Range<TokenId>> = doomed.iter().map(|&n| range(tree, n)).collect();
    let mut slots: Vec<(NodeId, Option<&str>)> = doomed
        .iter()
        .filter(|&&n| in_repeated_slot(tree, n))
        .filter_map(|&n| tree.node(n).parent.map(|p| (p, tree.node(n).field)))
        .collect();
    slots.sort_unstable();
    slots.dedup();
    for (parent, field) in slots {
        separator_fixups(prog, parent, field, doomed, &mut delete);
    }
    Edit::deleting(delete)
}

/// `doomed` and the attributes on each (`#[cfg(test)]` before a Rust item): an attribute
/// left without its item would sit on the next one, or on nothing.
fn with_attributes(tree: &Tree, doomed: &[NodeId]) -> Vec<NodeId> {
    let attributes = tree.lang.kinds().attributes;
    let mut out = doomed.to_vec();
    if attributes.is_empty() {
        return out;
    }
    let mut seen: std::collections::HashSet<NodeId> = doomed.iter().copied().collect();
    for &n in doomed {
        let node = tree.node(n);
        let Some(parent) = node.parent.filter(|_| !attributes.contains(&node.kind)) else {
            continue;
        };
        let siblings = &tree.node(parent).children;
        let at = siblings.iter().position(|&c| c == n).unwrap_or(0);
        for &c in siblings[..at].iter().rev() {
            let sibling = tree.node(c);
            if sibling.extra {
                continue;
            }
            if !attributes.contains(&sibling.kind) {
                break;
            }
            if seen.insert(c) {
                out.push(c);
            }
        }
    }
    out
}

/// Whether node `n` is assigned to: the left side of any language's assignment (`x = 1`,
/// `x += 1`).
pub fn is_assigned(tree: &Tree, n: NodeId) -> bool {
    let node = tree.node(n);
    node.field == Some("left")
        && node
            .parent
            .is_some_and(|p| tree.node(p).kind.contains("assignment"))
}

/// Whether `n` is a variable where it is read: not a name being declared, called or
/// selected.
pub fn is_read(tree: &Tree, n: NodeId) -> bool {
    let node = tree.node(n);
    node.kind == tree.lang.kinds().identifier
        && !matches!(node.field, Some("declarator" | "function" | "name"))
}

/// Whether `n` is an element of a repeated slot of its parent.
pub fn in_repeated_slot(tree: &Tree, n: NodeId) -> bool {
    let node = tree.node(n);
    let Some(parent) = node.parent else {
        return false;
    };
    let info = tree.lang.node_types().kind(tree.node(parent).kind);
    node.named
        && !node.extra
        && info
            .and_then(|i| i.slot(node.field))
            .is_some_and(|s| s.multiple)
}

/// Adds to `delete` the separators of one repeated slot that should go.
fn separator_fixups(
    prog: &Program,
    parent: NodeId,
    field: Option<&str>,
    doomed: &[NodeId],
    delete: &mut Vec<Range<TokenId>>,
) {
    let tree = &prog.tree;
    let children = &tree.node(parent).children;
    let is_elem = |c: NodeId| {
        let n = tree.node(c);
        n.named && !n.extra && n.field == field
    };
    let is_sep = |c: NodeId| {
        let n = tree.node(c);
        !n.named && !n.extra && n.field.is_none() && !is_bracket(tree.node_text(c))
    };
    let stays = |c: NodeId| !doomed.contains(&c) && prog.alive(c);
    let elems: Vec<usize> = (0..children.len())
        .filter(|&i| is_elem(children[i]))
        .collect();
    let Some(&last) = elems.last() else { return };
    let kept: Vec<bool> = elems.iter().map(|&i| stays(children[i])).collect();
    let any_kept = kept.iter().any(|&k| k);
    // A `;` between elements ends the one before it (C++'s `class C {...};`): it goes with
    // that element. Other separators (`,`) go unless an element before and one after stay.
    let terminator = |c: NodeId| tree.node_text(c) == ";";
    for (k, w) in elems.windows(2).enumerate() {
        let later_kept = kept[k + 1..].iter().any(|&x| x);
        for &c in &children[w[0] + 1..w[1]] {
            let goes = if terminator(c) {
                !kept[k]
            } else {
                !(kept[k] && later_kept)
            };
            if is_sep(c) && goes {
                delete.push(range(tree, c));
            }
        }
    }
    // A trailing separator (`{1, 2,}`) goes with the last element if none stays; a
    // terminator with the last element.
    for &c in children[last + 1..].iter().take_while(|&&c| is_sep(c)) {
        let goes = if terminator(c) {
            !kept[kept.len() - 1]
        } else {
            !any_kept
        };
        if goes {
            delete.push(range(tree, c));
        }
    }
}

/// Whether `kind` is an expression (`what` = "expression") or a statement, by its supertypes.
pub fn is_a(tree: &Tree, kind: &str, what: &str) -> bool {
    tree.lang
        .node_types()
        .supertypes(kind)
        .any(|s| s.trim_start_matches('_') == what)
}

/// The child of `n` in field `field`.
pub fn field_child(tree: &Tree, n: NodeId, field: &str) -> Option<NodeId> {
    tree.node(n)
        .children
        .iter()
        .copied()
        .find(|&c| tree.node(c).field == Some(field))
}

/// The function declarator under a declarator (through pointer declarators).
pub fn function_declarator(tree: &Tree, mut n: NodeId) -> Option<NodeId> {
    for _ in 0..8 {
        if tree.node(n).kind == tree.lang.kinds().function_declarator {
            return Some(n);
        }
        n = field_child(tree, n, "declarator")?;
    }
    None
}

/// The kept tokens of node `n` that count towards size.
pub fn kept_tokens(prog: &Program, n: NodeId) -> Vec<TokenId> {
    prog.tree
        .node(n)
        .tokens()
        .filter(|&t| prog.kept(t) && prog.tree.is_counted(t))
        .collect()
}

/// Node `n` rewritten as `text`.
pub fn replace_by(prog: &Program, n: NodeId, text: &str) -> Option<Edit> {
    let tokens = kept_tokens(prog, n);
    let (&first, rest) = tokens.split_first()?;
    let range = prog.tree.node(n).tokens();
    // Everything of the node goes but its first token, which becomes `text`.
    let mut delete = Vec::new();
    if range.start < first {
        delete.push(range.start..first);
    }
    if !rest.is_empty() {
        delete.push(first + 1..range.end);
    }
    Some(Edit {
        delete,
        replace: vec![(first, text.to_string())],
        ..Edit::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Parser;
    use crate::Lang;

    fn find(tree: &Tree, kind: &str) -> NodeId {
        (0..tree.nodes.len() as NodeId)
            .find(|&n| tree.node(n).kind == kind)
            .unwrap()
    }

    fn delete_elements(text: &str, list_kind: &str, which: &[usize]) -> String {
        let tree = Parser::new(Lang::C).parse(text);
        let list = find(&tree, list_kind);
        let elems = list_slots(&tree, list).concat();
        let prog = Program::new(tree);
        let doomed: Vec<NodeId> = which.iter().map(|&i| elems[i]).collect();
        let edit = deletion_edit(&prog, &doomed);
        prog.with_mask(prog.mask_after(&edit)).text()
    }

    #[test]
    fn an_item_takes_its_attributes() {
        let text = "#[cfg(test)]\n#[allow(unused)]\nuse super::x;\nfn f() {}\n";
        let tree = Parser::new(Lang::Rust).parse(text);
        let item = find(&tree, "use_declaration");
        let attribute = find(&tree, "attribute_item");
        let prog = Program::new(tree);
        let without = |n: NodeId| {
            prog.with_mask(prog.mask_after(&deletion_edit(&prog, &[n])))
                .text()
        };
        assert_eq!(without(item), "fn f() {}\n");
        // An attribute alone goes alone.
        assert_eq!(
            without(attribute),
            "#[allow(unused)]\nuse super::x;\nfn f() {}\n"
        );
    }

    #[test]
    fn separators_follow_their_elements() {
        let src = "int x = f(a, b, c, d);";
        assert_eq!(
            delete_elements(src, "argument_list", &[1]),
            "int x = f(a, c, d);"
        );
        assert_eq!(
            delete_elements(src, "argument_list", &[2, 3]),
            "int x = f(a, b);"
        );
        assert_eq!(
            delete_elements(src, "argument_list", &[0, 1]),
            "int x = f(c, d);"
        );
        assert_eq!(
            delete_elements(src, "argument_list", &[0, 2]),
            "int x = f(b, d);"
        );
        assert_eq!(
            delete_elements(src, "argument_list", &[0, 1, 2, 3]),
            "int x = f();"
        );
    }

    #[test]
    fn a_terminator_goes_with_the_element_it_ends() {
        let text = "namespace {\nclass H { int p; };\ntemplate <int> class M;\n}\n";
        let tree = Parser::new(Lang::Cpp).parse(text);
        let list = find(&tree, "declaration_list");
        let elems = list_slots(&tree, list).concat();
        let prog = Program::new(tree);
        let text_without = |i: usize| {
            let edit = deletion_edit(&prog, &[elems[i]]);
            prog.with_mask(prog.mask_after(&edit)).text()
        };
        assert_eq!(text_without(1), "namespace {\nclass H { int p; };\n}\n");
        assert_eq!(text_without(0), "namespace {\ntemplate <int> class M;\n}\n");
    }

    #[test]
    fn trailing_commas_stay_when_the_last_element_stays() {
        let src = "int a[] = {1, 2, 3,};";
        assert_eq!(
            delete_elements(src, "initializer_list", &[1]),
            "int a[] = {1, 3,};"
        );
    }

    #[test]
    fn optional_and_replacement_come_from_the_grammar() {
        let text = "void f(void) { if (x) { g(); } else { h(); } }";
        let tree = Parser::new(Lang::C).parse(text);
        let if_stmt = find(&tree, "if_statement");
        let opt = optional_children(&tree, if_stmt);
        assert_eq!(opt.len(), 1);
        assert_eq!(tree.node(opt[0]).kind, "else_clause");
        let reps = replacements(&tree, if_stmt, 8, 4);
        let kinds: Vec<&str> = reps.iter().map(|&r| tree.node(r).kind).collect();
        assert!(kinds.contains(&"compound_statement"), "{kinds:?}");
        assert!(
            !kinds.contains(&"identifier"),
            "an identifier is no statement: {kinds:?}"
        );
    }
}
