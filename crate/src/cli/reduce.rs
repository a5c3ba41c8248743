//! `whittle reduce`: the C-Reduce/C-Vise protocol around a [`Session`].

use super::drive::{
    describe, exit_status, interrupt_flag, jobs, property_from, run_tests, save, timed,
    verdict_string, write_stats, Ending, Tests,
};
use super::runner::{Done, Job, Runner};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use whittle::reduce::{Session, Settings, Stats, Strategy, Verdict};

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
    #[command(flatten)]
    pub run: RunArgs,
}

/// Options `reduce` and `pair` share.
#[derive(clap::Args)]
pub struct RunArgs {
    /// perses (default), hdd, ddmin-lines or ddmin-tokens (for pairs: what MinCommonality runs).
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

impl RunArgs {
    pub fn strategy(&self) -> Result<Strategy, String> {
        Strategy::from_name(&self.strategy).ok_or_else(|| {
            format!(
                "unknown strategy `{}`: use perses, hdd, ddmin-lines or ddmin-tokens",
                self.strategy
            )
        })
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

/// One program's session, for the test loop: each candidate is one job.
struct SingleTests<'a> {
    session: Session,
    name: String,
    file: &'a Path,
}

impl Tests for SingleTests<'_> {
    fn next_jobs(&mut self, k: usize) -> Vec<Job> {
        let name = &self.name;
        self.session
            .next(k)
            .into_iter()
            .map(|c| Job {
                id: c.id,
                property: 0,
                files: vec![(name.clone(), c.text)],
            })
            .collect()
    }

    fn report(&mut self, done: &Done, verdict: Verdict) -> Vec<Job> {
        self.session.report(done.id, verdict);
        Vec::new()
    }

    fn wants(&self, job: u64) -> bool {
        self.session.wants(job)
    }

    fn is_original(&self, job: u64) -> bool {
        job == 1
    }

    fn stats(&self) -> &Stats {
        self.session.stats()
    }

    fn done(&self) -> bool {
        self.session.done()
    }

    fn save(&self) -> Result<(), String> {
        save(self.file, self.session.best())
    }
}

fn reduce(args: ReduceArgs) -> Result<i32, String> {
    let text = super::read_program(&args.file)?;
    let lang = super::pick_lang(args.run.lang.as_deref(), &args.file, &text)?;
    let strategy = args.run.strategy()?;
    let property = property_from(
        args.test.as_deref(),
        args.cmd.as_deref(),
        args.pattern.as_deref(),
        args.exit,
        false,
    )?;
    let name = args
        .file
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or("FILE must name a file")?
        .to_string();
    let jobs = jobs(args.run.jobs);
    // The clocks start before the parse: parsing the original is the engine's work too.
    let started = Instant::now();
    let (session, parse_cpu) = timed(|| Session::new(lang, &text, Settings { strategy }));
    let session = session.map_err(|e| format!("{}: {e}", args.file.display()))?;

    let orig = PathBuf::from(format!("{}.orig", args.file.display()));
    if !orig.exists() {
        std::fs::write(&orig, &text)
            .map_err(|e| format!("cannot keep the original as {}: {e}", orig.display()))?;
    }
    let interrupted = interrupt_flag();
    let runner = Runner::new(
        vec![property],
        jobs,
        Duration::from_secs_f64(args.run.timeout),
    );
    let mut tests = SingleTests {
        session,
        name: name.clone(),
        file: &args.file,
    };
    let run = run_tests(
        &mut tests,
        &runner,
        jobs,
        args.run.quiet,
        &interrupted,
        started,
    )?;
    let session = tests.session;
    match run.ending {
        Ending::OriginalFails { done, verdict } => {
            eprintln!(
                "whittle reduce: the original {} is not interesting: the test says {}.",
                args.file.display(),
                describe(&verdict)
            );
            if !done.output.trim().is_empty() {
                eprintln!("Its output was:\n{}", done.output.trim_end());
            }
            eprintln!("Check the test by hand: copy {name} into an empty folder and run the test there; it must exit 0.");
            let _ = std::fs::remove_file(&orig);
            return Ok(1);
        }
        Ending::Interrupted => eprintln!(
            "whittle reduce: interrupted; the best so far ({} tokens) is in {}",
            session.stats().tokens_now,
            args.file.display()
        ),
        Ending::Done => {}
    }
    save(&args.file, session.best())?;
    let wall = started.elapsed().as_secs_f64();
    let engine = run.engine + parse_cpu;
    let s = session.stats();
    eprintln!(
        "whittle reduce: {} -> {} tokens, {} -> {} bytes in {:.1} s; {} queries ({} cache hits, {} invalid candidates skipped, {} invalid queries, {} errors); engine {:.2} s",
        s.tokens_before, s.tokens_now, s.bytes_before, s.bytes_now, wall, s.queries, s.cache_hits, s.invalid_skipped, s.invalid_queries, s.errors, engine.as_secs_f64()
    );
    eprintln!(
        "whittle reduce: the result is in {} (the original in {})",
        args.file.display(),
        orig.display()
    );
    if let Some(msg) = run.first_failure {
        eprintln!("whittle reduce: note: some tests could not run: {msg}");
    }
    if let Some(path) = &args.run.stats_json {
        let mut json = serde_json::to_value(s).unwrap_or_default();
        json["wall_seconds"] = wall.into();
        json["engine_seconds"] = engine.as_secs_f64().into();
        json["strategy"] = strategy.name().into();
        json["jobs"] = jobs.into();
        json["history"] = serde_json::to_value(session.history()).unwrap_or_default();
        // The verdicts replay the reduction without the test (`Session::replay`).
        json["verdicts"] = verdict_string(session.verdicts()).into();
        write_stats(path, &json)?;
    }
    Ok(exit_status(&interrupted))
}
