//! Tolerant reduction: programs the grammar cannot fully parse are reduced, their error
//! regions shrink or vanish, and no query has an error the original did not have.

use super::tests::{drive, program};
use super::*;
use crate::tree::Parser;
use crate::Lang;

/// Words of the counted tokens in error regions of `text`'s tree, sorted (a region of
/// characters no token has is one leaf: `@@ @@`).
fn error_texts(lang: Lang, text: &str) -> Vec<String> {
    let tree = Parser::new(lang).parse(text);
    let marked = tree.error_tokens();
    let mut texts: Vec<String> = (0..tree.tokens.len() as u32)
        .filter(|&t| marked[t as usize] && tree.is_counted(t))
        .flat_map(|t| tree.token_text(t).split_whitespace().map(str::to_string))
        .collect();
    texts.sort();
    texts
}

/// Whether every item of `small` (sorted) is in `big` (sorted), counting repeats.
fn sub_multiset(small: &[String], big: &[String]) -> bool {
    let mut rest = big.iter();
    small.iter().all(|s| rest.any(|b| b == s))
}

/// Reduces `text` keeping `needle`; checks every query with a full parse, and returns the
/// result with its error tokens.
fn reduce_tolerantly(lang: Lang, text: &str, needle: &str) -> (String, Vec<String>) {
    let original_errors = error_texts(lang, text);
    assert!(
        !original_errors.is_empty(),
        "the test program must have an error region"
    );
    let session = Session::new(lang, text, Settings::default()).expect("reduced, not refused");
    let oracle = |t: &str| {
        let errors = error_texts(lang, t);
        assert!(
            sub_multiset(&errors, &original_errors),
            "a query added an error: {errors:?} not within {original_errors:?} in\n{t}"
        );
        t.contains(needle)
    };
    let session = drive(session, 3, true, &oracle);
    assert_eq!(session.stats().invalid_queries, 0);
    let best = session.best().to_string();
    assert!(best.contains(needle));
    let errors = error_texts(lang, &best);
    assert!(
        errors.len() < original_errors.len(),
        "the error region did not shrink: {errors:?}"
    );
    (best, errors)
}

#[test]
fn c_error_region_vanishes() {
    let text = "int keep(void) { return 42; }\n\
                int helper(int x) { return x + 1; }\n\
                @@ broken ( stuff [ 1 ] ) @@ ;\n\
                int other(void) { return helper(2); }\n";
    let (best, errors) = reduce_tolerantly(Lang::C, text, "42");
    assert!(errors.is_empty(), "{errors:?}");
    assert!(
        !best.contains("broken") && !best.contains("other"),
        "{best}"
    );
}

#[test]
fn cpp_attribute_region_shrinks() {
    let text = "namespace std {\n\
                inline namespace __cxx11 __attribute__((__abi_tag__ (\"cxx11\"))) { }\n\
                }\n\
                int twice(int v) { return v * 2; }\n\
                int main() { int marker = twice(21); return marker; }\n";
    let (best, _) = reduce_tolerantly(Lang::Cpp, text, "marker");
    assert!(!best.contains("twice(int"), "{best}");
}

#[test]
fn a_token_that_starts_with_a_space_leaves_candidates_readable() {
    // The string's contents are a token that begins with a space. While the error region
    // must stay, candidates are judged by where their errors lie, never dropped as unreadable.
    let text = "namespace std {\n\
                inline namespace __cxx11 __attribute__((__abi_tag__ (\"cxx11\"))) { }\n\
                }\n\
                int twice(int v) { return v * 2; }\n\
                const char *marker = \" if it is true\";\n";
    let session = Session::new(Lang::Cpp, text, Settings::default()).unwrap();
    let session = drive(session, 2, false, &|t: &str| {
        t.contains("__attribute__") && t.contains("\" if it")
    });
    let best = session.best();
    assert!(!best.contains("twice"), "{best}");
}

#[test]
fn rust_spaced_macro_definition_reduces() {
    let text = "macro_rules ! square {\n    ($x:expr) => { $x * $x };\n}\n\
                fn helper() -> i32 { 7 }\n\
                fn main() {\n    let marker = square!(3);\n    let unused = helper();\n}\n";
    let (best, _) = reduce_tolerantly(Lang::Rust, text, "marker");
    assert!(!best.contains("helper"), "{best}");
}

#[test]
fn javascript_error_region_shrinks() {
    let text = "function keep() { return 'marker'; }\n\
                const a = 1;\n\
                let x = #@ oops ( 1, 2 ) ;\n\
                function drop() { return a + 2; }\n";
    let (best, _) = reduce_tolerantly(Lang::JavaScript, text, "marker");
    assert!(!best.contains("drop"), "{best}");
}

#[test]
fn strict_refuses_what_does_not_parse() {
    let settings = Settings {
        strict: true,
        ..Settings::default()
    };
    let err = Session::new(Lang::C, "int x = @@;\n", settings).err();
    assert!(err.is_some_and(|e| e.error.line == 1));
    assert!(Session::new(Lang::C, "int x = @@;\n", Settings::default()).is_ok());
}

#[test]
fn a_candidate_that_adds_an_error_is_never_queried() {
    // Any deletion inside `f` breaks it; only the error region and whole items may go.
    let text = "int f(int a) { return a; }\nint g = @@ 3 @@;\nint h(void) { return f(1); }\n";
    let original = error_texts(Lang::C, text);
    let session = Session::new(Lang::C, text, Settings::default()).unwrap();
    let oracle = |t: &str| {
        assert!(sub_multiset(&error_texts(Lang::C, t), &original), "{t}");
        t.contains("return a;") && t.contains("f(1)")
    };
    let session = drive(session, 1, false, &oracle);
    assert!(
        session.stats().invalid_skipped > 0,
        "broken candidates were made and dropped"
    );
}

#[test]
fn gnu_attributes_go_with_their_parentheses() {
    // `namespace std __attribute__ ((...))` is an error region; without the attribute it
    // parses, and tokens can then go only with the attribute's parentheses.
    let text =
        "namespace std __attribute__ ((__visibility__ (\"default\")))\n{\n  int marker;\n}\n";
    let (best, errors) = reduce_tolerantly(Lang::Cpp, text, "marker");
    assert!(errors.is_empty(), "{best}");
    assert!(!best.contains("__attribute__"), "{best}");
}

#[test]
fn line_markers_go_at_once() {
    let text =
        "# 1 \"a.c\"\n# 1 \"<built-in>\" 1\nint x;\n# 5 \"a.c\" 2\nint marker;\n# 7 \"a.c\"\n";
    let queries = std::cell::Cell::new(0);
    // The pass itself: `chunks`, before it, would try each marker line as a chunk.
    let settings = Settings {
        skipped: vec![PassKind::Chunks],
        ..Settings::default()
    };
    let session = Session::new(Lang::C, text, settings).unwrap();
    let session = drive(session, 1, false, &|t: &str| {
        queries.set(queries.get() + 1);
        t.contains("int marker")
    });
    assert_eq!(session.best(), "int marker;\n");
    // One of them is the `local` pass's, after the fixpoint (`;` alone).
    assert!(queries.get() <= 8, "{} queries", queries.get());
}

#[test]
fn an_error_regions_spans_are_where_its_tokens_are() {
    let text = "int a(void) { return 1; }\n\
                int b(void) { return @@ 2; }\n\
                int c(void) { return 3; }\n";
    let prog = program(Lang::C, text);
    let marked = prog.tree.error_tokens();
    assert!(
        marked.contains(&true),
        "the program must have an error region"
    );
    let line = |n: usize| {
        let start: usize = text.split_inclusive('\n').take(n).map(str::len).sum();
        (
            start,
            start + text.split_inclusive('\n').nth(n).unwrap().len(),
        )
    };
    let spans = spans::Spans::of(&prog, &marked, text);
    let covers = |ranges: &[(usize, usize)]| {
        let overlap = |&(s, e): &(usize, usize)| ranges.iter().any(|r| r.0 < e && s < r.1);
        spans.marked().iter().any(overlap)
    };
    assert!(covers(&[line(1)]));
    assert!(covers(&[line(0), line(1)]));
    assert!(!covers(&[line(0)]));
    assert!(!covers(&[line(0), line(2)]));
    assert!(!covers(&[line(2)]));
}

#[test]
#[allow(clippy::single_range_in_vec_init)] // one range of tokens
fn a_candidates_errors_are_judged_alike_from_where_it_agrees_with_the_best() {
    // Error regions early and late (a missing `;` among them); every deletion of one to
    // three tokens anywhere, alone and with another seven tokens on.
    let text = "int z(void) { return 0 }\n\
                int a(void) { return @@ 1; }\n\
                int b(void) { int x = 2; return x; }\n\
                int c(void) { return \"s  t\" [0]; }\n\
                int d(void) { return 3 @@; }\n";
    let prog = program(Lang::C, text);
    let marked = prog.tree.error_tokens();
    let spans = spans::Spans::of(&prog, &marked, text);
    let mut parser = Parser::new(Lang::C);
    let tokens = prog.tree.tokens.len() as crate::tree::TokenId;
    let (mut judged, mut refused, mut hunked) = (0, 0, 0);
    for start in 0..tokens {
        for (len, apart) in [(1, None), (2, None), (3, None), (1, Some(7)), (2, Some(9))] {
            let mut ranges = vec![start..(start + len).min(tokens)];
            ranges.extend(apart.map(|d| (start + d).min(tokens)..(start + d + 1).min(tokens)));
            let edit = Edit::deleting(ranges);
            let cand = prog.after(&edit);
            let cand_text = cand.text();
            let (_, raw) = parser.parse_with_raw(&cand_text);
            let errors = crate::tree::error_ranges(&raw);
            // The tokens the errors lie on, found with each hint.
            let on = |best: Option<(&spans::Spans, spans::Agreement)>| {
                let mut on = vec![false; marked.len()];
                tolerance::mark_errors(&cand, &mut on, &cand_text, &errors, best);
                on
            };
            let changes = spans.changes(&prog, &cand, &edit).unwrap();
            let hunks = crate::hunks::of_changes(text.as_bytes(), cand_text.as_bytes(), &changes);
            hunked += hunks.is_some() as usize;
            let hunks = hunks.unwrap_or_default();
            let changed = edit.first_changed();
            let hints = [
                (changed, None, None),
                (changed, hunks.first().map(|h| h.old.start), None),
                (changed, None, hunks.last().map(|h| (h.old.end, h.new.end))),
                (
                    changed,
                    hunks.first().map(|h| h.old.start),
                    hunks.last().map(|h| (h.old.end, h.new.end)),
                ),
            ];
            let alone = on(None);
            for (changed, head, tail) in hints {
                let agreed = spans::Agreement {
                    changed,
                    head,
                    tail,
                };
                assert_eq!(
                    alone,
                    on(Some((&spans, agreed))),
                    "deleting {:?} ({agreed:?}):\n{cand_text}",
                    edit.delete
                );
            }
            let adds = !tolerance::adds_no_error(&cand, &marked, &cand_text, &errors, None);
            judged += !errors.is_empty() as usize;
            refused += adds as usize;
        }
    }
    assert!(
        judged > 40 && refused > 10 && hunked * 10 > tokens as usize * 5 * 9,
        "{judged} with errors, {refused} refused, {hunked} hunks from the edit"
    );
}
