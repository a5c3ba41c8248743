//! `whittle witness` and `whittle pair --auto-seed` end to end: witnesses that pass their
//! test and fail the bug's, one edit from the failing program; the ranking from tcc's
//! coverage; a seed found for a pair; a failing program that does not fail.

mod support;

use std::path::Path;
use std::process::Command;
use support::{read_json, whittle};

/// A test script in `dir`.
fn write(dir: &Path, name: &str, text: &str) {
    support::write(dir, name, text, true);
}

/// The "bug": the loop bound `i <= n` (an off-by-one a test looks for).
const PROGRAM: &str = "int f(int *a, int n) {\n  int s = 0;\n  for (int i = 0; i <= n; i++)\n    s += a[i];\n  return s;\n}\nint main(void) {\n  int x[5] = {1, 2, 3, 4, 5};\n  int y = 7;\n  if (y > 3)\n    y = y * 2;\n  return f(x, 3) + y;\n}\n";

/// Runs `script` in a fresh folder holding `text` as p.c: whether it exits 0.
fn passes(script: &Path, text: &str) -> bool {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.c"), text).unwrap();
    Command::new(script)
        .current_dir(dir.path())
        .status()
        .unwrap()
        .success()
}

fn setup() -> tempfile::TempDir {
    support::require_gcc();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "p.c", PROGRAM);
    write(dir.path(), "check.sh", "#!/bin/sh\ngrep -q 'i <= n' p.c\n");
    // A witness compiles and has no `i <= n`.
    write(
        dir.path(),
        "witness.sh",
        "#!/bin/sh\ngcc -fsyntax-only -Werror=implicit-function-declaration p.c 2>/dev/null && ! grep -q 'i <= n' p.c\n",
    );
    dir
}

/// `whittle witness p.c --test ./check.sh --test-witness ./witness.sh EXTRA` in `d`.
fn witness(d: &Path, extra: &[&str]) -> std::process::Output {
    let args = [
        "witness",
        "p.c",
        "--test",
        "./check.sh",
        "--test-witness",
        "./witness.sh",
    ];
    whittle(d, &[&args[..], extra].concat())
}

/// `whittle pair --variant p.c --auto-seed` with check.sh and witness.sh, then `extra`.
fn auto_seed_pair(d: &Path, extra: &[&str]) -> std::process::Output {
    let args = [
        "pair",
        "--variant",
        "p.c",
        "--auto-seed",
        "--test-variant",
        "./check.sh",
        "--test-seed",
        "./witness.sh",
    ];
    whittle(d, &[&args[..], extra].concat())
}

#[test]
fn witnesses_pass_their_test_and_differ_by_one_edit() {
    let dir = setup();
    let d = dir.path();
    let out = witness(d, &["--budget", "60", "-q", "--stats-json", "s.json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stats = read_json(d, "s.json");
    let witnesses = stats["witnesses"].as_array().unwrap();
    assert!(!witnesses.is_empty(), "{stats}");
    assert!(stats["queries"].as_u64().unwrap() <= 60);
    let folder = d.join("p.c.witnesses");
    for (i, w) in witnesses.iter().enumerate() {
        let text = std::fs::read_to_string(folder.join(format!("{:03}-p.c", i + 1))).unwrap();
        assert_eq!(text, w["text"].as_str().unwrap());
        assert!(
            passes(&d.join("witness.sh"), &text),
            "witness {} passes its test",
            i + 1
        );
        assert!(!passes(&d.join("check.sh"), &text));
        assert_eq!(w["changes"].as_array().unwrap().len(), 1, "{w}");
        assert_eq!(w["changes"][0]["line"], 3, "only line 3 has the bug");
        let diff = std::fs::read_to_string(folder.join(format!("{:03}.diff", i + 1))).unwrap();
        assert_eq!(
            diff.lines()
                .filter(|l| l.starts_with('-') && !l.starts_with("---"))
                .count(),
            1,
            "{diff}"
        );
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("witness 1: line 3:"), "{stdout}");
}

#[test]
fn the_same_seed_finds_the_same_witnesses() {
    let dir = setup();
    let d = dir.path();
    let run = |flag: &str, seed: &str, jobs: &str, name: &str| {
        let out = witness(
            d,
            &[
                "--budget",
                "40",
                flag,
                seed,
                "-j",
                jobs,
                "-q",
                "--out",
                name,
                "--stats-json",
                &format!("{name}.json"),
            ],
        );
        assert!(out.status.success());
        let s = read_json(d, &format!("{name}.json"));
        s["witnesses"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["text"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let a = run("--rng-seed", "3", "1", "a");
    assert!(!a.is_empty());
    // The second run spells the flag as it was before --rng-seed: it still reads.
    assert_eq!(
        a,
        run("--seed", "3", "3", "b"),
        "parallel tests change nothing"
    );
}

#[test]
fn tcc_coverage_ranks_the_compilers_files_and_functions() {
    let tcc = support::require_tcc();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let t = tcc.display();
    write(d, "p.c", "int printf(const char *, ...);\nint main(void) {\n  int a = 6, b = 7;\n  int c = a * b;\n  if (c > 40)\n    c = c - 2;\n  printf(\"%d\\n\", c);\n  return 0;\n}\n");
    // The "bug": the program prints 40.
    let run = format!("{t}/tcc -B{t} -I{t}/include p.c -o p.out 2>/dev/null && ./p.out");
    write(
        d,
        "check.sh",
        &format!("#!/bin/sh\n[ \"$({run})\" = 40 ]\n"),
    );
    write(
        d,
        "witness.sh",
        &format!("#!/bin/sh\nout=$({run}) && [ \"$out\" != 40 ]\n"),
    );
    let whittle_bin = env!("CARGO_BIN_EXE_whittle");
    write(d, "cov.sh", &format!("#!/bin/sh\nexec {whittle_bin} coverage --objects {t} -- {t}/tcc -B{t} -I{t}/include -c p.c -o p.o\n"));
    let out = witness(
        d,
        &[
            "--coverage",
            "./cov.sh",
            "--budget",
            "40",
            "-q",
            "--stats-json",
            "s.json",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = read_json(d, "s.json");
    assert!(
        s["witnesses"].as_array().unwrap().len() >= 2,
        "{}",
        s["witnesses"]
    );
    let files = s["ranking"]["files"].as_array().unwrap();
    let names: Vec<&str> = files.iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert!(
        names.contains(&"tccgen.c") && names.contains(&"tccpp.c"),
        "{names:?}"
    );
    // Sorted most suspicious first, scores in (0, 1].
    let scores: Vec<f64> = files.iter().map(|f| f["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]));
    assert!(scores.iter().all(|&x| x > 0.0 && x <= 1.0));
    assert!(s["ranking"]["functions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["name"].as_str().unwrap().starts_with("tccgen.c:")));
    // Diversity: each witness's coverage differs from the failing program's.
    for w in s["witnesses"].as_array().unwrap() {
        assert!(w["distance"].as_f64().unwrap() > 0.0, "{w}");
    }
    assert!(d.join("p.c.witnesses/ranking.txt").exists());
    // Every compile's coverage: the failing program's, each failing mutant's, each witness's.
    let spectra = read_json(d, "p.c.witnesses/coverage.json");
    assert!(spectra["failing"]["tccgen.c"].is_object(), "{spectra}");
    let failing = spectra["failing_mutants"].as_array().unwrap();
    assert_eq!(failing.len() as u64, s["failing"].as_u64().unwrap());
    assert!(failing.iter().all(|c| c["tccgen.c"].is_object()));
    assert_eq!(
        spectra["witnesses"].as_array().unwrap().len(),
        s["witnesses"].as_array().unwrap().len()
    );
}

#[test]
fn pair_with_an_automatic_seed_ends_with_a_small_diff() {
    let dir = setup();
    let d = dir.path();
    let out = auto_seed_pair(d, &["-q", "--stats-json", "s.json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seed = std::fs::read_to_string(d.join("p.seed.c")).unwrap();
    assert!(
        passes(&d.join("witness.sh"), &seed),
        "the seed found passes --test-seed"
    );
    let s = read_json(d, "s.json");
    let diff = s["diff_tokens_after"].as_u64().unwrap();
    assert!((1..=5).contains(&diff), "diff {diff} tokens");
    let seed_min = std::fs::read_to_string(d.join("p.seed.min.c")).unwrap();
    let variant_min = std::fs::read_to_string(d.join("p.min.c")).unwrap();
    assert!(passes(&d.join("witness.sh"), &seed_min));
    assert!(passes(&d.join("check.sh"), &variant_min));
    // With the compiler's report on the variant, the search starts where it points.
    write(
        d,
        "trace.sh",
        "#!/bin/sh\necho 'p.c:3:19: warning: loop bound [-Wbound]'\n",
    );
    let out = auto_seed_pair(
        d,
        &[
            "--witness-trace",
            "./trace.sh",
            "-q",
            "--stats-json",
            "t.json",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("seed found after") && err.contains("line 3:"),
        "{err}"
    );
}

#[test]
fn a_program_that_does_not_fail_is_said_so() {
    let dir = setup();
    let d = dir.path();
    write(d, "check.sh", "#!/bin/sh\nexit 1\n");
    let out = whittle(
        d,
        &[
            "witness",
            "p.c",
            "--test",
            "./check.sh",
            "--budget",
            "10",
            "-q",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("does not fail") && err.contains("must exit 0"),
        "{err}"
    );
    let out = auto_seed_pair(d, &["-q"]);
    assert_eq!(out.status.code(), Some(1));
    let out = whittle(
        d,
        &[
            "witness",
            "p.c",
            "--test",
            "./check.sh",
            "--selection",
            "best",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--selection must be mh or random"));
}
