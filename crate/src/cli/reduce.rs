//! `whittle reduce`: the C-Reduce/C-Vise protocol around a [`Session`].

use super::progress::Progress;
use super::runner::{script_path, Job, Outcome, Property, Runner};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use whittle::reduce::{Session, Settings, Strategy, Verdict};

#[derive(clap::Args)]
pub struct ReduceArgs {
    /// The program to reduce; each new best is written back to it (the original is kept as FILE.orig).
    pub file: PathBuf,
    /// An interestingness test: run in a folder holding the candidate under FILE's name; exit 0 = interesting.
    #[arg(long, conflicts_with = "cmd")]
    pub test: Option<PathBuf>,
    /// A command instead of a script; `{}` stands for the file, e.g. 'gcc -O2 -Wall -c {}'.
    #[arg(long, requires = "pattern")]
    pub cmd: Option<String>,
    /// With --cmd: a regex the command's output (stdout and stderr) must match.
    #[arg(long = "match", value_name = "REGEX")]
    pub pattern: Option<String>,
    /// With --cmd: the exit status the command must have.
    #[arg(long)]
    pub exit: Option<i32>,
    /// perses (default), hdd, ddmin-lines or ddmin-tokens.
    #[arg(long, default_value = "perses")]
    pub strategy: String,
    /// Tests run in parallel (default: the number of cores).
    #[arg(short = 'j', long = "jobs")]
    pub jobs: Option<usize>,
    /// Seconds a test may run before its whole process group is killed.
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
    #[arg(long)]
    pub lang: Option<String>,
    /// Write the final statistics as JSON here.
    #[arg(long, value_name = "PATH")]
    pub stats_json: Option<PathBuf>,
    /// No progress line, even on a terminal.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

pub fn property_from(test: Option<&Path>, cmd: Option<&str>, pattern: Option<&str>, exit: Option<i32>, negate: bool) -> Result<Property, String> {
    match (test, cmd) {
        (Some(path), _) => Ok(Property::Script(script_path(path)?)),
        (None, Some(cmd)) => {
            let pattern = pattern.ok_or("--cmd needs --match REGEX")?;
            let regex = regex::Regex::new(pattern).map_err(|e| format!("--match is not a valid regex: {e}"))?;
            Ok(Property::Command { cmd: cmd.to_string(), regex, negate, exit })
        }
        (None, None) => Err("say what is interesting: --test ./check.sh, or --cmd 'CMD {}' --match REGEX".into()),
    }
}

pub fn run(args: ReduceArgs) -> i32 {
    match reduce(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("whittle reduce: {e}");
            2
        }
    }
}

/// Writes `text` to `path` through a temporary file and a rename, so a crash never leaves
/// half a file.
pub fn save(path: &Path, text: &str) -> Result<(), String> {
    let tmp = path.with_extension("whittle-tmp");
    std::fs::write(&tmp, text).and_then(|_| std::fs::rename(&tmp, path)).map_err(|e| format!("cannot save {}: {e}", path.display()))
}

/// Ctrl-C sets this; the loops stop, kill their tests and keep what they saved.
pub fn interrupt_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    let _ = ctrlc::set_handler(move || f.store(true, Ordering::SeqCst));
    flag
}

fn reduce(args: ReduceArgs) -> Result<i32, String> {
    let text = super::read_program(&args.file)?;
    let lang = super::pick_lang(args.lang.as_deref(), &args.file, &text)?;
    let strategy = Strategy::from_name(&args.strategy)
        .ok_or_else(|| format!("unknown strategy `{}`: use perses, hdd, ddmin-lines or ddmin-tokens", args.strategy))?;
    let property = property_from(args.test.as_deref(), args.cmd.as_deref(), args.pattern.as_deref(), args.exit, false)?;
    let name = args.file.file_name().and_then(|n| n.to_str()).ok_or("FILE must name a file")?.to_string();
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let mut session = Session::new(lang, &text, Settings { strategy }).map_err(|e| format!("{}: {e}", args.file.display()))?;

    let orig = PathBuf::from(format!("{}.orig", args.file.display()));
    if !orig.exists() {
        std::fs::write(&orig, &text).map_err(|e| format!("cannot keep the original as {}: {e}", orig.display()))?;
    }
    let interrupted = interrupt_flag();
    let runner = Runner::new(vec![property], jobs, Duration::from_secs_f64(args.timeout));
    let started = Instant::now();
    let mut engine = Duration::ZERO;
    let mut progress = Progress::new(args.quiet);
    let mut out = 0usize;
    let mut saved_accepts = 0;
    let mut first_failure: Option<String> = None;

    loop {
        if interrupted.load(Ordering::SeqCst) {
            runner.cancel_all();
            progress.clear();
            eprintln!("whittle reduce: interrupted; the best so far ({} tokens) is in {}", session.stats().tokens_now, args.file.display());
            break;
        }
        let t = Instant::now();
        if out < jobs {
            for c in session.next(jobs - out) {
                runner.submit(Job { id: c.id, property: 0, files: vec![(name.clone(), c.text)] });
                out += 1;
            }
        }
        engine += t.elapsed();
        if session.done() {
            runner.cancel_all();
            break;
        }
        if out == 0 {
            continue; // the session is between passes or filtering invalid candidates
        }
        let done = match runner.results.recv_timeout(Duration::from_millis(200)) {
            Ok(d) => d,
            Err(_) => {
                runner.enforce_timeouts();
                progress.show(session.stats(), started.elapsed());
                continue;
            }
        };
        out -= 1;
        let verdict = match done.outcome {
            Outcome::Interesting => Verdict::Interesting,
            Outcome::Boring => Verdict::Boring,
            Outcome::Timeout => Verdict::Error("timeout".into()),
            Outcome::Failed(msg) => {
                first_failure.get_or_insert(msg.clone());
                Verdict::Error(msg)
            }
            Outcome::Cancelled => continue,
        };
        if done.id == 1 && verdict != Verdict::Interesting {
            runner.cancel_all();
            progress.clear();
            eprintln!("whittle reduce: the original {} is not interesting: the test says {}.", args.file.display(), describe(&verdict));
            if !done.output.trim().is_empty() {
                eprintln!("Its output was:\n{}", done.output.trim_end());
            }
            eprintln!("Check the test by hand: copy {name} into an empty folder and run the test there; it must exit 0.");
            let _ = std::fs::remove_file(&orig);
            return Ok(1);
        }
        let t = Instant::now();
        session.report(done.id, verdict);
        // Tests whose verdicts are no longer wanted are killed, freeing their cores.
        for id in runner.running_ids() {
            if !session.wants(id) {
                runner.cancel(id);
            }
        }
        engine += t.elapsed();
        if session.stats().accepted != saved_accepts {
            save(&args.file, session.best())?;
            saved_accepts = session.stats().accepted;
        }
        progress.show(session.stats(), started.elapsed());
    }
    save(&args.file, session.best())?;
    progress.clear();
    let wall = started.elapsed().as_secs_f64();
    let s = session.stats();
    eprintln!(
        "whittle reduce: {} -> {} tokens, {} -> {} bytes in {:.1} s; {} queries ({} cache hits, {} invalid candidates skipped, {} invalid queries, {} errors); engine {:.2} s",
        s.tokens_before, s.tokens_now, s.bytes_before, s.bytes_now, wall, s.queries, s.cache_hits, s.invalid_skipped, s.invalid_queries, s.errors, engine.as_secs_f64()
    );
    eprintln!("whittle reduce: the result is in {} (the original in {})", args.file.display(), orig.display());
    if let Some(msg) = first_failure {
        eprintln!("whittle reduce: note: some tests could not run: {msg}");
    }
    if let Some(path) = &args.stats_json {
        let mut json = serde_json::to_value(s).unwrap_or_default();
        json["wall_seconds"] = wall.into();
        json["engine_seconds"] = engine.as_secs_f64().into();
        json["strategy"] = strategy.name().into();
        json["jobs"] = jobs.into();
        json["history"] = serde_json::to_value(session.history()).unwrap_or_default();
        // The verdicts replay the reduction without the test (`Session::replay`).
        json["verdicts"] = session.verdicts().iter().map(|&b| if b { '1' } else { '0' }).collect::<String>().into();
        std::fs::write(path, serde_json::to_string_pretty(&json).unwrap_or_default())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(if interrupted.load(Ordering::SeqCst) { 130 } else { 0 })
}

fn describe(v: &Verdict) -> String {
    match v {
        Verdict::Boring => "it is not (exit status not 0, or the output did not match)".into(),
        Verdict::Error(e) => format!("nothing: {e}"),
        Verdict::Interesting => "yes".into(),
    }
}
