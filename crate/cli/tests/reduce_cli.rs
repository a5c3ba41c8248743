//! `whittle reduce` end to end: scripts and commands, timeouts, an uninteresting original,
//! and an interrupted run that keeps its best result.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use support::{adopt_orphans, own_processes, whittle};

const PROGRAM: &str = "#include <stdio.h>\n\
static int unused(int a, int b) { return a * b + 7; }\n\
int helper(int x) {\n  int y = x * 2;\n  if (y > 10) { y = y - 1; } else { y = 3; }\n  return y;\n}\n\
int main(void) {\n  int a = 1;\n  int b = helper(a);\n  printf(\"%d\\n\", b);\n  int marker = 42;\n  for (int i = 0; i < 3; i++) { a += i; }\n  return a + marker;\n}\n";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("whittle-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("input.c"), PROGRAM).unwrap();
    dir
}

fn script(dir: &Path, body: &str) -> PathBuf {
    let path = dir.join("check.sh");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn stats(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("stats.json")).unwrap()).unwrap()
}

#[test]
fn a_script_reduces_and_the_original_is_kept() {
    let dir = scratch("script");
    script(&dir, "grep -q 'marker = 42' input.c");
    let out = whittle(
        &dir,
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
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result = std::fs::read_to_string(dir.join("input.c")).unwrap();
    assert!(result.contains("marker = 42"));
    assert!(result.len() < 40, "not reduced: {result}");
    assert_eq!(
        std::fs::read_to_string(dir.join("input.c.orig")).unwrap(),
        PROGRAM
    );
    let s = stats(&dir);
    assert_eq!(s["invalid_queries"], 0);
    assert!(s["queries"].as_u64().unwrap() > 5);
    // Per-pass figures: each pass's queries, successes, tokens and bytes removed, time.
    let passes = s["passes"].as_array().unwrap();
    let perses = passes.iter().find(|p| p["pass"] == "perses").unwrap();
    assert!(perses["queries"].as_u64().unwrap() > 0 && perses["accepted"].as_u64().unwrap() > 0);
    assert!(perses["tokens_removed"].as_i64().unwrap() > 0 && perses["seconds"].is_f64());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("rename"), "{stderr}");
    assert!(
        s["verdicts"].as_str().unwrap().len() as u64
            >= s["queries"].as_u64().unwrap() - s["stale_verdicts"].as_u64().unwrap()
    );
}

#[test]
fn implicit_int_ends_the_run_and_is_counted_apart() {
    // Like a warning in `main`: `main` must stay a function, `int` or not.
    let check = "grep -Eq '^(int )?main\\(' input.c && grep -q 'marker = 42' input.c";
    let args = ["reduce", "--test", "./check.sh", "input.c", "-j", "2"];
    let dir = scratch("implicit-int");
    script(&dir, check);
    let out = whittle(&dir, &[&args[..], &["--stats-json", "stats.json"]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result = std::fs::read_to_string(dir.join("input.c")).unwrap();
    assert!(result.starts_with("main("), "{result}");
    let s = stats(&dir);
    assert_eq!(s["invalid_queries"], 0);
    assert!(s["unparsed_queries"].as_u64().unwrap() > 0);

    // For a compiler that rejects implicit int, it can be left out.
    let dir = scratch("no-implicit-int");
    script(&dir, check);
    let out = whittle(
        &dir,
        &[
            &args[..],
            &["--no-implicit-int", "--stats-json", "stats.json"],
        ]
        .concat(),
    );
    assert!(out.status.success());
    let result = std::fs::read_to_string(dir.join("input.c")).unwrap();
    assert!(result.starts_with("int main("), "{result}");
    assert_eq!(stats(&dir)["unparsed_queries"], 0);
}

#[test]
fn a_command_and_regex_instead_of_a_script() {
    let dir = scratch("cmd");
    let out = whittle(
        &dir,
        &[
            "reduce",
            "--cmd",
            "gcc -c -o /dev/null -Wall {}",
            "--match",
            "unused variable|defined but not used",
            "--exit",
            "0",
            "input.c",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result = std::fs::read_to_string(dir.join("input.c")).unwrap();
    let check = Command::new("gcc")
        .current_dir(&dir)
        .args(["-c", "-o", "/dev/null", "-Wall", "input.c"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&check.stderr);
    assert!(
        text.contains("unused variable") || text.contains("defined but not used"),
        "{result}\n{text}"
    );
    assert!(result.len() < PROGRAM.len() / 3, "{result}");
}

#[test]
fn a_test_past_the_timeout_is_killed() {
    let dir = scratch("timeout");
    // Candidates without `helper` hang; they must be killed, not waited for. The check below
    // looks only at this test's own processes, orphans included, by a name only it uses.
    adopt_orphans();
    let marker = format!("whittle-timeout-sleep-{}", std::process::id());
    std::os::unix::fs::symlink("/bin/sleep", dir.join(&marker)).unwrap();
    script(
        &dir,
        &format!(
            "grep -q 'marker = 42' input.c || exit 1\ngrep -q helper input.c || {}/{marker} 60\nexit 0",
            dir.display()
        ),
    );
    let started = Instant::now();
    let out = whittle(
        &dir,
        &[
            "reduce",
            "--test",
            "./check.sh",
            "input.c",
            "--timeout",
            "1",
            "-j",
            "2",
            "--stats-json",
            "stats.json",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        started.elapsed() < Duration::from_secs(50),
        "took {:?}",
        started.elapsed()
    );
    let result = std::fs::read_to_string(dir.join("input.c")).unwrap();
    assert!(
        result.contains("helper") && result.contains("marker = 42"),
        "{result}"
    );
    assert!(
        stats(&dir)["errors"].as_u64().unwrap() > 0,
        "no test timed out"
    );
    // No hung test is left behind.
    assert_eq!(running(&marker), 0, "a hung test was left running");
}

#[test]
fn an_uninteresting_original_is_reported() {
    let dir = scratch("boring");
    script(&dir, "echo 'the bug is gone'; exit 1");
    let out = whittle(&dir, &["reduce", "--test", "./check.sh", "input.c"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is not interesting") && err.contains("the bug is gone"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("input.c")).unwrap(),
        PROGRAM
    );
    assert!(!dir.join("input.c.orig").exists());
}

#[test]
fn a_malformed_program_gets_its_position_when_strict() {
    let dir = scratch("malformed");
    std::fs::write(dir.join("input.c"), "int main( {\n").unwrap();
    script(&dir, "exit 0");
    let out = whittle(
        &dir,
        &["reduce", "--test", "./check.sh", "input.c", "--strict"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 1"));
}

#[test]
fn an_interrupted_run_keeps_its_best_and_its_figures() {
    // Ctrl-C, or SIGTERM as `kill` and time limits send it.
    for signal in [libc::SIGINT, libc::SIGTERM] {
        let dir = scratch(&format!("interrupt-{signal}"));
        script(&dir, "sleep 0.3; grep -q 'marker = 42' input.c");
        let tmp = private_tmp(&dir);
        let mut child = Command::new(env!("CARGO_BIN_EXE_whittle"))
            .current_dir(&dir)
            .env("TMPDIR", &tmp)
            .args(["reduce", "--test", "./check.sh", "input.c", "-j", "1"])
            .args(["--stats-json", "stats.json"])
            .spawn()
            .unwrap();
        // The original is tested three times before the reduction (about 1 s here).
        std::thread::sleep(Duration::from_millis(4500));
        // SAFETY: signalling our own child process.
        unsafe { libc::kill(child.id() as i32, signal) };
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(130), "after signal {signal}");
        let saved = std::fs::read_to_string(dir.join("input.c")).unwrap();
        assert!(saved.contains("marker = 42"));
        assert!(saved.len() < PROGRAM.len(), "some progress was saved");
        assert!(whittle::tree::Parser::new(whittle::Lang::C).is_valid(&saved));
        let stats = stats(&dir);
        assert!(stats["queries"].as_u64().unwrap() > 0, "{stats}");
        assert_eq!(stats["interrupted"], true, "{stats}");
        // The test under way when the signal came had its folder: gone with it.
        assert_eq!(folders(&tmp), Vec::<String>::new(), "after signal {signal}");
    }
}

/// An empty folder to serve as a run's TMPDIR, so that what the run leaves there is its own.
fn private_tmp(dir: &Path) -> PathBuf {
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    tmp
}

/// The temporary folders whittle left in `tmp`.
fn folders(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("whittle-"))
        .collect()
}

/// `copies` copies of a C program, each with its own names: a big input made at test time.
fn big_program(copies: usize) -> String {
    let mut text = String::from("int printf(const char *, ...);\n");
    for i in 0..copies {
        text.push_str(&format!(
            "struct point_{i} {{ int x; int y; }};\n\
             static int helper_{i}(int a, int b) {{\n  int s = 0;\n  for (int k = 0; k < a; k++) {{ if (k % 3 == 0) s += b * k; else s -= k; }}\n  return s + {i};\n}}\n\
             int compute_{i}(struct point_{i} *p, int n) {{\n  int total = helper_{i}(n, p->x);\n  while (n-- > 0) {{ total += p->y * n; if (total > 1000) break; }}\n  return total;\n}}\n"
        ));
    }
    text
}

#[test]
fn a_signal_during_the_parse_of_a_big_input_stops_it_within_a_second() {
    // About 8 MB. With --strict it is parsed before anything else (seconds): the signal comes
    // in the middle of tree-sitter's parse. Without, it is past the parse limit and reduced
    // as a lexed tree at once: the signal comes while the `chunks` pass is under way.
    let program = big_program(20_000);
    for strict in [true, false] {
        let dir = scratch(&format!("big-{strict}"));
        std::fs::write(dir.join("input.c"), &program).unwrap();
        script(&dir, "sleep 0.2; grep -q compute_0 input.c");
        let tmp = private_tmp(&dir);
        let mut child = Command::new(env!("CARGO_BIN_EXE_whittle"))
            .current_dir(&dir)
            .env("TMPDIR", &tmp)
            .args(["reduce", "--test", "./check.sh", "input.c", "-j", "1", "-q"])
            .args(["--stats-json", "stats.json"])
            .args(strict.then_some("--strict"))
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(700));
        assert!(
            child.try_wait().unwrap().is_none(),
            "over before the signal"
        );
        if strict {
            assert!(
                !dir.join("input.c.orig").exists(),
                "the parse was over before the signal: make the input bigger"
            );
        }
        let sent = Instant::now();
        // SAFETY: signalling our own child process.
        unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
        let out = child.wait_with_output().unwrap();
        let took = sent.elapsed();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{stderr}");
        assert!(
            took < Duration::from_secs(1),
            "took {took:?} (strict: {strict})"
        );
        let saved = std::fs::read_to_string(dir.join("input.c")).unwrap();
        if strict {
            assert_eq!(saved, program);
        } else {
            // The original, or a best so far, whole: never a torn write.
            assert!(
                saved == program || (saved.len() < program.len() && saved.contains("compute_0"))
            );
            if let Ok(orig) = std::fs::read_to_string(dir.join("input.c.orig")) {
                assert_eq!(orig, program);
            }
            // A best saved has its figures, however the run ended (by itself, or by the main
            // thread while the engine was busy: then as of that best).
            if saved != program {
                let stats = stats(&dir);
                assert_eq!(stats["interrupted"], true, "{stats}");
                assert!(stats["accepted"].as_u64().unwrap() > 0, "{stats}");
                assert!(stats["engine_seconds"].as_f64().unwrap() > 0.0, "{stats}");
            }
        }
        assert!(stderr.contains("interrupted"), "{stderr}");
        assert_eq!(folders(&tmp), Vec::<String>::new());
    }
}

#[test]
fn an_earlier_runs_original_is_never_deleted() {
    let dir = scratch("keep-orig");
    std::fs::write(dir.join("input.c.orig"), "the only copy").unwrap();
    script(&dir, "exit 1");
    let out = whittle(&dir, &["reduce", "--test", "./check.sh", "input.c"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        std::fs::read_to_string(dir.join("input.c.orig")).unwrap(),
        "the only copy"
    );
}

/// Processes whose command line names `marker`.
fn running(marker: &str) -> usize {
    own_processes(|dir| {
        std::fs::read(dir.join("cmdline"))
            .is_ok_and(|c| String::from_utf8_lossy(&c).contains(marker))
    })
}

#[test]
fn killing_whittle_even_with_sigkill_leaves_no_test_running() {
    let dir = scratch("sigkill");
    adopt_orphans();
    let marker = format!("whittle-test-marker-{}", std::process::id());
    // A test that starts a long-lived child of its own in the background and waits.
    script(
        &dir,
        &format!("sh -c 'sleep 300; : {marker}' & sleep 300; : {marker}"),
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_whittle"))
        .current_dir(&dir)
        .args(["reduce", "--test", "./check.sh", "input.c", "-j", "2"])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while running(&marker) == 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(running(&marker) > 0, "the test never started");
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while running(&marker) > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(running(&marker), 0, "a test outlived whittle");
}

#[test]
fn files_with_one_stem_save_apart() {
    let dir = scratch("stems");
    std::fs::write(dir.join("input.cpp"), PROGRAM.replace("42", "43")).unwrap();
    script(&dir, "cat input.c* | grep -q 'marker = 4[23]'");
    let a = Command::new(env!("CARGO_BIN_EXE_whittle"))
        .current_dir(&dir)
        .args(["reduce", "--test", "./check.sh", "input.c", "-q"])
        .spawn()
        .unwrap();
    let b = whittle(&dir, &["reduce", "--test", "./check.sh", "input.cpp", "-q"]);
    let a = a.wait_with_output().unwrap();
    assert!(a.status.success() && b.status.success());
    for (f, marker) in [("input.c", "marker = 42"), ("input.cpp", "marker = 43")] {
        let text = std::fs::read_to_string(dir.join(f)).unwrap();
        assert!(text.contains(marker), "{f}: {text}");
    }
}

#[test]
fn passes_are_listed_and_skipped_by_name() {
    let dir = scratch("skip-pass");
    let out = whittle(&dir, &["reduce", "--list-passes"]);
    assert!(out.status.success(), "{out:?}");
    let list = String::from_utf8_lossy(&out.stdout);
    let row = |name: &str| list.lines().find(|l| l.starts_with(&format!("{name} ")));
    assert!(
        row("rename").is_some_and(|r| r.contains("perses: every")),
        "{list}"
    );
    assert!(
        row("error-regions").is_some_and(|r| r.contains("perses: fine, coarse")),
        "{list}"
    );
    assert!(
        row("comments").is_some_and(|r| r.contains("deletes comments")),
        "{list}"
    );
    // The passes across a folder's files are listed too.
    assert!(
        row("make-flags").is_some_and(|r| r.contains("folders: every, first")),
        "{list}"
    );

    // An unknown name: refused with the valid ones, before anything is written.
    script(&dir, "grep -q '= 42' input.c");
    let run = |skip: &[&str]| {
        let mut args = vec!["reduce", "--test", "./check.sh", "input.c", "-j", "2"];
        args.extend(["--stats-json", "stats.json"]);
        args.extend(skip);
        whittle(&dir, &args)
    };
    let out = run(&["--skip-pass", "rename,renames"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unknown pass `renames`: use comments, perses, hdd,")
            && stderr.contains(
                ", bodies, terminators, chains, extensions, roots, clauses, file-scope, bare-field, delete-file, inline-file, drop-link, delete-symbol or make-flags"
            ),
        "{stderr}"
    );
    assert!(!dir.join("input.c.orig").exists());
    assert_eq!(
        std::fs::read_to_string(dir.join("input.c")).unwrap(),
        PROGRAM
    );

    // Comma-separated and repeated: none of them runs, and the names stay.
    let out = run(&["--skip-pass", "rename,types", "--skip-pass", "local"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result = std::fs::read_to_string(dir.join("input.c")).unwrap();
    assert!(result.contains("marker = 42"), "{result}");
    let s = stats(&dir);
    let names: Vec<&str> = s["passes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pass"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"perses"), "{names:?}");
    for skipped in ["rename", "types", "local"] {
        assert!(!names.contains(&skipped), "{names:?}");
    }
}
