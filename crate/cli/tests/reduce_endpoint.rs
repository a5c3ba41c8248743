//! `whittle reduce --endpoint`: queries as compiles on Compiler Explorer-compatible endpoints
//! (crate/cli/src/remote.rs). A pool of two `whittle serve`s on 127.0.0.1, one killed mid-run,
//! ends as a local run does; a stand-in endpoint in this test answers 429 storms and shows the
//! rate cap and the User-Agent; a compile the endpoint refuses says so.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use support::{read_json, require_gcc, whittle, write, Server};

const WARNING: &str = "makes integer from pointer without a cast";

/// The local compile the endpoint runs (`gcc` with `--flags=-O2 -Wall`), for local runs to compare.
const LOCAL_GCC: &str = "LC_ALL=C gcc -O2 -Wall -c {} -o /dev/null";

/// Asserts that a run of whittle succeeded, showing what it said if not.
fn succeeded(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A C program with gcc's int-conversion warning among a few dozen functions that do not
/// matter: a reduction of a few seconds.
fn program() -> String {
    let mut text = String::from("#include <stdio.h>\n\n");
    for i in 0..24 {
        text.push_str(&format!(
            "static int f{i}(int a, int b) {{\n  int t = a * {i} + b;\n  if (t > {i}) t -= b;\n  return t;\n}}\n\n"
        ));
    }
    text.push_str("int main(void) {\n  int s = 0;\n");
    for i in 0..24 {
        text.push_str(&format!("  s += f{i}(s, {i});\n"));
    }
    text.push_str("  int p = \"not a number\";\n  printf(\"%d %d\\n\", s, p);\n  return 0;\n}\n");
    text
}

#[test]
fn a_pool_of_two_with_one_killed_mid_run_ends_as_a_local_run_does() {
    require_gcc();
    let dir = tempfile::tempdir().unwrap();
    let text = program();
    write(dir.path(), "local.c", &text, false);
    write(dir.path(), "pool.c", &text, false);
    let local = whittle(
        dir.path(),
        &[
            "reduce", "local.c", "-q", "-j", "2", "--cmd", LOCAL_GCC, "--match", WARNING, "--exit",
            "0",
        ],
    );
    succeeded(&local);

    let a = Server::start(&[]);
    let mut b = Server::start(&[]);
    let (url_a, url_b) = (
        format!("http://127.0.0.1:{}", a.port),
        format!("http://127.0.0.1:{}/", b.port),
    );
    let mut run = Command::new(env!("CARGO_BIN_EXE_whittle"))
        .args([
            "reduce",
            "pool.c",
            "-q",
            "--endpoint",
            &url_a,
            "--endpoint",
            &url_b,
            "--compiler",
            "gcc",
            "--flags=-O2 -Wall",
        ])
        .args([
            "--match",
            WARNING,
            "--exit",
            "0",
            // The rate cap, not the machine's speed, sets the pace: the run lasts several
            // seconds however fast the compiles are, so the endpoint dies mid-run.
            "--rate",
            "10",
            "--stats-json",
            "stats.json",
        ])
        .current_dir(dir.path())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        run.try_wait().unwrap().is_none(),
        "the run should still be going when an endpoint dies"
    );
    // Stopped by SIGTERM, not SIGKILL: it then removes its job folders, which a killed
    // server would leave for the next server (of any test) to report.
    // SAFETY: signals our own child process.
    unsafe {
        libc::kill(b.child.id() as i32, libc::SIGTERM);
    }
    b.child.wait().unwrap();
    let out = run.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let pooled = std::fs::read_to_string(dir.path().join("pool.c")).unwrap();
    assert_eq!(
        pooled,
        std::fs::read_to_string(dir.path().join("local.c")).unwrap(),
        "{stderr}"
    );
    assert!(
        pooled.contains("\"") && pooled.len() < text.len() / 10,
        "{pooled}"
    );
    let stats = read_json(dir.path(), "stats.json");
    assert_eq!(stats["errors"], 0, "no query was lost: {stats}");
}

/// A stand-in endpoint: answers each compile with 429 (Retry-After: 0) while `storm` says so,
/// then as a compiler whose "warning" is any string literal; records when requests came and
/// their User-Agent.
/// What the stand-in saw: when each request came, its User-Agent, the status it got.
type Seen = Arc<Mutex<Vec<(Instant, String, u16)>>>;

fn stand_in(storm: usize) -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (mut length, mut agent, mut line) = (0, String::new(), String::new());
            reader.read_line(&mut line).unwrap();
            loop {
                let mut h = String::new();
                reader.read_line(&mut h).unwrap();
                if h.trim().is_empty() {
                    break;
                }
                let (k, v) = h.split_once(':').unwrap_or((&h, ""));
                match k.to_ascii_lowercase().as_str() {
                    "content-length" => length = v.trim().parse().unwrap(),
                    "user-agent" => agent = v.trim().to_string(),
                    _ => {}
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let mut seen = log.lock().unwrap();
            let busy = seen.len() < storm;
            let (status, answer) = if busy {
                (429, "{}".to_string())
            } else {
                let source = serde_json::from_slice::<serde_json::Value>(&body).unwrap()["source"]
                    .as_str()
                    .unwrap()
                    .to_string();
                let stderr = if source.contains('"') { WARNING } else { "" };
                (
                    200,
                    serde_json::json!({"code": 0, "stdout": [], "stderr": [{"text": stderr}]})
                        .to_string(),
                )
            };
            seen.push((Instant::now(), agent, status));
            drop(seen);
            let reason = if busy {
                "Too Many Requests\r\nRetry-After: 0"
            } else {
                "OK"
            };
            let _ = write!(stream, "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}", answer.len());
        }
    });
    (url, seen)
}

#[test]
fn a_429_storm_is_waited_out_at_the_rate_cap_with_whittle_named() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "p.c",
        "int main(void) {\n  int a = 1;\n  int p = \"x\";\n  return a + p;\n}\n",
        false,
    );
    let (url, seen) = stand_in(8);
    let out = whittle(
        dir.path(),
        &[
            "reduce",
            "p.c",
            "-q",
            "--endpoint",
            &url,
            "--compiler",
            "cg152",
            "--match",
            WARNING,
            "--rate",
            "20",
        ],
    );
    succeeded(&out);
    let result = std::fs::read_to_string(dir.path().join("p.c")).unwrap();
    assert!(
        result.contains('"') && !result.contains("return"),
        "{result}"
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.iter().filter(|(_, _, s)| *s == 429).count(), 8);
    assert!(seen.iter().any(|(_, _, s)| *s == 200));
    assert!(
        seen.iter()
            .all(|(_, agent, _)| agent.starts_with("whittle/")),
        "{:?}",
        seen.iter().map(|s| &s.1).collect::<Vec<_>>()
    );
    // At most 20 a second: n requests span at least n - 1 intervals of 50 ms (less 60 ms for
    // scheduling: the times are taken when this thread gets to each request).
    let t0 = seen[0].0;
    let times = seen.iter().map(|s| s.0 - t0).collect::<Vec<_>>();
    let least = Duration::from_millis(50 * (times.len() as u64 - 1) - 60);
    assert!(
        times[times.len() - 1] >= least,
        "{} requests within {:?}: {times:?}",
        times.len(),
        times[times.len() - 1]
    );
}

#[test]
fn a_compile_the_endpoint_refuses_says_so() {
    require_gcc();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "p.c", "int p = \"x\";\n", false);
    let server = Server::start(&[]);
    let url = format!("http://127.0.0.1:{}", server.port);
    let out = whittle(
        dir.path(),
        &[
            "reduce",
            "p.c",
            "-q",
            "--endpoint",
            &url,
            "--compiler",
            "no-such-compiler",
            "--match",
            "x",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("refused the compile: HTTP 4"), "{stderr}");
    let out = whittle(
        dir.path(),
        &[
            "reduce",
            "p.c",
            "--endpoint",
            &url,
            "--compiler",
            "gcc",
            "--cmd",
            "true {}",
            "--match",
            "x",
        ],
    );
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("with --endpoint, the property is --match REGEX"));
}

#[test]
fn a_pair_over_an_endpoint_ends_as_a_local_pair_does() {
    require_gcc();
    let (local, remote) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let variant = program();
    let seed = variant.replace("int p = \"not a number\";", "int p = 42;");
    for dir in [&local, &remote] {
        write(dir.path(), "seed.c", &seed, false);
        write(dir.path(), "variant.c", &variant, false);
    }
    let pair = ["pair", "--seed", "seed.c", "--variant", "variant.c", "-q"];
    let out = whittle(
        local.path(),
        &[
            &pair[..],
            &[
                "-j", "1", "--cmd", LOCAL_GCC, "--match", WARNING, "--exit", "0",
            ],
        ]
        .concat(),
    );
    succeeded(&out);
    let server = Server::start(&[]);
    let url = format!("http://127.0.0.1:{}", server.port);
    let endpoint = [
        "--endpoint",
        &url,
        "--compiler",
        "gcc",
        "--flags=-O2 -Wall",
        "--match",
        WARNING,
        "--exit",
        "0",
        "--rate",
        "100",
    ];
    let out = whittle(remote.path(), &[&pair[..], &endpoint[..]].concat());
    succeeded(&out);
    for name in ["seed.min.c", "variant.min.c"] {
        let read = |d: &tempfile::TempDir| std::fs::read_to_string(d.path().join(name)).unwrap();
        assert_eq!(read(&remote), read(&local), "{name}");
    }
    let variant_min = std::fs::read_to_string(remote.path().join("variant.min.c")).unwrap();
    assert!(
        variant_min.contains('"') && variant_min.len() < variant.len() / 10,
        "{variant_min}"
    );
}

#[test]
fn a_diagnostic_template_over_an_endpoint_ends_as_the_local_one_does() {
    require_gcc();
    let dir = tempfile::tempdir().unwrap();
    let text = program();
    write(dir.path(), "local.c", &text, false);
    write(dir.path(), "remote.c", &text, false);
    let template = [
        "--diagnostic",
        "makes integer",
        "--no-new-errors",
        "-q",
        "-j",
        "2",
    ];
    let local = whittle(
        dir.path(),
        &[&["reduce", "local.c", "--cmd", LOCAL_GCC][..], &template].concat(),
    );
    succeeded(&local);
    let server = Server::start(&[]);
    let url = format!("http://127.0.0.1:{}", server.port);
    let endpoint = ["--endpoint", &url, "--compiler", "gcc", "--flags=-O2 -Wall"];
    let remote = whittle(
        dir.path(),
        &[&["reduce", "remote.c"][..], &endpoint, &template].concat(),
    );
    let stderr = String::from_utf8_lossy(&remote.stderr);
    assert!(remote.status.success(), "{stderr}");
    assert!(
        stderr.contains("diagnostic: \"warning: initialization of")
            && stderr.contains("makes integer from pointer"),
        "{stderr}"
    );
    let result = std::fs::read_to_string(dir.path().join("remote.c")).unwrap();
    assert_eq!(
        result,
        std::fs::read_to_string(dir.path().join("local.c")).unwrap()
    );
    assert!(result.len() < 40, "{result}");

    // Words in no line of the original's output: refused, with the output to pick from.
    let out = whittle(
        dir.path(),
        &[
            &["reduce", "remote.c"][..],
            &endpoint,
            &["--diagnostic", "no such words"],
        ]
        .concat(),
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("contains \"no such words\"") && err.contains("warning"),
        "{err}"
    );
}

#[test]
fn a_pair_over_an_endpoint_finds_its_own_seed() {
    require_gcc();
    let dir = tempfile::tempdir().unwrap();
    // A division by zero: a constant's mutation takes the warning away.
    let variant = program().replace("int p = \"not a number\";", "int p = s / 0;");
    const DIVISION: &str = "division by zero";
    write(dir.path(), "variant.c", &variant, false);
    let server = Server::start(&[]);
    let url = format!("http://127.0.0.1:{}", server.port);
    let args = [
        "pair",
        "--variant",
        "variant.c",
        "--auto-seed",
        "--endpoint",
        &url,
        "--compiler",
        "gcc",
        "--flags=-O2 -Wall",
        "--match",
        DIVISION,
        "--exit",
        "0",
        "--rate",
        "100",
        "-j",
        "2",
        "--witness-focus",
        "div-by-zero",
        "-q",
    ];
    let out = whittle(dir.path(), &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("seed found after"), "{stderr}");
    // The seed compiles without the warning, and the variant's minimized side still has it.
    let seed = std::fs::read_to_string(dir.path().join("variant.seed.c")).unwrap();
    let compile = |file: &str| {
        let o = Command::new("gcc")
            .args(["-O2", "-Wall", "-c", file, "-o", "/dev/null"])
            .current_dir(dir.path())
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    assert_ne!(seed, variant);
    let (ok, messages) = compile("variant.seed.c");
    assert!(ok && !messages.contains(DIVISION), "{messages}");
    let (ok, messages) = compile("variant.min.c");
    assert!(ok && messages.contains(DIVISION), "{messages}");
}

#[test]
fn a_witness_search_runs_over_an_endpoint() {
    require_gcc();
    let dir = tempfile::tempdir().unwrap();
    let variant = program().replace("int p = \"not a number\";", "int p = s / 0;");
    write(dir.path(), "failing.c", &variant, false);
    let server = Server::start(&[]);
    let url = format!("http://127.0.0.1:{}", server.port);
    let args = [
        "witness",
        "failing.c",
        "--endpoint",
        &url,
        "--compiler",
        "gcc",
        "--flags=-O2 -Wall",
        "--match",
        "division by zero",
        "--focus",
        "div-by-zero",
        "--want",
        "2",
        "--budget",
        "200",
        "--rate",
        "100",
        "-j",
        "2",
        "-q",
    ];
    let out = whittle(dir.path(), &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let found: Vec<_> = std::fs::read_dir(dir.path().join("failing.c.witnesses"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    assert!(!found.is_empty(), "no witness: {stderr}");
    for w in found {
        let o = Command::new("gcc")
            .args(["-O2", "-Wall", "-c"])
            .arg(&w)
            .args(["-o", "/dev/null"])
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        let messages = String::from_utf8_lossy(&o.stderr);
        assert!(
            o.status.success() && !messages.contains("division by zero"),
            "{}: {messages}",
            w.display()
        );
    }
    // The flags a script would need are refused over an endpoint, saying why.
    let out = whittle(dir.path(), &[&args[..], &["--test", "./t.sh"]].concat());
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no --test"),
        "{out:?}"
    );
}

#[test]
fn wrong_code_across_two_builds_reduces_over_an_endpoint() {
    require_gcc();
    let dir = tempfile::tempdir().unwrap();
    // -ffast-math lets gcc fold (x + y) - x to y; without it the sum rounds to x: 0, not 1.
    // Defined behaviour, two answers: the guard lets it through.
    let program = "#include <stdio.h>\n\
        static int helper(int a, int b) { return a * b + 3; }\n\
        int main(void) {\n  int k = helper(2, 3);\n  double x = 1e16, y = 1.0;\n  double s = (x + y) - x;\n  printf(\"%g\\n\", s);\n  printf(\"%d\\n\", k > 100);\n  return 0;\n}\n";
    write(dir.path(), "fp.c", program, false);
    let server = Server::start(&[]);
    let url = format!("http://127.0.0.1:{}", server.port);
    let args = [
        "reduce",
        "fp.c",
        "--endpoint",
        &url,
        "--wrong-code",
        "gcc -O0",
        "gcc -O2 -ffast-math",
        "--guard-cc",
        "gcc",
        "--rate",
        "100",
        "-j",
        "2",
    ];
    let out = whittle(dir.path(), &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("guarded against undefined behaviour by gcc"),
        "{stderr}"
    );
    let result = std::fs::read_to_string(dir.path().join("fp.c")).unwrap();
    assert!(
        !result.contains("helper") && result.len() < program.len() / 2,
        "{result}"
    );
    // The result still shows the two answers here.
    let run = |flags: &[&str]| {
        let built = Command::new("gcc")
            .args(flags)
            .args(["fp.c", "-o", "fp"])
            .current_dir(dir.path())
            .status()
            .unwrap();
        assert!(built.success());
        Command::new("./fp")
            .current_dir(dir.path())
            .output()
            .unwrap()
            .stdout
    };
    assert_ne!(run(&["-O0"]), run(&["-O2", "-ffast-math"]), "{result}");

    // Builds that agree are refused, saying so.
    write(
        dir.path(),
        "same.c",
        "int main(void) { return 0; }\n",
        false,
    );
    let out = whittle(
        dir.path(),
        &[
            "reduce",
            "same.c",
            "--endpoint",
            &url,
            "--wrong-code",
            "gcc -O0",
            "gcc -O2",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("agree on the original"),
        "{out:?}"
    );
}
