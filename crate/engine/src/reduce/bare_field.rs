//! GNU C's last field without its `;`, in the finale: `struct { int a : 2; } x;` becomes
//! `struct { int a : 2 } x;`, which gcc and clang accept with a warning (C++ compilers do
//! not). C-Vise's token passes find it; the grammar cannot parse the result.
//!
//! So, as with implicit int (see `implicit_int`), candidates are not parsed: each is the last
//! program the session parsed with the `;` of a body's last field left out, which stays valid
//! whatever else the finale left out. All sites at once first, then each.

use super::sites::Sites;
use super::Program;
use crate::tree::NodeId;

/// The pass over `prog`: each site a set of `;` tokens to leave out together.
pub fn pass(prog: &Program) -> Sites<Vec<NodeId>> {
    let tree = &prog.tree;
    let kinds = tree.lang.kinds();
    let terminators: Vec<NodeId> = match (kinds.bare_last_field, kinds.field_declaration) {
        (Some(body), Some(field)) => (0..tree.nodes.len() as NodeId)
            .filter(|&n| tree.node(n).kind == body && prog.alive(n))
            .filter_map(|n| {
                let last = tree.node(n).children.iter().copied().rev().find(|&c| {
                    let child = tree.node(c);
                    child.named && !child.extra && prog.alive(c)
                })?;
                let semicolon = *tree.node(last).children.last()?;
                (tree.node(last).kind == field
                    && tree.node_text(semicolon) == ";"
                    && prog.alive(semicolon))
                .then_some(semicolon)
            })
            .collect(),
        _ => vec![],
    };
    Sites::deletions(terminators).beyond_grammar()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::tests::drive;
    use crate::reduce::{Session, Settings};
    use crate::tree::Parser;
    use crate::Lang;

    fn candidates(lang: Lang, text: &str) -> Vec<String> {
        crate::reduce::tests::candidates(lang, text, pass)
    }

    #[test]
    fn each_bodys_last_field_loses_its_semicolon_in_c_only() {
        let text =
            "struct S { int a; int b : 2; /* last */ };\nunion { char c; } u;\nstruct E {} e;\n";
        assert_eq!(
            candidates(Lang::C, text),
            [
                "struct S { int a; int b : 2/* last */ };\nunion { char c} u;\nstruct E {} e;\n",
                "struct S { int a; int b : 2/* last */ };\nunion { char c; } u;\nstruct E {} e;\n",
                "struct S { int a; int b : 2; /* last */ };\nunion { char c} u;\nstruct E {} e;\n",
            ]
        );
        assert!(candidates(Lang::Cpp, text).is_empty());
    }

    #[test]
    fn the_finale_leaves_the_semicolon_out_and_counts_its_queries_apart() {
        // Like clang's -Wbitfield-constant-conversion: a constant too wide for the field.
        let text = "struct S { int a : 2; };\nstruct S s = {3};\n";
        let unparsed = std::cell::Cell::new(0);
        let oracle = |t: &str| {
            if !Parser::new(Lang::C).is_valid(t) {
                unparsed.set(unparsed.get() + 1);
            }
            t.contains(": 2") && t.contains("{3}")
        };
        let s = drive(
            Session::new(Lang::C, text, Settings::default()).unwrap(),
            2,
            false,
            &oracle,
        );
        // Laid out first, then the `;` left out.
        assert!(s.best().contains("int a: 2 }"), "{}", s.best());
        assert_eq!(s.stats().invalid_queries, 0);
        assert!(unparsed.get() > 0);
        assert_eq!(s.stats().unparsed_queries, unparsed.get());
        // A replay ends the same, without a test.
        let mut r = Session::replay(Lang::C, text, Settings::default(), s.recording()).unwrap();
        while !r.done() {
            r.step(10);
        }
        assert_eq!(r.best(), s.best());
    }
}
