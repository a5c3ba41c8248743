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

/// GNU C as preprocessed code has it: `__extension__`, `__int128`, an `__asm__` label (which
/// tree-sitter's C grammar lacks), `__typeof__`, a statement expression, attributes.
const GNU_C: &str = "#include <stdio.h>\n\
__extension__ typedef __int128 big;\n\
int counter __asm__(\"my_counter\") = 0;\n\
static inline int __attribute__((always_inline)) twice(int x) { return x * 2; }\n\
int main(void) {\n  __typeof__(counter) y = ({ int t = twice(3); t + 1; });\n\
  big z = (big)y << 70;\n  unsigned char c = 300;\n  printf(\"%d %d\\n\", y, (int)(z >> 70));\n  return c;\n}\n";

/// `compiler -E` of `source` (written as `program.EXT`) into `input.EXT`: its text.
fn preprocessed(dir: &std::path::Path, compiler: &str, ext: &str, source: &str) -> String {
    require_gcc();
    let program = format!("program.{ext}");
    let input = format!("input.{ext}");
    write(dir, &program, source, false);
    let out = Command::new(compiler)
        .args(["-E", &program, "-o", &input])
        .current_dir(dir)
        .output()
        .expect("run g++ -E");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(dir.join(&input)).unwrap()
}

/// The grammar's coverage of `file` by `whittle parse --json`: (ok, error tokens).
fn coverage(dir: &std::path::Path, file: &str) -> (bool, u64) {
    let parse = whittle(dir, &["parse", file, "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&parse.stdout).unwrap();
    (
        report["ok"] == true,
        report["error_tokens"].as_u64().unwrap(),
    )
}

/// `whittle reduce FILE --test ./check.sh -j 2 --stats-json stats.json` in `dir`.
fn reduce_with_stats(dir: &std::path::Path, file: &str) -> std::process::Output {
    let args = [
        "reduce",
        file,
        "--test",
        "./check.sh",
        "-j",
        "2",
        "--stats-json",
        "stats.json",
    ];
    whittle(dir, &args)
}

#[test]
fn preprocessed_cpp_is_reduced_against_gxx() {
    let dir = scratch("gxx");
    let original = preprocessed(&dir, "g++", "cpp", PROGRAM);
    write(&dir, "check.sh", CHECK, true);
    let (ok, errors) = coverage(&dir, "input.cpp");
    assert!(!ok && errors > 0, "the grammar does not cover g++'s output");

    let out = reduce_with_stats(&dir, "input.cpp");
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
    assert!(stats["error_tokens"].as_u64().unwrap() < errors);
}

#[test]
fn preprocessed_gnu_c_is_reduced_against_gcc() {
    let dir = scratch("gcc");
    let original = preprocessed(&dir, "gcc", "c", GNU_C);
    let (ok, errors) = coverage(&dir, "input.c");
    assert!(!ok && errors > 0, "the asm label is a gap in the C grammar");
    let check = "#!/bin/sh\nexport LC_ALL=C\n\
timeout -s KILL 30 gcc -Wall -c input.c -o out.o > log.txt 2>&1 || exit 1\n\
grep -q \"conversion from .int. to .unsigned char. changes value from .300.\" log.txt\n";
    write(&dir, "check.sh", check, true);
    let out = reduce_with_stats(&dir, "input.c");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result = std::fs::read_to_string(dir.join("input.c")).unwrap();
    assert!(
        result.len() < 40 && result.len() * 100 < original.len(),
        "not reduced: {result}"
    );
    assert!(result.contains("300"), "{result}");
    assert_eq!(read_json(&dir, "stats.json")["invalid_queries"], 0);
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
