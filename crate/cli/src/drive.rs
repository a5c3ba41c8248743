//! The test loop every command that runs tests shares ([`fly`]): runs the session's queries
//! on the tests, reports the answers back, kills tests whose answers no longer matter; a
//! reduction's flight ([`run_tests`]) saves each new best and draws the progress line, a
//! witness search's its own (`commands/witness.rs`); and the small helpers the commands use
//! (saving, Ctrl-C, properties from the command line).

use crate::progress::Progress;
use crate::runner::{script_path, Done, Job, Property, TestOutcome, Tests};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use whittle::reduce::{Engine, Stats, Subject, Verdict};
use whittle::{Queries, Side};

/// What the loop needs of a command beyond its session.
pub trait Shell<S: Subject> {
    /// The file name a side's text is tested under.
    fn file_name(&self, side: Side) -> String;
    /// The sizes for the progress line, when more than the token count says.
    fn sizes(&self, _session: &Engine<S>) -> Option<String> {
        None
    }
    /// Writes the best so far.
    fn save(&self, session: &Engine<S>) -> Result<(), String>;
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

/// The CPU time [`fly`]'s sessions have used so far (one command runs per process): what a
/// run's figures give, also when the main thread ends it (`stop`).
static ENGINE_NANOS: AtomicU64 = AtomicU64::new(0);

fn engine_so_far() -> Duration {
    Duration::from_nanos(ENGINE_NANOS.load(Ordering::Relaxed))
}

/// Runs `f`, a call into the session, adding its CPU time to the engine's.
fn in_engine<T>(f: impl FnOnce() -> T) -> T {
    let (out, cpu) = timed(f);
    ENGINE_NANOS.fetch_add(cpu.as_nanos() as u64, Ordering::Relaxed);
    out
}

/// Writes a run's statistics (`--stats-json`) as pretty JSON.
pub fn write_stats(path: &Path, json: &serde_json::Value) -> Result<(), String> {
    crate::files::save(
        path,
        &serde_json::to_string_pretty(json).unwrap_or_default(),
    )
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
    /// Wall time per pass, by name, in the order the passes first ran (the engine has no
    /// clock: the loop times the pass the session names while it runs).
    pub pass_wall: Vec<(String, Duration)>,
    /// Tests killed at the time limit.
    pub timeouts: usize,
    /// Queries sent to the tests, how many of them the verdict cache answered, and how many
    /// were called off before their verdict.
    pub submitted: usize,
    pub from_cache: usize,
    pub cancelled: usize,
}

impl Run {
    /// With a verdict cache: how many tests ran and how many verdicts it gave.
    pub fn say_cache(&self, command: &str, cache: bool) {
        if cache {
            eprintln!(
                "whittle {command}: {} tests run to a verdict; {} verdicts from the cache",
                self.tests_run(),
                self.from_cache
            );
        }
    }

    /// The tests' counts in `--stats-json`.
    pub fn add_test_figures(&self, json: &mut serde_json::Value) {
        json["tests_run"] = self.tests_run().into();
        json["tests_cancelled"] = self.cancelled.into();
        json["cache_verdicts"] = self.from_cache.into();
    }

    /// Tests that ran to a verdict.
    pub fn tests_run(&self) -> usize {
        self.submitted - self.from_cache - self.cancelled
    }
}

/// Adds `time` to pass `name`'s.
fn add_time(wall: &mut Vec<(String, Duration)>, name: &str, time: Duration) {
    match wall.iter_mut().find(|(n, _)| n == name) {
        Some((_, t)) => *t += time,
        None => wall.push((name.to_string(), time)),
    }
}

/// What a command makes of its tests' results in [`fly`].
pub trait Flight<Q: Queries> {
    /// What a test gives back.
    type Result;
    /// Why a run ends before the session is done.
    type End;
    /// The file name a side's text is tested under.
    fn file_name(&self, side: Side) -> String;
    /// Each turn of the loop, first (a pass clock).
    fn turn(&mut self, _session: &Q) {}
    /// A test's result as the session's answer, nothing (a test called off), or the end.
    fn land(
        &mut self,
        session: &Q,
        result: Self::Result,
    ) -> Result<Landed<Q::Answer, Self::End>, String>;
    /// After an answer is reported (`reported`), and while no result comes: saving, progress;
    /// `Some` ends the run.
    fn after(&mut self, session: &mut Q, reported: bool) -> Result<Option<Self::End>, String>;
}

/// What [`Flight::land`] makes of a result.
pub enum Landed<A, E> {
    /// The answer to query `id`.
    Answer(u64, A),
    /// Nothing to report: the test was called off.
    Nothing,
    End(E),
}

/// How [`fly`] ended.
pub enum Flown<E> {
    Done,
    Interrupted,
    Ended(E),
}

/// What [`fly`] measured.
pub struct Flew<E> {
    pub ending: Flown<E>,
    /// CPU time the session used (in next and report), on this thread.
    pub engine: Duration,
    /// Queries sent to the tests.
    pub submitted: usize,
}

/// The one loop of every command that runs tests (`reduce`, `pair`, `generate`, a folder,
/// `witness`): keeps up to `jobs` of the session's queries at the tests, turns each result into
/// the session's answer, reports it, kills the tests whose answers the session no longer
/// wants; until the session is done, the command ends the run, or Ctrl-C (which kills every
/// test). A test that could not run ends the run with its error.
pub fn fly<Q: Queries, F: Flight<Q>>(
    session: &mut Q,
    flight: &mut F,
    tests: &dyn Tests<F::Result>,
    jobs: usize,
    interrupted: &AtomicBool,
) -> Result<Flew<F::End>, String> {
    let (base, mut out, mut submitted) = (engine_so_far(), 0usize, 0usize);
    let ending = loop {
        flight.turn(session);
        if interrupted.load(Ordering::SeqCst) {
            tests.cancel_all();
            break Flown::Interrupted;
        }
        if out < jobs {
            let queries = in_engine(|| session.next(jobs - out));
            for q in queries {
                tests.submit(Job {
                    id: q.id,
                    side: q.side,
                    original: q.original,
                    file: (flight.file_name(q.side), q.text),
                });
                out += 1;
                submitted += 1;
            }
        }
        if session.done() {
            tests.cancel_all();
            break Flown::Done;
        }
        if out == 0 {
            continue; // the session is between passes or filtering invalid candidates
        }
        // The engine cut its work short (a big program's proposals): look, don't wait.
        let wait = match session.more() {
            true => Duration::ZERO,
            false => Duration::from_millis(100),
        };
        let Some(result) = tests.next_done(wait)? else {
            if let Some(end) = flight.after(session, false)? {
                tests.cancel_all();
                break Flown::Ended(end);
            }
            continue;
        };
        out -= 1;
        let landed = flight
            .land(session, result)
            .inspect_err(|_| tests.cancel_all())?;
        match landed {
            Landed::Nothing => continue,
            Landed::End(end) => {
                tests.cancel_all();
                break Flown::Ended(end);
            }
            Landed::Answer(id, answer) => {
                in_engine(|| session.report(id, answer));
            }
        }
        // Tests whose answers are no longer wanted are killed, freeing their cores.
        for id in tests.running_ids() {
            if !session.wants(id) {
                tests.cancel(id);
            }
        }
        if let Some(end) = flight.after(session, true)? {
            tests.cancel_all();
            break Flown::Ended(end);
        }
    };
    Ok(Flew {
        ending,
        engine: engine_so_far() - base,
        submitted,
    })
}

/// A reduction's flight: verdicts from [`Done`]s, the best saved on each improvement, the
/// progress line, the time per pass and the counts of timeouts and called-off tests.
struct Reducing<'a, S: Subject, H: Shell<S>> {
    shell: &'a H,
    progress: Progress,
    started: Instant,
    saved_accepts: u64,
    first_failure: Option<String>,
    pass_wall: Vec<(String, Duration)>,
    since: Instant,
    timeouts: usize,
    cancelled: usize,
    subject: std::marker::PhantomData<S>,
}

impl<S: Subject, H: Shell<S>> Flight<Engine<S>> for Reducing<'_, S, H> {
    type Result = Done;
    type End = (Done, Verdict);

    fn file_name(&self, side: Side) -> String {
        self.shell.file_name(side)
    }

    fn turn(&mut self, session: &Engine<S>) {
        let now = Instant::now();
        add_time(&mut self.pass_wall, &session.stats().pass, now - self.since);
        self.since = now;
    }

    fn land(
        &mut self,
        _session: &Engine<S>,
        done: Done,
    ) -> Result<Landed<Verdict, (Done, Verdict)>, String> {
        let verdict = match &done.outcome {
            TestOutcome::Interesting => Verdict::Interesting,
            TestOutcome::Boring => Verdict::Boring,
            TestOutcome::Timeout => {
                self.timeouts += 1;
                Verdict::Error("timeout".into())
            }
            TestOutcome::Failed(msg) => {
                self.first_failure.get_or_insert(msg.clone());
                Verdict::Error(msg.clone())
            }
            TestOutcome::Cancelled => {
                self.cancelled += 1;
                return Ok(Landed::Nothing);
            }
        };
        if done.original && verdict != Verdict::Interesting {
            return Ok(Landed::End((done, verdict)));
        }
        Ok(Landed::Answer(done.id, verdict))
    }

    fn after(
        &mut self,
        session: &mut Engine<S>,
        reported: bool,
    ) -> Result<Option<(Done, Verdict)>, String> {
        if reported && session.stats().accepted != self.saved_accepts {
            self.shell.save(session)?;
            self.saved_accepts = session.stats().accepted;
            if crate::stop::wants_figures() {
                let mut json = stats_json(session.stats(), &self.pass_wall);
                json["wall_seconds"] = self.started.elapsed().as_secs_f64().into();
                json["engine_seconds"] = engine_so_far().as_secs_f64().into();
                crate::stop::keep_figures(json);
            }
        }
        let sizes = self.shell.sizes(session);
        self.progress
            .show(session.stats(), self.started.elapsed(), sizes);
        Ok(None)
    }
}

/// Runs `session` to its end with `jobs` tests at a time.
pub fn run_tests<S: Subject>(
    session: &mut Engine<S>,
    shell: &impl Shell<S>,
    runner: &dyn Tests,
    jobs: usize,
    quiet: bool,
    interrupted: &AtomicBool,
    started: Instant,
) -> Result<Run, String> {
    let mut flight = Reducing {
        shell,
        progress: Progress::new(quiet),
        started,
        saved_accepts: 0,
        first_failure: None,
        pass_wall: Vec::new(),
        since: Instant::now(),
        timeouts: 0,
        cancelled: 0,
        subject: std::marker::PhantomData,
    };
    let flew = fly(session, &mut flight, runner, jobs, interrupted)?;
    flight.progress.clear();
    // The figures of a run that ended early are made exact too.
    session.stop();
    let ending = match flew.ending {
        Flown::Done => Ending::Done,
        Flown::Interrupted => Ending::Interrupted,
        Flown::Ended((done, verdict)) => Ending::OriginalFails { done, verdict },
    };
    Ok(Run {
        ending,
        engine: flew.engine,
        first_failure: flight.first_failure,
        pass_wall: flight.pass_wall,
        timeouts: flight.timeouts,
        submitted: flew.submitted,
        from_cache: runner.cached_verdicts(),
        cancelled: flight.cancelled,
    })
}

/// What each pass did, as lines of a table: queries, accepted candidates, tokens and bytes
/// removed, wall time.
pub fn pass_table(stats: &Stats, wall: &[(String, Duration)]) -> Vec<String> {
    let seconds = |name: &str| {
        wall.iter()
            .find(|(n, _)| n == name)
            .map_or(0.0, |(_, t)| t.as_secs_f64())
    };
    let mut lines = vec![format!(
        "{:<12} {:>8} {:>8} {:>9} {:>9} {:>8}",
        "pass", "queries", "accepted", "-tokens", "-bytes", "seconds"
    )];
    lines.extend(stats.passes.iter().map(|p| {
        format!(
            "{:<12} {:>8} {:>8} {:>9} {:>9} {:>8.1}",
            p.pass,
            p.queries,
            p.accepted,
            p.tokens_removed,
            p.bytes_removed,
            seconds(p.pass)
        )
    }));
    lines
}

/// The statistics as JSON, each pass with its wall time (`seconds`).
pub fn stats_json(stats: &Stats, wall: &[(String, Duration)]) -> serde_json::Value {
    let mut json = serde_json::to_value(stats).unwrap_or_default();
    if let Some(passes) = json["passes"].as_array_mut() {
        for p in passes {
            let name = p["pass"].as_str().unwrap_or_default().to_string();
            let time = wall.iter().find(|(n, _)| *n == name).map(|(_, t)| t);
            p["seconds"] = time.map_or(0.0, Duration::as_secs_f64).into();
        }
    }
    json
}

/// What a verdict on the original means, for messages.
/// Says that the original (`what`) is not interesting, with the test's output and how to
/// check the test by hand (`by_hand`).
pub fn say_original_fails(what: &str, done: &Done, verdict: &Verdict, by_hand: &str) {
    eprintln!(
        "whittle reduce: the original {what} is not interesting: the test says {}.",
        describe(verdict)
    );
    if !done.output.trim().is_empty() {
        eprintln!("Its output was:\n{}", done.output.trim_end());
    }
    eprintln!("Check the test by hand: {by_hand}; it must exit 0.");
}

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

pub use crate::files::save;

/// Ctrl-C and SIGTERM set this; the loops stop, kill their tests and keep what they saved.
pub fn interrupt_flag() -> Arc<AtomicBool> {
    crate::stop::flag()
}
