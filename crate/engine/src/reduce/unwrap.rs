//! The `unwrap` rewrite: a construct is replaced by the contents of its braces — a namespace
//! or `extern "C++" { ... }` by its declarations, a class by its members (fields first), an
//! `if`, a loop or a bare block by its statements. A named scope (a namespace, a Rust `mod`)
//! takes its name's paths with it: `n::X` becomes `X`, and the imports that name it (`use
//! n::X;`, `using namespace n;`) go. It needs no table: any node with a braced child is a site, and the validity
//! check drops what the grammar does not allow where the contents land (statements at file
//! scope, say), so only candidates that parse are queried.

use super::lists::kept_tokens;
use super::sites::Sites;
use super::{Edit, Program};
use crate::tree::{NodeId, TokenId, Tree};

/// At most this many constructs are tried in one round, largest first.
const MAX_SITES: usize = 200;

/// A node and its braced child.
pub type Site = (NodeId, NodeId);

pub fn pass(prog: &Program) -> Sites<Site> {
    let tree = &prog.tree;
    let mut sites: Vec<(usize, Site)> = (0..tree.nodes.len() as NodeId)
        .filter(|&n| !tree.node(n).extra && prog.alive(n))
        .filter_map(|n| braced_child(tree, n).map(|b| (prog.size_of(n), (n, b))))
        .filter(|(size, _)| *size > 2)
        .collect();
    sites.sort_by_key(|&(size, (n, _))| (std::cmp::Reverse(size), n));
    sites.truncate(MAX_SITES);
    Sites::new(sites.into_iter().map(|(_, s)| s).collect(), edit)
}

/// The child of `n` that is a braced list (`{ ... }`), when `n` has more than it.
fn braced_child(tree: &Tree, n: NodeId) -> Option<NodeId> {
    let node = tree.node(n);
    if node.children.len() < 2 {
        return None;
    }
    node.children.iter().copied().find(|&c| {
        let child = tree.node(c);
        child.named
            && child.end_token >= child.first_token + 2
            && tree.token_text(child.first_token) == "{"
            && tree.token_text(child.end_token - 1) == "}"
    })
}

/// Everything of the construct but what its braces hold. A class's members become
/// file-scope declarations: its `;` goes too, and its fields move before its functions
/// (which now read them as globals, declared before use).
fn edit(prog: &Program, &(n, body): &Site) -> Option<Edit> {
    let tree = &prog.tree;
    let (outer, inner) = (tree.node(n).tokens(), tree.node(body).tokens());
    if !(prog.alive(n) && prog.kept(inner.start) && prog.kept(inner.end - 1)) {
        return None;
    }
    let mut edit = Edit::deleting(vec![outer.start..inner.start + 1, inner.end - 1..outer.end]);
    if tree
        .lang
        .kinds()
        .names
        .tag_specifiers
        .contains(&tree.node(n).kind)
    {
        let after = (outer.end..tree.tokens.len() as TokenId).find(|&t| prog.kept(t));
        if let Some(semicolon) = after.filter(|&t| prog.text_of(t) == ";") {
            edit.delete.push(semicolon..semicolon + 1);
        }
        hoist_fields(prog, body, &mut edit);
    } else {
        drop_paths_through(prog, n, &mut edit);
    }
    Some(edit)
}

/// For a named scope `n`: each `NAME ::` outside it loses those two tokens, and each import
/// that starts with them goes whole.
fn drop_paths_through(prog: &Program, n: NodeId, edit: &mut Edit) {
    let tree = &prog.tree;
    let node = tree.node(n);
    let Some(name) = node
        .children
        .iter()
        .find(|&&c| tree.node(c).field == Some("name"))
    else {
        return;
    };
    let name = prog.text_of(tree.node(*name).first_token);
    let inside = node.tokens();
    let imports = tree.lang.kinds().names.imports;
    let kept: Vec<TokenId> = (0..tree.tokens.len() as TokenId)
        .filter(|&t| prog.kept(t) && !inside.contains(&t))
        .collect();
    for (i, &t) in kept.iter().enumerate() {
        let path = prog.text_of(t) == name
            && kept.get(i + 1).is_some_and(|&c| prog.text_of(c) == "::")
            && (i == 0 || prog.text_of(kept[i - 1]) != "::");
        if !path {
            continue;
        }
        let mut import = Some(tree.tokens[t as usize].node);
        while let Some(a) = import.filter(|&a| !imports.contains(&tree.node(a).kind)) {
            import = tree.node(a).parent;
        }
        match import {
            Some(a) => edit.delete.push(tree.node(a).tokens()),
            None => edit.delete.push(t..kept[i + 1] + 1),
        }
    }
}

/// Moves a class body's field declarations before its first other member.
fn hoist_fields(prog: &Program, body: NodeId, edit: &mut Edit) {
    let tree = &prog.tree;
    let members: Vec<NodeId> = tree
        .node(body)
        .children
        .iter()
        .copied()
        .filter(|&c| tree.node(c).named && prog.alive(c))
        .collect();
    let field = tree.lang.kinds().field_declaration;
    let is_field = |&c: &NodeId| Some(tree.node(c).kind) == field;
    let Some(first_other) = members.iter().position(|c| !is_field(c)) else {
        return;
    };
    let later: Vec<NodeId> = members[first_other..]
        .iter()
        .copied()
        .filter(is_field)
        .collect();
    if later.is_empty() {
        return;
    }
    let text: Vec<&str> = later
        .iter()
        .flat_map(|&f| kept_tokens(prog, f))
        .map(|t| prog.text_of(t))
        .collect();
    let anchor = kept_tokens(prog, members[first_other])[0];
    edit.replace.push((
        anchor,
        format!("{}\n{}", text.join(" "), prog.text_of(anchor)),
    ));
    edit.delete
        .extend(later.iter().map(|&f| tree.node(f).tokens()));
}

#[cfg(test)]
mod tests {
    use crate::reduce::tests::drive;
    use crate::reduce::{Session, Settings};
    use crate::Lang;

    fn reduce(lang: Lang, text: &str, oracle: &dyn Fn(&str) -> bool) -> String {
        let session = Session::new(lang, text, Settings::default()).unwrap();
        drive(session, 2, false, oracle).best().to_string()
    }

    #[test]
    fn a_namespace_gives_way_to_its_declarations() {
        let text = "namespace {\nint keep = 42;\n}\nint main() { return keep; }\n";
        let best = reduce(Lang::Cpp, text, &|t| {
            t.contains("keep = 42") && t.contains("return keep")
        });
        assert!(!best.contains("namespace"), "{best}");
    }

    #[test]
    fn a_named_scope_takes_its_paths_and_imports_with_it() {
        // The compiler's view, roughly: `m::X` and `use m::...` need the module.
        let rust =
            "mod m {\n    pub struct Kept;\n}\npub use m::Kept;\nfn f() -> m::Kept { m::Kept }\n";
        let best = reduce(Lang::Rust, rust, &|t| {
            let module = t.contains("mod m");
            t.contains("pub struct Kept") && t.contains("Kept }") && module == t.contains("m::")
        });
        assert!(!best.contains("mod m") && !best.contains("use "), "{best}");
        let cpp = "namespace n {\nint keep = 42;\n}\nusing namespace n;\nint main() { return n::keep; }\n";
        let best = reduce(Lang::Cpp, cpp, &|t| {
            let scope = t.contains("namespace n {");
            let read = t.contains("return keep") || t.contains("return n::keep");
            t.contains("keep = 42") && read && scope == t.contains("n::")
        });
        assert!(
            !best.contains("namespace") && best.contains("return keep"),
            "{best}"
        );
    }

    #[test]
    fn an_if_and_a_loop_give_way_to_their_statements() {
        let text = "int f(int x) {\n  if (x > 1) {\n    while (x) {\n      x = g(x);\n    }\n  }\n  return x;\n}\n";
        let best = reduce(Lang::C, text, &|t| t.contains("x = g(x);"));
        assert!(!best.contains("if") && !best.contains("while"), "{best}");
        let js = "function f(x) {\n  for (const y of x) {\n    keep(y);\n  }\n}\n";
        let best = reduce(Lang::JavaScript, js, &|t| t.contains("keep(y)"));
        assert!(!best.contains("for"), "{best}");
    }

    #[test]
    fn a_body_gives_way_to_a_semicolon() {
        let text =
            "struct S {\n  unsigned size() { return 1; }\n};\nint f(S s) { return s.size(); }\n";
        let best = reduce(Lang::Cpp, text, &|t| {
            t.contains("unsigned size()") && t.contains(".size()")
        });
        assert!(best.contains("unsigned size();"), "{best}");
    }

    #[test]
    fn a_class_gives_way_to_its_members_fields_first() {
        let text = "class C {\n int peak() { return counts; }\n int counts;\n};\n";
        let oracle = |t: &str| {
            // Like a compiler: in a class a member may be read before its declaration; at
            // file scope it must be declared first.
            let (decl, read) = (t.find("int counts"), t.find("return counts"));
            let ordered = decl.is_some_and(|d| read.is_some_and(|r| d < r));
            ordered || decl.is_some() && read.is_some() && t.contains("class")
        };
        let best = reduce(Lang::Cpp, text, &oracle);
        assert!(!best.contains("class"), "{best}");
    }
}
