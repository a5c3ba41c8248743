//! C's implicit int, in the finale: `int f() { ... }` (and `void f() { ... }`) becomes
//! `f() { ... }`, `typedef int t;`
//! becomes `typedef t;`: a type that defaults to int (C89 and K&R C; gcc and clang accept it,
//! with a warning).
//!
//! The grammar (C99 on) cannot parse the result, so its candidates are not parsed: each is
//! the last program the session parsed with `int` left out where C89 or K&R C allow it (see
//! `implicit_type`). That program was valid, and leaving out `int` there stays valid there
//! whatever else was left out, so each candidate is valid. Nothing parses the program again: the
//! pass runs once, after the fixpoint, and the session counts its queries apart
//! (`Stats::unparsed_queries`). All sites at once first, then each.

use super::lists::field_child;
use super::sites::Sites;
use super::Program;
use crate::tree::NodeId;

/// The pass over `prog`: each site a set of type nodes to leave out together.
pub fn pass(prog: &Program) -> Sites<Vec<NodeId>> {
    let types: Vec<NodeId> = (0..prog.tree.nodes.len() as NodeId)
        .filter_map(|n| implicit_type(prog, n))
        .collect();
    Sites::deletions(types).beyond_grammar()
}

/// The type node of `n` that may go: `int` in a function definition (whose declaration
/// specifiers may all go, C89), in a declaration that keeps another specifier (`static x;`,
/// `typedef t;`, C89), or in a file-scope declaration (`x;`, `f();`: K&R C, which gcc and
/// clang still accept with a warning). Not in parameters or fields, and not in a local
/// declaration without another specifier, which would read as a statement.
fn implicit_type(prog: &Program, n: NodeId) -> Option<NodeId> {
    let tree = &prog.tree;
    let kinds = tree.lang.kinds();
    let implicit = kinds.types.implicit?;
    let node = tree.node(n);
    let other_specifier = || {
        node.children
            .iter()
            .any(|&c| kinds.types.droppable.contains(&tree.node(c).kind) && prog.alive(c))
    };
    let kind = Some(node.kind);
    // A typedef's other specifier is `typedef`.
    let allowed = if kind == kinds.function_definition || kind == kinds.type_definition {
        true
    } else if kind == kinds.declaration {
        node.parent == Some(tree.root()) || other_specifier()
    } else {
        false
    };
    let t = field_child(tree, n, "type")?;
    // A function definition's `void` may go too: the function then returns int, and a body
    // without a `return` is still valid C89.
    let text = tree.node_text(t);
    let void = Some(node.kind) == kinds.function_definition && text == "void";
    (allowed && prog.alive(t) && (text == implicit || void)).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::tests::drive;
    use crate::reduce::Pass;
    use crate::reduce::{Session, Settings};
    use crate::tree::Parser;
    use crate::Lang;

    fn settings() -> Settings {
        Settings::default()
    }

    #[test]
    fn functions_file_scope_and_declarations_with_another_specifier() {
        let text = "int f(void);\ntypedef int t;\nint x;\nint h() { int i; static int s; return i; }\nstruct S { int m; };\n";
        let prog = Program::new(Parser::new(Lang::C).parse(text));
        let mut pass = pass(&prog);
        let candidates: Vec<String> = std::iter::from_fn(|| pass.propose(&prog))
            .map(|edit| prog.after(&edit).text())
            .collect();
        // Not the local `int i;` (`i;` is a statement), not a field.
        assert_eq!(
            candidates,
            [
                "f(void);\ntypedef t;\nx;\nh() { int i; static s; return i; }\nstruct S { int m; };\n",
                "f(void);\ntypedef int t;\nint x;\nint h() { int i; static int s; return i; }\nstruct S { int m; };\n",
                "int f(void);\ntypedef t;\nint x;\nint h() { int i; static int s; return i; }\nstruct S { int m; };\n",
                "int f(void);\ntypedef int t;\nx;\nint h() { int i; static int s; return i; }\nstruct S { int m; };\n",
                "int f(void);\ntypedef int t;\nint x;\nh() { int i; static int s; return i; }\nstruct S { int m; };\n",
                "int f(void);\ntypedef int t;\nint x;\nint h() { int i; static s; return i; }\nstruct S { int m; };\n",
            ]
        );
        let cpp = Program::new(Parser::new(Lang::Cpp).parse(text));
        assert!(super::pass(&cpp).propose(&cpp).is_none());
    }

    #[test]
    fn a_function_definitions_void_goes_but_not_a_declarations() {
        let text = "void f(void);\nvoid g(a) {}\n";
        let prog = Program::new(Parser::new(Lang::C).parse(text));
        let mut pass = pass(&prog);
        let candidates: Vec<String> = std::iter::from_fn(|| pass.propose(&prog))
            .map(|edit| prog.after(&edit).text())
            .collect();
        assert_eq!(candidates, ["void f(void);\ng(a) {}\n"]);
    }

    #[test]
    fn the_finale_leaves_int_out_and_counts_its_queries_apart() {
        let text = "static int helper(void);\nint func_1() { int i; i; }\n";
        // Like clang's warning that `i` is used uninitialised: any function holding it.
        let unparsed = std::cell::Cell::new(0);
        let oracle = |t: &str| {
            if !Parser::new(Lang::C).is_valid(t) {
                unparsed.set(unparsed.get() + 1);
            }
            t.contains("() { int i; i; }")
        };
        let s = drive(
            Session::new(Lang::C, text, settings()).unwrap(),
            2,
            false,
            &oracle,
        );
        assert_eq!(s.best(), "a() { int i; i; }\n");
        assert_eq!(s.stats().invalid_queries, 0);
        assert!(unparsed.get() > 0);
        assert_eq!(s.stats().unparsed_queries, unparsed.get());
        assert_eq!(s.stats().tokens_now, 10);
        // A replay ends the same, without a test.
        let mut r = Session::replay(Lang::C, text, settings(), s.recording()).unwrap();
        while !r.done() {
            r.step(10);
        }
        assert_eq!(r.best(), s.best());
        // Without the setting, every query parses.
        let off = Settings {
            implicit_int: false,
            ..settings()
        };
        let plain = drive(
            Session::new(Lang::C, text, off).unwrap(),
            2,
            false,
            &|t: &str| Parser::new(Lang::C).is_valid(t) && t.contains("() { int i; i; }"),
        );
        assert_eq!(plain.best(), "int a() { int i; i; }\n");
        assert_eq!(plain.stats().unparsed_queries, 0);
    }
}
