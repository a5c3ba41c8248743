//! `whittle reduce` on programs the grammar cannot fully parse: g++'s preprocessed output is
//! reduced (tested against g++ itself), the coverage is reported, and `--strict` refuses.

mod support;

use std::path::PathBuf;
use std::process::Command;
use support::{read_json, require_gcc, whittle, write};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("whittle-tolerant-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A C++ program of ours, preprocessed by g++ as a bug report would attach it (line markers,
/// `__attribute__`, inline namespaces): the warning needs `initializer_list::size`.
const PROGRAM: &str = "#include <initializer_list>\n\
int count(std::initializer_list<int> il) {\n  int n = 0;\n  for (int i = 0; i < il.size(); i++) n++;\n  return n;\n}\n";

const CHECK: &str = "#!/bin/sh\nexport LC_ALL=C\n\
timeout -s KILL 30 g++ -std=c++17 -Wall -c input.cpp -o out.o > log.txt 2>&1 || exit 1\n\
grep -q 'comparison of integer expressions of different signedness: .int. and .std::initializer_list<int>::size_type' log.txt\n";

fn preprocessed(dir: &std::path::Path) -> String {
    require_gcc();
    write(dir, "program.cpp", PROGRAM, false);
    let out = Command::new("g++")
        .args(["-std=c++17", "-E", "program.cpp", "-o", "input.cpp"])
        .current_dir(dir)
        .output()
        .expect("run g++ -E");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(dir.join("input.cpp")).unwrap()
}

#[test]
fn preprocessed_cpp_is_reduced_against_gxx() {
    let dir = scratch("gxx");
    let original = preprocessed(&dir);
    write(&dir, "check.sh", CHECK, true);
    let parse = whittle(&dir, &["parse", "input.cpp", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&parse.stdout).unwrap();
    assert_eq!(
        report["ok"], false,
        "the grammar does not cover g++'s output"
    );
    assert!(report["error_tokens"].as_u64().unwrap() > 0);

    let args = [
        "reduce",
        "input.cpp",
        "--test",
        "./check.sh",
        "-j",
        "2",
        "--stats-json",
        "stats.json",
    ];
    let out = whittle(&dir, &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("the grammar covers"),
        "the coverage is reported: {stderr}"
    );
    let result = std::fs::read_to_string(dir.join("input.cpp")).unwrap();
    assert!(result.len() * 5 < original.len(), "not reduced: {result}");
    let ok = Command::new("sh")
        .arg("check.sh")
        .current_dir(&dir)
        .status()
        .unwrap();
    assert!(ok.success(), "the result still warns:\n{result}");
    let stats = read_json(&dir, "stats.json");
    assert_eq!(stats["invalid_queries"], 0);
    assert!(stats["error_tokens"].as_u64().unwrap() < report["error_tokens"].as_u64().unwrap());
}

#[test]
fn strict_refuses_and_says_what_to_do() {
    let dir = scratch("strict");
    write(
        &dir,
        "input.c",
        "int main(void) {\n  return @@;\n}\n",
        false,
    );
    write(&dir, "check.sh", "#!/bin/sh\ngrep -q main input.c\n", true);
    let out = whittle(
        &dir,
        &["reduce", "input.c", "--test", "./check.sh", "--strict"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("line 2") && stderr.contains("drop --strict"),
        "{stderr}"
    );
    assert!(!dir.join("input.c.orig").exists(), "nothing was started");
    // Without --strict the same program is reduced.
    let out = whittle(&dir, &["reduce", "input.c", "--test", "./check.sh"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result = std::fs::read_to_string(dir.join("input.c")).unwrap();
    assert!(result.contains("main") && result.len() < 30, "{result}");
}
