//! `whittle witness`: DiWi from the command line. Mutates a failing program into witnesses
//! (mutants the compiler accepts that do not fail), writes each with its diff, and, given a
//! coverage command, ranks the compiler's files and functions by Ochiai.
//!
//! Each mutant is tested in a fresh folder under FILE's name: `--test` first (exit 0 = it
//! still fails); if not, `--test-witness` (exit 0 = the compiler accepts it and it passes);
//! for a witness and for the original, `--coverage` (prints Coverage JSON on stdout, as
//! `whittle coverage` does) or `--trace` (its output lines are the trace compared).

use crate::drive::{fly, interrupt_flag, jobs, save, write_stats, Flight, Flown, Landed};
use crate::runner::{job_folder, run_in, script_path, Job, Pool, Property, TestOutcome};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use whittle::pair::unified_diff;
use whittle::witness::{
    Coverage, Keep, MutantOutcome, Observation, OriginalState, Ranking, Selection, Suspect,
    WitnessSearch, WitnessSettings,
};
use whittle_serve::sandbox::Sandbox;

#[derive(clap::Args)]
pub struct WitnessArgs {
    /// The failing program.
    pub file: PathBuf,
    /// The bug's test: run in a folder holding a mutant under FILE's name; exit 0 = it still fails.
    #[arg(long, required_unless_present = "endpoints")]
    pub test: Option<PathBuf>,
    /// A witness's test: exit 0 = the compiler accepts the mutant and it does not fail. Without it, every mutant --test rejects counts.
    #[arg(long)]
    pub test_witness: Option<PathBuf>,
    #[command(flatten)]
    pub search: SearchArgs,
    /// Mutants as compiles on Compiler Explorer-compatible endpoints instead of --test: the bug
    /// shows when the output matches --match (and the exit code is --exit); a witness compiles
    /// (exit 0) without it.
    #[command(flatten)]
    pub endpoint: crate::remote::EndpointArgs,
    /// With --endpoint: a regex over the compile's output that says the bug shows.
    #[arg(long = "match", value_name = "REGEX", requires = "endpoints")]
    pub pattern: Option<String>,
    /// With --endpoint: the compiler's exit code when the bug shows.
    #[arg(long, requires = "endpoints")]
    pub exit: Option<i32>,
    /// Where the witnesses go (default: FILE.witnesses/ beside FILE), with ranking.txt and, given --coverage, coverage.json (every compile's coverage the ranking was made of).
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub common: super::args::Common,
    #[arg(long)]
    pub lang: Option<String>,
}

/// The search's options, shared with `whittle pair --auto-seed`.
#[derive(clap::Args)]
pub struct SearchArgs {
    /// Tests at most, the original's included.
    #[arg(long, default_value_t = 200)]
    pub budget: usize,
    /// The search's random seed: the same seed, options and verdicts give the same witnesses
    /// (`--seed N` still works).
    #[arg(long, alias = "seed", value_name = "N", default_value_t = 1)]
    pub rng_seed: u64,
    /// How the next mutation rule is chosen: mh (Metropolis-Hastings over the rules' scores) or random.
    #[arg(long, default_value = "mh")]
    pub selection: String,
    /// Which passing mutants are kept: diverse (coverage or trace differs from all so far) or all.
    #[arg(long, default_value = "diverse")]
    pub keep: String,
    /// Stop after this many witnesses.
    #[arg(long)]
    pub want: Option<usize>,
    /// A command run in the mutant's folder that prints its compile's coverage as JSON on stdout (see `whittle coverage`).
    #[arg(long, conflicts_with = "trace")]
    pub coverage: Option<PathBuf>,
    /// A command run in the mutant's folder whose output lines are a trace of the compile (assembly, remarks), compared when there is no coverage.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// The compiler message the bug is about (a regex, e.g. the one the test greps for): mutations go mostly near the lines of the messages it matches, not near every message.
    #[arg(long, value_name = "REGEX")]
    pub focus: Option<String>,
}

impl SearchArgs {
    pub fn settings(&self) -> Result<WitnessSettings, String> {
        Ok(WitnessSettings {
            rng_seed: self.rng_seed,
            budget: self.budget.max(2),
            want: self.want,
            selection: Selection::from_name(&self.selection).ok_or_else(|| {
                format!("--selection must be mh or random, not {}", self.selection)
            })?,
            keep: Keep::from_name(&self.keep)
                .ok_or_else(|| format!("--keep must be diverse or all, not {}", self.keep))?,
            ..WitnessSettings::default()
        })
    }
}

/// The tests a mutant goes through.
pub struct Checks {
    pub test: Property,
    /// The messages the bug is about, for where the search looks first.
    pub focus: Option<regex::Regex>,
    pub witness: Option<Property>,
    pub coverage: Option<Property>,
    pub trace: Option<Property>,
    /// The test's own output is the compiler's report (a compile on an endpoint): the trace.
    pub test_traces: bool,
    pub name: String,
    pub timeout: Duration,
}

impl Checks {
    /// The checks of scripts: the bug's test, a witness's, and what observes a compile.
    pub fn new(
        test: &Path,
        witness: Option<&Path>,
        coverage: Option<&Path>,
        trace: Option<&Path>,
        focus: Option<&str>,
        name: String,
        timeout: f64,
    ) -> Result<Checks, String> {
        let script = |p: &Path| script_path(p).map(Property::Script);
        Ok(Checks {
            coverage: coverage.map(script).transpose()?,
            trace: trace.map(script).transpose()?,
            ..Checks::of(
                script(test)?,
                witness.map(script).transpose()?,
                focus,
                name,
                timeout,
            )?
        })
    }

    /// The checks of compiles on the endpoints `e`, and how many run at once (k a endpoint):
    /// the bug shows when the output matches `pattern` (and the exit code is `exit`); a
    /// witness compiles (exit 0) without it; the compile's output is the trace.
    pub fn over(
        e: &crate::remote::EndpointArgs,
        pattern: Option<&str>,
        exit: Option<i32>,
        focus: Option<&str>,
        name: &str,
        jobs: Option<usize>,
        timeout: f64,
    ) -> Result<(Checks, usize), String> {
        let check = crate::remote::Check::new(pattern, exit, None)?;
        let k = jobs.unwrap_or(1).max(1);
        let pair = vec![check.clone(), check.without()];
        let remotes = e.remotes(pair, k, Duration::from_secs_f64(timeout))?;
        let [test, witness] = [0, 1].map(|i| Property::Endpoint(remotes[i].clone()));
        let checks = Checks {
            test_traces: true,
            ..Checks::of(test, Some(witness), focus, name.to_string(), timeout)?
        };
        Ok((checks, k * e.endpoints.len()))
    }

    /// The checks of the bug's test and a witness's, with nothing else observed (with
    /// `test_traces`, the test's output is the trace).
    pub fn of(
        test: Property,
        witness: Option<Property>,
        focus: Option<&str>,
        name: String,
        timeout: f64,
    ) -> Result<Checks, String> {
        let focus = focus
            .map(|re| regex::Regex::new(re).map_err(|e| format!("the focus regex: {e}")))
            .transpose()?;
        Ok(Checks {
            test,
            focus,
            witness,
            coverage: None,
            trace: None,
            test_traces: false,
            name,
            timeout: Duration::from_secs_f64(timeout),
        })
    }

    /// Runs a mutant's checks in a fresh folder: what they observed and `--test`'s output;
    /// an error when a test could not run at all.
    fn observe(
        &self,
        job: &Job,
        cancel: &Arc<AtomicBool>,
        tether: Option<&Arc<Sandbox>>,
    ) -> Result<(Observation, String), String> {
        let dir = job_folder(job)?;
        let run = |p: &Property| {
            run_in(
                p,
                dir.path(),
                &self.name,
                Instant::now() + self.timeout,
                cancel.clone(),
                tether,
            )
        };
        let ran = run(&self.test)?;
        let outcome = match ran.outcome {
            TestOutcome::Interesting => MutantOutcome::Failing,
            TestOutcome::Boring | TestOutcome::Timeout => match &self.witness {
                Some(w) => match run(w)?.outcome {
                    TestOutcome::Interesting => MutantOutcome::Passing,
                    _ => MutantOutcome::Rejected,
                },
                None => MutantOutcome::Passing,
            },
            TestOutcome::Failed(e) => return Err(e),
            TestOutcome::Cancelled => MutantOutcome::Rejected,
        };
        let mut obs = Observation::of(outcome);
        // A failing mutant's coverage too: what its compile skipped, the bug does not need.
        let observed = outcome != MutantOutcome::Rejected || job.original;
        if let (Some(c), true) = (&self.coverage, observed) {
            let out = run(c)?;
            obs.coverage = Some(read_coverage(&out.stdout)?);
        } else if observed {
            // A failing mutant's trace too: one that prints part of what the failing program
            // printed about the bug and nothing else is nearer a witness (a parent to build on).
            let trace = match &self.trace {
                Some(t) => run(t)?.output,
                None if self.test_traces => ran.output.clone(),
                None => return Ok((obs, ran.output)),
            };
            obs.about = self
                .focus
                .as_ref()
                .map(|re| whittle::witness::messages_about(&trace, |m| re.is_match(m)));
            obs.trace = Some(trace);
        }
        Ok((obs, ran.output))
    }
}

/// The last line of a coverage command's stdout that is Coverage JSON.
fn read_coverage(stdout: &str) -> Result<Coverage, String> {
    stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str::<Coverage>(l.trim()).ok())
        .ok_or_else(|| {
            "the coverage command printed no coverage JSON ({\"file\": {\"function\": [lines]}}) on stdout".to_string()
        })
}

/// How a search ended.
pub enum Searched {
    Done,
    Interrupted,
    /// The original does not fail: the test's output.
    OriginalPasses(MutantOutcome, String),
}

/// What a witness check gives back: the query's id, whether it tested the original, and the
/// observation with the test's output (or why the test could not run).
type Checked = (u64, bool, Result<(Observation, String), String>);

/// A witness search's flight: observations from the checks, the original's pointed lines as
/// the search's focus, each new witness handed on, a progress line per answer.
struct Searching<'a, W> {
    name: String,
    focus: Option<regex::Regex>,
    quiet: bool,
    started: Instant,
    seen: usize,
    /// The lines the original's output points at, once it is reported.
    pointed: Vec<(usize, f64)>,
    /// The original's test output, until it is reported (to say why it does not fail).
    original: Option<String>,
    on_witness: &'a mut W,
}

impl<W: FnMut(&WitnessSearch) -> Result<(), String>> Flight<WitnessSearch> for Searching<'_, W> {
    type Result = Checked;
    type End = Searched;

    fn file_name(&self, _side: whittle::Side) -> String {
        self.name.clone()
    }

    fn land(
        &mut self,
        _session: &WitnessSearch,
        (id, original, result): Checked,
    ) -> Result<Landed<Observation, Searched>, String> {
        let (obs, output) = result.map_err(|e| format!("a test could not run: {e}"))?;
        if original {
            let focus = &self.focus;
            self.pointed = whittle::witness::pointed_lines_of(
                &self.name,
                &format!("{output}\n{}", obs.trace.as_deref().unwrap_or("")),
                |m| focus.as_ref().is_none_or(|re| re.is_match(m)),
            );
            self.original = Some(output);
        }
        Ok(Landed::Answer(id, obs))
    }

    fn after(
        &mut self,
        session: &mut WitnessSearch,
        reported: bool,
    ) -> Result<Option<Searched>, String> {
        if !reported {
            return Ok(None);
        }
        if !self.pointed.is_empty() {
            session.focus_weighted(&std::mem::take(&mut self.pointed));
        }
        if let Some(output) = self.original.take() {
            if let OriginalState::NotFailing(o) = session.original_state() {
                return Ok(Some(Searched::OriginalPasses(o, output)));
            }
        }
        if session.witnesses().len() != self.seen {
            self.seen = session.witnesses().len();
            (self.on_witness)(session)?;
        }
        if !self.quiet {
            let s = session.stats();
            eprintln!(
                "whittle witness: {} queries, {} witnesses ({} failing, {} rejected, {} not diverse) in {:.0} s",
                s.queries,
                s.witnesses,
                s.failing,
                s.rejected,
                s.not_diverse,
                self.started.elapsed().as_secs_f64()
            );
        }
        Ok(None)
    }
}

/// Runs `session` with `jobs` tests at a time until it is done.
pub fn search(
    session: &mut WitnessSearch,
    checks: Checks,
    jobs: usize,
    quiet: bool,
    interrupted: &AtomicBool,
    mut on_witness: impl FnMut(&WitnessSearch) -> Result<(), String>,
) -> Result<Searched, String> {
    let mut flight = Searching {
        name: checks.name.clone(),
        focus: checks.focus.clone(),
        quiet,
        started: Instant::now(),
        seen: 0,
        pointed: Vec::new(),
        original: None,
        on_witness: &mut on_witness,
    };
    let pool: Pool<Checked> = Pool::with(jobs, move |job, cancel, tether| {
        (job.id, job.original, checks.observe(job, &cancel, tether))
    });
    Ok(
        match fly(session, &mut flight, &pool, jobs, interrupted)?.ending {
            Flown::Done => Searched::Done,
            Flown::Interrupted => Searched::Interrupted,
            Flown::Ended(end) => end,
        },
    )
}

pub fn run(args: WitnessArgs) -> i32 {
    match witness(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("whittle witness: {e}");
            2
        }
    }
}

/// What a mutant goes through, and how many at once: the scripts, or over `--endpoint` the
/// compile (the bug: `--match`, `--exit`; a witness: it compiles without the bug).
fn witness_checks(args: &WitnessArgs, name: &str) -> Result<(Checks, usize), String> {
    let s = &args.search;
    let e = &args.endpoint;
    if e.endpoints.is_empty() {
        let test = args
            .test
            .as_deref()
            .ok_or("give --test (or --endpoint URL)")?;
        let checks = Checks::new(
            test,
            args.test_witness.as_deref(),
            s.coverage.as_deref(),
            s.trace.as_deref(),
            s.focus.as_deref(),
            name.to_string(),
            args.common.timeout_seconds(),
        )?;
        return Ok((checks, jobs(args.common.jobs)));
    }
    if args.test.is_some()
        || args.test_witness.is_some()
        || s.coverage.is_some()
        || s.trace.is_some()
    {
        return Err("over --endpoint the endpoint's compiles judge the mutants: no --test, --test-witness, --coverage or --trace (--focus REGEX still says where to look first)".into());
    }
    let (pattern, focus) = (args.pattern.as_deref(), s.focus.as_deref());
    Checks::over(
        e,
        pattern,
        args.exit,
        focus,
        name,
        args.common.jobs,
        args.common.timeout_seconds(),
    )
}

/// Where witness `i` and its diff are written.
fn witness_paths(dir: &Path, name: &str, i: usize) -> (PathBuf, PathBuf) {
    let n = i + 1;
    (
        dir.join(format!("{n:03}-{name}")),
        dir.join(format!("{n:03}.diff")),
    )
}

fn write_witnesses(dir: &Path, name: &str, session: &WitnessSearch) -> Result<(), String> {
    crate::files::own_folder(dir)?;
    for (i, w) in session.witnesses().iter().enumerate() {
        let (file, diff) = witness_paths(dir, name, i);
        if !file.exists() {
            save(&file, &w.text)?;
            save(
                &diff,
                &unified_diff(
                    session.original(),
                    &w.text,
                    name,
                    &format!("{:03}-{name}", i + 1),
                ),
            )?;
        }
    }
    if let Some(r) = session.ranking() {
        save(&dir.join("ranking.txt"), &ranking_text(&r, usize::MAX))?;
    }
    Ok(())
}

/// Every compile's coverage the ranking was made of, in `coverage.json`: `{failing,
/// failing_mutants: [...], witnesses: [...]}`, each in the shape `--coverage` prints, so that
/// another formula can rank them again. Written once, at the end: it can run to megabytes.
fn write_spectra(dir: &Path, session: &WitnessSearch) -> Result<(), String> {
    let Some(failing) = session.failing_coverage() else {
        return Ok(());
    };
    let witnesses: Vec<_> = session.witness_coverage().collect();
    let json = serde_json::json!({
        "failing": failing,
        "failing_mutants": session.failing_mutants(),
        "witnesses": witnesses,
    });
    save(&dir.join("coverage.json"), &json.to_string())
}

/// The ranking as a person reads it: files, then functions, most suspicious first.
pub fn ranking_text(r: &Ranking, top: usize) -> String {
    let mut out = String::from("files, most suspicious first (Ochiai: the mean of the mean and the highest over the statements the failing compile ran):\n");
    push_scores(&mut out, &r.files, top);
    out.push_str("functions:\n");
    push_scores(&mut out, &r.functions, top);
    out
}

/// One line a score, numbered: `   1. 0.7071  tccgen.c (812 statements)`.
fn push_scores(out: &mut String, scores: &[Suspect], top: usize) {
    for (i, s) in scores.iter().take(top).enumerate() {
        let line = format!(
            "{:4}. {:.4}  {} ({} statements)\n",
            i + 1,
            s.score,
            s.name,
            s.statements
        );
        out.push_str(&line);
    }
}

fn witness(args: WitnessArgs) -> Result<i32, String> {
    let text = crate::input::read_program(&args.file)?;
    let lang = crate::input::pick_lang(args.lang.as_deref(), &args.file, &text)?;
    let name = crate::input::file_name(&args.file, "FILE")?;
    let settings = args.search.settings()?;
    let (checks, jobs) = witness_checks(&args, &name)?;
    if args.test_witness.is_none() && args.test.is_some() {
        eprintln!("whittle witness: note: without --test-witness, a mutant the compiler rejects counts as a witness too");
    }
    let mut session = WitnessSearch::new(lang, &text, settings)
        .map_err(|e| crate::input::unparseable(&args.file, &e))?;
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| args.file.with_file_name(format!("{name}.witnesses")));
    let started = Instant::now();
    eprintln!(
        "whittle witness: {} mutation rules apply to {} ({lang}); budget {} tests, {jobs} at a time",
        session.rules().len(),
        args.file.display(),
        args.search.budget
    );
    // Refused before the search if it is a link, not after.
    crate::files::own_folder(&dir)?;
    let interrupted = interrupt_flag();
    let ending = search(
        &mut session,
        checks,
        jobs,
        args.common.quiet,
        &interrupted,
        |s| write_witnesses(&dir, &name, s),
    )?;
    match ending {
        Searched::OriginalPasses(o, output) => {
            eprintln!(
                "whittle witness: the original {} does not fail: --test says no ({}).",
                args.file.display(),
                match o {
                    MutantOutcome::Passing => "it passes",
                    _ => "the compiler rejects it",
                }
            );
            if !output.trim().is_empty() {
                eprintln!("Its output was:\n{}", output.trim_end());
            }
            eprintln!("Check the test by hand: copy {name} into an empty folder and run the test there; it must exit 0.");
            return Ok(1);
        }
        Searched::Interrupted => {
            eprintln!("whittle witness: interrupted; the witnesses so far are saved")
        }
        Searched::Done => {}
    }
    write_witnesses(&dir, &name, &session)?;
    write_spectra(&dir, &session)?;
    let s = session.stats();
    eprintln!(
        "whittle witness: {} witnesses in {} queries ({} failing, {} rejected by the compiler, {} not diverse, {} mutants the parser refused) in {:.1} s; in {}",
        s.witnesses, s.queries, s.failing, s.rejected, s.not_diverse, s.syntax_rejected,
        started.elapsed().as_secs_f64(),
        dir.display()
    );
    for (i, w) in session.witnesses().iter().enumerate() {
        let what: Vec<String> = w
            .changes
            .iter()
            .map(|c| format!("line {}: {} -> {} ({})", c.line, c.before, c.after, c.rule))
            .collect();
        println!("witness {}: {}", i + 1, what.join("; "));
    }
    let ranking = session.ranking();
    if let Some(r) = &ranking {
        print!("{}", ranking_text(r, 10));
    }
    if let Some(path) = &args.common.stats_json {
        let mut json = serde_json::to_value(s).unwrap_or_default();
        json["wall_seconds"] = started.elapsed().as_secs_f64().into();
        json["selection"] = args.search.selection.clone().into();
        json["keep"] = args.search.keep.clone().into();
        json["rng_seed"] = args.search.rng_seed.into();
        json["budget"] = args.search.budget.into();
        json["rules"] = serde_json::to_value(session.rules()).unwrap_or_default();
        json["witnesses"] = serde_json::to_value(session.witnesses()).unwrap_or_default();
        json["ranking"] = serde_json::to_value(&ranking).unwrap_or_default();
        json["out"] = dir.display().to_string().into();
        write_stats(path, &json)?;
    }
    Ok(if interrupted.load(Ordering::SeqCst) {
        130
    } else {
        0
    })
}
