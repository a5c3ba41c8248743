//! The `join` rewrite: two neighbouring blocks with the same head become one, `namespace n
//! { A } namespace n { B }` to `namespace n { A B }`, by deleting `} namespace n {` (C-Vise
//! gets there by deleting such lines). Preprocessed C++ repeats `namespace std {` at every
//! header; Rust repeats `impl S {`, C++ `extern "C" {`. Deleting nodes cannot get there: the
//! tokens go across two siblings.
//!
//! Any language, any kind: two siblings of the same kind, next to each other (comments
//! between go too), each with a braced `body` field, whose kept tokens before the body read
//! the same. A loop or an `if` repeated joins too; whether that keeps the property is the
//! test's to say.

use super::lists::{field_child, kept_tokens};
use super::sites::Sites;
use super::{Edit, Program};
use crate::tree::{NodeId, TokenId};

/// The first block's closing brace and the second's opening one.
pub type Site = (TokenId, TokenId);

pub fn pass(prog: &Program) -> Sites<Site> {
    Sites::new(sites(prog), edit)
}

fn sites(prog: &Program) -> Vec<Site> {
    let tree = &prog.tree;
    let mut out = Vec::new();
    for n in 0..tree.nodes.len() as NodeId {
        let kids: Vec<NodeId> = tree
            .node(n)
            .children
            .iter()
            .copied()
            .filter(|&c| !tree.node(c).extra && prog.alive(c))
            .collect();
        for pair in kids.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            if tree.node(a).kind != tree.node(b).kind {
                continue;
            }
            if let (Some((head_a, close)), Some((head_b, open))) =
                (block(prog, a, false), block(prog, b, true))
            {
                if head_a == head_b {
                    out.push((close, open));
                }
            }
        }
    }
    out
}

/// A block's head (the texts of its kept tokens before its body) and its body's closing
/// brace, or its opening one (`open`), if it has a body in braces.
fn block(prog: &Program, n: NodeId, open: bool) -> Option<(Vec<&str>, TokenId)> {
    let tree = &prog.tree;
    let body = kept_tokens(prog, field_child(tree, n, "body")?);
    let (&first, &last) = (body.first()?, body.last()?);
    if prog.text_of(first) != "{" || prog.text_of(last) != "}" || body.len() < 2 {
        return None;
    }
    let head = kept_tokens(prog, n)
        .into_iter()
        .take_while(|&t| t < first)
        .map(|t| prog.text_of(t))
        .collect();
    Some((head, if open { first } else { last }))
}

#[allow(clippy::single_range_in_vec_init)] // one range of tokens
fn edit(prog: &Program, &(close, open): &Site) -> Option<Edit> {
    (prog.kept(close) && prog.kept(open)).then(|| Edit {
        delete: vec![close..open + 1],
        ..Edit::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Lang;

    fn candidates(lang: Lang, text: &str) -> Vec<String> {
        crate::reduce::tests::candidates(lang, text, pass)
    }

    #[test]
    fn neighbouring_blocks_with_the_same_head_join() {
        for (lang, text, joined) in [
            (
                Lang::Cpp,
                "namespace std { int a; }\n// two\nnamespace std { int b; }\nnamespace x { int c; }\n",
                "namespace std { int a; int b; }\nnamespace x { int c; }\n",
            ),
            (
                Lang::Cpp,
                "extern \"C\" { int f(); }\nextern \"C\" { int g(); }\n",
                "extern \"C\" { int f(); int g(); }\n",
            ),
            (
                Lang::Rust,
                "struct S;\nimpl S { fn a() {} }\nimpl S { fn b() {} }\n",
                "struct S;\nimpl S { fn a() {} fn b() {} }\n",
            ),
            (
                Lang::C,
                "void f(int x) { while (x) { g(); } while (x) { h(); } }\n",
                "void f(int x) { while (x) { g(); h(); } }\n",
            ),
        ] {
            assert_eq!(candidates(lang, text), [joined], "{lang:?}");
        }
    }

    #[test]
    fn blocks_with_other_heads_or_kinds_stay_apart() {
        for (lang, text) in [
            (
                Lang::Cpp,
                "namespace a { int x; }\nnamespace b { int y; }\n",
            ),
            (
                Lang::Cpp,
                "namespace a { int x; }\nint y;\nnamespace a { int z; }\n",
            ),
            (Lang::Rust, "impl S { fn a() {} }\nimpl T { fn b() {} }\n"),
            (
                Lang::C,
                "void f(int x) { if (x) { g(); } while (x) { h(); } }\n",
            ),
        ] {
            assert_eq!(candidates(lang, text), Vec::<String>::new(), "{lang:?}");
        }
    }
}
