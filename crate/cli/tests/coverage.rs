//! Coverage of one compile: `whittle coverage` and tcc in `whittle serve`, on the coverage
//! build of tcc (scripts/build-tcc.sh; setup.sh builds it). Compiles running at once must
//! each get exactly the coverage they get alone: their counters never mix.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};
use whittle::witness::Coverage;

mod support;

use support::*;

/// A switch and floating point: code a trivial program never reaches in tccgen.c.
const SWITCH_AND_FLOATS: &str = r#"
double scale(int k, double x) {
    switch (k) {
    case 0: return x * 1.5;
    case 1: return x / 3.0f;
    case 7: return -x;
    default: return (float)k + x;
    }
}
int main(void) { return scale(1, 2.0) > 0 ? 0 : 1; }
"#;

const TRIVIAL: &str = "int main(void) { return 0; }\n";

/// `whittle coverage --objects BUILD [extra] -- CMD...` in `dir`.
fn whittle_coverage(dir: &Path, build: &Path, extra: &[&str], cmd: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_whittle"))
        .arg("coverage")
        .arg("--objects")
        .arg(build)
        .args(extra)
        .arg("--")
        .args(cmd)
        .current_dir(dir)
        .output()
        .expect("run whittle coverage")
}

/// The coverage of tcc compiling `source` (as `input.c` in a fresh folder) to an object.
fn tcc_coverage(build: &Path, source: &str) -> Coverage {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("input.c"), source).unwrap();
    let tcc = build.join("tcc");
    let b = format!("-B{}", build.display());
    let i = format!("-I{}/include", build.display());
    let cmd = [
        tcc.to_str().unwrap(),
        &b,
        &i,
        "-c",
        "input.c",
        "-o",
        "input.o",
    ];
    let out = whittle_coverage(dir.path(), build, &[], &cmd);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    assert!(dir.path().join("input.o").is_file(), "tcc made no object");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "one line of JSON: {stdout}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not Coverage JSON ({e}): {stdout}"))
}

fn lines_of<'a>(cov: &'a Coverage, file: &str) -> Vec<(&'a str, u32)> {
    cov.0
        .get(file)
        .into_iter()
        .flatten()
        .flat_map(|(f, lines)| lines.iter().map(move |&l| (f.as_str(), l)))
        .collect()
}

#[test]
fn two_programs_cover_tccgen_differently() {
    let build = require_tcc();
    let big = tcc_coverage(&build, SWITCH_AND_FLOATS);
    let small = tcc_coverage(&build, TRIVIAL);
    for cov in [&big, &small] {
        assert!(!lines_of(cov, "tccgen.c").is_empty(), "{cov:?}");
        assert!(
            cov.0.contains_key("tccpp.c"),
            "file names as gcov gives them"
        );
    }
    let (b, s) = (lines_of(&big, "tccgen.c"), lines_of(&small, "tccgen.c"));
    assert_ne!(b, s);
    let only_big = b.iter().filter(|x| !s.contains(x)).count();
    assert!(
        only_big > 50,
        "the switch and floats reach {only_big} more lines of tccgen.c"
    );
    // Lines are sorted and distinct, functions named.
    for functions in big.0.values() {
        for (name, lines) in functions {
            assert!(!name.is_empty());
            assert!(lines.windows(2).all(|w| w[0] < w[1]), "{name}: {lines:?}");
        }
    }
}

#[test]
fn compiles_at_once_get_their_solo_coverage_exactly() {
    let build = require_tcc();
    let programs = [SWITCH_AND_FLOATS, TRIVIAL];
    let solo: Vec<Coverage> = programs.iter().map(|p| tcc_coverage(&build, p)).collect();
    assert_ne!(solo[0], solo[1]);
    for round in 0..4 {
        let results: Vec<(usize, Coverage)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8)
                .map(|k| {
                    let (build, which) = (&build, k % 2);
                    scope.spawn(move || (which, tcc_coverage(build, programs[which])))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (which, cov) in results {
            assert!(
                cov == solo[which],
                "round {round}: program {which}'s coverage changed when compiled alongside others"
            );
        }
    }
}

#[test]
fn failing_and_killed_compilers_give_their_exit_status() {
    let build = require_tcc();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.c"), "int main(void) { return 0 }\n").unwrap();
    let tcc = build.join("tcc");
    let b = format!("-B{}", build.display());
    let cmd = [tcc.to_str().unwrap(), &b, "-c", "bad.c", "-o", "bad.o"];

    // A compile error: tcc's exit status and message, and what the failing compile covered.
    let out = whittle_coverage(dir.path(), &build, &[], &cmd);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error"),
        "tcc's message goes to stderr: {stderr}"
    );
    let cov: Coverage = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!cov.is_empty());

    // Killed: 128 + SIGKILL, and no counters, so empty coverage.
    let out = whittle_coverage(dir.path(), &build, &[], &["sh", "-c", "kill -KILL $$"]);
    assert_eq!(out.status.code(), Some(137));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "{}");

    // Out of time: killed the same way, and said so.
    let out = whittle_coverage(dir.path(), &build, &["--timeout", "0.3"], &["sleep", "30"]);
    assert_eq!(out.status.code(), Some(137));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ran out of time"));

    // Not there: 127. No coverage build: 125, saying how to make one.
    let out = whittle_coverage(dir.path(), &build, &[], &["/nonexistent/cc"]);
    assert_eq!(out.status.code(), Some(127));
    let out = whittle_coverage(dir.path(), dir.path(), &[], &["true"]);
    assert_eq!(out.status.code(), Some(125));
    assert!(String::from_utf8_lossy(&out.stderr).contains("scripts/build-tcc.sh"));
    assert!(out.stdout.is_empty());
}

#[test]
fn the_temporary_counter_folders_are_removed() {
    let build = require_tcc();
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_whittle"))
        .args(["coverage", "--objects"])
        .arg(&build)
        .args(["--", "true"])
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "{}");
    let left: Vec<PathBuf> = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// A compile request for tcc: an object, its disassembly and the program's run.
fn tcc_request(source: &str) -> Value {
    json!({
        "source": source,
        "options": {"userArguments": "-O2", "filters": {"execute": true}},
    })
}

fn served_coverage(s: &Server, source: &str) -> Coverage {
    let r = s.compile("tcc", &tcc_request(source));
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    assert_eq!(v["code"], 0, "{v}");
    assert!(
        stream(&v["asm"]).contains("<main>:"),
        "objdump of the object: {}",
        v["asm"]
    );
    assert_eq!(
        v["execResult"]["code"], 0,
        "the program runs: {}",
        v["execResult"]
    );
    serde_json::from_value(v["coverage"].clone()).unwrap_or_else(|e| panic!("coverage ({e}): {v}"))
}

#[test]
fn serve_answers_each_tcc_compile_with_its_own_coverage() {
    let build = require_tcc();
    let s = Server::start(&["--tcc", build.to_str().unwrap(), "--max-jobs", "4"]);
    let listed = s.get("/api/compilers/c").json();
    let tcc = listed.as_array().unwrap().iter().find(|c| c["id"] == "tcc");
    assert!(
        tcc.is_some_and(|c| c["lang"] == "c"),
        "tcc is listed: {listed}"
    );

    let programs = [SWITCH_AND_FLOATS, TRIVIAL];
    let solo: Vec<Coverage> = programs.iter().map(|p| served_coverage(&s, p)).collect();
    assert_ne!(solo[0], solo[1]);
    assert!(!lines_of(&solo[0], "tccgen.c").is_empty());
    // The served coverage is the command line's: one implementation.
    assert_eq!(
        solo[1].0.get("tccgen.c"),
        tcc_coverage(&build, TRIVIAL).0.get("tccgen.c")
    );
    for round in 0..3 {
        let results: Vec<(usize, Coverage)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4)
                .map(|k| {
                    let (s, which) = (&s, k % 2);
                    scope.spawn(move || (which, served_coverage(s, programs[which])))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (which, cov) in results {
            assert!(
                cov == solo[which],
                "round {round}: program {which}'s served coverage changed alongside others"
            );
        }
    }

    // A compile error still answers with what it covered; tcc's flags are vetted like gcc's.
    let r = s
        .compile("tcc", &json!({"source": "int main(void) { return 0 }"}))
        .json();
    assert_ne!(r["code"], 0);
    assert!(stream(&r["stderr"]).contains("<source>"), "{r}");
    assert!(!r["coverage"].as_object().unwrap().is_empty());
    let refused = s.compile(
        "tcc",
        &json!({"source": TRIVIAL, "options": {"userArguments": "-run"}}),
    );
    assert_eq!(refused.status, 400, "{}", refused.text());
}

#[test]
fn serve_refuses_to_start_with_a_tcc_folder_that_is_no_coverage_build() {
    let empty = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_whittle"))
        .args(["serve", "--port", "0", "--tcc"])
        .arg(empty.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("whittle serve started with a --tcc folder that holds no build");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(!status.success());
    assert!(
        stderr.contains("--tcc") && stderr.contains("scripts/build-tcc.sh"),
        "{stderr}"
    );
}
