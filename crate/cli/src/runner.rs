//! Runs interestingness tests on worker threads: each in a fresh temporary folder, through
//! [`whittle_serve::process`] (the runner `whittle serve` uses for compile jobs too): its own process
//! group, killed whole on timeout, on cancel, and when whittle itself dies.

use crate::scratch::Scratch;
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use whittle::Side;
use whittle_serve::process::{self, Confinement, Spec};
use whittle_serve::sandbox::Sandbox;

/// Output kept per stream of a test, for `--match` and for messages.
const OUTPUT_CAP: usize = 8 << 20;

/// What makes a program interesting.
#[derive(Clone, Debug)]
pub enum Property {
    /// A C-Reduce-style script: exit status 0 means interesting.
    Script(PathBuf),
    /// A shell command with `{}` for the file; interesting when the output (stdout and
    /// stderr together) matches `regex` (or does not, with `negate`) and, if given, the exit
    /// status is `exit`.
    Command {
        cmd: String,
        regex: regex::Regex,
        negate: bool,
        exit: Option<i32>,
    },
    /// A recipe's script (`crate::recipes`): exit status 0 means interesting; the statuses
    /// of [`whittle::recipe::status`] that say why not are counted apart.
    Recipe {
        script: PathBuf,
        tally: Arc<crate::recipes::Tally>,
    },
    /// A flaky test: each yes on a candidate must hold `times` more times (`--confirm`).
    Confirmed {
        test: Box<Property>,
        times: usize,
        tally: Arc<crate::recipes::Tally>,
    },
    /// A compile on Compiler Explorer-compatible endpoints, judged (`--endpoint`).
    Endpoint(Arc<crate::remote::Remote>),
}

/// A test script's bytes, to send or to key verdicts by.
pub fn read_script(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read the test {}: {e}", path.display()))
}

/// One test to run: a query's file, written into a fresh folder.
pub struct Job {
    pub id: u64,
    pub side: Side,
    /// Whether this tests the original input.
    pub original: bool,
    /// The file's name and text.
    pub file: (String, String),
}

/// What a test said of a candidate; the engine takes it as a [`whittle::reduce::Verdict`].
pub enum TestOutcome {
    Interesting,
    Boring,
    /// The test ran past the timeout and was killed.
    Timeout,
    /// The test could not run at all (message says why).
    Failed(String),
    /// Killed on purpose because its verdict is no longer wanted.
    Cancelled,
}

pub struct Done {
    pub id: u64,
    pub side: Side,
    pub original: bool,
    pub outcome: TestOutcome,
    /// The test's output, for messages (the first few KiB).
    pub output: String,
}

/// Each side's property; a single program has only the variant's.
pub struct Properties {
    pub seed: Option<Property>,
    pub variant: Property,
}

impl Properties {
    fn of(&self, side: Side) -> Option<&Property> {
        match side {
            Side::Seed => self.seed.as_ref(),
            Side::Variant => Some(&self.variant),
        }
    }
}

/// Threads that run jobs, one at a time each, and send what `work` makes of each: the
/// interestingness tests of `reduce`, `pair` and `generate` ([`Runner`]), a witness's checks.
/// Dropped, it kills its jobs and waits for its threads, so no test and no temporary folder
/// outlives it.
pub struct Pool<R> {
    jobs: Option<Sender<Job>>,
    pub results: Receiver<R>,
    /// The cancel flag of each running job.
    running: Arc<Mutex<HashMap<u64, Arc<AtomicBool>>>>,
    /// Set when the pool is dropped: no queued job starts.
    closed: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

/// The pool of interestingness tests.
pub type Runner = Pool<Done>;

/// Where the test loop ([`crate::drive::fly`]) sends its queries: the threads of this
/// machine ([`Pool`]: the [`Runner`] of interestingness tests, the witness checks), a cluster
/// ([`crate::cluster::Cluster`]), either behind the verdict cache ([`crate::cache::Cached`]).
/// `R`: what a test gives back.
pub trait Tests<R = Done> {
    fn submit(&self, job: Job);
    /// The next result, if one comes within `wait`; `Err` when no more can come.
    fn next_done(&self, wait: Duration) -> Result<Option<R>, String>;
    /// Kills the test of query `id` (its verdict is no longer wanted).
    fn cancel(&self, id: u64);
    fn running_ids(&self) -> Vec<u64>;
    fn cancel_all(&self);
    /// How many verdicts came from a cache instead of a test.
    fn cached_verdicts(&self) -> usize {
        0
    }
}

impl<R: Send + 'static> Tests<R> for Pool<R> {
    fn submit(&self, job: Job) {
        Pool::submit(self, job)
    }
    fn next_done(&self, wait: Duration) -> Result<Option<R>, String> {
        Ok(self.results.recv_timeout(wait).ok())
    }
    fn cancel(&self, id: u64) {
        Pool::cancel(self, id)
    }
    fn running_ids(&self) -> Vec<u64> {
        Pool::running_ids(self)
    }
    fn cancel_all(&self) {
        Pool::cancel_all(self)
    }
}

impl Runner {
    pub fn new(properties: Properties, threads: usize, timeout: Duration) -> Runner {
        Runner::with_files(properties, Vec::new(), threads, timeout)
    }

    /// Tests that need `files` (name, bytes) beside the candidate in their folders.
    pub fn with_files(
        properties: Properties,
        files: Vec<(String, Vec<u8>)>,
        threads: usize,
        timeout: Duration,
    ) -> Runner {
        Pool::with(threads, move |job, cancel, tether| {
            match properties.of(job.side) {
                Some(property) => run_job(property, job, &files, timeout, cancel, tether),
                None => done(job, TestOutcome::Failed("no test for this side".into()), ""),
            }
        })
    }
}

fn cancel_each(running: &Mutex<HashMap<u64, Arc<AtomicBool>>>) {
    for flag in running.lock().unwrap_or_else(|e| e.into_inner()).values() {
        flag.store(true, Ordering::SeqCst);
    }
}

impl<R: Send + 'static> Pool<R> {
    /// `threads` workers running `work(job, its cancel flag, the tether)`. Without bubblewrap
    /// a test still dies with whittle's own process (parent-death signal), but what it
    /// started might not.
    pub fn with(
        threads: usize,
        work: impl Fn(&Job, Arc<AtomicBool>, Option<&Arc<Sandbox>>) -> R + Send + Sync + 'static,
    ) -> Pool<R> {
        let (job_tx, job_rx) = channel::<Job>();
        let (done_tx, done_rx) = channel::<R>();
        let job_rx = Arc::new(Mutex::new(job_rx));
        let running = Arc::new(Mutex::new(HashMap::new()));
        let closed = Arc::new(AtomicBool::new(false));
        let work = Arc::new(work);
        let tether = Sandbox::detect().ok().map(Arc::new);
        // A run the main thread ends at once (crate::stop) kills these tests first.
        let weak = Arc::downgrade(&running);
        crate::stop::on_exit(move || {
            if let Some(running) = weak.upgrade() {
                cancel_each(&running);
            }
        });
        let threads = (0..threads.max(1))
            .map(|_| {
                let (job_rx, done_tx, running, work, tether, closed) = (
                    job_rx.clone(),
                    done_tx.clone(),
                    running.clone(),
                    work.clone(),
                    tether.clone(),
                    closed.clone(),
                );
                std::thread::spawn(move || loop {
                    let job = match job_rx.lock().unwrap().recv() {
                        Ok(job) => job,
                        Err(_) => return,
                    };
                    if closed.load(Ordering::SeqCst) || crate::stop::exiting() {
                        return;
                    }
                    let cancel = Arc::new(AtomicBool::new(false));
                    running.lock().unwrap().insert(job.id, cancel.clone());
                    let result = work(&job, cancel, tether.as_ref());
                    running.lock().unwrap().remove(&job.id);
                    if done_tx.send(result).is_err() {
                        return;
                    }
                })
            })
            .collect();
        Pool {
            jobs: Some(job_tx),
            results: done_rx,
            running,
            closed,
            threads,
        }
    }

    pub fn submit(&self, job: Job) {
        if let Some(jobs) = &self.jobs {
            let _ = jobs.send(job);
        }
    }

    /// Kills the test of query `id` (its verdict is no longer wanted).
    pub fn cancel(&self, id: u64) {
        if let Some(flag) = self.running.lock().unwrap().get(&id) {
            flag.store(true, Ordering::SeqCst);
        }
    }

    pub fn running_ids(&self) -> Vec<u64> {
        self.running.lock().unwrap().keys().copied().collect()
    }

    pub fn cancel_all(&self) {
        cancel_each(&self.running);
    }
}

impl<R> Drop for Pool<R> {
    fn drop(&mut self) {
        self.closed.store(true, Ordering::SeqCst);
        self.jobs = None; // wakes the idle workers
        cancel_each(&self.running);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// A job's result, its output cut to what messages show.
pub fn done(job: &Job, outcome: TestOutcome, output: &str) -> Done {
    Done {
        id: job.id,
        side: job.side,
        original: job.original,
        outcome,
        output: output.chars().take(4000).collect(),
    }
}

pub fn run_job(
    property: &Property,
    job: &Job,
    files: &[(String, Vec<u8>)],
    timeout: Duration,
    cancel: Arc<AtomicBool>,
    tether: Option<&Arc<Sandbox>>,
) -> Done {
    if let Property::Confirmed { test, times, tally } = property {
        return crate::recipes::confirmed(test, *times, tally, job, files, timeout, cancel, tether);
    }
    let dir = match job_folder(job).and_then(|d| write_files(d.path(), files).map(|()| d)) {
        Ok(d) => d,
        Err(msg) => return done(job, TestOutcome::Failed(msg), ""),
    };
    let name = &job.file.0;
    match run_in(
        property,
        dir.path(),
        name,
        Instant::now() + timeout,
        cancel,
        tether,
    ) {
        Ok(ran) => done(job, ran.outcome, &ran.output),
        Err(e) => done(job, TestOutcome::Failed(e), ""),
    }
}

/// A fresh temporary folder holding the job's file, removed when dropped.
pub fn job_folder(job: &Job) -> Result<Scratch, String> {
    let dir = Scratch::new("")?;
    write_candidate(dir.path(), &job.file.0, &job.file.1)?;
    Ok(dir)
}

/// Writes a candidate into a test's folder: one file, or a folder's whole tree.
pub fn write_candidate(dir: &Path, name: &str, text: &str) -> Result<(), String> {
    if name == crate::folder::TREE {
        return crate::folder::write_tree(dir, text);
    }
    std::fs::write(dir.join(name), text)
        .map_err(|e| format!("cannot write {name} in {}: {e}", dir.display()))
}

/// Writes the files a test needs into its folder.
pub fn write_files(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<(), String> {
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes)
            .map_err(|e| format!("cannot write {name} in {}: {e}", dir.display()))?;
    }
    Ok(())
}

/// What a test in a folder said: its outcome and output.
pub struct Ran {
    pub outcome: TestOutcome,
    /// Its stdout, then its stderr.
    pub output: String,
    pub stdout: String,
}

/// Runs `property` in `dir`, which holds the candidate as `name`.
pub fn run_in(
    property: &Property,
    dir: &Path,
    name: &str,
    deadline: Instant,
    cancel: Arc<AtomicBool>,
    tether: Option<&Arc<Sandbox>>,
) -> Result<Ran, String> {
    let (program, args): (PathBuf, Vec<OsString>) = match property {
        Property::Script(path) | Property::Recipe { script: path, .. } => (path.clone(), vec![]),
        Property::Confirmed { test, .. } => {
            return run_in(test, dir, name, deadline, cancel, tether)
        }
        Property::Command { cmd, .. } => (
            "sh".into(),
            vec!["-c".into(), cmd.replace("{}", name).into()],
        ),
        Property::Endpoint(remote) => {
            let text = std::fs::read_to_string(dir.join(name))
                .map_err(|e| format!("cannot read {name} in {}: {e}", dir.display()))?;
            let (outcome, output) = remote.test(name, &text, &cancel);
            if let TestOutcome::Failed(why) = outcome {
                return Err(why);
            }
            return Ok(Ran {
                outcome,
                stdout: output.clone(),
                output,
            });
        }
    };
    let mut spec = Spec::new(program, args, dir.to_path_buf(), deadline);
    spec.output_cap = OUTPUT_CAP;
    spec.cancel = cancel;
    // In a PID namespace that dies with whittle, so no test outlives a killed run.
    if let Some(sandbox) = tether {
        spec.confinement = Confinement::Tethered(sandbox.clone());
    }
    let o = process::run(spec).map_err(|e| format!("cannot run the test: {e}"))?;
    let mut bytes = o.stdout.clone();
    bytes.extend_from_slice(&o.stderr);
    let output = String::from_utf8_lossy(&bytes).into_owned();
    let outcome = if o.cancelled {
        TestOutcome::Cancelled
    } else if o.timed_out {
        TestOutcome::Timeout
    } else {
        let interesting = match property {
            Property::Script(_) | Property::Confirmed { .. } | Property::Endpoint(_) => o.code == 0,
            Property::Recipe { tally, .. } => {
                use whittle::recipe::status;
                match o.code {
                    status::GUARD => crate::recipes::Tally::count(&tally.guard),
                    status::SLOW => crate::recipes::Tally::count(&tally.slow),
                    _ => {}
                }
                o.code == status::INTERESTING
            }
            Property::Command {
                regex,
                negate,
                exit,
                ..
            } => exit.is_none_or(|e| e == o.code) && (regex.is_match(&output) != *negate),
        };
        if interesting {
            TestOutcome::Interesting
        } else {
            TestOutcome::Boring
        }
    };
    Ok(Ran {
        outcome,
        output,
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
    })
}

/// Resolves a test script given on the command line to an absolute, runnable path.
pub fn script_path(path: &Path) -> Result<PathBuf, String> {
    let abs = std::fs::canonicalize(path)
        .map_err(|e| format!("cannot find the test script {}: {e}", path.display()))?;
    let meta = std::fs::metadata(&abs).map_err(|e| format!("{}: {e}", abs.display()))?;
    use std::os::unix::fs::PermissionsExt;
    if meta.permissions().mode() & 0o111 == 0 {
        return Err(format!(
            "the test script {} is not executable: run `chmod +x {}`",
            path.display(),
            path.display()
        ));
    }
    Ok(abs)
}
