//! `whittle pair` end to end on small programs with shell-script tests (no compiler
//! needed): results, the diff, stats JSON, the --cmd/--match form and a failing original.

mod support;

use std::path::Path;
use support::{whittle, write};

const SEED: &str = "int a(int x) { return x + 1; }\n\
int b(int x) { return x * 2; }\n\
int c(int x) {\n  if (x > 3)\n    return 1;\n  return 0;\n}\n\
int main(void) { return a(1) + b(2) + c(3); }\n";

/// SEED with four changes; `x < 3` is the one the variant's test looks for.
const VARIANT: &str = "int a(int x) { return x - 1; }\n\
int b(int x) { return x * 3; }\n\
int c(int x) {\n  if (x < 3)\n    return 1;\n  return 0;\n}\n\
int main(void) { return a(0) + b(2) + c(4); }\n";

/// A folder with the pair and its tests: each test reads its own side's file name.
fn setup(seed_test: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "seed.c", SEED, false);
    write(dir.path(), "variant.c", VARIANT, false);
    write(dir.path(), "check-seed.sh", seed_test, true);
    write(
        dir.path(),
        "check-variant.sh",
        "#!/bin/sh\ngrep -q 'x < 3' variant.c && grep -q 'c(' variant.c\n",
        true,
    );
    dir
}

const SEED_TEST: &str = "#!/bin/sh\n! grep -q 'x < 3' seed.c && grep -q 'c(' seed.c\n";

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn pair_with_scripts_writes_both_results_the_diff_and_stats() {
    let dir = setup(SEED_TEST);
    let d = dir.path();
    let out = whittle(
        d,
        &[
            "pair",
            "--seed",
            "seed.c",
            "--variant",
            "variant.c",
            "--test-seed",
            "./check-seed.sh",
            "--test-variant",
            "./check-variant.sh",
            "-j",
            "2",
            "--stats-json",
            "stats.json",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let (seed, variant) = (read(d, "seed.min.c"), read(d, "variant.min.c"));
    assert!(!seed.contains("x < 3") && seed.contains("c("), "{seed}");
    assert!(
        variant.contains("x < 3") && variant.contains("c("),
        "{variant}"
    );
    assert_eq!(variant, seed.replace("x > 3", "x < 3"));
    let diff = read(d, "variant.diff");
    assert!(
        diff.contains("--- seed.min.c")
            && diff
                .lines()
                .any(|l| l.starts_with('+') && l.contains("x < 3")),
        "{diff}"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        diff,
        "the diff is printed too"
    );
    // The inputs are left alone.
    assert_eq!(read(d, "seed.c"), SEED);
    assert!(
        stderr.contains("diff 13 -> 2 tokens") || stderr.contains("-> 2 tokens"),
        "{stderr}"
    );

    let stats: serde_json::Value = serde_json::from_str(&read(d, "stats.json")).unwrap();
    for key in [
        "seed_tokens_before",
        "seed_tokens_after",
        "variant_tokens_before",
        "variant_tokens_after",
        "diff_tokens_before",
        "diff_tokens_after",
        "queries",
        "seed_queries",
        "variant_queries",
        "cache_hits",
        "invalid_queries",
        "wall_seconds",
        "engine_seconds",
    ] {
        assert!(stats[key].is_number(), "stats.json lacks {key}: {stats}");
    }
    assert_eq!(stats["diff_tokens_after"], 2);
    assert_eq!(stats["invalid_queries"], 0);
    assert_eq!(stats["seed_output"], "seed.min.c");
    assert_eq!(stats["variant_output"], "variant.min.c");
    assert_eq!(stats["diff_output"], "variant.diff");
    let q = |k: &str| stats[k].as_u64().unwrap();
    assert_eq!(q("seed_queries") + q("variant_queries"), q("queries"));
    assert!(q("variant_tokens_after") < q("variant_tokens_before") / 2);
}

#[test]
fn pair_with_cmd_and_match_negates_the_seed() {
    let dir = setup(SEED_TEST);
    let d = dir.path();
    let out = whittle(
        d,
        &[
            "pair",
            "--seed",
            "seed.c",
            "--variant",
            "variant.c",
            "--cmd",
            "cat {}",
            "--match",
            "x < 3",
            "--exit",
            "0",
            "-j",
            "1",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (seed, variant) = (read(d, "seed.min.c"), read(d, "variant.min.c"));
    assert!(
        variant.contains("x < 3") && !seed.contains("x < 3"),
        "{seed}\n{variant}"
    );
    assert_eq!(variant, seed.replace("x > 3", "x < 3"));
}

#[test]
fn a_seed_failing_its_test_is_reported_by_name() {
    let dir = setup("#!/bin/sh\necho 'seed says no'\nexit 1\n");
    let d = dir.path();
    let out = whittle(
        d,
        &[
            "pair",
            "--seed",
            "seed.c",
            "--variant",
            "variant.c",
            "--test-seed",
            "./check-seed.sh",
            "--test-variant",
            "./check-variant.sh",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("the seed seed.c does not pass its test")
            && stderr.contains("seed says no"),
        "{stderr}"
    );
}

#[test]
fn pair_needs_both_tests() {
    let dir = setup(SEED_TEST);
    let out = whittle(
        dir.path(),
        &[
            "pair",
            "--seed",
            "seed.c",
            "--variant",
            "variant.c",
            "--test-seed",
            "./check-seed.sh",
        ],
    );
    assert!(!out.status.success());
}

#[test]
fn a_second_pair_with_the_cache_runs_no_test() {
    let dir = setup(SEED_TEST);
    let d = dir.path();
    // Each test logs its run.
    for side in ["seed", "variant"] {
        let path = d.join(format!("check-{side}.sh"));
        let script = std::fs::read_to_string(&path).unwrap();
        let logged = script.replacen(
            '\n',
            &format!("\necho x >> '{}'\n", d.join("tests.log").display()),
            1,
        );
        write(d, &format!("check-{side}.sh"), &logged, true);
    }
    let args = [
        "pair",
        "--seed",
        "seed.c",
        "--variant",
        "variant.c",
        "--test-seed",
        "./check-seed.sh",
        "--test-variant",
        "./check-variant.sh",
        "-j",
        "2",
        "--cache",
        "verdicts",
        "--stats-json",
        "stats.json",
    ];
    let runs = || {
        std::fs::read_to_string(d.join("tests.log"))
            .unwrap_or_default()
            .lines()
            .count()
    };
    let first = whittle(d, &args);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let (tests, seed, variant) = (runs(), read(d, "seed.min.c"), read(d, "variant.min.c"));
    assert!(tests > 5, "{tests} tests");
    let second = whittle(d, &args);
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(second.status.success(), "{stderr}");
    assert_eq!(runs(), tests, "the second run ran tests: {stderr}");
    assert!(
        stderr.contains("whittle pair: 0 tests run to a verdict"),
        "{stderr}"
    );
    assert_eq!(
        (read(d, "seed.min.c"), read(d, "variant.min.c")),
        (seed, variant)
    );
    // The seed's verdicts are the seed test's: with another seed test, its queries run again.
    write(d, "check-seed.sh", &format!("{SEED_TEST}true\n"), true);
    let third = whittle(d, &args);
    assert!(third.status.success());
    assert!(!String::from_utf8_lossy(&third.stderr).contains("0 tests run to a verdict"));
}
