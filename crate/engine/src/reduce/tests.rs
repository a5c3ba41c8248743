//! Session-level tests: known minima, determinism across k and report order, replay.

use super::*;
use crate::{Lang, Query};

/// Drives an engine to its end with `k` queries out; `answer` says whether a query's text
/// is interesting. `scramble` takes a varying number of the queries out at a time and
/// reports each batch in reverse order.
pub(crate) fn drive_engine<S: Subject>(
    s: &mut Engine<S>,
    k: usize,
    scramble: bool,
    answer: impl Fn(&Query) -> bool,
) {
    let mut pending: Vec<Query> = Vec::new();
    let mut turn = 0usize;
    while !s.done() {
        pending.extend(
            s.next(
                k.saturating_sub(pending.len())
                    .max(if pending.is_empty() { 1 } else { 0 }),
            ),
        );
        if pending.is_empty() {
            continue;
        }
        turn += 1;
        let take = if scramble {
            1 + turn % pending.len()
        } else {
            1
        };
        let mut batch: Vec<Query> = pending.drain(..take.min(pending.len())).collect();
        if scramble {
            batch.reverse();
        }
        for q in batch {
            s.report(q.id, verdict(answer(&q)));
        }
    }
}

pub(crate) fn verdict(interesting: bool) -> Verdict {
    if interesting {
        Verdict::Interesting
    } else {
        Verdict::Boring
    }
}

/// Drives a session to the end with `k` candidates in flight, answering with `oracle`.
pub fn drive(mut s: Session, k: usize, scramble: bool, oracle: &dyn Fn(&str) -> bool) -> Session {
    drive_engine(&mut s, k, scramble, |q| oracle(&q.text));
    s
}

pub(crate) fn session(lang: Lang, text: &str, strategy: Strategy) -> Session {
    Session::new(
        lang,
        text,
        Settings {
            strategy,
            ..Settings::default()
        },
    )
    .unwrap()
}

/// `text` parsed as a program of `lang`.
pub(crate) fn program(lang: Lang, text: &str) -> Program {
    Program::new(crate::tree::Parser::new(lang).parse(text))
}

/// Every candidate a pass made by `make` proposes on `text`, in order, each as if the ones
/// before failed.
pub(crate) fn candidates<P: Pass>(
    lang: Lang,
    text: &str,
    make: impl Fn(&Program) -> P,
) -> Vec<String> {
    let prog = program(lang, text);
    let mut pass = make(&prog);
    std::iter::from_fn(|| pass.propose(&prog))
        .map(|edit| prog.after(&edit).text())
        .collect()
}

/// A session that keeps the original's layout: for tests of a pass's exact text.
pub(crate) fn session_keeping_layout(lang: Lang, text: &str) -> Session {
    let settings = Settings {
        format: false,
        ..Settings::default()
    };
    Session::new(lang, text, settings).unwrap()
}

const PROGRAM: &str = "#include <stdio.h>\n\
typedef int T;\n\
static int unused(int a, int b) { return a * b + 7; }\n\
int helper(int x) {\n  int y = x * 2;\n  if (y > 10) { y = y - 1; } else { y = 3; }\n  return y;\n}\n\
int main(void) {\n  int a = 1;\n  int b = helper(a);\n  printf(\"%d\\n\", b);\n  /* BUG here */\n  int marker = 42;\n  for (int i = 0; i < 3; i++) { a += i; }\n  return a + marker;\n}\n";

fn has_marker(t: &str) -> bool {
    t.contains("marker = 42")
}

#[test]
fn perses_finds_a_small_program() {
    let s = drive(
        session(Lang::C, PROGRAM, Strategy::Perses),
        1,
        false,
        &has_marker,
    );
    let best = s.best().to_string();
    assert!(has_marker(&best));
    assert!(
        s.stats().tokens_now <= 12,
        "{} tokens:\n{best}",
        s.stats().tokens_now
    );
    assert_eq!(s.stats().invalid_queries, 0);
    assert!(
        s.stats().invalid_skipped > 0,
        "some candidates should have been filtered"
    );
    assert!(!s.history().is_empty());
}

#[test]
fn every_queried_candidate_parses() {
    let mut parser = crate::tree::Parser::new(Lang::C);
    let checked = std::cell::Cell::new(0);
    let oracle = |t: &str| {
        assert!(parser_is_valid(t), "invalid candidate sent:\n{t}");
        checked.set(checked.get() + 1);
        has_marker(t)
    };
    fn parser_is_valid(t: &str) -> bool {
        crate::tree::Parser::new(Lang::C).is_valid(t)
    }
    let _ = &mut parser;
    for strategy in [
        Strategy::Perses,
        Strategy::Hdd,
        Strategy::DdminLines,
        Strategy::DdminTokens,
    ] {
        let s = drive(session(Lang::C, PROGRAM, strategy), 2, false, &oracle);
        assert!(has_marker(s.best()), "{strategy:?}");
        assert!(
            s.stats().tokens_now < s.stats().tokens_before,
            "{strategy:?} made no progress"
        );
    }
    assert!(checked.get() > 20);
}

#[test]
fn same_result_for_any_k_and_report_order() {
    let reference = drive(
        session(Lang::C, PROGRAM, Strategy::Perses),
        1,
        false,
        &has_marker,
    );
    for k in [1, 2, 8] {
        for scramble in [false, true] {
            let s = drive(
                session(Lang::C, PROGRAM, Strategy::Perses),
                k,
                scramble,
                &has_marker,
            );
            assert_eq!(s.best(), reference.best(), "k={k} scramble={scramble}");
            assert_eq!(
                s.recording(),
                reference.recording(),
                "k={k} scramble={scramble}"
            );
        }
    }
}

#[test]
fn replay_needs_no_test() {
    let s = drive(
        session(Lang::C, PROGRAM, Strategy::Perses),
        4,
        true,
        &has_marker,
    );
    let mut r = Session::replay(Lang::C, PROGRAM, Settings::default(), s.recording()).unwrap();
    while !r.done() {
        r.step(10);
        assert!(r.next(1).is_empty(), "a replay hands nothing out");
    }
    assert_eq!(r.best(), s.best());
}

#[test]
fn an_uninteresting_original_ends_the_session() {
    let s = drive(
        session(Lang::C, PROGRAM, Strategy::Perses),
        2,
        false,
        &|_| false,
    );
    assert_eq!(s.stats().original_interesting, Some(false));
    assert_eq!(s.best(), PROGRAM);
    assert_eq!(s.stats().queries, 1);
}

#[test]
fn the_cache_answers_repeats() {
    let s = drive(
        session(Lang::C, PROGRAM, Strategy::DdminTokens),
        1,
        false,
        &has_marker,
    );
    let stats = s.stats();
    assert_eq!(
        stats.queries + stats.cache_hits,
        s.recording().0.len() as u64
    );
}

#[test]
fn other_languages_reduce_too() {
    let cases: [(Lang, &str, &str); 3] = [
        (Lang::Rust, "fn helper(x: i32) -> i32 { x + 1 }\nfn main() {\n    let a = helper(2);\n    let keep = 42;\n    println!(\"{}\", a);\n}\n", "keep = 42"),
        (Lang::JavaScript, "function f(a, b) { return a + b; }\nconst x = f(1, 2);\nconst keep = 42;\nconsole.log(x, keep);\n", "keep = 42"),
        (Lang::Java, "class A {\n  int f() { return 1; }\n  void g() { int keep = 42; f(); }\n}\n", "keep = 42"),
    ];
    for (lang, text, needle) in cases {
        let s = drive(
            session(lang, text, Strategy::Perses),
            2,
            false,
            &|t: &str| t.contains(needle),
        );
        assert!(s.best().contains(needle));
        assert!(
            s.stats().tokens_now < s.stats().tokens_before / 2,
            "{lang}: {}",
            s.best()
        );
    }
}

#[test]
fn unparseable_input_is_refused_with_a_position_when_strict() {
    let strict = Settings {
        strict: true,
        ..Settings::default()
    };
    let err = Session::new(Lang::C, "int main( {", strict).err().unwrap();
    assert_eq!((err.error.line, err.side), (1, None));
    let err = err.to_string();
    assert!(err.contains("line 1"), "{err}");
}

#[test]
fn a_constant_read_in_a_template_argument_is_propagated() {
    let text = "constexpr int n = 8;\ntemplate <int N> struct A { int v[N]; };\nA<n> a;\n";
    // Like a compiler: `A`'s argument must be 8, written or through the constant.
    let oracle = |t: &str| t.contains("A<8>") || t.contains("int n = 8") && t.contains("A<n>");
    let best = drive(
        session(Lang::Cpp, text, Strategy::Perses),
        2,
        false,
        &oracle,
    );
    assert!(
        best.best().contains("A<8>") && !best.best().contains("constexpr"),
        "{}",
        best.best()
    );
}

#[test]
fn transforms_inline_a_typedef() {
    let text = "typedef int myint;\ntypedef char int8_t;\nint8_t g;\nint main(void) { myint x = g; return x; }\n";
    // Like a compiler: `x` must be declared an int, directly or through the typedef.
    let oracle = |t: &str| {
        t.contains("{ int x") || (t.contains("typedef int myint") && t.contains("{ myint x"))
    };
    let s = drive(session(Lang::C, text, Strategy::Perses), 2, false, &oracle);
    assert!(
        !s.best().contains("typedef") && s.best().contains("{ int x"),
        "{}",
        s.best()
    );
    let g = drive(
        session(Lang::C, text, Strategy::Perses),
        1,
        false,
        &|t: &str| {
            t.contains("char g;") || (t.contains("typedef char int8_t;") && t.contains("int8_t g;"))
        },
    );
    assert!(
        g.best().contains("char g;") && !g.best().contains("typedef char"),
        "{}",
        g.best()
    );
    assert!(s.history().iter().any(|h| h.pass == "transform"));
}

#[test]
fn transforms_drop_a_parameter_with_its_arguments() {
    let text = "int f(int a, int b) { return b; }\nint main(void) { return f(1, 2) + f(3, 4); }\n";
    // Like a compiler: calls must pass as many arguments as `f` takes.
    let oracle = |t: &str| {
        let params = t
            .split_once("f(")
            .map(|(_, r)| r.split(')').next().unwrap_or("").matches(',').count());
        let calls: Vec<usize> = t
            .match_indices("f(")
            .skip(1)
            .map(|(i, _)| t[i..].split(')').next().unwrap().matches(',').count())
            .collect();
        t.contains("return b") && calls.len() == 2 && calls.iter().all(|&c| Some(c) == params)
    };
    let s = drive(session(Lang::C, text, Strategy::Perses), 2, false, &oracle);
    assert!(
        !s.best().contains("int a") && !s.best().contains(','),
        "{}",
        s.best()
    );
}

#[test]
fn transforms_replace_an_expression_by_zero() {
    let text = "int main(void) { int y = 7; int x = (y + 3) * 2; return x; }\n";
    // Deleting alone cannot make `x = 0`: only the rewrite can.
    let oracle =
        |t: &str| t.contains("return x") && (t.contains("x = (y + 3) * 2") || t.contains("x = 0"));
    let s = drive(session(Lang::C, text, Strategy::Perses), 2, false, &oracle);
    assert!(s.best().contains("int x = 0;"), "{}", s.best());
}

#[test]
fn transforms_drop_array_dimensions_with_their_subscripts() {
    let text = "int g;\nint f(void) { int a[3][2]; a[1][g] = 4; return a[g][1]; }\n";
    // Like a compiler: as many subscripts on `a` as it has dimensions, and `a` still read.
    let oracle = |t: &str| {
        let dims = t.split_once("int a").map_or(9, |(_, r)| {
            r.split(';').next().unwrap().matches('[').count()
        });
        let uses: Vec<usize> = t
            .match_indices(" a")
            .map(|(i, _)| {
                t[i..]
                    .split(|c| c == ';' || c == '=')
                    .next()
                    .unwrap()
                    .matches('[')
                    .count()
            })
            .collect();
        t.contains("return a") && uses.len() >= 2 && uses.iter().all(|&u| u == dims)
    };
    let s = drive(session(Lang::C, text, Strategy::Perses), 2, false, &oracle);
    assert!(!s.best().contains('['), "{}", s.best());
}

#[test]
fn transforms_replace_a_variable_read_by_zero() {
    let text = "int g;\nint f(void) { if (g) return 1; return 2; }\n";
    // Like a compiler: `g` may only be read while declared.
    let oracle = |t: &str| t.contains("if (") && (!t.contains("(g)") || t.contains("int g;"));
    let s = drive(session(Lang::C, text, Strategy::Perses), 2, false, &oracle);
    assert!(
        s.best().contains("if (0)") && !s.best().contains("int g"),
        "{}",
        s.best()
    );
}

#[test]
fn transforms_propagate_a_constant() {
    let text = "static int k = 41, j = 2;\nint f(int *a) { return a[k + 1] + j; }\n";
    // Like a compiler warning about index 42: `k` may only be read while declared, as 41.
    let oracle =
        |t: &str| t.contains("a[41 + 1]") || (t.contains("k = 41") && t.contains("a[k + 1]"));
    let s = drive(session(Lang::C, text, Strategy::Perses), 2, false, &oracle);
    assert!(
        s.best().contains("a[41 + 1]") && !s.best().contains('k'),
        "{}",
        s.best()
    );
}

#[test]
fn transforms_replace_a_statement_by_a_trivial_one() {
    let text = "int g;\nint f(void) { if (g) while (g) { g = g - 1; } return 0; }\n";
    // Like a warning about what `if` guards: a statement in `f`, not a block, not empty and
    // not the return.
    let oracle = |t: &str| {
        t.contains("int f(void)")
            && t.contains("if (g) ")
            && !["if (g) {", "if (g) return", "if (g) ;"]
                .iter()
                .any(|s| t.contains(s))
    };
    let s = drive(session(Lang::C, text, Strategy::Perses), 2, false, &oracle);
    assert!(
        s.best().contains("if (g) 0") && !s.best().contains("while"),
        "{}",
        s.best()
    );
}

#[test]
fn a_branch_or_loop_becomes_its_condition() {
    // The candidates of `effects` for a branch or loop whose condition calls `g`: its condition
    // alone is one of them in every language (spaces aside: the format pass lays results out);
    // one with `else` gives none.
    let wanted = "g(a+1);";
    let cases = [
        (
            Lang::C,
            "int f(int a) { if (g(a + 1)) { a = 2; } return a; }\n",
        ),
        (
            Lang::C,
            "int f(int a) { while (g(a + 1)) { a = 2; } return a; }\n",
        ),
        (
            Lang::C,
            "int f(int a) { for (a = 0; g(a + 1); a++) { a = 2; } return a; }\n",
        ),
        (
            Lang::C,
            "int f(int a) { do { a = 2; } while (g(a + 1)); return a; }\n",
        ),
        (Lang::Cpp, "int f(int a) { while (g(a + 1)) ; return a; }\n"),
        (
            Lang::JavaScript,
            "function f(a) { if (g(a + 1)) { a = 2; } return a; }\n",
        ),
        (
            Lang::JavaScript,
            "function f(a) { for (let i = 0; g(a + 1); i++) {} return a; }\n",
        ),
        (
            Lang::Java,
            "class C { int f(int a) { while (g(a + 1)) { a = 2; } return a; } }\n",
        ),
        (
            Lang::Rust,
            "fn f(a: i32) -> i32 { while g(a + 1) { } return a; }\n",
        ),
        (
            Lang::Rust,
            "fn f(a: i32) -> i32 { if g(a + 1) { h(); } return a; }\n",
        ),
    ];
    for (lang, text) in cases {
        let found = candidates(lang, text, super::effects::pass);
        assert!(
            found.iter().any(|c| c.replace(' ', "").contains(wanted)
                && !["if", "while", "for", "do"]
                    .iter()
                    .any(|w| c.contains(&format!("{w} ")))
                && c.contains("return a")),
            "{lang:?} {text}: no candidate keeps only the condition: {found:#?}"
        );
    }
    let with_else = "int f(int a) { if (g(a)) { a = 2; } else { a = 3; } return a; }\n";
    let found = candidates(Lang::C, with_else, super::effects::pass);
    assert!(!found.iter().any(|c| c.contains("g(a);")), "{found:#?}");
}

#[test]
fn javascript_statements_end_without_the_semicolons_they_may_go_without() {
    let text = "let a = f(1);\nlet b = g(a); foo(b);\nconsole.log(a + b);\n";
    let needed = ["f(1)", "g(a)", "foo(b)", "console.log(a + b)"];
    let oracle = |t: &str| needed.iter().all(|n| t.contains(n));
    let s = drive(
        session(Lang::JavaScript, text, Strategy::Perses),
        2,
        false,
        &oracle,
    );
    let best = s.best().to_string();
    assert!(oracle(&best), "{best}");
    // The one between two statements on a line stays: without it the line does not parse.
    assert_eq!(best.matches(';').count(), 1, "{best}");
    assert!(best.contains("g(a);"), "{best}");
    // C has no such terminators: its `;` stay.
    let c = drive(
        session(
            Lang::C,
            "int main(void) { f(1); g(2); }\n",
            Strategy::Perses,
        ),
        2,
        false,
        &|t: &str| t.contains("f(1)") && t.contains("g(2)"),
    );
    assert_eq!(c.best().matches(';').count(), 2, "{}", c.best());
}

#[test]
fn a_return_becomes_its_value() {
    // `return fabsf(0.5f);` to `fabsf(0.5f);`, in every language with `return E;`.
    let cases = [
        (
            Lang::C,
            "float f(void) { return fabsf(0.5f); }\n",
            "{ fabsf(0.5f); }",
        ),
        (
            Lang::Cpp,
            "float f() { return fabsf(0.5f); }\n",
            "{ fabsf(0.5f); }",
        ),
        (
            Lang::JavaScript,
            "function f() { return fabs(0.5); }\n",
            "{ fabs(0.5); }",
        ),
        (
            Lang::Java,
            "class C { float f() { return fabs(0.5f); } }\n",
            "{ fabs(0.5f); }",
        ),
        (
            Lang::Rust,
            "fn f() -> f32 { return fabs(0.5); }\n",
            "{ fabs(0.5); }",
        ),
    ];
    for (lang, text, wanted) in cases {
        let found = candidates(lang, text, super::effects::pass);
        assert!(
            found.iter().any(|c| c.contains(wanted)),
            "{lang:?}: no candidate drops the return: {found:#?}"
        );
    }
    let bare = candidates(Lang::C, "void f(void) { return; }\n", super::effects::pass);
    assert!(bare.is_empty(), "{bare:#?}");
}

#[test]
fn a_tag_defined_alone_moves_into_its_one_use() {
    // `union a {...}; union a a = {1};` to `union a {...} a = {1};` or without the tag, and
    // into a return type, in C and C++; a tag used twice, or only inside its own body, stays.
    let cases = [
        (
            Lang::C,
            "union a { int a : 2; };\nunion a a = {1};\n",
            "union a { int a : 2; } a = {1};",
        ),
        (
            Lang::C,
            "union a { int a : 2; };\nunion a a = {1};\n",
            "union { int a : 2; } a = {1};",
        ),
        (
            Lang::C,
            "struct S { int x; };\nstruct S f() { }\n",
            "struct S { int x; } f() { }",
        ),
        (
            Lang::Cpp,
            "struct S { int x; };\nstruct S v;\n",
            "struct S { int x; } v;",
        ),
    ];
    for (lang, text, wanted) in cases {
        let found = candidates(lang, text, super::tag_into_use::pass);
        assert!(
            // Spaces aside: the format pass lays results out.
            found
                .iter()
                .any(|c| c.replace([' ', '\n'], "") == wanted.replace(' ', "")),
            "{lang:?}: no candidate merges the definition: {found:#?}"
        );
    }
    for text in [
        "struct S { int x; };\nstruct S v;\nstruct S w;\n",
        "struct S { struct S *next; };\n",
    ] {
        let found = candidates(Lang::C, text, super::tag_into_use::pass);
        assert!(found.is_empty(), "{text}: {found:#?}");
    }
}

#[test]
fn a_local_int_moves_to_file_scope_in_c() {
    // Implicit int may then drop its type there (`c;`), which a local cannot.
    let text = "void a() { mode_t b; int c; int d = 1; long e; c == b + d + e; }\n";
    let found = candidates(Lang::C, text, super::file_scope::pass);
    let squeezed: Vec<String> = found.iter().map(|c| c.replace([' ', '\n'], "")).collect();
    assert_eq!(
        squeezed,
        ["intc;voida(){mode_tb;intd=1;longe;c==b+d+e;}"],
        "only the `int` without an initial value moves: {found:#?}"
    );
    // Nowhere else: no implicit int in C++, and no function in a program of types.
    for (lang, text) in [
        (Lang::Cpp, "int a() { int c; return c; }\n"),
        (Lang::C, "struct s { int x; };\n"),
    ] {
        let found = candidates(lang, text, super::file_scope::pass);
        assert!(found.is_empty(), "{text}: {found:#?}");
    }
}

#[test]
fn a_function_declared_alone_moves_into_its_one_use() {
    // JavaScript: a function used once as a value is written there, named or not; one that is
    // called, used twice or only by itself stays.
    // A string keeps its spacing: its quotes and its text are tokens apart.
    let text = "exports.parse = parse;\nfunction parse(s) { throw new Error('no s'); }\n";
    let found = candidates(Lang::JavaScript, text, super::tag_into_use::pass);
    for wanted in [
        "exports.parse = function parse(s) { throw new Error('no s'); };",
        "exports.parse = function (s) { throw new Error('no s'); };",
    ] {
        assert!(
            found
                .iter()
                .any(|c| c.contains("'no s'")
                    && c.replace([' ', '\n'], "") == wanted.replace(' ', "")),
            "no candidate {wanted}: {found:#?}"
        );
    }
    for text in [
        "parse();\nfunction parse() { return 1; }\n",
        "exports.a = parse;\nexports.b = parse;\nfunction parse() {}\n",
        "function parse(n) { return parse; }\n",
    ] {
        let found = candidates(Lang::JavaScript, text, super::tag_into_use::pass);
        assert!(found.is_empty(), "{text}: {found:#?}");
    }
}

#[test]
fn every_tag_defined_alone_finds_its_own_use() {
    // Many tags, each defined alone and used once, the uses in the reverse order:
    // every definition pairs with its own use, and only with it; two candidates each.
    let n = 150;
    let mut text = String::new();
    for i in 0..n {
        text.push_str(&format!("struct S{i} {{ int x; }};\n"));
    }
    for i in (0..n).rev() {
        text.push_str(&format!("struct S{i} v{i};\n"));
    }
    let found = candidates(Lang::C, &text, super::tag_into_use::pass);
    assert_eq!(found.len(), 2 * n, "{:#?}", &found[..4.min(found.len())]);
    for i in [0, n / 2, n - 1] {
        let merged = format!("structS{i}{{intx;}}v{i};");
        assert!(
            found
                .iter()
                .any(|c| c.replace([' ', '\n'], "").contains(&merged)),
            "S{i} does not move into v{i}"
        );
    }
}

#[test]
fn per_pass_figures_add_up() {
    let s = drive(
        session(Lang::C, PROGRAM, Strategy::Perses),
        2,
        false,
        &has_marker,
    );
    let stats = s.stats();
    let passes = &stats.passes;
    let names: Vec<&str> = passes.iter().map(|p| p.pass).collect();
    assert!(
        names.contains(&"perses") && names.contains(&"rename"),
        "{names:?}"
    );
    // Every query but the original's is some pass's.
    let sum = |f: fn(&PassStats) -> i64| passes.iter().map(f).sum::<i64>();
    assert_eq!(sum(|p| p.queries as i64) + 1, stats.queries as i64);
    assert_eq!(sum(|p| p.accepted as i64), stats.accepted as i64);
    assert_eq!(sum(|p| p.cache_hits as i64), stats.cache_hits as i64);
    assert_eq!(
        sum(|p| p.invalid_skipped as i64),
        stats.invalid_skipped as i64
    );
    assert_eq!(
        sum(|p| p.bytes_removed),
        stats.bytes_before as i64 - stats.bytes_now as i64
    );
    let json = serde_json::to_value(stats).unwrap();
    assert_eq!(json["passes"][0]["pass"], names[0]);
    assert!(json["passes"][0]["tokens_removed"].is_i64());
}

#[test]
fn a_skipped_pass_is_left_out() {
    let oracle = |t: &str| t.contains("= 42");
    let run = |skipped: Vec<PassKind>| {
        let settings = Settings {
            skipped,
            ..Settings::default()
        };
        drive(
            Session::new(Lang::C, PROGRAM, settings).unwrap(),
            2,
            false,
            &oracle,
        )
    };
    let names = |s: &Session| s.stats().passes.iter().map(|p| p.pass).collect::<Vec<_>>();
    // Renaming shortens `marker`, unless it is skipped.
    let all = run(vec![]);
    assert!(!all.best().contains("marker"), "{}", all.best());
    assert!(names(&all).contains(&"rename"), "{:?}", names(&all));
    let without = run(vec![PassKind::Rename]);
    assert!(without.best().contains("marker = 42"), "{}", without.best());
    assert!(
        !names(&without).contains(&"rename"),
        "{:?}",
        names(&without)
    );
    assert!(names(&without).contains(&"perses"), "{:?}", names(&without));
    // A skipped finale pass too: the layout stays the original's.
    let kept = run(vec![PassKind::Rename, PassKind::Format]);
    assert!(!names(&kept).contains(&"format"), "{:?}", names(&kept));
}

#[test]
fn where_each_pass_runs() {
    let perses = |k| Strategy::Perses.rounds_of(k);
    // Twice: the fine rounds before Perses, the coarse ones after it.
    assert_eq!(perses(PassKind::ErrorRegions), ["fine", "coarse"]);
    assert_eq!(perses(PassKind::Rename), ["every"]);
    assert_eq!(perses(PassKind::Local), ["stalled"]);
    assert_eq!(perses(PassKind::FileScope), ["stalled"]);
    assert_eq!(perses(PassKind::Format), ["finale"]);
    assert!(perses(PassKind::Hdd).is_empty());
    assert_eq!(Strategy::Hdd.rounds_of(PassKind::Hdd), ["every"]);
}

/// The figures of pass `name` in a finished session.
fn pass_figures<'a>(s: &'a Session, name: &str) -> &'a super::PassStats {
    s.stats().passes.iter().find(|p| p.pass == name).unwrap()
}

#[test]
fn the_result_is_laid_out_afresh() {
    let text = "int main(void)\n{\n\n\n      int marker = 42;   return   marker ;\n}\n";
    let oracle = |t: &str| has_marker(t) && t.contains("main(void)");
    let s = drive(session(Lang::C, text, Strategy::Perses), 2, false, &oracle);
    assert_eq!(s.best(), "main(void) { int marker = 42; }\n");
    // The tidied layout may be queried in parallel, in case the fresh one fails.
    let format = pass_figures(&s, "format");
    assert!(format.queries <= 2 && format.accepted == 1, "{format:?}");
}

#[test]
fn a_layout_the_property_needs_is_kept() {
    // Like a misleading-indentation warning: the test reads the original's indentation.
    let text = "int main(void) {\n\n  if (1)\n    f();\n    g();   \n}\n";
    let oracle = |t: &str| t.contains("if (1)\n    f();\n    g();");
    let s = drive(session(Lang::C, text, Strategy::Perses), 2, false, &oracle);
    // Not laid out afresh, but tidied: no blank line, no trailing spaces.
    assert_eq!(s.best(), "{\n  if (1)\n    f();\n    g();\n}\n");
    let format = pass_figures(&s, "format");
    assert_eq!((format.queries, format.accepted), (2, 1));
}

#[test]
fn transforms_fold_a_constant_expression() {
    // Like an array-bounds warning that quotes the subscript's value.
    let text = "int a[4];\nint f(void) { return a[0x7L + (1 << 1) * 3]; }\n";
    let oracle = |t: &str| {
        let t = t.replace(' ', "");
        t.contains("a[0x7L+(1<<1)*3]") || t.contains("a[13]")
    };
    let s = drive(session(Lang::C, text, Strategy::Perses), 2, false, &oracle);
    assert!(s.best().contains("a[13]"), "{}", s.best());
}

#[test]
fn a_loop_goes_once_its_continue_is_a_plain_statement() {
    let text = "int f(void) {\n  for (;;) {\n    if (x)\n      continue;\n    g();\n  }\n}\n";
    let oracle = |t: &str| t.contains("if (x)") && t.contains("g();");
    let s = drive(session(Lang::C, text, Strategy::Perses), 2, false, &oracle);
    assert!(
        !s.best().contains("for") && !s.best().contains("continue"),
        "{}",
        s.best()
    );
}

#[test]
fn transforms_shorten_a_number_inside_its_token() {
    let text = "int a[6];\nint f(void) { return a[32443]; }\n";
    // Like an array-bounds warning: the subscript must stay out of bounds.
    let oracle = |t: &str| {
        let sub = t
            .split_once("return a[")
            .and_then(|(_, r)| r.split(']').next()?.parse::<u64>().ok());
        t.contains("a[6];") && sub.is_some_and(|s| s >= 6)
    };
    let s = drive(session(Lang::C, text, Strategy::Perses), 2, false, &oracle);
    assert!(s.best().contains("a[32]"), "{}", s.best());
}

/// Asserts that, for each (language, program, want), the pass `make` proposes `want`.
fn assert_proposes<P: Pass>(cases: &[(Lang, &str, &str)], make: impl Fn(&Program) -> P) {
    for &(lang, text, want) in cases {
        let all = candidates(lang, text, &make);
        assert!(all.iter().any(|c| c == want), "{lang:?}: {all:#?}");
    }
}

#[test]
fn strings_are_shortened_in_every_language() {
    assert_proposes(
        &[
            (Lang::C, "char *s = \"abcd\";\n", "char *s = \"cd\";\n"),
            (Lang::Cpp, "auto s = \"abcd\";\n", "auto s = \"ab\";\n"),
            (
                Lang::Rust,
                "const S: &str = \"abcd\";\n",
                "const S: &str = \"cd\";\n",
            ),
            (Lang::JavaScript, "let s = 'abcd';\n", "let s = 'ab';\n"),
            (
                Lang::Java,
                "class A { String s = \"abcd\"; }\n",
                "class A { String s = \"cd\"; }\n",
            ),
        ],
        super::transform::pass,
    );
}

/// Like an error message that quotes part of a string: the string narrows to that part.
#[test]
fn transforms_narrow_a_string_to_the_part_a_message_quotes() {
    let text = "char *s = \"a haystack with a needle in it\";\n";
    let oracle = |t: &str| t.contains("needle") && t.contains("char *s = \"");
    let s = drive(session(Lang::C, text, Strategy::Perses), 2, false, &oracle);
    assert!(s.best().contains("\"needle\""), "{}", s.best());
}

#[test]
fn numbers_are_shortened_in_every_language() {
    assert_proposes(
        &[
            (Lang::Cpp, "int x = 250;\n", "int x = 25;\n"),
            (
                Lang::Rust,
                "const X: u32 = 250u32;\n",
                "const X: u32 = 25u32;\n",
            ),
            (Lang::JavaScript, "let x = 250;\n", "let x = 25;\n"),
            (
                Lang::Java,
                "class A { int x = 250; }\n",
                "class A { int x = 25; }\n",
            ),
        ],
        super::transform::pass,
    );
}

/// Deleting a string's text leaves `""`, not `" "` nor a lone quote.
#[test]
fn a_string_empties_in_every_language() {
    assert_proposes(
        &[
            (Lang::C, "char *s = \"e\";\n", "char *s = \"\";\n"),
            (Lang::Cpp, "auto s = \"e\";\n", "auto s = \"\";\n"),
            (
                Lang::Rust,
                "const S: &str = \"e\";\n",
                "const S: &str = \"\";\n",
            ),
            (Lang::JavaScript, "let s = 'e';\n", "let s = '';\n"),
            (
                Lang::Java,
                "class A { String s = \"e\"; }\n",
                "class A { String s = \"\"; }\n",
            ),
        ],
        |p| super::perses::Perses::new(p, false),
    );
}

/// C-Reduce's return-void, for Rust: the result type, the tail expression and the values
/// returned go at once; a closure's `return` inside keeps its value.
#[test]
fn a_rust_function_returns_nothing() {
    let text = "fn f(a: u8) -> u8 {\n    let c = || { return 1; };\n    if a > 0 { return a; }\n    a + 1\n}\n";
    let all = candidates(Lang::Rust, text, super::transform::pass);
    let squeezed: Vec<String> = all.iter().map(|c| c.split_whitespace().collect()).collect();
    assert!(
        squeezed.contains(&"fnf(a:u8){letc=||{return1;};ifa>0{return;}}".to_string()),
        "{all:#?}"
    );
    // Languages whose functions do not name their result in `return_type` get no such edit.
    let c = candidates(
        Lang::C,
        "int f(int a) { return a; }\n",
        super::transform::pass,
    );
    assert!(!c.iter().any(|c| c.contains("return;")), "{c:#?}");
}

#[test]
fn a_coarse_round_leaves_out_a_step_that_found_nothing_before() {
    // Unused globals make a big first round; no function body may go.
    let junk: String = (0..30).map(|i| format!("int junk{i};\n")).collect();
    let text = format!(
        "{junk}int f(void) {{ return 1; }}\nint g(void) {{ return 2; }}\n\
         int main(void) {{ return f() + g(); }}\n"
    );
    let oracle = |t: &str| {
        ["return 1;", "return 2;", "return f() + g();"]
            .iter()
            .all(|s| t.contains(s))
    };
    // Each query's round and pass, as the session tells them when it hands the query out.
    let mut s = session(Lang::C, &text, Strategy::Perses);
    let mut asked: Vec<(usize, String)> = Vec::new();
    while !s.done() {
        for q in s.next(1) {
            asked.push((s.stats().round, s.stats().pass.clone()));
            s.report(q.id, verdict(oracle(&q.text)));
        }
    }
    let ran = |round: usize, pass: &str| asked.iter().any(|(r, p)| *r == round && p == pass);
    let progressed = |round: usize, pass: &str| {
        s.history()
            .iter()
            .any(|h| h.round == round && h.pass == pass)
    };
    // Round 1 is coarse: no rewrite (`transform` runs in fine rounds, and does later).
    assert!(ran(1, "perses") && !ran(1, "transform"), "{asked:?}");
    assert!(
        asked.iter().any(|(r, p)| *r > 1 && p == "transform"),
        "{asked:?}"
    );
    // `chunks` was refused in round 0, and round 1 leaves it out.
    assert!(ran(0, "chunks") && !progressed(0, "chunks"), "{asked:?}");
    assert!(!ran(1, "chunks"), "{asked:?}");
    assert!(!s.best().contains("junk"), "{}", s.best());
}

#[test]
fn deep_nesting_loses_levels_in_bulk_down_to_what_the_test_needs() {
    // A compiler that crashes on nesting 300 deep or more: the chain goes down to 300 in a
    // few dozen queries (Perses alone would take a level a query), the noise beside it too.
    let depth = |t: &str| t.chars().filter(|&c| c == '(').count();
    let text = format!(
        "int noise(int a) {{ return a * 3; }}\nint deep(void) {{ return {}1{}; }}\n",
        "(".repeat(1000),
        ")".repeat(1000)
    );
    let crashes = |t: &str| t.contains("return") && depth(t) >= 300 && t.contains(&"(".repeat(300));
    let s = drive(
        session(Lang::C, &text, Strategy::Perses),
        2,
        false,
        &crashes,
    );
    let best = s.best().to_string();
    assert!(crashes(&best) && !best.contains("noise"), "{best}");
    assert_eq!(depth(&best), 300, "1-minimal over the levels");
    let chains = s
        .stats()
        .passes
        .iter()
        .find(|p| p.pass == "chains")
        .expect("the chains pass ran");
    assert!(chains.tokens_removed >= 1400, "{:?}", chains);
    let figures: Vec<_> = s
        .stats()
        .passes
        .iter()
        .map(|p| (p.pass, p.queries, p.accepted))
        .collect();
    assert!(
        s.stats().queries < 200,
        "{} queries: {figures:?}",
        s.stats().queries
    );

    // Perses does not try the same level's removal again at every level below: a repeat is a
    // candidate built and looked up in the cache for nothing (one a level, each round).
    let hits: Vec<_> = s
        .stats()
        .passes
        .iter()
        .map(|p| (p.pass, p.cache_hits))
        .collect();
    assert!(s.stats().cache_hits < 100, "cache hits: {hits:?}");

    // Other kinds of chain: unary minus, casts, nested blocks (a level goes, the one below it
    // takes its place), each chain all at once first, the longest first.
    let candidates = candidates(
        Lang::C,
        "int f(int x) { { { { { x = - - - - - x; } } } } return (int)(int)(int)(int)(int)x; }",
        super::chains::pass,
    );
    let squeeze = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let all: Vec<String> = candidates.iter().map(|c| squeeze(c)).collect();
    assert!(
        all.iter()
            .any(|c| c.contains("{ x = - - - - - x; }") && !c.contains("{ {")),
        "{all:?}"
    );
    // (The innermost `-x` and `(int)x` have no level below them: Perses's to take.)
    assert!(all.iter().any(|c| c.contains("x = - x;")), "{all:?}");
    assert!(all.iter().any(|c| c.contains("return (int)x;")), "{all:?}");
}

#[test]
fn compiler_extensions_go_with_their_arguments() {
    // The C++ grammar cannot parse an attribute after a namespace's name: the program has
    // an error region, and the candidates go to the test unchecked.
    let text = "namespace std __attribute__ ((__visibility__ (\"default\"))) {\n\
                extern int g(int) throw () __attribute__ ((__nothrow__ , __leaf__)) __asm__ (\"\" \"g2\");\n\
                struct __attribute__((packed)) S { char c; int i; };\n\
                }\n";
    let only_extensions = || Settings {
        skipped: PASSES
            .iter()
            .map(|p| p.kind)
            // Renaming's coarse round defers to the fine rounds, where the pass runs.
            .filter(|&k| k != PassKind::Extensions && k != PassKind::Rename)
            .collect(),
        ..Settings::default()
    };
    let run = |lang: Lang, text: &str, oracle: &dyn Fn(&str) -> bool| {
        drive(
            Session::new(lang, text, only_extensions()).unwrap(),
            2,
            false,
            oracle,
        )
    };
    // The test needs the packed struct: that attribute alone stays.
    let needed = |t: &str| t.contains("g(int)") && t.contains("((packed))");
    let s = run(Lang::Cpp, text, &needed);
    let best = s.best();
    assert!(needed(best), "{best}");
    assert_eq!(best.matches("__attribute__").count(), 1, "{best}");
    assert!(
        !best.contains("__asm__") && !best.contains("__nothrow__"),
        "{best}"
    );
    let pass = s.stats().passes.iter().find(|p| p.pass == "extensions");
    assert!(
        pass.is_some_and(|p| p.tokens_removed > 0),
        "{:?}",
        s.stats()
    );
    // C has them too; Rust has none, and nothing changes.
    let c = run(
        Lang::C,
        "int f(void) __attribute__((noinline));\n__extension__ typedef long long L;\nstatic __inline int f(void) { return 1; }\n",
        &|t: &str| t.contains("return 1") && t.contains("typedef long long L"),
    );
    for gone in ["__attribute__", "__extension__", "__inline"] {
        assert!(!c.best().contains(gone), "{}", c.best());
    }
    let rust = "fn main() { f(1) }\n";
    let r = run(Lang::Rust, rust, &|t: &str| t.contains("1"));
    assert_eq!(r.best(), rust);
}

#[test]
fn extensions_try_all_at_once_in_coarse_rounds_then_chunks() {
    let text = "int f(int) __attribute__ ((__nothrow__));\n\
                int g(int) __attribute__ ((__pure__));\n\
                struct __attribute__((packed)) S { char c; int i; };\n";
    let all = "int f(int) ;\nint g(int) ;\nstruct S { char c; int i; };\n";
    let coarse = candidates(Lang::C, text, |p| super::lone_tokens::extensions(p, true));
    assert_eq!(coarse.len(), 1, "{coarse:?}");
    assert_eq!(
        coarse[0].split_whitespace().collect::<Vec<_>>(),
        all.split_whitespace().collect::<Vec<_>>()
    );
    let fine = candidates(Lang::C, text, |p| super::lone_tokens::extensions(p, false));
    assert_eq!(fine[0], coarse[0]);
    assert!(
        fine.len() > 3,
        "then chunks down to one extension each: {fine:?}"
    );
}

#[test]
#[allow(clippy::single_range_in_vec_init)] // one range of tokens
fn an_edit_counts_each_token_it_deletes_once() {
    // Tokens: int a ; /* c */ int b ; int d ;  (the comment does not count)
    let prog = program(Lang::C, "int a; /* c */ int b; int d;");
    let all = prog.tree.tokens.len() as TokenId;
    let counted = (0..all).filter(|&t| prog.tree.is_counted(t)).count();
    assert_eq!(counted, 9);
    // Overlapping ranges: the whole program and its start again.
    let edit = Edit::deleting(vec![0..all, 0..3]);
    assert!(prog.deletes_at_least(&edit, 9));
    assert!(!prog.deletes_at_least(&edit, 10));
    // What is already gone does not count again.
    let after = prog.after(&Edit::deleting(vec![0..3]));
    assert!(after.deletes_at_least(&edit, 6));
    assert!(!after.deletes_at_least(&edit, 7));
}
