//! `whittle reduce DIR` end to end: a folder of C sources and headers reduced as one test
//! case, written back with the original kept as DIR.orig; a JavaScript package; and a run
//! stopped by SIGTERM that leaves a consistent, valid tree.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use support::{have, whittle, write};

/// A C program over five files: `main.c` needs `util.h` (and through it `util.c`'s
/// declarations) for its marker; `unused.h`, `extra.c` and `README` are needed by nothing.
const C_TREE: &[(&str, &str)] = &[
    (
        "src/main.c",
        "#include \"util.h\"\n#include \"unused.h\"\nint main(void) {\n  struct point p = {1, 2};\n  int marker = add(p.x, MARK);\n  return marker + scale(&p, 2);\n}\n",
    ),
    (
        "src/util.h",
        "#ifndef UTIL_H\n#define UTIL_H\n#define MARK 42\nstruct point { int x; int y; };\nint add(int a, int b);\nint scale(struct point *p, int k);\n#endif\n",
    ),
    (
        "src/util.c",
        "#include \"util.h\"\nint add(int a, int b) { return a + b; }\nint scale(struct point *p, int k) { p->x *= k; return p->x + p->y; }\n",
    ),
    ("src/unused.h", "int never_used(void);\nextern int spare;\n"),
    ("src/extra.c", "int spare = 3;\nint twice(int x) { return 2 * x; }\n"),
    ("README", "a small program\n"),
];

/// The test: the preprocessed `main.c` (its includes resolved, as a compiler sees it)
/// still says `marker = add(..., 42)`.
const C_TEST: &str = "gcc -E -P src/main.c 2>/dev/null | tr -d ' \\n' | grep -q 'marker=add(.*42)'";

fn folder(name: &str, tree: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("whittle-folder-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in tree {
        let at = dir.join("proj").join(path);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, text).unwrap();
    }
    dir
}

/// Every file under `dir`, by path relative to it, with its text.
fn tree(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.push((rel, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn check(dir: &Path, body: &str) {
    write(dir, "check.sh", &format!("#!/bin/sh\n{body}\n"), true);
}

/// Whether the test holds in `proj` as it is now.
fn holds(dir: &Path, body: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(body)
        .current_dir(dir.join("proj"))
        .status()
        .unwrap()
        .success()
}

fn all_parse(files: &[(String, String)]) {
    for (path, text) in files {
        if let Some(lang) = whittle::grammars::detect_from_name(path) {
            assert!(
                whittle::tree::Parser::new(lang).is_valid(text),
                "{path} does not parse:\n{text}"
            );
        }
    }
}

fn sorted(tree: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut v: Vec<_> = tree
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    v.sort();
    v
}

/// `C_TREE` in a scratch folder `name`, reduced with `C_TEST` and `extra` options (stats in
/// `stats.json`); the run must succeed. The folder and the run's stderr.
fn reduce_c_folder(name: &str, extra: &[&str]) -> (PathBuf, String) {
    support::require_gcc();
    let dir = folder(name, C_TREE);
    check(&dir, C_TEST);
    let mut args = vec!["reduce", "--test", "./check.sh", "proj", "-j", "2"];
    args.extend(["--stats-json", "stats.json"]);
    args.extend(extra);
    let out = whittle(&dir, &args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    (dir, stderr)
}

#[test]
fn a_c_folder_is_reduced_across_files_and_written_back() {
    let (dir, stderr) = reduce_c_folder("c", &[]);
    let result = tree(&dir.join("proj"));
    let paths: Vec<&str> = result.iter().map(|(p, _)| p.as_str()).collect();
    // What nothing needed is gone; the header used once moved into its includer.
    assert_eq!(paths, ["src/main.c"], "{stderr}");
    assert!(!result[0].1.contains("#include"), "{}", result[0].1);
    all_parse(&result);
    assert!(holds(&dir, C_TEST), "the result passes its test");
    let before: usize = C_TREE.iter().map(|(_, t)| t.len()).sum();
    assert!(
        result[0].1.len() * 4 < before,
        "not reduced: {}",
        result[0].1
    );
    // The original tree, every file as it was.
    assert_eq!(tree(&dir.join("proj.orig")), sorted(C_TREE));
    let stats = support::read_json(&dir, "stats.json");
    assert!(
        stats["passes"].to_string().contains("delete-file"),
        "{stats}"
    );
    assert!(
        stats["passes"].to_string().contains("inline-file"),
        "{stats}"
    );
}

#[test]
fn a_javascript_package_loses_its_unused_imports_and_modules() {
    assert!(
        have("node"),
        "node is not on PATH: the package's test runs it"
    );
    let tree_js: &[(&str, &str)] = &[
        ("package.json", "{ \"type\": \"module\" }\n"),
        (
            "index.js",
            "import { shout } from './lib/text.js';\nimport { sum } from './lib/math.js';\nconst total = sum([1, 2, 3]);\nconsole.log(shout('total ' + total));\n",
        ),
        ("lib/text.js", "export function shout(s) { return s.toUpperCase() + '!'; }\nexport function whisper(s) { return s.toLowerCase(); }\n"),
        ("lib/math.js", "export function sum(xs) { return xs.reduce((a, b) => a + b, 0); }\n"),
    ];
    let test = "node index.js 2>/dev/null | grep -q 'TOTAL'";
    let dir = folder("js", tree_js);
    check(&dir, test);
    // A trailing `/` still keeps the original beside the folder.
    let out = whittle(
        &dir,
        &["reduce", "--test", "./check.sh", "proj/", "-j", "2"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let result = tree(&dir.join("proj"));
    let paths: Vec<&str> = result.iter().map(|(p, _)| p.as_str()).collect();
    assert!(!paths.contains(&"lib/math.js"), "{result:?}");
    let index = &result.iter().find(|(p, _)| p == "index.js").unwrap().1;
    assert!(!index.contains("math"), "{index}");
    all_parse(&result);
    assert!(holds(&dir, test), "the result passes its test");
    assert_eq!(tree(&dir.join("proj.orig")), sorted(tree_js));
}

#[test]
fn a_folder_run_stopped_by_sigterm_leaves_a_consistent_valid_tree() {
    support::require_gcc();
    let dir = folder("term", C_TREE);
    check(&dir, &format!("sleep 0.2; {C_TEST}"));
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_whittle"))
        .current_dir(&dir)
        .env("TMPDIR", &tmp)
        .args(["reduce", "--test", "./check.sh", "proj", "-j", "2", "-q"])
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    // SAFETY: signalling our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let result = tree(&dir.join("proj"));
    // Some progress was saved, every file whole and valid, no temporary file left, and
    // the tree as a whole still passes the test: it is one of the bests, not a mix.
    let before: usize = C_TREE.iter().map(|(_, t)| t.len()).sum();
    let after: usize = result.iter().map(|(_, t)| t.len()).sum();
    assert!(after < before, "some progress was saved");
    assert!(
        result.iter().all(|(p, _)| !p.contains(".whittle-")),
        "{result:?}"
    );
    all_parse(&result);
    assert!(
        holds(&dir, C_TEST),
        "the saved tree passes its test: {result:?}"
    );
    assert_eq!(tree(&dir.join("proj.orig")), sorted(C_TREE));
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "temporary folders left"
    );
}

#[test]
fn a_folder_run_again_with_the_cache_runs_no_test() {
    support::require_gcc();
    let dir = folder("cache", C_TREE);
    // Each run of the test leaves a line in a log outside the test's own folder.
    let log = dir.join("tests.log");
    check(&dir, &format!("echo run >> '{}'\n{C_TEST}", log.display()));
    let run = |stats: &str| {
        let out = whittle(
            &dir,
            &["reduce", "--test", "./check.sh", "proj", "-j", "2"]
                .into_iter()
                .chain(["--cache", "verdicts", "--stats-json", stats])
                .collect::<Vec<_>>(),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines = std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .count();
        (lines, tree(&dir.join("proj")))
    };
    let (first_tests, first) = run("first.json");
    assert!(first_tests > 5, "{first_tests} tests");
    // Again from the original: every verdict is remembered.
    std::fs::remove_dir_all(dir.join("proj")).unwrap();
    std::fs::rename(dir.join("proj.orig"), dir.join("proj")).unwrap();
    let (all_tests, second) = run("second.json");
    assert_eq!(all_tests, first_tests, "the second run ran a test");
    assert_eq!(second, first);
    let stats = support::read_json(&dir, "second.json");
    assert_eq!(stats["cache_verdicts"], stats["queries"], "{stats}");
}

#[test]
fn a_folder_refuses_what_takes_one_file() {
    let dir = folder("one-file", C_TREE);
    check(&dir, C_TEST);
    let args = ["reduce", "proj", "--wrong-code", "gcc -O0", "gcc -O2"];
    refuses(&dir, &args, "take one FILE");
}

/// `whittle` with `args` in `dir` fails, says `says`, and leaves the folder `proj` as it was.
fn refuses(dir: &Path, args: &[&str], says: &str) {
    let before = tree(&dir.join("proj"));
    let out = whittle(dir, args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains(says), "{stderr}");
    assert_eq!(tree(&dir.join("proj")), before, "the folder is untouched");
}

#[test]
fn the_command_line_loses_the_flags_and_files_the_bug_does_not_need() {
    support::require_gcc();
    let dir = folder(
        "cmd",
        &[
            ("a.c", "int f(void) { int unused_x; return 0; }\n"),
            ("b.c", "int g(void) { return 1; }\n"),
            ("c.h", "int h;\n"),
        ],
    );
    let cmd = "gcc -O2 -Wall -Wextra -I inc -c {}/a.c {}/b.c";
    let pattern = "unused variable";
    let args = ["reduce", "proj", "--cmd", cmd, "--match", pattern];
    let mut args = args.to_vec();
    args.extend(["--reduce-flags", "-j", "2", "--stats-json", "stats.json"]);
    let out = whittle(&dir, &args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    // The command, beside the folder: what -Wall's warning needs, and only the file it names.
    let line = std::fs::read_to_string(dir.join("proj.cmd")).unwrap();
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words[0], "gcc", "{line}");
    assert!(
        words.contains(&"-Wall") || words.contains(&"-Wextra"),
        "{line}"
    );
    for gone in ["-O2", "-I", "inc", "./b.c"] {
        assert!(!words.contains(&gone), "{gone} is left: {line}");
    }
    let stats = support::read_json(&dir, "stats.json");
    assert_eq!(stats["command"].as_str(), Some(line.as_str()), "{stats}");
    // The folder holds its own files only, and the result passes the reduced command.
    let result = tree(&dir.join("proj"));
    let paths: Vec<&str> = result.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, ["a.c"], "{stderr}");
    let run = Command::new("sh")
        .arg("-c")
        .arg(&line)
        .current_dir(dir.join("proj"))
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&run.stderr).contains(pattern),
        "{run:?}"
    );
    assert_eq!(
        tree(&dir.join("proj.orig")).len(),
        3,
        "the original, without the command"
    );
}

#[test]
fn reduce_flags_with_a_folder_needs_a_command() {
    let dir = folder("cmd-script", C_TREE);
    check(&dir, C_TEST);
    let args = ["reduce", "--test", "./check.sh", "proj"];
    refuses(
        &dir,
        &[&args[..], &["--reduce-flags"]].concat(),
        "needs --cmd",
    );
    // A file of the folder may not take the command's name.
    write(&dir.join("proj"), ".whittle-command", "gcc\n", false);
    refuses(&dir, &args, "rename the file");
}

#[test]
fn passes_across_files_are_left_out_by_name() {
    let (dir, _) = reduce_c_folder("c-skip", &["--skip-pass", "delete-file,inline-file"]);
    // No file deleted or inlined: all six are still there (their contents reduced).
    let result = tree(&dir.join("proj"));
    assert_eq!(result.len(), C_TREE.len(), "{result:?}");
    assert!(holds(&dir, C_TEST), "the result passes its test");
    let stats = support::read_json(&dir, "stats.json");
    for pass in stats["passes"].as_array().unwrap() {
        if ["delete-file", "inline-file"].contains(&pass["pass"].as_str().unwrap()) {
            assert_eq!(pass["queries"], 0, "{pass}");
        }
    }
}

/// The variant's test of a folder pair: `C_TEST`. The seed's: the same call, not with 42.
const SEED_TEST: &str = "gcc -E -P src/main.c 2>/dev/null | tr -d ' \\n' | grep 'marker=add(' | grep -vq 'marker=add(.*42)'";

/// `C_TREE` as the variant and, as the seed, the same tree with `MARK` 41, in scratch
/// folders `seed/proj` and `variant/proj` under `name`, with each side's test beside.
fn c_folder_pair(name: &str) -> PathBuf {
    support::require_gcc();
    let dir = std::env::temp_dir().join(format!("whittle-pair-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (side, mark) in [("seed", "41"), ("variant", "42")] {
        for (path, text) in C_TREE {
            let at = dir.join(side).join(path);
            std::fs::create_dir_all(at.parent().unwrap()).unwrap();
            std::fs::write(at, text.replace("MARK 42", &format!("MARK {mark}"))).unwrap();
        }
    }
    write(
        &dir,
        "check-seed.sh",
        &format!("#!/bin/sh\n{SEED_TEST}\n"),
        true,
    );
    write(
        &dir,
        "check-variant.sh",
        &format!("#!/bin/sh\n{C_TEST}\n"),
        true,
    );
    dir
}

/// Whether `body` holds in `dir`.
fn holds_in(dir: &Path, body: &str) -> bool {
    let status = Command::new("sh")
        .arg("-c")
        .arg(body)
        .current_dir(dir)
        .status();
    status.unwrap().success()
}

const PAIR_ARGS: &[&str] = &[
    "pair",
    "--seed",
    "seed",
    "--variant",
    "variant",
    "--test-seed",
    "./check-seed.sh",
    "--test-variant",
    "./check-variant.sh",
    "-j",
    "2",
];

#[test]
fn two_folders_are_reduced_as_a_pair_to_a_one_file_difference() {
    let dir = c_folder_pair("c");
    let mut args = PAIR_ARGS.to_vec();
    args.extend(["--stats-json", "stats.json"]);
    let out = whittle(&dir, &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // The inputs are as they were; the results pass their tests and parse.
    assert_eq!(tree(&dir.join("variant")), sorted(C_TREE));
    let (seed, variant) = (dir.join("seed.min"), dir.join("variant.min"));
    assert!(
        holds_in(&seed, SEED_TEST) && holds_in(&variant, C_TEST),
        "{stderr}"
    );
    let (s, v) = (tree(&seed), tree(&variant));
    all_parse(&s);
    all_parse(&v);
    // Only one file differs, by the macro's value, and the rest went from both sides.
    let diff = std::fs::read_to_string(dir.join("variant.diff")).unwrap();
    let changed: Vec<&str> = diff.lines().filter(|l| l.starts_with("+++")).collect();
    assert_eq!(changed.len(), 1, "{diff}");
    assert!(
        diff.contains("+#define MARK 42") || diff.contains("42"),
        "{diff}"
    );
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("stats.json")).unwrap()).unwrap();
    assert!(stats["diff_tokens_after"].as_u64().unwrap() <= 2, "{stats}");
    let size = |t: &[(String, String)]| t.iter().map(|(_, x)| x.len()).sum::<usize>();
    let before: usize = C_TREE.iter().map(|(_, t)| t.len()).sum();
    assert!(size(&v) < before / 2, "{v:?}");
    assert!(
        v.len() < C_TREE.len() && !v.iter().any(|(p, _)| p == "README"),
        "{v:?}"
    );
    // A second run would write over these results: it says so and changes nothing.
    let again = whittle(&dir, PAIR_ARGS);
    let said = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(2), "{said}");
    assert!(said.contains("seed.min is there already"), "{said}");
    assert_eq!(tree(&variant), v);
}

#[test]
fn a_folder_pair_stopped_by_sigterm_leaves_two_valid_trees_that_pass() {
    let dir = c_folder_pair("term");
    for side in ["seed", "variant"] {
        let script = dir.join(format!("check-{side}.sh"));
        let body = std::fs::read_to_string(&script).unwrap();
        std::fs::write(
            &script,
            body.replace("#!/bin/sh\n", "#!/bin/sh\nsleep 0.2\n"),
        )
        .unwrap();
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_whittle"))
        .current_dir(&dir)
        .args(PAIR_ARGS)
        .arg("-q")
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    // SAFETY: signalling our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let (seed, variant) = (dir.join("seed.min"), dir.join("variant.min"));
    let (s, v) = (tree(&seed), tree(&variant));
    all_parse(&s);
    all_parse(&v);
    assert!(
        s.iter().chain(&v).all(|(p, _)| !p.contains(".whittle-")),
        "{s:?}"
    );
    assert!(
        holds_in(&seed, SEED_TEST) && holds_in(&variant, C_TEST),
        "{s:?}\n{v:?}"
    );
}

#[test]
fn a_folder_pair_whose_seed_shows_the_bug_is_named_and_nothing_is_written() {
    let dir = c_folder_pair("fails");
    // The seed's folder given the variant's tree: its test fails on the original.
    std::fs::remove_dir_all(dir.join("seed")).unwrap();
    std::fs::rename(dir.join("variant"), dir.join("seed")).unwrap();
    for (path, text) in C_TREE {
        let at = dir.join("variant").join(path);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, text).unwrap();
    }
    let out = whittle(&dir, PAIR_ARGS);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("the seed folder seed does not pass its test (./check-seed.sh)"),
        "{said}"
    );
    assert!(
        said.contains("copy the folder's files into an empty folder"),
        "{said}"
    );
    // One file and a folder are not a pair.
    let mut args = PAIR_ARGS.to_vec();
    args[2] = "variant/src/main.c";
    let out = whittle(&dir, &args);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("is a folder: give --seed the folder"),
        "{said}"
    );
}
