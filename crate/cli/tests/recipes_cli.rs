//! `whittle reduce`'s templates and test checks (issue 27), each on a small program with a
//! known answer: wrong code (a wrapper that miscompiles `* 3` on purpose) with and without the
//! undefined-behaviour guard, the guard refusing undefined behaviour, a crash signature, a
//! diagnostic with its flags reduced, a slow compile, a flaky test confirmed, and a looping
//! candidate cut at the adaptive time limit.

mod support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use support::{whittle, write};

const WRONG: &str = "#include <stdio.h>\n\
int g(int x) { return x * 3; }\n\
int main(void) {\n  int t = 4;\n  int other = t + 9;\n  printf(\"%d\\n\", g(t));\n  return other - 13;\n}\n";

/// A compiler that is wrong on purpose: `x * 3` becomes `x * 4`, then gcc builds it.
const MISCOMPILER: &str = "#!/bin/sh\nsed 's/\\* 3/* 4/g' \"$1\" > \"$1.mis.c\" && exec gcc -w -x c \"$1.mis.c\" -o \"$2\"\n";

fn folder(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("whittle-recipes-{name}-"))
        .tempdir()
        .unwrap()
}

/// A test that counts its calls in its folder (`n`) and runs `every_third` (say, an early
/// exit when `n % 3` is some value) before it looks for the marker.
fn flaky_check(dir: &Path, every_third: &str) {
    let count = "c=\"$(dirname \"$0\")/count\"\nn=$(( $(cat \"$c\" 2>/dev/null || echo 0) + 1 ))\necho $n > \"$c\"";
    let script = format!("#!/bin/sh\n{count}\n{every_third}\ngrep -q 'marker = 42' input.c\n");
    write(dir, "check.sh", &script, true);
}

/// Whether gcc can build and run a sanitized program here (the guard needs it).
fn sanitizers_work(dir: &Path) -> bool {
    write(dir, "san.c", "int main(void) { return 0; }\n", false);
    Command::new("sh")
        .args([
            "-c",
            "gcc -fsanitize=undefined,address san.c -o san && ASAN_OPTIONS=detect_leaks=0 ./san",
        ])
        .current_dir(dir)
        .output()
        .is_ok_and(|o| o.status.success())
}

fn ok(out: &std::process::Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    err
}

fn stats(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("stats.json")).unwrap()).unwrap()
}

/// The wrong-code case in a fresh folder, and its CMD_B.
fn wrong_code_case(name: &str) -> (tempfile::TempDir, String) {
    let dir = folder(name);
    support::require_gcc();
    assert!(
        sanitizers_work(dir.path()),
        "gcc's -fsanitize=undefined,address does not build here: install libasan and libubsan (apt-get install -y gcc)"
    );
    write(dir.path(), "prog.c", WRONG, false);
    write(dir.path(), "miscc", MISCOMPILER, true);
    let b = format!("{}/miscc {{}} {{out}}", dir.path().display());
    (dir, b)
}

#[test]
fn wrong_code_keeps_the_miscompiled_expression_and_the_guard_keeps_it_defined() {
    let (dir, b) = wrong_code_case("wrong");
    let d = dir.path();
    let err = ok(&whittle(
        d,
        &[
            "reduce",
            "--wrong-code",
            "gcc -O0 -w",
            &b,
            "prog.c",
            "-j",
            "2",
            "--stats-json",
            "stats.json",
        ],
    ));
    assert!(err.contains("agrees with CMD_A"), "{err}");
    let result = std::fs::read_to_string(d.join("prog.c")).unwrap();
    assert!(
        result.contains("* 3"),
        "the miscompiled expression went: {result}"
    );
    // Without the declaration printf's call would be implicit: the guard refuses that.
    assert!(result.contains("#include <stdio.h>"), "{result}");
    assert!(!result.contains("other"), "not reduced: {result}");
    assert!(stats(d)["recipe"]["guard_rejected"].as_u64().unwrap() > 0);

    // The same without the guard keeps a disagreement that is no bug (printf undeclared, or
    // its argument gone: the builds print different garbage), which the guard refuses.
    let guarded = String::from_utf8(
        whittle(
            d,
            &[
                "reduce",
                "--wrong-code",
                "gcc -O0 -w",
                &b,
                "prog.c",
                "--print-test",
            ],
        )
        .stdout,
    )
    .unwrap();
    std::fs::write(d.join("prog.c"), WRONG).unwrap();
    std::fs::remove_file(d.join("prog.c.orig")).unwrap();
    ok(&whittle(
        d,
        &[
            "reduce",
            "--wrong-code",
            "gcc -O0 -w",
            &b,
            "--no-guard",
            "prog.c",
            "-j",
            "2",
        ],
    ));
    let unguarded = std::fs::read_to_string(d.join("prog.c")).unwrap();
    assert!(!unguarded.contains("#include"), "{unguarded}");
    assert_eq!(verdict(&guarded, &unguarded), 3, "{unguarded}");
}

/// Runs a printed test script in a fresh folder on `program` (as prog.c): its exit status.
fn verdict(script: &str, program: &str) -> i32 {
    let dir = folder("verdict");
    write(dir.path(), "test.sh", script, true);
    write(dir.path(), "prog.c", program, false);
    let out = Command::new("./test.sh")
        .current_dir(dir.path())
        .output()
        .unwrap();
    out.status.code().unwrap_or(-1)
}

#[test]
fn the_guard_refuses_uninitialized_reads_and_overflows() {
    let (dir, b) = wrong_code_case("guard");
    let out = whittle(
        dir.path(),
        &[
            "reduce",
            "--wrong-code",
            "gcc -O0 -w",
            &b,
            "prog.c",
            "--print-test",
        ],
    );
    ok(&out);
    let script = String::from_utf8(out.stdout).unwrap();
    let g = "#include <stdio.h>\nint g(int x) { return x * 3; }\n";
    assert_eq!(verdict(&script, WRONG), 0, "the original shows the bug");
    let same = format!("{g}int main(void) {{ printf(\"%d\\n\", 4); return 0; }}\n");
    assert_eq!(verdict(&script, &same), 1, "the builds agree: no bug");
    let uninitialized =
        format!("{g}int main(void) {{ int t; t++; printf(\"%d\\n\", g(t)); return 0; }}\n");
    assert_eq!(
        verdict(&script, &uninitialized),
        3,
        "reads t before it is set"
    );
    let overflow =
        format!("{g}int main(void) {{ int t = 2147483647; printf(\"%d\\n\", g(t)); return 0; }}\n");
    assert_eq!(verdict(&script, &overflow), 3, "t * 3 overflows");
    let fine = format!("{g}int main(void) {{ int t = 5; printf(\"%d\\n\", g(t)); return 0; }}\n");
    assert_eq!(verdict(&script, &fine), 0, "defined, and still miscompiled");

    // Without the guard the overflow passes.
    let out = whittle(
        dir.path(),
        &[
            "reduce",
            "--wrong-code",
            "gcc -O0 -w",
            &b,
            "--no-guard",
            "prog.c",
            "--print-test",
        ],
    );
    let unguarded = String::from_utf8(out.stdout).unwrap();
    assert_eq!(verdict(&unguarded, &overflow), 0);
}

#[test]
fn a_crash_keeps_the_originals_signature() {
    let dir = folder("crash");
    let d = dir.path();
    // A compiler with two internal errors; the line number of the first moves with the size
    // of the program, as a real one's would not need to: the signature ignores it.
    write(
        d,
        "cc1",
        "#!/bin/sh\n\
         if grep -q alpha \"$1\"; then echo \"$1:1:1: internal compiler error: in fold_binary, at fold.cc:$(wc -c < \"$1\")\" >&2; exit 4; fi\n\
         if grep -q beta \"$1\"; then echo \"$1:1:1: internal compiler error: in expand_expr, at expr.cc:12\" >&2; exit 4; fi\n\
         exit 0\n",
        true,
    );
    write(
        d,
        "input.c",
        "int beta(void) { return 1; }\nint f(int x) { return x + 1; }\nint alpha_value = 7;\nint main(void) { return f(beta()) + alpha_value; }\n",
        false,
    );
    let cmd = format!("{}/cc1 {{}}", d.display());
    let err = ok(&whittle(
        d,
        &["reduce", "--crash", "--cmd", &cmd, "input.c", "-j", "2"],
    ));
    assert!(
        err.contains("crash signature: \"internal compiler error: in fold_binary, at fold.cc\""),
        "{err}"
    );
    let result = std::fs::read_to_string(d.join("input.c")).unwrap();
    assert!(result.contains("alpha"), "another crash was kept: {result}");
    assert!(!result.contains("beta") && result.len() < 30, "{result}");

    // A program that does not crash the compiler is refused, saying what to do.
    write(d, "fine.c", "int main(void) { return 0; }\n", false);
    let out = whittle(d, &["reduce", "--crash", "--cmd", &cmd, "fine.c"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("does not crash") && err.contains("--match"),
        "{err}"
    );
}

const PROGRAM: &str = "#include <stdio.h>\n\
static int unused(int a, int b) { return a * b + 7; }\n\
int helper(int x) {\n  int y = x * 2;\n  if (y > 10) { y = y - 1; } else { y = 3; }\n  return y;\n}\n\
int main(void) {\n  int a = 1;\n  int b = helper(a);\n  printf(\"%d\\n\", b);\n  int marker = 42;\n  for (int i = 0; i < 3; i++) { a += i; }\n  return a + marker;\n}\n";

#[test]
fn a_flaky_test_confirmed_gives_the_stable_result() {
    let stable = folder("stable");
    write(stable.path(), "input.c", PROGRAM, false);
    write(
        stable.path(),
        "check.sh",
        "#!/bin/sh\ngrep -q 'marker = 42' input.c\n",
        true,
    );
    ok(&whittle(
        stable.path(),
        &["reduce", "--test", "./check.sh", "input.c", "-j", "1"],
    ));
    let want = std::fs::read_to_string(stable.path().join("input.c")).unwrap();

    // Says yes one time in three whatever the program (a counter in the script's folder).
    let flaky = folder("flaky");
    let d = flaky.path();
    write(d, "input.c", PROGRAM, false);
    flaky_check(d, "[ $((n % 3)) -eq 0 ] && exit 0");
    let args = [
        "reduce",
        "--test",
        "./check.sh",
        "input.c",
        "-j",
        "1",
        "--confirm",
        "2",
        "--stats-json",
        "stats.json",
    ];
    ok(&whittle(d, &args));
    assert_eq!(std::fs::read_to_string(d.join("input.c")).unwrap(), want);
    assert!(stats(d)["recipe"]["undone"].as_u64().unwrap() > 0);
}

#[test]
fn a_test_flaky_on_the_original_is_said_so() {
    let dir = folder("flaky-original");
    let d = dir.path();
    write(d, "input.c", PROGRAM, false);
    // Says no one time in three.
    flaky_check(d, "[ $((n % 3)) -eq 2 ] && exit 1");
    let err = ok(&whittle(
        d,
        &["reduce", "--test", "./check.sh", "input.c", "-j", "1"],
    ));
    assert!(
        err.contains("the test is flaky: 2 of 3 runs on the original said interesting; each accepted step is confirmed 2 more times"),
        "{err}"
    );
    assert!(std::fs::read_to_string(d.join("input.c"))
        .unwrap()
        .contains("marker = 42"));
}

#[test]
fn a_looping_candidate_is_cut_at_the_adaptive_limit() {
    let dir = folder("loop");
    let d = dir.path();
    write(d, "input.c", PROGRAM, false);
    // Candidates without `helper` loop for a minute.
    write(
        d,
        "check.sh",
        "#!/bin/sh\ngrep -q 'marker = 42' input.c || exit 1\ngrep -q helper input.c || sleep 60\nexit 0\n",
        true,
    );
    let started = Instant::now();
    let err = ok(&whittle(
        d,
        &[
            "reduce",
            "--test",
            "./check.sh",
            "input.c",
            "-j",
            "2",
            "--stats-json",
            "stats.json",
        ],
    ));
    // The original's test takes milliseconds: the limit is the floor, 1 s (more on a machine
    // so loaded that the original's slowest run took over 0.1 s).
    let limit: f64 = err
        .split("a test may take ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no adaptive limit said: {err}"));
    assert!((1.0..5.0).contains(&limit), "{err}");
    let timeouts = stats(d)["recipe"]["timeouts"].as_u64().unwrap();
    assert!(timeouts > 0, "{err}");
    // Each loop costs the 1 s limit, not the minute (nor the old default 60 s).
    assert!(
        started.elapsed() < Duration::from_secs_f64(5.0 + (limit + 1.0) * timeouts as f64),
        "{:?} for {timeouts} timeouts",
        started.elapsed()
    );
    let result = std::fs::read_to_string(d.join("input.c")).unwrap();
    assert!(
        result.contains("helper") && result.contains("marker = 42"),
        "{result}"
    );
}

/// A program with one `-Wsign-compare` warning among others.
const SIGNEDNESS: &str = "#include <stdio.h>\n\
struct point { int x; int y; };\n\
static int helper(int a, int b) { return a * b + 3; }\n\
int count(unsigned n, int *v) {\n  int total = 0;\n  for (int i = 0; i < n; i++) total += v[i];\n  return total + helper(total, 2);\n}\n\
int main(void) {\n  int v[4] = {1, 2, 3, 4};\n  struct point p = {1, 2};\n  int unused_here;\n  printf(\"%d %d\\n\", count(4, v), p.x + p.y);\n  return 0;\n}\n";

#[test]
fn a_diagnostic_is_kept_with_no_new_error_and_its_flags_reduced() {
    let dir = folder("diagnostic");
    let d = dir.path();
    write(d, "input.c", SIGNEDNESS, false);
    let cmd = "gcc -Wall -Wextra -O2 -g -c {}";
    let args = [
        "reduce",
        "--cmd",
        cmd,
        "--diagnostic",
        "Wsign-compare",
        "--no-new-errors",
        "--reduce-flags",
        "--stats-json",
        "stats.json",
        "input.c",
        "-j",
        "2",
    ];
    let err = ok(&whittle(d, &args));
    assert!(
        err.contains(
            "diagnostic: \"warning: comparison of integer expressions of different signedness"
        ),
        "{err}"
    );
    // -Wsign-compare comes with -Wextra in C; without -c the link fails, a new error.
    assert!(err.contains("-> `gcc -Wextra -c {}`"), "{err}");
    assert_eq!(stats(d)["recipe"]["fewest_flags"][0], "gcc -Wextra -c {}");
    let result = std::fs::read_to_string(d.join("input.c")).unwrap();
    assert!(result.len() < 80 && !result.contains("printf"), "{result}");
    let out = Command::new("gcc")
        .args(["-Wextra", "-c", "input.c", "-o", "/dev/null"])
        .current_dir(d)
        .output()
        .unwrap();
    assert!(out.status.success(), "the result has an error: {out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("-Wsign-compare"),
        "{out:?}"
    );

    // Words that are in no line of the output are refused, with the output shown.
    let out = whittle(
        d,
        &[
            "reduce",
            "--cmd",
            cmd,
            "--diagnostic",
            "no such words",
            "input.c",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("contains \"no such words\""), "{err}");
}

#[test]
fn a_slow_compile_keeps_what_makes_it_slow() {
    let dir = folder("slow");
    let d = dir.path();
    // A compiler that is slow on one word; the reference is not.
    write(
        d,
        "slowcc",
        "#!/bin/sh\ngrep -q slow_marker \"$1\" && sleep 0.4\nexit 0\n",
        true,
    );
    write(
        d,
        "input.c",
        "int a = 1;\nint slow_marker(int x) { return x + a; }\nint b = 2;\nint main(void) { return slow_marker(b); }\n",
        false,
    );
    let cmd = format!("{}/slowcc {{}}", d.display());
    let args = [
        "reduce",
        "--cmd",
        &cmd,
        "--slow-compile",
        "5",
        "--reference",
        "true {}",
        "input.c",
    ];
    let err = ok(&whittle(d, &args));
    assert!(
        err.contains("slow compile: more than 5 times as long as `true {}`"),
        "{err}"
    );
    let result = std::fs::read_to_string(d.join("input.c")).unwrap();
    assert!(
        result.contains("slow_marker") && result.len() < 20,
        "{result}"
    );

    // A factor the original does not reach is refused, with the figures.
    let args = [
        "reduce",
        "--cmd",
        &cmd,
        "--slow-compile",
        "500",
        "--reference",
        "sleep 0.01",
        "input.c",
    ];
    let out = whittle(d, &args);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("give a factor below that"), "{err}");
}

#[test]
fn a_templates_verdicts_are_kept_for_the_next_run() {
    let dir = folder("kept");
    let d = dir.path();
    write(d, "input.c", SIGNEDNESS, false);
    let args = [
        "reduce",
        "--cmd",
        "gcc -Wall -Wextra -c {}",
        "--diagnostic",
        "Wsign-compare",
        "input.c",
        "-j",
        "2",
    ];
    let first = ok(&whittle(d, &args));
    let cache = d.join(".cache/whittle/verdicts");
    assert!(
        first.contains(&format!("verdicts are remembered in {}", cache.display())),
        "{first}"
    );
    let result = std::fs::read_to_string(d.join("input.c")).unwrap();
    write(d, "input.c", SIGNEDNESS, false);
    std::fs::remove_file(d.join("input.c.orig")).unwrap();
    let second = ok(&whittle(d, &args));
    assert!(
        second.contains("whittle reduce: 0 tests run to a verdict"),
        "{second}"
    );
    assert_eq!(std::fs::read_to_string(d.join("input.c")).unwrap(), result);
    // The script the verdicts are keyed by names the compiler's version.
    let printed = whittle(d, &[&args[..5], &["--print-test", "input.c"]].concat());
    let text = String::from_utf8_lossy(&printed.stdout);
    assert!(
        text.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("# gcc --version: gcc")),
        "{text}"
    );
    // --no-cache runs the tests again.
    write(d, "input.c", SIGNEDNESS, false);
    std::fs::remove_file(d.join("input.c.orig")).unwrap();
    let third = ok(&whittle(d, &[&args[..], &["--no-cache"]].concat()));
    assert!(!third.contains("tests run to a verdict"), "{third}");
}
