//! `whittle generate` end to end: the paper's password generator through the JavaScript and
//! Python clients, generators that crash, hang or print garbage, and a generator of C programs
//! whose outputs are compiles on a `whittle serve` (`--endpoint`).

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("whittle-gen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn executable(dir: &Path, name: &str, body: &str) {
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The paper's property: two equal lines that contain `c`.
const CHECK: &str = "#!/bin/sh\nf=out.txt\nh=$(($(wc -c < $f)/2))\n[ \"$(head -c $h $f)\" = \"$(tail -c $h $f)\" ] && grep -q c $f && [ \"$(tail -c1 $f | od -An -c | tr -d ' ')\" = '\\n' ]\n";

fn generate(dir: &Path, generator: &str, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_whittle"))
        .current_dir(dir)
        .args([
            "generate",
            "--generator",
            generator,
            "--test",
            "./check.sh",
            "-o",
            "out.txt",
            "-q",
        ])
        .args(extra)
        .output()
        .unwrap()
}

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/generators")
}

#[test]
fn the_password_reduces_through_both_clients_and_every_alignment() {
    let dir = scratch("password");
    executable(&dir, "check.sh", CHECK);
    let e = examples();
    let clients = [
        format!("node {}/run.mjs {}/password.mjs", e.display(), e.display()),
        format!("python3 {}/password.py", e.display()),
    ];
    for client in &clients {
        for align in ["halt", "bypass", "realign"] {
            let out = generate(&dir, client, &["--align", align, "-j", "2"]);
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{client} {align}: {err}");
            assert!(err.contains("seed 482835, output 8 bytes"), "{err}");
            assert_eq!(
                std::fs::read_to_string(dir.join("out.txt")).unwrap(),
                "c\nc\n",
                "{client} {align}"
            );
            let trace = std::fs::read_to_string(dir.join("out.txt.trace.json")).unwrap();
            assert!(trace.contains("\"label\": \"char\""), "{trace}");
        }
    }
}

#[test]
fn a_generator_that_crashes_hangs_or_prints_garbage_gets_a_clear_error() {
    let dir = scratch("broken");
    executable(&dir, "check.sh", "#!/bin/sh\nexit 0\n");
    let cases = [
        (
            "crash.sh",
            "#!/bin/sh\necho 'hello 1'\nread a\necho oops >&2\nexit 3\n",
            "exited",
        ),
        (
            "hang.sh",
            "#!/bin/sh\necho 'hello 1'\nread a\nsleep 30\n",
            "sent no request",
        ),
        (
            "garbage.sh",
            "#!/bin/sh\necho 'hello 1'\nread a\necho 'please give me a number'\nread a\n",
            "not a request of the protocol",
        ),
    ];
    for (name, body, says) in cases {
        executable(&dir, name, body);
        let started = std::time::Instant::now();
        let out = generate(&dir, &format!("./{name}"), &["--gen-timeout", "1"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(says), "{name}: {err}");
        assert!(
            started.elapsed().as_secs() < 10,
            "{name} took {:?}",
            started.elapsed()
        );
    }
    let crash = generate(&dir, "./crash.sh", &[]);
    assert!(
        String::from_utf8_lossy(&crash.stderr).contains("oops"),
        "its stderr is shown"
    );
}

#[test]
fn runs_that_fail_during_reduction_keep_the_best_so_far() {
    let dir = scratch("flaky");
    executable(&dir, "check.sh", "#!/bin/sh\ngrep -q x out.txt\n");
    // Draws a count; fails whenever a replay asks for fewer than 3 iterations.
    executable(
        &dir,
        "flaky.py",
        &format!(
            "import sys\nsys.path.insert(0, {:?})\nimport whittle_generator\n\ndef generate(g):\n    s = []\n    n = g.repeat('x', 3, 6, lambda i: s.append('x'))\n    if n < 4:\n        sys.exit(5)\n    return ''.join(s) + '\\n'\n\nwhittle_generator.speak(generate, seed=1)\n",
            examples().display().to_string()
        ),
    );
    let out = generate(&dir, "python3 flaky.py", &["--rng-seed", "3"]);
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("exited") && out.status.code() == Some(2) {
        return; // this seed's free run drew fewer than 4: nothing to test with it
    }
    assert!(out.status.success(), "{err}");
    let best = std::fs::read_to_string(dir.join("out.txt")).unwrap();
    assert_eq!(best, "xxxx\n", "{err}");
    assert!(!err.contains("0 generator runs that failed"), "{err}");
}

/// The JSON generator: reduced to a small document that still has a key `x` somewhere, every
/// candidate valid JSON (the test fails on any that does not parse).
#[test]
fn the_json_generator_reduces_to_a_small_valid_document() {
    let dir = scratch("json");
    executable(
        &dir,
        "check.sh",
        "#!/bin/sh\nnode -e 'const d = JSON.parse(require(\"fs\").readFileSync(\"out.txt\", \"utf8\")); const has = (v) => Array.isArray(v) ? v.some(has) : v && typeof v === \"object\" ? Object.entries(v).some(([k, w]) => k === \"x\" || has(w)) : false; process.exit(has(d) ? 0 : 1)' || exit 1\n",
    );
    let generator = format!(
        "node {}/run.mjs {}/json.mjs",
        examples().display(),
        examples().display()
    );
    let mut found = false;
    for seed in 1..40 {
        let out = generate(
            &dir,
            &generator,
            &["--rng-seed", &seed.to_string(), "-j", "2"],
        );
        if out.status.code() == Some(1) {
            continue; // this seed's document has no x
        }
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "seed {seed}: {err}");
        let best = std::fs::read_to_string(dir.join("out.txt")).unwrap();
        let original: usize = err
            .split("output ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap();
        assert!(best.len() < original, "seed {seed}: {best}");
        assert!(
            best.contains("\"x\"") && best.len() <= 40,
            "seed {seed}: {best}"
        );
        found = true;
        break;
    }
    assert!(found, "no seed in 1..40 made a document with an x");
}

/// A generator of C programs, a few of whose statements divide by zero.
const C_GENERATOR: &str = "import sys\nsys.path.insert(0, {lib:?})\nimport whittle_generator\n\n\
def generate(g):\n    out = ['int main(void) {', '  int s = 1;']\n    \
def statement(i):\n        d = g.pick('divisor', ['1', '2', '0', '3'])\n        out.append('  s = s * %d / %s;' % (g.int('k', 1, 9), d))\n    \
g.repeat('statement', 1, 20, statement)\n    out.append('  return s;')\n    out.append('}')\n    return '\\n'.join(out) + '\\n'\n\n\
whittle_generator.speak(generate, seed=7)\n";

#[test]
fn a_generator_reduces_over_an_endpoint() {
    support::require_gcc();
    let dir = scratch("endpoint");
    let lib = examples();
    let script = C_GENERATOR.replace("{lib:?}", &format!("{:?}", lib.display().to_string()));
    std::fs::write(dir.join("gen.py"), script).unwrap();
    let server = support::Server::start(&[]);
    let url = format!("http://127.0.0.1:{}", server.port);
    let out = Command::new(env!("CARGO_BIN_EXE_whittle"))
        .current_dir(&dir)
        .args([
            "generate",
            "--generator",
            "python3 gen.py",
            "-o",
            "out.c",
            "-q",
        ])
        .args(["--endpoint", &url, "--compiler", "gcc", "--flags=-O2 -Wall"])
        .args(["--match", "division by zero", "--rate", "100", "-j", "2"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let result = std::fs::read_to_string(dir.join("out.c")).unwrap();
    // One statement is left, the one that divides by zero.
    assert_eq!(result.matches("s = s *").count(), 1, "{result}");
    assert!(result.contains("/ 0;"), "{result}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_second_generate_with_the_cache_runs_no_test() {
    let dir = scratch("cache");
    // The check counts its runs.
    let log = dir.join("tests.log");
    let check = format!("{}echo x >> '{}'\n", &CHECK[..10], log.display()) + &CHECK[10..];
    executable(&dir, "check.sh", &check);
    let password = format!("python3 {}/password.py", examples().display());
    let cache = dir.join("verdicts");
    let args = [
        "--cache",
        cache.to_str().unwrap(),
        "-j",
        "2",
        "--stats-json",
        "stats.json",
    ];
    let runs = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .count()
    };
    let first = generate(&dir, &password, &args);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let (tests, result) = (
        runs(),
        std::fs::read_to_string(dir.join("out.txt")).unwrap(),
    );
    assert!(tests > 5, "{tests} tests");
    let second = generate(&dir, &password, &args);
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(second.status.success(), "{err}");
    assert_eq!(runs(), tests, "the second run ran tests: {err}");
    assert!(err.contains("0 tests run to a verdict"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("out.txt")).unwrap(),
        result
    );
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("stats.json")).unwrap()).unwrap();
    assert_eq!(stats["tests_run"], 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The clients end each run with `done again`: one generator process serves every run of a
/// reduction, where a process per run cost about as much as the run itself.
#[test]
fn one_generator_process_serves_every_run() {
    let dir = scratch("persistent");
    executable(&dir, "check.sh", CHECK);
    // The password generator, noting its process in runs.txt on each run.
    let e = examples();
    std::fs::write(
        dir.join("noting.mjs"),
        format!(
            "import {{ appendFileSync }} from 'node:fs';\nimport {{ generate as password }} from '{}/password.mjs';\nexport const seed = 482835;\nexport function generate(g) {{\n  appendFileSync('runs.txt', `${{process.pid}}\\n`);\n  return password(g);\n}}\n",
            e.display()
        ),
    )
    .unwrap();
    let client = format!("node {}/run.mjs noting.mjs", e.display());
    let out = generate(&dir, &client, &["--rng-seed", "482835", "-j", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("out.txt")).unwrap(),
        "c\nc\n"
    );
    let runs = std::fs::read_to_string(dir.join("runs.txt")).unwrap();
    let pids: std::collections::BTreeSet<&str> = runs.lines().collect();
    assert!(runs.lines().count() > 3, "{runs}");
    assert_eq!(pids.len(), 1, "a process per run: {runs}");
}
