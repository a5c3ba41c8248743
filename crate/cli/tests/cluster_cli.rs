//! `whittle reduce`, `generate` and `pair` with `--cluster` on a real local Dask cluster (a
//! scheduler and two single-slot workers on 127.0.0.1, ports the OS picks, from the
//! `distributed` package scripts/setup.sh installs in .cache/python), and `--cache`, which
//! remembers verdicts across runs.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const PROGRAM: &str = "#include <stdio.h>\n\
static int unused(int a, int b) { return a * b + 7; }\n\
int helper(int x) {\n  int y = x * 2;\n  if (y > 10) { y = y - 1; } else { y = 3; }\n  return y;\n}\n\
int main(void) {\n  int a = 1;\n  int b = helper(a);\n  printf(\"%d\\n\", b);\n  int marker = 42;\n  for (int i = 0; i < 3; i++) { a += i; }\n  return a + marker;\n}\n";

/// The Python with Dask: WHITTLE_PYTHON, else the project's venv (scripts/setup.sh makes it).
/// Without it the cluster tests fail rather than pass untested.
fn dask_python() -> PathBuf {
    let python = std::env::var_os("WHITTLE_PYTHON").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.cache/python/bin/python"),
        PathBuf::from,
    );
    let ok = Command::new(&python)
        .args(["-c", "import distributed"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "no Python with Dask's distributed at {}: run scripts/setup.sh (or set WHITTLE_PYTHON)",
        python.display()
    );
    python
}

/// A scheduler and two workers of one thread each, killed when dropped.
struct LocalCluster {
    python: PathBuf,
    address: String,
    scheduler: Child,
    workers: Vec<Child>,
    dir: tempfile::TempDir,
}

/// Waits until `done` holds, or fails naming `what`.
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

impl LocalCluster {
    fn start(python: PathBuf) -> LocalCluster {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("scheduler.json");
        let log = std::fs::File::create(dir.path().join("scheduler.log")).unwrap();
        let scheduler = Command::new(&python)
            .args([
                "-m",
                "distributed.cli.dask_scheduler",
                "--host",
                "127.0.0.1",
            ])
            .args(["--port", "0", "--no-dashboard", "--scheduler-file"])
            .arg(&file)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        let mut address = String::new();
        wait_for("the scheduler file", || {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let json: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
            address = json["address"].as_str().unwrap_or_default().to_string();
            !address.is_empty()
        });
        let mut cluster = LocalCluster {
            python,
            address,
            scheduler,
            workers: Vec::new(),
            dir,
        };
        for i in 0..2 {
            cluster.start_worker(i);
        }
        cluster
    }

    fn start_worker(&mut self, i: usize) {
        let log_path = self.dir.path().join(format!("worker{i}.log"));
        let log = std::fs::File::create(&log_path).unwrap();
        let child = Command::new(&self.python)
            .args(["-m", "distributed.cli.dask_worker", &self.address])
            .args(["--nthreads", "1", "--no-nanny", "--no-dashboard"])
            .args(["--host", "127.0.0.1", "--local-directory"])
            .arg(self.dir.path())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        self.workers.push(child);
        wait_for("a worker to register", || {
            std::fs::read_to_string(&log_path)
                .unwrap_or_default()
                .contains("Registered to")
        });
    }

    fn kill_worker(&mut self, i: usize) {
        let w = &mut self.workers[i];
        let _ = w.kill();
        let _ = w.wait();
    }
}

impl Drop for LocalCluster {
    fn drop(&mut self) {
        for w in self.workers.iter_mut().chain([&mut self.scheduler]) {
            let _ = w.kill();
            let _ = w.wait();
        }
    }
}

/// A folder with the program and a script that logs each test to `tests.log` there.
fn case(name: &str, pause: &str) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix(&format!("whittle-cli-cluster-{name}"))
        .tempdir()
        .unwrap();
    std::fs::write(dir.path().join("input.c"), PROGRAM).unwrap();
    let log = dir.path().join("tests.log");
    let script = dir.path().join("check.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho x >> '{}'\n{pause}\ngrep -q 'marker = 42' input.c\n",
            log.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

struct Reduced {
    result: String,
    stats: serde_json::Value,
    tests: usize,
}

/// Reduces the case's program with `extra` arguments, from the original.
fn reduce(dir: &Path, extra: &[&str], python: Option<&Path>) -> Reduced {
    std::fs::write(dir.join("input.c"), PROGRAM).unwrap();
    let _ = std::fs::remove_file(dir.join("input.c.orig"));
    let _ = std::fs::remove_file(dir.join("tests.log"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_whittle"));
    cmd.args(["reduce", "--test", "./check.sh", "input.c", "-q"])
        .args(["--stats-json", "stats.json"])
        .args(extra)
        .current_dir(dir);
    if let Some(p) = python {
        cmd.env("WHITTLE_PYTHON", p);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stats = std::fs::read_to_string(dir.join("stats.json")).unwrap();
    let log = std::fs::read_to_string(dir.join("tests.log")).unwrap_or_default();
    Reduced {
        result: std::fs::read_to_string(dir.join("input.c")).unwrap(),
        stats: serde_json::from_str(&stats).unwrap(),
        tests: log.lines().count(),
    }
}

#[test]
fn a_cluster_gives_the_result_and_verdicts_of_a_local_run() {
    let python = dask_python();
    let cluster = LocalCluster::start(python.clone());
    let dir = case("same", "");
    let local = reduce(dir.path(), &["-j", "2"], None);
    let remote = reduce(dir.path(), &["--cluster", &cluster.address], Some(&python));
    assert!(local.result.len() < 40, "not reduced: {}", local.result);
    assert_eq!(remote.result, local.result);
    assert_eq!(remote.stats["verdicts"], local.stats["verdicts"]);
    // k is the cluster's worker slots: two single-thread workers.
    assert_eq!(remote.stats["jobs"], 2);
    assert!(remote.tests > 5, "the tests ran: {}", remote.tests);

    // A test whose verdict went stale is killed on its worker, not left to finish: with a
    // second's pause between "start" and "end", some start and never end.
    let log = dir.path().join("tests.log");
    std::fs::write(
        dir.path().join("check.sh"),
        format!(
            "#!/bin/sh\necho start >> '{0}'\nsleep 1\necho end >> '{0}'\ngrep -q 'marker = 42' input.c\n",
            log.display()
        ),
    )
    .unwrap();
    let slow = reduce(dir.path(), &["--cluster", &cluster.address], Some(&python));
    assert_eq!(slow.result, local.result);
    let text = std::fs::read_to_string(&log).unwrap();
    let (starts, ends) = (text.matches("start").count(), text.matches("end").count());
    assert!(slow.stats["tests_cancelled"].as_u64().unwrap() > 0);
    assert!(starts > ends, "{starts} tests started, {ends} ended");
}

#[test]
fn a_worker_killed_mid_run_loses_no_verdict() {
    let python = dask_python();
    let mut cluster = LocalCluster::start(python.clone());
    let dir = case("kill", "sleep 0.2");
    let local = reduce(dir.path(), &["-j", "2"], None);
    let log = dir.path().join("tests.log");
    let address = cluster.address.clone();
    let path = dir.path().to_path_buf();
    let run = std::thread::spawn(move || reduce(&path, &["--cluster", &address], Some(&python)));
    // Mid-run: some tests done, far from all.
    wait_for("some tests on the cluster", || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .count()
            >= 6
    });
    cluster.kill_worker(0);
    let remote = run.join().unwrap();
    assert!(remote.tests >= 6, "{} tests", remote.tests);
    assert_eq!(remote.result, local.result);
    assert_eq!(remote.stats["verdicts"], local.stats["verdicts"]);
    assert_eq!(remote.stats["errors"], 0);
}

#[test]
fn a_second_run_with_the_cache_runs_no_test() {
    let dir = case("cache", "");
    let cache = dir.path().join("verdicts");
    let cache = cache.to_str().unwrap();
    let first = reduce(dir.path(), &["-j", "2", "--cache", cache], None);
    assert!(first.tests > 5);
    // Tests called off are not counted as run; some were called off before their script began.
    let (run, called_off) = (&first.stats["tests_run"], &first.stats["tests_cancelled"]);
    assert!(run.as_u64().unwrap() + called_off.as_u64().unwrap() >= first.tests as u64);
    let t = Instant::now();
    let second = reduce(dir.path(), &["-j", "2", "--cache", cache], None);
    let wall = t.elapsed();
    assert_eq!(second.tests, 0, "no test ran");
    assert_eq!(second.stats["tests_run"], 0);
    assert_eq!(second.stats["cache_verdicts"], second.stats["queries"]);
    assert_eq!(second.result, first.result);
    assert_eq!(second.stats["verdicts"], first.stats["verdicts"]);
    assert!(wall < Duration::from_secs(1), "took {wall:?}");
    // Another test is another key: it runs its tests.
    std::fs::write(
        dir.path().join("check.sh"),
        format!(
            "#!/bin/sh\necho x >> '{}'\ngrep -q 'marker' input.c\n",
            dir.path().join("tests.log").display()
        ),
    )
    .unwrap();
    let other = reduce(dir.path(), &["-j", "2", "--cache", cache], None);
    assert!(other.tests > 0);
}

#[test]
fn generate_on_a_cluster_gives_the_local_result() {
    let python = dask_python();
    let cluster = LocalCluster::start(python.clone());
    let dir = tempfile::Builder::new()
        .prefix("whittle-cli-cluster-generate")
        .tempdir()
        .unwrap();
    // The paper's password property: two equal halves that contain `c`.
    let check = "#!/bin/sh\nf=out.txt\nh=$(($(wc -c < $f)/2))\n[ \"$(head -c $h $f)\" = \"$(tail -c $h $f)\" ] && grep -q c $f\n";
    std::fs::write(dir.path().join("check.sh"), check).unwrap();
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::Permissions::from_mode(0o755);
    std::fs::set_permissions(dir.path().join("check.sh"), mode).unwrap();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/generators");
    let generator = format!("python3 {}/password.py", examples.display());
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_whittle"))
            .args([
                "generate",
                "--generator",
                &generator,
                "--test",
                "./check.sh",
            ])
            .args(["-o", "out.txt", "-q", "--stats-json", "stats.json"])
            .args(extra)
            .env("WHITTLE_PYTHON", &python)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stats = std::fs::read_to_string(dir.path().join("stats.json")).unwrap();
        let stats: serde_json::Value = serde_json::from_str(&stats).unwrap();
        (
            std::fs::read_to_string(dir.path().join("out.txt")).unwrap(),
            stats,
        )
    };
    let (local, local_stats) = run(&["-j", "2"]);
    let (remote, remote_stats) = run(&["--cluster", &cluster.address]);
    assert_eq!(remote, local);
    assert_eq!(remote_stats["verdicts"], local_stats["verdicts"]);
    assert_eq!(remote_stats["jobs"], 2);
}

#[test]
fn a_flaky_test_is_confirmed_on_the_cluster() {
    let python = dask_python();
    let cluster = LocalCluster::start(python.clone());
    let dir = case("flaky", "");
    let stable = reduce(dir.path(), &["-j", "1"], None);
    // Yes one time in three whatever the program: a counter at a path every worker sees.
    let count = dir.path().join("count");
    std::fs::write(
        dir.path().join("check.sh"),
        format!(
            "#!/bin/sh\nn=$(( $(cat '{0}' 2>/dev/null || echo 0) + 1 ))\necho $n > '{0}'\n[ $((n % 3)) -eq 0 ] && exit 0\ngrep -q 'marker = 42' input.c\n",
            count.display()
        ),
    )
    .unwrap();
    // One test at a time, so that the counter counts in order.
    let args = ["--cluster", &cluster.address, "-j", "1", "--confirm", "2"];
    let flaky = reduce(dir.path(), &args, Some(&python));
    assert_eq!(flaky.result, stable.result);
    assert!(
        flaky.stats["recipe"]["undone"].as_u64().unwrap() > 0,
        "{}",
        flaky.stats["recipe"]
    );
}

#[test]
fn a_pair_on_a_cluster_gives_the_local_result() {
    let python = dask_python();
    let cluster = LocalCluster::start(python.clone());
    let dir = case("pair", "");
    let d = dir.path();
    std::fs::write(d.join("variant.c"), PROGRAM).unwrap();
    std::fs::write(
        d.join("seed.c"),
        PROGRAM.replace("marker = 42", "marker = 41"),
    )
    .unwrap();
    let script = |name: &str, body: &str| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(d.join(name), format!("#!/bin/sh\n{body}\n")).unwrap();
        let mode = std::fs::Permissions::from_mode(0o755);
        std::fs::set_permissions(d.join(name), mode).unwrap();
    };
    script("check-variant.sh", "grep -q 'marker = 42' variant.c");
    script(
        "check-seed.sh",
        "! grep -q 'marker = 42' seed.c && grep -q marker seed.c",
    );
    let pair = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_whittle"))
            .args(["pair", "--seed", "seed.c", "--variant", "variant.c", "-q"])
            .args([
                "--test-seed",
                "./check-seed.sh",
                "--test-variant",
                "./check-variant.sh",
            ])
            .args(extra)
            .env("WHITTLE_PYTHON", &python)
            .current_dir(d)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let read = |n: &str| std::fs::read_to_string(d.join(n)).unwrap();
        (read("seed.min.c"), read("variant.min.c"))
    };
    let local = pair(&["-j", "2"]);
    let remote = pair(&["--cluster", &cluster.address]);
    assert_eq!(remote, local);
    assert!(local.1.contains("marker = 42"), "{local:?}");
    assert!(
        local.0.contains("marker") && !local.0.contains("42"),
        "{local:?}"
    );
}
