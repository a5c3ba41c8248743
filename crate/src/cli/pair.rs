//! `whittle pair`: pairwise reduction (PPR) of a seed and a variant, each with its own test.
//!
//! Each side is tested as `whittle reduce` tests a program: in a fresh folder, under the
//! side's own file name. A candidate's variant is tested first (it is the pickier test)
//! and its seed only if the variant passed and the seed's verdict is not known already.

use super::drive::{
    describe, exit_status, interrupt_flag, jobs, property_from, run_tests, save, timed,
    verdict_string, write_stats, Ending, Tests,
};
use super::runner::{Done, Job, Runner};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use whittle::pair::{diff_tokens, unified_diff, PairCandidate, PairSession, PairSettings, Side};
use whittle::reduce::{Stats, Verdict};

#[derive(clap::Args)]
pub struct PairArgs {
    /// The program that does not show the behaviour.
    #[arg(long)]
    pub seed: PathBuf,
    /// The program derived from the seed that does.
    #[arg(long)]
    pub variant: PathBuf,
    /// The seed's test: run in a folder holding the seed under its file name; exit 0 = interesting.
    #[arg(long, conflicts_with = "cmd", requires = "test_variant")]
    pub test_seed: Option<PathBuf>,
    /// The variant's test: run in a folder holding the variant under its file name; exit 0 = interesting.
    #[arg(long, conflicts_with = "cmd", requires = "test_seed")]
    pub test_variant: Option<PathBuf>,
    /// A command for both instead of scripts; `{}` stands for the file, e.g. 'gcc -O2 -Wall -c {}'.
    #[arg(long, requires = "pattern")]
    pub cmd: Option<String>,
    /// With --cmd: a regex the variant's output must match and the seed's must not.
    #[arg(long = "match", value_name = "REGEX")]
    pub pattern: Option<String>,
    /// With --cmd: the exit status both must have.
    #[arg(long)]
    pub exit: Option<i32>,
    #[command(flatten)]
    pub run: super::reduce::RunArgs,
}

pub fn run(args: PairArgs) -> i32 {
    match pair(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("whittle pair: {e}");
            2
        }
    }
}

/// Where the results go: `<stem>.min.<ext>` beside each input, `<variant stem>.diff`.
struct Outputs {
    seed: PathBuf,
    variant: PathBuf,
    diff: PathBuf,
}

fn min_path(input: &Path) -> PathBuf {
    let stem = input
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("program");
    match input.extension().and_then(|e| e.to_str()) {
        Some(ext) => input.with_file_name(format!("{stem}.min.{ext}")),
        None => input.with_file_name(format!("{stem}.min")),
    }
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("program")
        .to_string()
}

/// A pair session for the test loop. Job ids are candidate id * 2 + side.
struct PairTests<'a> {
    session: PairSession,
    names: [String; 2],
    outputs: &'a Outputs,
    /// Candidates whose seed waits for their variant's verdict.
    waiting: Vec<PairCandidate>,
}

impl PairTests<'_> {
    fn job(&self, id: u64, side: Side, c: &PairCandidate) -> Job {
        let text = match side {
            Side::Seed => c.seed.clone(),
            Side::Variant => c.variant.clone(),
        };
        Job {
            id: id * 2 + side as u64,
            property: side as usize,
            files: vec![(self.names[side as usize].clone(), text)],
        }
    }

    fn split(job: u64) -> (u64, Side) {
        (job / 2, Side::BOTH[(job % 2) as usize])
    }
}

impl Tests for PairTests<'_> {
    fn next_jobs(&mut self, k: usize) -> Vec<Job> {
        let mut out = Vec::new();
        for c in self.session.next(k) {
            // The original's sides are both tested at once, so a failure says which.
            if c.test_variant {
                out.push(self.job(c.id, Side::Variant, &c));
            }
            if c.test_seed && (!c.test_variant || c.id == 1) {
                out.push(self.job(c.id, Side::Seed, &c));
            }
            if c.test_variant && c.test_seed && c.id != 1 {
                self.waiting.push(c);
            }
        }
        out
    }

    fn report(&mut self, done: &Done, verdict: Verdict) -> Vec<Job> {
        let (id, side) = (Self::split(done.id).0, Side::BOTH[done.property]);
        let passed = verdict == Verdict::Interesting;
        self.session.report_side(id, side, verdict);
        // The seed's test, once the variant passed, if its verdict still matters.
        let mut next = Vec::new();
        if let Some(at) = self.waiting.iter().position(|c| c.id == id) {
            let c = self.waiting.swap_remove(at);
            if side == Side::Variant && passed && self.session.wants_side(id, Side::Seed) {
                next.push(self.job(id, Side::Seed, &c));
            }
        }
        let session = &self.session;
        self.waiting.retain(|c| session.wants(c.id));
        next
    }

    fn wants(&self, job: u64) -> bool {
        let (id, side) = Self::split(job);
        self.session.wants_side(id, side)
    }

    fn is_original(&self, job: u64) -> bool {
        Self::split(job).0 == 1
    }

    fn stats(&self) -> &Stats {
        self.session.stats()
    }

    fn sizes(&self) -> Option<String> {
        let s = self.session.sizes();
        Some(format!(
            "seed {}, variant {}, diff {} tokens",
            s.seed, s.variant, s.diff
        ))
    }

    fn done(&self) -> bool {
        self.session.done()
    }

    fn save(&self) -> Result<(), String> {
        let (seed, variant) = (self.session.best_seed(), self.session.best_variant());
        save(&self.outputs.seed, seed)?;
        save(&self.outputs.variant, variant)?;
        save(
            &self.outputs.diff,
            &unified_diff(
                seed,
                variant,
                &file_name(&self.outputs.seed),
                &file_name(&self.outputs.variant),
            ),
        )
    }
}

fn pair(args: PairArgs) -> Result<i32, String> {
    let seed = super::read_program(&args.seed)?;
    let variant = super::read_program(&args.variant)?;
    let lang = super::pick_lang(args.run.lang.as_deref(), &args.variant, &variant)?;
    let strategy = args.run.strategy()?;
    let (pattern, exit) = (args.pattern.as_deref(), args.exit);
    if args.cmd.is_none() && args.test_seed.is_none() {
        return Err("say what each side must do: --test-seed ./check-seed.sh --test-variant ./check-variant.sh, or --cmd 'CMD {}' --match REGEX (the variant's output must match, the seed's must not)".into());
    }
    // With --cmd, the seed is interesting when the output does *not* match.
    let seed_property = property_from(
        args.test_seed.as_deref(),
        args.cmd.as_deref(),
        pattern,
        exit,
        true,
    )?;
    let variant_property = property_from(
        args.test_variant.as_deref(),
        args.cmd.as_deref(),
        pattern,
        exit,
        false,
    )?;
    let names = [file_name(&args.seed), file_name(&args.variant)];
    if names[0] == names[1] && args.cmd.is_none() {
        eprintln!("whittle pair: note: seed and variant are both named {}; each test sees only its own side", names[0]);
    }
    let jobs = jobs(args.run.jobs);
    // The clocks start before the parses and the diff: they are the engine's work too.
    let started = Instant::now();
    let (session, setup_cpu) =
        timed(|| PairSession::new(lang, &seed, &variant, PairSettings { strategy }));
    let session = session?;
    let outputs = Outputs {
        seed: min_path(&args.seed),
        variant: min_path(&args.variant),
        diff: args.variant.with_file_name(format!(
            "{}.diff",
            args.variant
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("variant")
        )),
    };
    let before = session.sizes();
    eprintln!(
        "whittle pair: seed {} tokens, variant {} tokens, diff {} tokens ({lang}, {jobs} tests at a time)",
        before.seed, before.variant, before.diff
    );

    let interrupted = interrupt_flag();
    let runner = Runner::new(
        vec![seed_property, variant_property],
        jobs,
        Duration::from_secs_f64(args.run.timeout),
    );
    let mut tests = PairTests {
        session,
        names,
        outputs: &outputs,
        waiting: Vec::new(),
    };
    let run = run_tests(
        &mut tests,
        &runner,
        jobs,
        args.run.quiet,
        &interrupted,
        started,
    )?;
    match run.ending {
        Ending::OriginalFails { done, verdict } => {
            let side = Side::BOTH[done.property];
            let (input, test) = match side {
                Side::Seed => (&args.seed, args.test_seed.as_ref()),
                Side::Variant => (&args.variant, args.test_variant.as_ref()),
            };
            let test = test.map_or_else(|| "the command".to_string(), |t| t.display().to_string());
            eprintln!(
                "whittle pair: the {} {} does not pass its test ({test}): it says {}.",
                side.name(),
                input.display(),
                describe(&verdict)
            );
            if !done.output.trim().is_empty() {
                eprintln!("Its output was:\n{}", done.output.trim_end());
            }
            let want = match (side, args.cmd.is_some()) {
                (Side::Seed, true) => "compile without matching --match",
                (Side::Variant, true) => "match --match",
                _ => "exit 0",
            };
            eprintln!(
                "Check the test by hand: copy {} into an empty folder and run the test there; it must {want}.",
                tests.names[side as usize]
            );
            return Ok(1);
        }
        Ending::Interrupted => {
            eprintln!("whittle pair: interrupted; the best pair so far is saved")
        }
        Ending::Done => {}
    }
    tests.save()?;
    let session = &tests.session;
    let wall = started.elapsed().as_secs_f64();
    let engine = run.engine + setup_cpu;
    let mut st = session.pair_stats();
    // The exact size of the difference, by a fresh token diff of the results.
    st.diff_tokens_after = diff_tokens(lang, session.best_seed(), session.best_variant());
    let s = &st.session;
    eprintln!(
        "whittle pair: seed {} -> {} tokens, variant {} -> {} tokens, diff {} -> {} tokens in {:.1} s",
        st.seed_tokens_before, st.seed_tokens_after, st.variant_tokens_before, st.variant_tokens_after, st.diff_tokens_before, st.diff_tokens_after, wall
    );
    eprintln!(
        "whittle pair: {} queries (seed {}, variant {}; {} cache hits, {} invalid candidates skipped, {} invalid queries, {} errors); engine {:.2} s",
        s.queries, st.seed_queries, st.variant_queries, s.cache_hits, s.invalid_skipped, s.invalid_queries, s.errors, engine.as_secs_f64()
    );
    eprintln!(
        "whittle pair: results in {}, {} and {}",
        outputs.seed.display(),
        outputs.variant.display(),
        outputs.diff.display()
    );
    if let Some(msg) = run.first_failure {
        eprintln!("whittle pair: note: some tests could not run: {msg}");
    }
    print!(
        "{}",
        unified_diff(
            session.best_seed(),
            session.best_variant(),
            &file_name(&outputs.seed),
            &file_name(&outputs.variant)
        )
    );
    if let Some(path) = &args.run.stats_json {
        let mut json = serde_json::to_value(&st).unwrap_or_default();
        json["wall_seconds"] = wall.into();
        json["engine_seconds"] = engine.as_secs_f64().into();
        json["strategy"] = "pairwise".into();
        json["common_strategy"] = strategy.name().into();
        json["jobs"] = jobs.into();
        json["seed_output"] = outputs.seed.display().to_string().into();
        json["variant_output"] = outputs.variant.display().to_string().into();
        json["diff_output"] = outputs.diff.display().to_string().into();
        json["history"] = serde_json::to_value(session.history()).unwrap_or_default();
        // The verdicts replay the reduction without the tests (`PairSession::replay`).
        json["verdicts"] = verdict_string(session.verdicts()).into();
        write_stats(path, &json)?;
    }
    Ok(exit_status(&interrupted))
}
