//! Pairwise reduction: each reducer on a pair with a known answer, then whole sessions
//! (determinism across k and report order, replay, per-side queries, validity).

use super::passes::PairPass;
use super::program::PairProgram;
use super::*;
use crate::reduce::tests::{drive_engine, verdict};
use crate::tree::Parser;

type Oracle<'a> = &'a dyn Fn(&str) -> bool;

/// Runs one pass to its end on a fresh pair, accepting what both oracles like.
fn run_pass(
    lang: Lang,
    seed: &str,
    variant: &str,
    make: fn(&PairProgram) -> PairPass,
    seed_ok: Oracle,
    variant_ok: Oracle,
) -> (String, String) {
    let mut parser = Parser::new(lang);
    let mut prog = PairProgram::new(parser.parse(seed), parser.parse(variant));
    let mut pass = make(&prog);
    while let Some(edit) = pass.propose(&prog) {
        let next = prog.after(&edit);
        let (s, v) = next.texts();
        if parser.is_valid(&s) && parser.is_valid(&v) && s != v && seed_ok(&s) && variant_ok(&v) {
            prog = next;
            pass.accepted(&prog);
        }
    }
    prog.texts()
}

/// Drives a pair session to its end with `k` queries out, each side's query answered by its
/// oracle; `scramble` reverses each batch.
fn drive(
    mut s: PairSession,
    k: usize,
    scramble: bool,
    seed_ok: Oracle,
    variant_ok: Oracle,
) -> PairSession {
    drive_engine(&mut s, k, scramble, |q| match q.side {
        Side::Seed => seed_ok(&q.text),
        Side::Variant => variant_ok(&q.text),
    });
    s
}

const SEED: &str = "int a(int x) { return x + 1; }\n\
int b(int x) { return x * 2; }\n\
int c(int x) {\n  if (x > 3)\n    return 1;\n  return 0;\n}\n\
int d(int x) {\n  int y = x;\n  y++;\n  return y;\n}\n\
int main(void) { return a(1) + b(2) + c(3) + d(4); }\n";

/// SEED with six changes, one of which (`x > 3` to `x < 3`) is the one that matters.
const VARIANT: &str = "int a(int x) { return x - 1; }\n\
int b(int x) { return x * 3; }\n\
int c(int x) {\n  if (x < 3)\n    return 1;\n  return 0;\n}\n\
int d(int x) {\n  int y = x;\n  return y;\n}\n\
int main(void) { return a(0) + b(2) + c(3) + d(5); }\n";

fn c_valid(t: &str) -> bool {
    Parser::new(Lang::C).is_valid(t)
}

#[test]
fn min_tdiff_keeps_only_the_critical_tree_edit() {
    let (s, v) = run_pass(
        Lang::C,
        SEED,
        VARIANT,
        PairPass::min_tdiff,
        &|s| !s.contains("x < 3"),
        &|v| v.contains("x < 3"),
    );
    assert_eq!(s, SEED);
    assert_eq!(v, SEED.replace("x > 3", "x < 3"));
}

#[test]
fn min_ldiff_splits_a_replacement_the_tree_diff_keeps_whole() {
    // `if` to `while` replaces the whole statement in the tree diff; only the keyword matters.
    let seed = "void f(int a, int b) {\n  if (a) { a = 1; }\n}\n";
    let variant = "void f(int a, int b) {\n  while (b) { a = 2; }\n}\n";
    let seed_ok = |s: &str| !s.contains("while");
    let variant_ok = |v: &str| v.contains("while (");
    let (s, v) = run_pass(
        Lang::C,
        seed,
        variant,
        PairPass::min_tdiff,
        &seed_ok,
        &variant_ok,
    );
    assert_eq!(
        (s.as_str(), v.as_str()),
        (seed, variant),
        "the tree edit is all or nothing"
    );
    let (s, v) = run_pass(
        Lang::C,
        seed,
        variant,
        PairPass::min_ldiff,
        &seed_ok,
        &variant_ok,
    );
    assert_eq!(s, seed);
    assert_eq!(v, "void f(int a, int b) {\n  while (a) { a = 1; }\n}\n");
}

#[test]
fn min_commonality_deletes_what_both_share_from_both() {
    let seed = "int f(void) { return 1; }\nint g(void) { return 2; }\nint main(void) { int k = 3; return g(); }\n";
    let variant = seed.replace("k = 3", "k = 4");
    let needs = |t: &str| {
        t.contains("int g(void) { return 2; }")
            && t.contains("int main(void) {")
            && t.contains("return g();")
    };
    let seed_ok = |s: &str| needs(s) && s.contains("int k = 3;");
    let variant_ok = |v: &str| needs(v) && v.contains("int k = 4;");
    let common = |p: &PairProgram| {
        let inner = crate::reduce::PassKind::Perses.start(&p.seed, false);
        PairPass::common(Side::Seed, inner)
    };
    let (s, v) = run_pass(Lang::C, seed, &variant, common, &seed_ok, &variant_ok);
    assert_eq!(
        s,
        "int g(void) { return 2; }\nint main(void) { int k = 3; return g(); }\n"
    );
    assert_eq!(v, s.replace("k = 3", "k = 4"));
}

fn seed_ok(s: &str) -> bool {
    assert!(c_valid(s), "an invalid seed was queried:\n{s}");
    !s.contains("x < 3") && s.contains("c(")
}

/// The variant needs the critical change and a call that reaches it.
fn variant_ok(v: &str) -> bool {
    assert!(c_valid(v), "an invalid variant was queried:\n{v}");
    v.contains("x < 3") && v.contains("c(3)")
}

fn session() -> PairSession {
    PairSession::new(Lang::C, SEED, VARIANT, PairSettings::default()).unwrap()
}

#[test]
fn ppr_shrinks_both_and_the_difference_to_the_critical_change() {
    let s = drive(session(), 1, false, &seed_ok, &variant_ok);
    let best = s.best();
    let st = s.pair_stats();
    assert!(seed_ok(&best.seed) && variant_ok(&best.variant));
    assert_eq!(
        best.variant,
        best.seed.replace("x > 3", "x < 3"),
        "diff:\n{}",
        best.diff
    );
    assert_eq!(best.diff_tokens, 2);
    let mut p = Parser::new(Lang::C);
    let fresh = PairProgram::new(p.parse(&best.seed), p.parse(&best.variant));
    assert_eq!(fresh.sizes().diff, 2, "the figure is exact");
    assert!(st.diff_tokens_before > 8, "{st:?}");
    assert!(
        st.variant_tokens_after * 3 < st.variant_tokens_before,
        "{}",
        best.variant
    );
    assert_eq!(st.session.invalid_queries, 0);
    assert_eq!(st.seed_queries + st.variant_queries, st.session.queries);
    // While only the variant changes, the seed's verdict is known.
    assert!(st.seed_queries < st.variant_queries, "{st:?}");
    assert!(
        best.diff.contains("-  if (x > 3)")
            || best.diff.contains("-if (x > 3)")
            || best.diff.contains("> 3"),
        "{}",
        best.diff
    );
}

#[test]
fn same_pair_for_any_k_and_report_order() {
    let reference = drive(session(), 1, false, &seed_ok, &variant_ok);
    for k in [1, 3, 8] {
        for scramble in [false, true] {
            let s = drive(session(), k, scramble, &seed_ok, &variant_ok);
            let what = format!("k={k} scramble={scramble}");
            assert_eq!(s.best_seed(), reference.best_seed(), "{what}");
            assert_eq!(s.best_variant(), reference.best_variant(), "{what}");
            assert_eq!(s.recording(), reference.recording(), "{what}");
        }
    }
}

#[test]
fn the_engine_asks_the_variant_first_and_the_seed_only_after_it_passed() {
    let mut s = session();
    let original = s.next(4);
    let sides: Vec<Side> = original.iter().map(|q| q.side).collect();
    assert_eq!(
        sides,
        [Side::Variant, Side::Seed],
        "both sides of the original at once"
    );
    assert!(original.iter().all(|q| q.original && q.candidate == 1));
    for q in &original {
        s.report(q.id, verdict(true));
    }
    // A seed is asked only once its candidate's variant passed.
    let mut passed = std::collections::HashSet::new();
    let mut seeds = 0;
    while !s.done() {
        for q in s.next(1) {
            assert!(!q.original);
            let ok = match q.side {
                Side::Variant => variant_ok(&q.text),
                Side::Seed => {
                    assert!(
                        passed.contains(&q.candidate),
                        "seed before its variant: {q:?}"
                    );
                    seeds += 1;
                    seed_ok(&q.text)
                }
            };
            if ok && q.side == Side::Variant {
                passed.insert(q.candidate);
            }
            s.report(q.id, verdict(ok));
        }
    }
    assert!(
        seeds > 0 && seeds < passed.len() + 1,
        "{seeds} seeds, {passed:?}"
    );
}

#[test]
fn a_pair_replays_without_tests() {
    let s = drive(session(), 4, true, &seed_ok, &variant_ok);
    let mut r = PairSession::replay(
        Lang::C,
        SEED,
        VARIANT,
        PairSettings::default(),
        s.recording(),
    )
    .unwrap();
    while !r.done() {
        r.step(10);
        assert!(r.next(1).is_empty(), "a replay hands nothing out");
    }
    assert_eq!(
        (r.best_seed(), r.best_variant()),
        (s.best_seed(), s.best_variant())
    );
}

#[test]
fn a_seed_that_fails_its_property_ends_the_session() {
    let s = drive(session(), 2, false, &|_| false, &variant_ok);
    assert_eq!(s.stats().original_interesting, Some(false));
    assert_eq!(s.best_variant(), VARIANT);
}

#[test]
fn other_languages_pair_reduce_too() {
    let cases: [(Lang, &str, &str, &str); 2] = [
        (
            Lang::Rust,
            "fn helper(x: i32) -> i32 { x + 1 }\nfn main() {\n    let a = helper(2);\n    let b = 7;\n    println!(\"{}\", a + b);\n}\n",
            "fn helper(x: i32) -> i32 { x - 1 }\nfn main() {\n    let a = helper(3);\n    let b = 8;\n    println!(\"{}\", a + b);\n}\n",
            "b = 8",
        ),
        (
            Lang::JavaScript,
            "function f(a, b) { return a + b; }\nconst x = f(1, 2);\nconst keep = 41;\nconsole.log(x, keep);\n",
            "function f(a, b) { return a * b; }\nconst x = f(1, 3);\nconst keep = 42;\nconsole.log(x, keep);\n",
            "keep = 42",
        ),
    ];
    for (lang, seed, variant, needle) in cases {
        let s = PairSession::new(lang, seed, variant, PairSettings::default()).unwrap();
        let s = drive(s, 2, false, &|t: &str| !t.contains(needle), &|t: &str| {
            t.contains(needle)
        });
        let best = s.best();
        assert!(best.variant.contains(needle), "{lang}: {}", best.variant);
        assert_eq!(best.diff_tokens, 2, "{lang}:\n{}", best.diff);
        assert!(
            s.pair_stats().variant_tokens_after < 10,
            "{lang}: {}",
            best.variant
        );
    }
}

#[test]
fn unparseable_sides_are_named() {
    let strict = PairSettings {
        strict: true,
        ..PairSettings::default()
    };
    let err = PairSession::new(Lang::C, "int x;", "int main( {", strict)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("variant") && err.contains("line 1"), "{err}");
}

#[test]
fn a_pairs_result_is_laid_out_afresh_unless_format_is_left_out() {
    // Odd spacing in both programs: the result reads as a single program's result does.
    let seed =
        "int   f(int x)   {\n      int y =   x;\n  if (y >   3)     return 1;   return 0; }\n";
    let variant = seed.replace("y >   3", "y <   3");
    let run = |settings: PairSettings| {
        let s = PairSession::new(Lang::C, seed, &variant, settings).unwrap();
        let s = drive(s, 2, false, &|t: &str| !t.contains('<'), &|t: &str| {
            t.contains('<')
        });
        s.best()
    };
    let best = run(PairSettings::default());
    for text in [&best.seed, &best.variant] {
        let tree = crate::tree::Parser::new(Lang::C).parse(text);
        assert_eq!(
            *text,
            crate::layout::format_all(&tree),
            "not laid out:\n{text}"
        );
        assert!(!text.contains("  <") && !text.contains("   "), "{text}");
    }
    assert_eq!(best.variant, best.seed.replace('>', "<"));
    let kept = run(PairSettings {
        format: false,
        ..PairSettings::default()
    });
    assert!(kept.variant.contains("<   3"), "{}", kept.variant);
}

#[test]
fn the_seed_closes_in_on_the_variant() {
    // The seed lacks the whole index; only its minus sign is the bug (a negative index).
    let seed = "int b[2][2];\nvoid f(int);\nint g(int n) {\n  f(1);\n  return 0;\n}\n";
    let variant = "int b[2][2];\nvoid f(int);\nint g(int n) {\n  f(b[0][-n]);\n  return 0;\n}\n";
    let bug = |t: &str| t.contains("[-n]");
    let call = |t: &str| c_valid(t) && t.contains("f(");
    let s = PairSession::new(Lang::C, seed, variant, PairSettings::default()).unwrap();
    let s = drive(s, 2, false, &|t: &str| call(t) && !bug(t), &|t: &str| {
        call(t) && bug(t)
    });
    let best = s.best();
    assert!(!bug(&best.seed) && bug(&best.variant));
    // MinTDiff alone leaves the whole index (`f(1)` against `f(b[0][-n])`).
    assert_eq!(best.diff_tokens, 1, "diff:\n{}", best.diff);
    assert_eq!(best.variant, best.seed.replace("[n]", "[-n]"));
    assert!(s
        .stats()
        .passes
        .iter()
        .any(|p| p.pass == "close-seed" && p.accepted > 0));
}

#[test]
fn pieces_are_the_variants_differences_cheapest_first() {
    let mut p = Parser::new(Lang::C);
    let (seed, variant) = ("int x = f();\n", "int x = f(a + -b);\n");
    let prog = PairProgram::new(p.parse(seed), p.parse(variant));
    let pieces = close::pieces(
        &prog.variant.tree,
        &prog.variant_differs(),
        prog.sizes().diff,
    );
    assert!(!pieces.is_empty());
    assert!(pieces.windows(2).all(|w| w[0].cost <= w[1].cost));
    assert!(pieces.iter().all(|p| p.cost >= 1 && p.cost < 4));
    let seeds: Vec<String> = pieces.iter().map(|p| p.seed_from(variant)).collect();
    // The minus alone, `-b` by `b`; a word never runs into the next.
    assert!(
        seeds.contains(&"int x = f(a + b);\n".to_string()),
        "{seeds:?}"
    );
    assert!(seeds.contains(&"int x = f(-b);\n".to_string()), "{seeds:?}");
    assert!(seeds.iter().all(|s| !s.contains("ab")), "{seeds:?}");
}

#[test]
fn a_pair_the_grammar_cannot_fully_parse_is_reduced_adding_no_error() {
    // `int :32;` is an error region of C's grammar (an unnamed bit-field), on both sides.
    let head = "struct t { int x; int :32; int y; };\nint b[2][2];\nvoid f(int);\nint n;\n";
    let seed = format!("{head}int g(void) {{\n  n = 2;\n  f(1);\n  return 0;\n}}\n");
    let variant = format!("{head}int g(void) {{\n  n = 3;\n  f(b[0][-n]);\n  return 0;\n}}\n");
    // Every queried text's errors are that bit-field's.
    let errors_kept = |t: &str| {
        let mut p = Parser::new(Lang::C);
        let (_, raw) = p.parse_with_raw(t);
        let errors = crate::tree::error_ranges(&raw);
        errors.iter().all(|&(s, e)| {
            t[s..e].is_empty() || t[s..e].contains(":32") || ":32;".contains(&t[s..e])
        })
    };
    let ok = |t: &str, bug: bool| {
        assert!(errors_kept(t), "a query added a syntax error:\n{t}");
        t.contains("f(") && t.contains("[-n]") == bug
    };
    let s = PairSession::new(Lang::C, &seed, &variant, PairSettings::default()).unwrap();
    let s = drive(s, 2, false, &|t: &str| ok(t, false), &|t: &str| ok(t, true));
    let best = s.best();
    assert!(best.diff_tokens <= 2, "diff:\n{}", best.diff);
    assert!(!best.variant.contains("n = 3"), "{}", best.variant);
    assert!(best.variant.len() < variant.len() / 2, "{}", best.variant);
    // Strict, it is refused, the side named.
    let strict = PairSettings {
        strict: true,
        ..PairSettings::default()
    };
    let err = PairSession::new(Lang::C, &seed, &variant, strict)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("seed"), "{err}");
}
