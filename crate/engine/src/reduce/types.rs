//! Types made plain, C-Reduce's way of making what is left of a program read simply:
//!
//! - qualifiers and storage classes (`const`, `static`, ...) go: all at once, then each;
//!   so do modifiers (Java's `public`, `abstract`, ...), in languages with no plain type too;
//! - a type name (`struct S`, a typedef's `T`, `long long`) becomes `int` in all its uses at
//!   once: in declarations, parameters, return types, fields, typedefs and casts;
//! - the type of one declaration becomes `int`;
//! - a type of several words loses one (`long long` to `long`, where `int` would not do);
//! - a declaration loses a pointer level (`int *p` to `int p`), and the variable's uses their
//!   dereference (`*p` to `p`, `p->x` to `p.x`);
//! - a class whose members are public from its first one becomes a struct, and the label
//!   goes (`class C { public: ...}` to `struct C { ...}`, C-Vise's class-to-struct).
//!
//! The kinds come from the language's table ([`crate::grammars::kinds::Types`]); a language
//! without a plain type gets none of these.

use super::lists::{deletion_edit, field_child, kept_tokens, replace_by};
use super::sites::Sites;
use super::{Edit, Program};
use crate::tree::{NodeId, TokenId, Tree};
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub enum Site {
    /// Specifiers to delete together.
    Drop(Vec<NodeId>),
    /// Type nodes to make plain together.
    Plain(Vec<NodeId>),
    /// A word of a type of several, while it has several.
    Word(NodeId),
    /// A pointer declarator to lose its `*`.
    Pointer(NodeId),
    /// A class's keyword, to become a struct's, and its public label's tokens, to go.
    Struct(TokenId, Vec<TokenId>),
}

/// The pass over `prog`: its sites in the order above.
pub fn pass(prog: &Program) -> Sites<Site> {
    let tree = &prog.tree;
    let types = &tree.lang.kinds().types;
    let plain = types.plain.is_some();
    let modifier = |n: &crate::tree::Node| {
        n.parent
            .is_some_and(|p| Some(tree.node(p).kind) == types.modifiers)
    };
    let mut drops = Vec::new();
    let mut words = Vec::new();
    let mut typed: Vec<NodeId> = Vec::new();
    let mut pointers = Vec::new();
    for n in 0..tree.nodes.len() as NodeId {
        let node = tree.node(n);
        if node.extra || !prog.alive(n) {
            continue;
        }
        if types.droppable.contains(&node.kind) || modifier(node) {
            drops.push(n);
        } else if !plain {
            continue;
        } else if Some(node.kind) == types.words && prog.size_of(n) > 1 {
            words.extend(node.children.iter().filter(|&&c| prog.alive(c)));
        } else if Some(node.kind) == types.pointer_declarator
            && node.parent.is_none_or(|p| tree.node(p).kind != node.kind)
        {
            pointers.push(n);
        } else if types.typed.contains(&node.kind) {
            typed.extend(field_child(tree, n, "type").filter(|&t| replaceable(prog, n, t)));
        }
    }
    // Uses of one type name, by its text: each name's uses go together.
    let mut by_name: BTreeMap<String, Vec<NodeId>> = BTreeMap::new();
    for &t in &typed {
        if field_child(tree, t, "body").is_none() {
            by_name.entry(type_text(prog, t)).or_default().push(t);
        }
    }
    let mut names: Vec<Vec<NodeId>> = by_name.into_values().filter(|u| u.len() > 1).collect();
    names.sort_by_key(|uses| (std::cmp::Reverse(uses.len()), uses[0]));
    typed.sort_by_key(|&t| (std::cmp::Reverse(prog.size_of(t)), t));

    let mut sites = Vec::new();
    if drops.len() > 1 {
        sites.push(Site::Drop(drops.clone()));
    }
    sites.extend(drops.into_iter().map(|n| Site::Drop(vec![n])));
    sites.extend(names.into_iter().map(Site::Plain));
    sites.extend(typed.into_iter().map(|t| Site::Plain(vec![t])));
    sites.extend(words.into_iter().map(Site::Word));
    sites.extend(pointers.into_iter().map(Site::Pointer));
    sites.extend(public_classes(prog));
    Sites::new(sites, edit)
}

/// The classes whose first member is a public label (`class C { public: ...}`).
fn public_classes(prog: &Program) -> Vec<Site> {
    let tree = &prog.tree;
    let Some((class, label, public, _)) = tree.lang.kinds().types.class else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for n in 0..tree.nodes.len() as NodeId {
        if tree.node(n).kind != class || !prog.alive(n) {
            continue;
        }
        let (Some(&keyword), Some(body)) =
            (kept_tokens(prog, n).first(), field_child(tree, n, "body"))
        else {
            continue;
        };
        // `{`, the label's word, its `:`.
        let body = kept_tokens(prog, body);
        let [_, word, colon, ..] = body[..] else {
            continue;
        };
        let labelled = tree.node(tree.tokens[word as usize].node).parent;
        // The class's own keyword, not a name or an attribute before it.
        let keyworded = !tree.node(tree.tokens[keyword as usize].node).named;
        if keyworded
            && prog.text_of(word) == public
            && prog.text_of(colon) == ":"
            && labelled.is_some_and(|l| tree.node(l).kind == label)
        {
            out.push(Site::Struct(keyword, vec![word, colon]));
        }
    }
    out
}

fn edit(prog: &Program, site: &Site) -> Option<Edit> {
    let plain = prog.tree.lang.kinds().types.plain;
    match site {
        Site::Drop(nodes) => Some(deletion_edit(prog, nodes)),
        Site::Plain(nodes) => Some(merged(
            // Only a language with a plain type has these sites.
            nodes.iter().filter_map(|&t| replace_by(prog, t, plain?)),
        )),
        Site::Word(w) => {
            let several = prog
                .tree
                .node(*w)
                .parent
                .is_some_and(|t| prog.size_of(t) > 1);
            several.then(|| deletion_edit(prog, &[*w]))
        }
        Site::Pointer(n) => drop_pointer(prog, *n),
        Site::Struct(keyword, label) => {
            let open = prog.tree.lang.kinds().types.class?.3;
            let kept = prog.kept(*keyword) && label.iter().all(|&t| prog.kept(t));
            kept.then(|| Edit {
                delete: label.iter().map(|&t| t..t + 1).collect(),
                replace: vec![(*keyword, open.to_string())],
                ..Edit::default()
            })
        }
    }
}

/// Whether type node `t` of declaration `decl` may become plain: a kind that may, not already
/// plain nor kept (`void`), and not a tag's definition that declares nothing else.
fn replaceable(prog: &Program, decl: NodeId, t: NodeId) -> bool {
    let tree = &prog.tree;
    let kinds = tree.lang.kinds();
    let text = type_text(prog, t);
    kinds.types.replaceable.contains(&tree.node(t).kind)
        && Some(text.as_str()) != kinds.types.plain
        && !kinds.types.kept.contains(&text.as_str())
        && !text.is_empty()
        && (field_child(tree, t, "body").is_none()
            || field_child(tree, decl, "declarator").is_some())
}

/// A type's kept tokens as one text (`struct S`, `unsigned long`).
fn type_text(prog: &Program, t: NodeId) -> String {
    let tokens: Vec<&str> = kept_tokens(prog, t)
        .into_iter()
        .map(|t| prog.text_of(t))
        .collect();
    tokens.join(" ")
}

/// One edit doing all of `edits`.
fn merged(edits: impl Iterator<Item = Edit>) -> Edit {
    edits.fold(Edit::default(), |mut all, e| {
        all.delete.extend(e.delete);
        all.replace.extend(e.replace);
        all
    })
}

/// The name a declarator declares, down its `declarator` fields (`p` in `*p[3]`).
fn declared_name(tree: &Tree, mut n: NodeId) -> Option<NodeId> {
    while let Some(inner) = field_child(tree, n, "declarator") {
        n = inner;
    }
    (tree.node(n).kind == tree.lang.kinds().identifier).then_some(n)
}

/// The child token of `n` with text `text` (an operator).
fn operator(prog: &Program, n: NodeId, text: &str) -> Option<TokenId> {
    let tree = &prog.tree;
    tree.node(n)
        .children
        .iter()
        .map(|&c| tree.node(c))
        .find(|c| !c.named && c.tokens().len() == 1 && prog.text_of(c.first_token) == text)
        .map(|c| c.first_token)
}

/// `*NAME` in a declaration becomes `NAME`; `*NAME` in expressions `NAME`, `NAME->f` `NAME.f`.
fn drop_pointer(prog: &Program, decl: NodeId) -> Option<Edit> {
    let tree = &prog.tree;
    let kinds = tree.lang.kinds();
    let inner = field_child(tree, decl, "declarator")?;
    let mut edit = Edit::deleting(vec![
        tree.node(decl).first_token..tree.node(inner).first_token,
    ]);
    let Some(name) = declared_name(tree, inner).map(|n| tree.node_text(n)) else {
        return Some(edit);
    };
    let is_name = |n: Option<NodeId>| {
        n.is_some_and(|n| tree.node(n).kind == kinds.identifier && tree.node_text(n) == name)
    };
    for n in 0..tree.nodes.len() as NodeId {
        let node = tree.node(n);
        if !prog.alive(n) || !is_name(field_child(tree, n, "argument")) {
            continue;
        }
        if node.kind == kinds.address_of {
            if let Some(star) = operator(prog, n, "*") {
                edit.delete.push(star..star + 1);
            }
        } else if let Some(arrow) = operator(prog, n, "->") {
            edit.replace.push((arrow, ".".to_string()));
        }
    }
    Some(edit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::tests::{drive, session_keeping_layout};
    use crate::Lang;

    fn candidates(lang: Lang, text: &str) -> Vec<String> {
        crate::reduce::tests::candidates(lang, text, pass)
    }

    #[test]
    fn a_class_public_from_its_first_member_becomes_a_struct() {
        let text = "template <typename> class V {\n  public:\n  int n;\n};\nclass W { int m; public: int k; };\n";
        let structs: Vec<String> = candidates(Lang::Cpp, text)
            .into_iter()
            .filter(|c| c.contains("struct"))
            .collect();
        // Only V: W's first member is private.
        assert_eq!(
            structs,
            ["template <typename> struct V {\n  int n;\n};\nclass W { int m; public: int k; };\n"]
        );
        // C has no classes, Java's are another matter.
        assert!(candidates(Lang::Java, "class A { public int x; }\n")
            .iter()
            .all(|c| !c.contains("struct")));
    }

    #[test]
    fn c_candidates_in_order() {
        let text =
            "static const unsigned long n;\nstruct s *f(struct s *p) { return *p + p->x + n; }\n";
        assert_eq!(
            candidates(Lang::C, text),
            [
                // Qualifiers and storage classes: all, then each.
                "unsigned long n;\nstruct s *f(struct s *p) { return *p + p->x + n; }\n",
                "const unsigned long n;\nstruct s *f(struct s *p) { return *p + p->x + n; }\n",
                "static unsigned long n;\nstruct s *f(struct s *p) { return *p + p->x + n; }\n",
                // Every use of `struct s`.
                "static const unsigned long n;\nint *f(int *p) { return *p + p->x + n; }\n",
                // Each declaration, biggest type first.
                "static const int n;\nstruct s *f(struct s *p) { return *p + p->x + n; }\n",
                "static const unsigned long n;\nint *f(struct s *p) { return *p + p->x + n; }\n",
                "static const unsigned long n;\nstruct s *f(int *p) { return *p + p->x + n; }\n",
                // Each word of a type of several.
                "static const long n;\nstruct s *f(struct s *p) { return *p + p->x + n; }\n",
                "static const unsigned n;\nstruct s *f(struct s *p) { return *p + p->x + n; }\n",
                // Pointer levels, with the uses' dereferences.
                "static const unsigned long n;\nstruct s f(struct s *p) { return *p + p->x + n; }\n",
                "static const unsigned long n;\nstruct s *f(struct s p) { return p + p.x + n; }\n",
            ]
        );
    }

    #[test]
    fn java_modifiers_go_all_at_once_then_each() {
        assert_eq!(
            candidates(
                Lang::Java,
                "class A { public static abstract class B {} }\n"
            ),
            [
                "class A { class B {} }\n",
                "class A { static abstract class B {} }\n",
                "class A { public abstract class B {} }\n",
                "class A { public static class B {} }\n",
            ]
        );
        // Languages without modifiers or types to make plain have no candidates.
        assert!(candidates(Lang::JavaScript, "let x = 1;\n").is_empty());
    }

    #[test]
    fn all_uses_of_a_type_name_become_int_together() {
        let text = "typedef long T;\nT x;\nT y;\nint f(T z) { return x + y + z; }\n";
        // Like a diagnostic about `x + y + z` of one type: the three declared alike, and `T`
        // used only while declared.
        let oracle = |t: &str| {
            let alike = ["T x;\nT y;\nint f(T z)", "int x;\nint y;\nint f(int z)"]
                .iter()
                .any(|d| t.contains(d));
            let declared = !t.contains("T ") || t.contains("typedef long T;");
            alike && declared && t.contains("return x + y + z;")
        };
        let s = drive(session_keeping_layout(Lang::C, text), 2, false, &oracle);
        assert_eq!(
            s.best(),
            "int x;\nint y;\nint f(int z) { return x + y + z; }\n"
        );
        assert!(s.history().iter().any(|h| h.pass == "types"));
        assert_eq!(s.stats().invalid_queries, 0);
    }

    #[test]
    fn a_pointer_level_goes_with_its_dereferences() {
        // Like a compiler: `p` dereferenced exactly while it is a pointer.
        let text = "struct s { int x; };\nint f(struct s *p) { return p->x; }\nint g(void) { int *q; *q = 1; return *q; }\n";
        let oracle = |t: &str| {
            let p = t.contains("struct s *p) { return p->x; }")
                || t.contains("struct s p) { return p.x; }");
            let q =
                t.contains("int *q; *q = 1; return *q;") || t.contains("int q; q = 1; return q;");
            p && q && t.contains("struct s { int x; };") && t.contains("int g(void) {")
        };
        let s = drive(session_keeping_layout(Lang::C, text), 2, false, &oracle);
        assert_eq!(
            s.best(),
            "struct s { int x; };\na(struct s p) { return p.x; }\nint g(void) { int q; q = 1; return q; }\n"
        );
        assert_eq!(s.stats().invalid_queries, 0);
    }

    #[test]
    fn a_type_of_several_words_loses_words() {
        // Like a diagnostic that needs a 64-bit `x`: `int` will not do, `long` will.
        let oracle = |t: &str| t.contains("long x = 1;");
        let s = drive(
            session_keeping_layout(Lang::C, "unsigned long long x = 1;\n"),
            2,
            false,
            &oracle,
        );
        assert_eq!(s.best(), "long x = 1;\n");
    }

    #[test]
    fn cpp_types_become_int() {
        let text = "struct Item { int v; };\nstatic const Item *find(const Item *items, unsigned long n) { return items + n; }\n";
        // Like a diagnostic about `find` returning `items + n`: a function with a return type
        // and both parameters.
        let oracle = |t: &str| {
            (t.contains(" find(") || t.contains("*find("))
                && t.contains("items, ")
                && t.contains(" n)")
                && t.contains("return items + n;")
        };
        let s = drive(session_keeping_layout(Lang::Cpp, text), 2, false, &oracle);
        assert_eq!(
            s.best(),
            "int find(int items, int n) { return items + n; }\n"
        );
        assert!(s.history().iter().any(|h| h.pass == "types"));
    }

    #[test]
    fn other_languages_have_no_plain_type() {
        assert!(candidates(Lang::Rust, "fn f(x: &u8) -> u8 { *x }\n").is_empty());
    }
}
