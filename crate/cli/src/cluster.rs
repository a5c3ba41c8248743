//! Tests on a Dask cluster (`whittle reduce --cluster ADDRESS`), and where a run's tests go.
//!
//! whittle starts the Python client shipped in clients/cluster/whittle_dask.py (built into
//! this binary) and speaks JSON lines with it over its stdin and stdout (docs/cluster.md). The
//! client sends each query to the cluster as a task; on a worker the task runs
//! `whittle cluster-task` ([`run_task`]), which runs the test in a fresh folder with the same
//! process runner and tether as on this machine, and prints the verdict.

use crate::cache::{Cache, Cached};
use crate::runner::{read_script, Done, Job, Properties, Property, Runner, TestOutcome, Tests};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use whittle::Side;

/// The client, run with `python -c`: its functions then travel to the workers by value.
const CLIENT: &str = include_str!("../../../clients/cluster/whittle_dask.py");

/// Set by the client for a worker's tasks once one found the sandbox working there.
const SANDBOX_PROBED: &str = "WHITTLE_SANDBOX_PROBED";

/// How long the client may take to reach the scheduler and see a worker.
const CONNECT: Duration = Duration::from_secs(90);

const INSTALL: &str = "install Python 3 and Dask's distributed package (`python3 -m pip install distributed`, or scripts/setup.sh, which makes .cache/python; then set WHITTLE_PYTHON=.cache/python/bin/python)";

/// Where a run's tests go, and what they are shared with.
#[derive(clap::Args, Default)]
pub struct ClusterArgs {
    /// Run the tests on a Dask cluster: its scheduler's address (tcp://HOST:PORT). The workers
    /// need whittle (on PATH or WHITTLE_BIN) and what the test runs. Tests in flight: -j, else
    /// the cluster's worker slots. See docs/cluster.md.
    #[arg(long, value_name = "ADDRESS")]
    pub cluster: Option<String>,
    /// A file the test needs, copied beside the candidate into each test's folder (repeatable);
    /// with --cluster it travels with each query.
    #[arg(long = "test-file", value_name = "FILE")]
    pub test_files: Vec<PathBuf>,
    /// Remember verdicts in DIR, keyed by the test's files, its command and the candidate's
    /// text: a second run reuses them. Only for a deterministic test.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
}

/// The tests of a run on one side (`reduce`, `generate`): this machine's threads or a cluster,
/// behind the cache if asked; and how many to keep in flight.
pub fn tests_for(
    args: &ClusterArgs,
    property: Property,
    jobs: Option<usize>,
    timeout: Duration,
) -> Result<(Box<dyn Tests>, usize), String> {
    let properties = Properties {
        seed: None,
        variant: property,
    };
    sides_tests_for(args, properties, jobs, timeout)
}

/// As [`tests_for`], for a pair's two tests (each side's verdicts kept under its own test).
pub fn sides_tests_for(
    args: &ClusterArgs,
    properties: Properties,
    jobs: Option<usize>,
    timeout: Duration,
) -> Result<(Box<dyn Tests>, usize), String> {
    let files = read_test_files(&args.test_files)?;
    let cache = match (&args.cache, &properties.seed) {
        (Some(dir), Some(seed)) => Some(Cache::open_pair(dir, &properties.variant, seed, &files)?),
        (Some(dir), None) => Some(Cache::open(dir, &properties.variant, &files)?),
        (None, _) => None,
    };
    let (tests, jobs): (Box<dyn Tests>, usize) = match &args.cluster {
        Some(address) => {
            let cluster = Cluster::connect(address, &properties, &files, timeout)?;
            let jobs = jobs.unwrap_or(cluster.slots).max(1);
            (Box::new(cluster), jobs)
        }
        None => {
            let jobs = crate::drive::jobs(jobs);
            (
                Box::new(Runner::with_files(properties, files, jobs, timeout)),
                jobs,
            )
        }
    };
    Ok(match cache {
        Some(cache) => (Box::new(Cached::new(tests, cache)), jobs),
        None => (tests, jobs),
    })
}

fn read_test_files(paths: &[PathBuf]) -> Result<Vec<(String, Vec<u8>)>, String> {
    paths
        .iter()
        .map(|p| {
            let name = crate::input::file_name(p, "--test-file")?;
            let bytes = std::fs::read(p)
                .map_err(|e| format!("cannot read the test file {}: {e}", p.display()))?;
            Ok((name, bytes))
        })
        .collect()
}

/// The test as it travels: a script's bytes, or a command; the files it needs.
#[derive(Serialize, Deserialize)]
struct WireTest {
    script: Option<Vec<u8>>,
    cmd: Option<String>,
    pattern: Option<String>,
    negate: bool,
    exit: Option<i32>,
    files: Vec<(String, Vec<u8>)>,
    /// A flaky test's (`--confirm`): a yes must hold this many more times, on the worker.
    #[serde(default)]
    confirm: usize,
}

impl WireTest {
    fn of(property: &Property, files: &[(String, Vec<u8>)]) -> Result<WireTest, String> {
        let mut wire = WireTest {
            script: None,
            cmd: None,
            pattern: None,
            negate: false,
            exit: None,
            files: files.to_vec(),
            confirm: 0,
        };
        match property {
            // A recipe is a script too (its counts apart stay on the workers).
            Property::Script(path) | Property::Recipe { script: path, .. } => {
                wire.script = Some(read_script(path)?);
            }
            Property::Command {
                cmd,
                regex,
                negate,
                exit,
            } => {
                wire.cmd = Some(cmd.clone());
                wire.pattern = Some(regex.as_str().to_string());
                wire.negate = *negate;
                wire.exit = *exit;
            }
            // Confirmed on the worker that runs the test, which says when it undid a yes.
            Property::Confirmed { test, times, .. } => {
                return Ok(WireTest {
                    confirm: *times,
                    ..WireTest::of(test, files)?
                });
            }
            Property::Endpoint(_) => {
                return Err("--endpoint and --cluster both say where tests run: give one".into());
            }
        }
        Ok(wire)
    }
}

/// One query as it travels.
#[derive(Serialize, Deserialize)]
struct WireTask {
    name: String,
    text: String,
    timeout: f64,
    /// Whether this is the original (a confirmation asks it again until it says yes).
    #[serde(default)]
    original: bool,
    /// A pair's seed side: the client gives it the seed's test.
    #[serde(default)]
    seed: bool,
    #[serde(default, skip_serializing)]
    test: Option<WireTest>,
}

/// A verdict as it comes back.
#[derive(Serialize, Deserialize, Default)]
struct WireVerdict {
    #[serde(default)]
    id: u64,
    verdict: String,
    #[serde(default)]
    output: String,
    #[serde(default)]
    message: String,
    /// A confirmation undid the test's yes (`--confirm`).
    #[serde(default)]
    undone: bool,
    /// The task ran its test in the sandbox (the worker's later tasks skip the probe).
    #[serde(default)]
    sandbox: bool,
}

/// A connection to a Dask cluster through the client.
pub struct Cluster {
    child: Child,
    stdin: Mutex<Option<ChildStdin>>,
    verdicts: Receiver<Result<Done, String>>,
    /// The queries sent and not answered: each one's side and whether it is the original.
    inflight: Arc<Mutex<HashMap<u64, (Side, bool)>>>,
    /// The workers' threads, all together.
    pub slots: usize,
    timeout: f64,
}

/// Where the steps a worker's confirmation undid are counted (a flaky test's tally).
fn tally_of(property: &Property) -> Option<Arc<crate::recipes::Tally>> {
    match property {
        Property::Confirmed { tally, .. } => Some(tally.clone()),
        _ => None,
    }
}

fn python() -> String {
    std::env::var("WHITTLE_PYTHON").unwrap_or_else(|_| "python3".into())
}

impl Cluster {
    /// A connection whose queries run `properties` (a pair's seed side runs its own test).
    pub fn connect(
        address: &str,
        properties: &Properties,
        files: &[(String, Vec<u8>)],
        timeout: Duration,
    ) -> Result<Cluster, String> {
        let property = &properties.variant;
        let test = WireTest::of(property, files)?;
        let seed = properties
            .seed
            .as_ref()
            .map(|p| WireTest::of(p, files))
            .transpose()?;
        let exe = std::env::current_exe()
            .map_err(|e| format!("cannot find whittle's own binary: {e}"))?;
        let python = python();
        let mut child = Command::new(&python)
            .arg("-c")
            .arg(CLIENT)
            .arg(address)
            .arg(&exe)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("--cluster needs Python ({python}: {e}): {INSTALL}"))?;
        let stderr = Arc::new(Mutex::new(String::new()));
        let err = child.stderr.take().expect("piped stderr");
        let tail = stderr.clone();
        // Dask logs to stderr; only its last words are kept, for messages.
        let stderr_done = std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                t.push_str(&line);
                t.push('\n');
                if t.len() > 4000 {
                    let cut = t.len() - 2000;
                    let cut = (cut..t.len()).find(|&i| t.is_char_boundary(i)).unwrap_or(0);
                    t.drain(..cut);
                }
            }
        });
        let inflight: Arc<Mutex<HashMap<u64, (Side, bool)>>> = Arc::default();
        let (tx, verdicts) = channel();
        let (ready_tx, ready) = channel();
        let out = child.stdout.take().expect("piped stdout");
        let pending = inflight.clone();
        let tally = tally_of(property);
        std::thread::spawn(move || {
            let mut lines = BufReader::new(out).lines().map_while(Result::ok);
            let _ = ready_tx.send(lines.next());
            for line in lines {
                let _ = tx.send(verdict(&line, &pending, tally.as_deref()));
            }
            let _ = stderr_done.join();
            let said = stderr.lock().unwrap_or_else(|e| e.into_inner()).clone();
            let _ = tx.send(Err(format!(
                "the cluster client exited{}",
                if said.trim().is_empty() {
                    String::new()
                } else {
                    format!("; it said:\n{}", said.trim_end())
                }
            )));
        });
        let mut cluster = Cluster {
            child,
            stdin: Mutex::new(None),
            verdicts,
            inflight,
            slots: 0,
            timeout: timeout.as_secs_f64(),
        };
        let first = match ready.recv_timeout(CONNECT) {
            Ok(Some(line)) => line,
            Ok(None) => {
                let why = match cluster.verdicts.recv_timeout(Duration::from_secs(5)) {
                    Ok(Err(why)) => why,
                    _ => "the cluster client exited".into(),
                };
                return Err(format!("{why}\nTo run tests on a cluster, {INSTALL}"));
            }
            Err(_) => {
                return Err(format!(
                    "no answer from the Dask scheduler at {address} in {} s",
                    CONNECT.as_secs()
                ))
            }
        };
        let hello: serde_json::Value = serde_json::from_str(&first)
            .map_err(|_| format!("the cluster client said `{first}`, not hello"))?;
        if let Some(msg) = hello["error"].as_str() {
            return Err(msg.to_string());
        }
        cluster.slots = hello["ready"].as_u64().unwrap_or(1) as usize;
        *cluster.stdin.lock().unwrap() = cluster.child.stdin.take();
        cluster.send(&serde_json::json!({"op": "test", "test": test, "seed": seed}));
        Ok(cluster)
    }

    /// Writes a line to the client; a client gone is reported by the reader.
    fn send(&self, message: &serde_json::Value) {
        if let Some(stdin) = self
            .stdin
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_mut()
        {
            let _ = writeln!(stdin, "{message}").and_then(|_| stdin.flush());
        }
    }
}

/// A line of the client as a verdict on a query sent.
fn verdict(
    line: &str,
    inflight: &Mutex<HashMap<u64, (Side, bool)>>,
    tally: Option<&crate::recipes::Tally>,
) -> Result<Done, String> {
    let v: WireVerdict = serde_json::from_str(line)
        .map_err(|_| format!("the cluster client said `{line}`, not a verdict"))?;
    if let (true, Some(t)) = (v.undone, tally) {
        crate::recipes::Tally::count(&t.undone);
    }
    let (side, original) = inflight
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&v.id)
        .ok_or_else(|| format!("the cluster client answered query {}, never sent", v.id))?;
    Ok(Done {
        id: v.id,
        side,
        original,
        outcome: outcome(&v)?,
        output: v.output,
    })
}

fn outcome(v: &WireVerdict) -> Result<TestOutcome, String> {
    Ok(match v.verdict.as_str() {
        "interesting" => TestOutcome::Interesting,
        "boring" => TestOutcome::Boring,
        "timeout" => TestOutcome::Timeout,
        "cancelled" => TestOutcome::Cancelled,
        "failed" => TestOutcome::Failed(v.message.clone()),
        other => return Err(format!("the cluster client sent the verdict `{other}`")),
    })
}

fn word(outcome: &TestOutcome) -> (&'static str, String) {
    match outcome {
        TestOutcome::Interesting => ("interesting", String::new()),
        TestOutcome::Boring => ("boring", String::new()),
        TestOutcome::Timeout => ("timeout", String::new()),
        TestOutcome::Cancelled => ("cancelled", String::new()),
        TestOutcome::Failed(msg) => ("failed", msg.clone()),
    }
}

impl Tests for Cluster {
    fn submit(&self, job: Job) {
        self.inflight
            .lock()
            .unwrap()
            .insert(job.id, (job.side, job.original));
        let (name, text) = job.file;
        let task = WireTask {
            name,
            text,
            timeout: self.timeout,
            original: job.original,
            seed: job.side == Side::Seed,
            test: None,
        };
        self.send(&serde_json::json!({"op": "run", "id": job.id, "task": task}));
    }

    fn next_done(&self, wait: Duration) -> Result<Option<Done>, String> {
        match self.verdicts.recv_timeout(wait) {
            Ok(v) => v.map(Some),
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => Err("the cluster client is gone".into()),
        }
    }

    fn cancel(&self, id: u64) {
        self.send(&serde_json::json!({"op": "cancel", "id": id}));
    }

    fn running_ids(&self) -> Vec<u64> {
        self.inflight.lock().unwrap().keys().copied().collect()
    }

    fn cancel_all(&self) {
        for id in self.running_ids() {
            self.cancel(id);
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // End of input: the client cancels what is left and disconnects.
        self.stdin.lock().unwrap_or_else(|e| e.into_inner()).take();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        // SAFETY: kill(2) on the process group of our own child.
        unsafe { libc::kill(-(self.child.id() as i32), libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// `whittle cluster-task`, on a worker: reads a query (JSON) on stdin, runs its test in a
/// fresh folder as `whittle reduce` does, prints the verdict (JSON). SIGTERM (the query was
/// called off) kills the test; so does the death of the worker that started it.
pub fn run_task() -> i32 {
    // SAFETY: prctl(2) on ourselves. A lost worker's tests stop (SIGTERM: folders removed).
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) };
    let v = match task() {
        Ok(v) => v,
        Err(message) => WireVerdict {
            verdict: "failed".into(),
            message,
            ..WireVerdict::default()
        },
    };
    println!(
        "{}",
        serde_json::json!({"verdict": v.verdict, "output": v.output, "message": v.message, "undone": v.undone, "sandbox": v.sandbox})
    );
    0
}

fn task() -> Result<WireVerdict, String> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| format!("cannot read the query: {e}"))?;
    let task: WireTask =
        serde_json::from_str(&input).map_err(|e| format!("not a query of whittle's: {e}"))?;
    let test = task.test.ok_or("the query has no test")?;
    // The script lives in a folder of its own, so the test's folder is as on one machine.
    let script_dir = crate::scratch::Scratch::new("test-")?;
    let property = match (test.script, test.cmd) {
        (Some(bytes), _) => Property::Script(executable(script_dir.path(), &bytes)?),
        (None, Some(cmd)) => Property::Command {
            cmd,
            regex: regex::Regex::new(test.pattern.as_deref().unwrap_or(""))
                .map_err(|e| format!("the test's regex: {e}"))?,
            negate: test.negate,
            exit: test.exit,
        },
        (None, None) => return Err("the query's test has neither script nor command".into()),
    };
    // The worker's client says when an earlier task of this worker found the sandbox working:
    // the probe (a process in fresh namespaces) runs once a worker, not once a task.
    let tether = match std::env::var_os(SANDBOX_PROBED) {
        Some(_) => whittle_serve::sandbox::Sandbox::unprobed(),
        None => whittle_serve::sandbox::Sandbox::detect(),
    }
    .ok()
    .map(Arc::new);
    let job = Job {
        id: 0,
        side: Side::Variant,
        original: task.original,
        file: (task.name, task.text),
    };
    let timeout = Duration::from_secs_f64(task.timeout);
    // Each run of the test in a fresh folder, with the files it needs, as on one machine.
    let tally = crate::recipes::Tally::default();
    let done = crate::recipes::confirmed(
        &property,
        test.confirm,
        &tally,
        &job,
        &test.files,
        timeout,
        crate::stop::flag(),
        tether.as_ref(),
    );
    let (verdict, message) = word(&done.outcome);
    Ok(WireVerdict {
        id: 0,
        verdict: verdict.into(),
        output: done.output,
        message,
        undone: tally.undone.load(std::sync::atomic::Ordering::Relaxed) > 0,
        sandbox: tether.is_some(),
    })
}

fn executable(dir: &Path, bytes: &[u8]) -> Result<PathBuf, String> {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("test");
    std::fs::write(&path, bytes)
        .and_then(|()| std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)))
        .map_err(|e| format!("cannot write the test script: {e}"))?;
    Ok(path)
}

use std::os::unix::process::CommandExt;
