//! The test loop shared by `whittle reduce` and `whittle pair`: hands a session's
//! candidates to the [`Runner`] as jobs, reports the verdicts back, kills tests whose
//! verdicts no longer matter, saves each new best, draws the progress line; and the small
//! helpers both commands use (saving, Ctrl-C, properties from the command line).

use super::progress::Progress;
use super::runner::{script_path, Done, Job, Outcome, Property, Runner};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use whittle::reduce::{Stats, Verdict};

/// A session seen from the test loop.
pub trait Tests {
    /// Jobs for up to `k` new candidates.
    fn next_jobs(&mut self, k: usize) -> Vec<Job>;
    /// Takes a finished job's verdict; returns the jobs it calls for next (a pair's seed
    /// test once its variant passed).
    fn report(&mut self, done: &Done, verdict: Verdict) -> Vec<Job>;
    /// Whether the running job `id` still matters.
    fn wants(&self, job: u64) -> bool;
    /// Whether job `id` tests the original input.
    fn is_original(&self, job: u64) -> bool;
    fn stats(&self) -> &Stats;
    /// The sizes for the progress line, when more than the token count says.
    fn sizes(&self) -> Option<String> {
        None
    }
    fn done(&self) -> bool;
    /// Writes the best so far.
    fn save(&self) -> Result<(), String>;
}

pub enum Ending {
    Done,
    Interrupted,
    /// A test of the original said no: nothing to reduce.
    OriginalFails {
        done: Done,
        verdict: Verdict,
    },
}

/// CPU time this thread has used: the engine's cost without the time the tests' processes
/// took the cores from it.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec, which we own.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Writes a run's statistics (`--stats-json`) as pretty JSON.
pub fn write_stats(path: &Path, json: &serde_json::Value) -> Result<(), String> {
    std::fs::write(path, serde_json::to_string_pretty(json).unwrap_or_default())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The exit status of a run that ended: 130 after Ctrl-C, as shells expect.
pub fn exit_status(interrupted: &AtomicBool) -> i32 {
    if interrupted.load(Ordering::SeqCst) {
        130
    } else {
        0
    }
}

/// Runs `f`, with the CPU time this thread spent in it.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t = thread_cpu();
    let out = f();
    (out, thread_cpu().saturating_sub(t))
}

pub struct Run {
    pub ending: Ending,
    /// CPU time the engine used (in next and report), on this thread.
    pub engine: Duration,
    /// The first message of a test that could not run at all.
    pub first_failure: Option<String>,
}

/// Runs `tests` to its end with `jobs` tests at a time.
pub fn run_tests(
    tests: &mut impl Tests,
    runner: &Runner,
    jobs: usize,
    quiet: bool,
    interrupted: &AtomicBool,
    started: Instant,
) -> Result<Run, String> {
    let mut progress = Progress::new(quiet);
    let mut engine = Duration::ZERO;
    let mut out = 0usize;
    let mut saved_accepts = 0;
    let mut first_failure: Option<String> = None;
    let ending = loop {
        if interrupted.load(Ordering::SeqCst) {
            runner.cancel_all();
            break Ending::Interrupted;
        }
        if out < jobs {
            let t = thread_cpu();
            let jobs = tests.next_jobs(jobs - out);
            engine += thread_cpu().saturating_sub(t);
            for job in jobs {
                runner.submit(job);
                out += 1;
            }
        }
        if tests.done() {
            runner.cancel_all();
            break Ending::Done;
        }
        if out == 0 {
            continue; // the session is between passes or filtering invalid candidates
        }
        let done = match runner.results.recv_timeout(Duration::from_millis(200)) {
            Ok(d) => d,
            Err(_) => {
                runner.enforce_timeouts();
                progress.show(tests.stats(), started.elapsed(), tests.sizes());
                continue;
            }
        };
        out -= 1;
        let verdict = match &done.outcome {
            Outcome::Interesting => Verdict::Interesting,
            Outcome::Boring => Verdict::Boring,
            Outcome::Timeout => Verdict::Error("timeout".into()),
            Outcome::Failed(msg) => {
                first_failure.get_or_insert(msg.clone());
                Verdict::Error(msg.clone())
            }
            Outcome::Cancelled => continue,
        };
        if tests.is_original(done.id) && verdict != Verdict::Interesting {
            runner.cancel_all();
            break Ending::OriginalFails { done, verdict };
        }
        let t = thread_cpu();
        let more = tests.report(&done, verdict);
        engine += thread_cpu().saturating_sub(t);
        for job in more {
            runner.submit(job);
            out += 1;
        }
        // Tests whose verdicts are no longer wanted are killed, freeing their cores.
        for id in runner.running_ids() {
            if !tests.wants(id) {
                runner.cancel(id);
            }
        }
        if tests.stats().accepted != saved_accepts {
            tests.save()?;
            saved_accepts = tests.stats().accepted;
        }
        progress.show(tests.stats(), started.elapsed(), tests.sizes());
    };
    progress.clear();
    Ok(Run {
        ending,
        engine,
        first_failure,
    })
}

/// What a verdict on the original means, for messages.
pub fn describe(v: &Verdict) -> String {
    match v {
        Verdict::Boring => "it is not (exit status not 0, or the output did not match)".into(),
        Verdict::Error(e) => format!("nothing: {e}"),
        Verdict::Interesting => "yes".into(),
    }
}

/// The number of tests to run at once: `-j`, else the number of cores.
pub fn jobs(flag: Option<usize>) -> usize {
    flag.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
        .max(1)
}

pub fn property_from(
    test: Option<&Path>,
    cmd: Option<&str>,
    pattern: Option<&str>,
    exit: Option<i32>,
    negate: bool,
) -> Result<Property, String> {
    match (test, cmd) {
        (Some(path), _) => Ok(Property::Script(script_path(path)?)),
        (None, Some(cmd)) => {
            let pattern = pattern.ok_or("--cmd needs --match REGEX")?;
            let regex = regex::Regex::new(pattern)
                .map_err(|e| format!("--match is not a valid regex: {e}"))?;
            Ok(Property::Command {
                cmd: cmd.to_string(),
                regex,
                negate,
                exit,
            })
        }
        (None, None) => Err(
            "say what is interesting: --test ./check.sh, or --cmd 'CMD {}' --match REGEX".into(),
        ),
    }
}

/// Writes `text` to `path` through a temporary file and a rename, so a crash never leaves
/// half a file.
pub fn save(path: &Path, text: &str) -> Result<(), String> {
    let tmp = path.with_extension("whittle-tmp");
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| format!("cannot save {}: {e}", path.display()))
}

/// Ctrl-C sets this; the loops stop, kill their tests and keep what they saved.
pub fn interrupt_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    let _ = ctrlc::set_handler(move || f.store(true, Ordering::SeqCst));
    flag
}

/// The verdicts as a string of '0' and '1', for `replay`.
pub fn verdict_string(bits: &[bool]) -> String {
    bits.iter().map(|&b| if b { '1' } else { '0' }).collect()
}
