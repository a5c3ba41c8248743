//! Runs interestingness tests as processes on worker threads: each in a fresh temporary
//! folder, in its own process group so a timeout or a cancel kills all of it.

use std::collections::HashMap;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
}

/// One test to run: a candidate's files, written into a fresh folder.
pub struct Job {
    pub id: u64,
    /// Which property (for pairs: 0 = seed, 1 = variant).
    pub property: usize,
    pub files: Vec<(String, String)>,
}

pub enum Outcome {
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
    pub property: usize,
    pub outcome: Outcome,
    /// The test's output, for messages (the first few KiB).
    pub output: String,
}

struct Running {
    pgid: i32,
    started: Instant,
    cancelled: bool,
    timed_out: bool,
}

pub struct Runner {
    jobs: Sender<Job>,
    pub results: Receiver<Done>,
    running: Arc<Mutex<HashMap<u64, Running>>>,
    timeout: Duration,
}

impl Runner {
    pub fn new(properties: Vec<Property>, threads: usize, timeout: Duration) -> Runner {
        let (job_tx, job_rx) = channel::<Job>();
        let (done_tx, done_rx) = channel::<Done>();
        let job_rx = Arc::new(Mutex::new(job_rx));
        let running = Arc::new(Mutex::new(HashMap::new()));
        let properties = Arc::new(properties);
        for _ in 0..threads.max(1) {
            let (job_rx, done_tx, running, properties) = (
                job_rx.clone(),
                done_tx.clone(),
                running.clone(),
                properties.clone(),
            );
            std::thread::spawn(move || loop {
                let job = match job_rx.lock().unwrap().recv() {
                    Ok(job) => job,
                    Err(_) => return,
                };
                let done = run_job(&properties[job.property], &job, &running);
                if done_tx.send(done).is_err() {
                    return;
                }
            });
        }
        Runner {
            jobs: job_tx,
            results: done_rx,
            running,
            timeout,
        }
    }

    pub fn submit(&self, job: Job) {
        let _ = self.jobs.send(job);
    }

    /// Kills tests past the timeout; call now and then.
    pub fn enforce_timeouts(&self) {
        let mut running = self.running.lock().unwrap();
        for r in running.values_mut() {
            if r.started.elapsed() > self.timeout && !r.cancelled && !r.timed_out {
                r.timed_out = true;
                kill_group(r.pgid);
            }
        }
    }

    /// Kills the test of candidate `id` (its verdict is no longer wanted).
    pub fn cancel(&self, id: u64) {
        let mut running = self.running.lock().unwrap();
        for (&rid, r) in running.iter_mut() {
            if rid == id {
                r.cancelled = true;
                kill_group(r.pgid);
            }
        }
    }

    pub fn running_ids(&self) -> Vec<u64> {
        self.running.lock().unwrap().keys().copied().collect()
    }

    pub fn cancel_all(&self) {
        let mut running = self.running.lock().unwrap();
        for r in running.values_mut() {
            r.cancelled = true;
            kill_group(r.pgid);
        }
    }
}

fn kill_group(pgid: i32) {
    // SAFETY: kill(2) with a negative pid signals a process group; no memory is involved.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

fn run_job(property: &Property, job: &Job, running: &Mutex<HashMap<u64, Running>>) -> Done {
    let done = |outcome, output: String| Done {
        id: job.id,
        property: job.property,
        outcome,
        output,
    };
    let dir = match tempfile::Builder::new().prefix("whittle-").tempdir() {
        Ok(d) => d,
        Err(e) => {
            return done(
                Outcome::Failed(format!("cannot make a temporary folder: {e}")),
                String::new(),
            )
        }
    };
    for (name, text) in &job.files {
        if let Err(e) = std::fs::write(dir.path().join(name), text) {
            return done(
                Outcome::Failed(format!(
                    "cannot write {name} in {}: {e}",
                    dir.path().display()
                )),
                String::new(),
            );
        }
    }
    let mut command = match property {
        Property::Script(path) => Command::new(path),
        Property::Command { cmd, .. } => {
            let file = job.files.first().map(|(n, _)| n.as_str()).unwrap_or("");
            let mut c = Command::new("sh");
            c.arg("-c").arg(cmd.replace("{}", file));
            c
        }
    };
    command
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command.process_group(0);
    let mut child = match command.spawn() {
        Ok(c) => c,
        Err(e) => {
            return done(
                Outcome::Failed(format!("cannot run the test: {e}")),
                String::new(),
            )
        }
    };
    let pgid = child.id() as i32;
    running.lock().unwrap().insert(
        job.id,
        Running {
            pgid,
            started: Instant::now(),
            cancelled: false,
            timed_out: false,
        },
    );
    // Read both streams (on a helper thread for stderr) so a chatty test cannot block.
    let mut stderr = child.stderr.take();
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(e) = stderr.as_mut() {
            let _ = e.read_to_end(&mut s);
        }
        s
    });
    let mut out = Vec::new();
    if let Some(o) = child.stdout.as_mut() {
        let _ = o.read_to_end(&mut out);
    }
    let status = child.wait();
    out.extend(err_reader.join().unwrap_or_default());
    let info = running.lock().unwrap().remove(&job.id);
    let output = String::from_utf8_lossy(&out).into_owned();
    let short: String = output.chars().take(4000).collect();
    if info.as_ref().is_some_and(|r| r.cancelled) {
        return done(Outcome::Cancelled, short);
    }
    let status = match status {
        Ok(s) => s,
        Err(e) => {
            return done(
                Outcome::Failed(format!("waiting for the test failed: {e}")),
                short,
            )
        }
    };
    if info.is_some_and(|r| r.timed_out) {
        return done(Outcome::Timeout, short);
    }
    let code = status.code().unwrap_or(-1);
    let interesting = match property {
        Property::Script(_) => code == 0,
        Property::Command {
            regex,
            negate,
            exit,
            ..
        } => exit.is_none_or(|e| e == code) && (regex.is_match(&output) != *negate),
    };
    done(
        if interesting {
            Outcome::Interesting
        } else {
            Outcome::Boring
        },
        short,
    )
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
