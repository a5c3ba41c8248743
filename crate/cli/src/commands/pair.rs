//! `whittle pair`: pairwise reduction (PPR) of a seed and a variant, each with its own test.
//!
//! Each side is tested as `whittle reduce` tests a program: in a fresh folder, under the
//! side's own file name. The engine says which side to test when (the variant first, the
//! seed only once the variant passed and its verdict is not known already).

use crate::commands::witness::Checks;
use crate::drive::{
    describe, exit_status, interrupt_flag, jobs, property_from, run_tests, save, timed,
    write_stats, Ending, Shell,
};
use crate::runner::{Done, Properties, Tests};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use whittle::pair::{unified_diff, Pair, PairSession, PairStats};
use whittle::reduce::{Settings, Verdict};
use whittle::Side;

#[derive(clap::Args)]
pub struct PairArgs {
    /// The program that does not show the behaviour.
    #[arg(
        long,
        required_unless_present = "auto_seed",
        conflicts_with = "auto_seed"
    )]
    pub seed: Option<PathBuf>,
    /// No seed at hand: find one by mutating the variant (a witness: it passes --test-seed and fails --test-variant), then reduce the pair.
    #[arg(long)]
    pub auto_seed: bool,
    /// With --auto-seed: tests the witness search may run at most.
    #[arg(long, default_value_t = 300)]
    pub witness_budget: usize,
    /// With --auto-seed: a command run beside the variant whose output is the compiler's report on it (e.g. the compile with its warnings); the search tries first where that report points.
    #[arg(long, requires = "auto_seed")]
    pub witness_trace: Option<PathBuf>,
    /// With --auto-seed: the compiler message the bug is about (a regex); the search tries first near the lines of the messages it matches.
    #[arg(long, requires = "auto_seed", value_name = "REGEX")]
    pub witness_focus: Option<String>,
    /// The program derived from the seed that does.
    #[arg(long)]
    pub variant: PathBuf,
    /// Refuse a seed or variant the grammar cannot fully parse (by default they are reduced
    /// tolerantly: no candidate may add a syntax error its side did not have).
    #[arg(long)]
    pub strict: bool,
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
    pub run: crate::commands::args::RunArgs,
    #[command(flatten)]
    pub endpoint: crate::remote::EndpointArgs,
    /// Where the tests run (`--cluster`), their files, and the verdict cache (`--cache`; each
    /// side's verdicts under its own test).
    #[command(flatten)]
    pub cluster: crate::cluster::ClusterArgs,
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

/// `whittle pair` around the test loop: each side under its own name, the results beside.
struct PairShell<'a> {
    names: [String; 2],
    outputs: &'a Outputs,
}

impl PairShell<'_> {
    fn name(&self, side: Side) -> &str {
        &self.names[side as usize]
    }
}

impl Shell<Pair> for PairShell<'_> {
    fn file_name(&self, side: Side) -> String {
        self.name(side).to_string()
    }

    fn sizes(&self, session: &PairSession) -> Option<String> {
        let s = session.sizes();
        Some(format!(
            "seed {}, variant {}, diff {} tokens",
            s.seed, s.variant, s.diff
        ))
    }

    fn save(&self, session: &PairSession) -> Result<(), String> {
        let (seed, variant) = (session.best_seed(), session.best_variant());
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
    // One Ctrl-C handler for both phases: the seed search (--auto-seed) and the reduction.
    let interrupted = interrupt_flag();
    if args.variant.is_dir() {
        return crate::folder_pair::pair(&args, &interrupted);
    }
    let variant = crate::input::read_program(&args.variant)?;
    let lang = crate::input::pick_lang(args.run.lang.as_deref(), &args.variant, &variant)?;
    let (seed_path, seed) = match &args.seed {
        Some(path) => (path.clone(), crate::input::read_program(path)?),
        None => match auto_seed(&args, lang, &variant, &interrupted)? {
            Some(found) => found,
            None => return Ok(1),
        },
    };
    let settings = Settings {
        strict: args.strict,
        ..args.run.settings()?
    };
    let strategy = settings.strategy;
    let (runner, jobs) = tests_for(&args)?;
    // A found seed is tested under the variant's name, as --test-seed judged it in the search.
    let seed_name = if args.auto_seed {
        &args.variant
    } else {
        &seed_path
    };
    let names = [file_name(seed_name), file_name(&args.variant)];
    if names[0] == names[1] && args.cmd.is_none() && !args.auto_seed {
        eprintln!("whittle pair: note: seed and variant are both named {}; each test sees only its own side", names[0]);
    }
    // The clocks start before the parses and the diff: they are the engine's work too.
    let started = Instant::now();
    let (session, setup_cpu) = timed(|| PairSession::new(lang, &seed, &variant, settings));
    let mut session = session.map_err(|e| {
        let path = match e.side {
            Some(Side::Seed) => &seed_path,
            _ => &args.variant,
        };
        let refusal = crate::input::unparseable(path, &e);
        format!("{refusal} (or drop --strict: whittle then reduces it, adding no syntax error)")
    })?;
    for (side, n) in ["seed", "variant"].iter().zip(session.error_regions()) {
        if n > 0 {
            eprintln!("whittle pair: the {side} has {n} syntax error region(s) the grammar cannot parse; reducing tolerantly: no candidate may add a syntax error (--strict refuses such input)");
        }
    }
    let outputs = Outputs {
        seed: min_path(&seed_path),
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

    let shell = PairShell {
        names,
        outputs: &outputs,
    };
    let run = run_tests(
        &mut session,
        &shell,
        runner.as_ref(),
        jobs,
        args.run.common.quiet,
        &interrupted,
        started,
    )?;
    match run.ending {
        Ending::OriginalFails { done, verdict } => {
            let input = match done.side {
                Side::Seed => &seed_path,
                Side::Variant => &args.variant,
            };
            let copy = shell.name(done.side).to_string();
            say_side_fails(&args, &done, &verdict, &input.display().to_string(), &copy);
            return Ok(1);
        }
        Ending::Interrupted => {
            eprintln!("whittle pair: interrupted; the best pair so far is saved")
        }
        Ending::Done => {}
    }
    shell.save(&session)?;
    let outputs_list = [&outputs.seed, &outputs.variant, &outputs.diff];
    let ended = Ended {
        stats: session.pair_stats(),
        wall: started.elapsed().as_secs_f64(),
        engine: run.engine + setup_cpu,
        outputs: outputs_list.map(PathBuf::as_path),
    };
    ended.say();
    run.say_cache("pair", args.cluster.cache.is_some());
    if let Some(msg) = &run.first_failure {
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
    if let Some(path) = &args.run.common.stats_json {
        let mut json = ended.json(jobs, &interrupted);
        json["common_strategy"] = strategy.name().into();
        run.add_test_figures(&mut json);
        json["history"] = serde_json::to_value(session.history()).unwrap_or_default();
        // The verdicts replay the reduction without the tests (`PairSession::replay`).
        json["verdicts"] = session.recording().to_string().into();
        write_stats(path, &json)?;
    }
    Ok(exit_status(&interrupted))
}

/// A side's original does not pass its test: which, what it said, and how to check by hand
/// (`what`: the side's input; `copy`: what to copy into an empty folder to run the test).
pub fn say_side_fails(args: &PairArgs, done: &Done, verdict: &Verdict, what: &str, copy: &str) {
    let side = done.side;
    let test = match side {
        Side::Seed => args.test_seed.as_ref(),
        Side::Variant => args.test_variant.as_ref(),
    };
    let test = test.map_or_else(|| "the command".to_string(), |t| t.display().to_string());
    eprintln!(
        "whittle pair: the {} {what} does not pass its test ({test}): it says {}.",
        side.name(),
        describe(verdict)
    );
    if !done.output.trim().is_empty() {
        eprintln!("Its output was:\n{}", done.output.trim_end());
    }
    let want = match (side, args.cmd.is_some()) {
        (Side::Seed, true) => "compile without matching --match",
        (Side::Variant, true) => "match --match",
        _ => "exit 0",
    };
    eprintln!("Check the test by hand: copy {copy} into an empty folder and run the test there; it must {want}.");
}

/// How a pair run ended, of two files or two folders: its figures and where its results are.
pub struct Ended<'a> {
    pub stats: PairStats,
    pub wall: f64,
    pub engine: Duration,
    /// The seed's, the variant's and the diff's.
    pub outputs: [&'a Path; 3],
}

impl Ended<'_> {
    /// The figures and the results' places, on stderr.
    pub fn say(&self) {
        let st = &self.stats;
        let s = &st.session;
        eprintln!(
            "whittle pair: seed {} -> {} tokens, variant {} -> {} tokens, diff {} -> {} tokens in {:.1} s",
            st.seed_tokens_before, st.seed_tokens_after, st.variant_tokens_before, st.variant_tokens_after, st.diff_tokens_before, st.diff_tokens_after, self.wall
        );
        eprintln!(
            "whittle pair: {} queries (seed {}, variant {}; {} cache hits, {} invalid candidates skipped, {} invalid queries, {} errors); engine {:.2} s",
            s.queries, st.seed_queries, st.variant_queries, s.cache_hits, s.invalid_skipped, s.invalid_queries, s.errors, self.engine.as_secs_f64()
        );
        let [seed, variant, diff] = self.outputs.map(Path::display);
        eprintln!("whittle pair: results in {seed}, {variant} and {diff}");
    }

    /// The figures for `--stats-json`.
    pub fn json(&self, jobs: usize, interrupted: &AtomicBool) -> serde_json::Value {
        let mut json = serde_json::to_value(&self.stats).unwrap_or_default();
        json["wall_seconds"] = self.wall.into();
        json["engine_seconds"] = self.engine.as_secs_f64().into();
        json["strategy"] = "pairwise".into();
        json["jobs"] = jobs.into();
        // Cut short by Ctrl-C or SIGTERM: the figures are those of the best so far.
        json["interrupted"] = interrupted.load(std::sync::atomic::Ordering::SeqCst).into();
        let [seed, variant, diff] = self.outputs.map(|p| p.display().to_string());
        json["seed_output"] = seed.into();
        json["variant_output"] = variant.into();
        json["diff_output"] = diff.into();
        json
    }
}

/// The two sides' tests: compiles on Compiler Explorer endpoints (--endpoint), or tests on
/// this machine or a cluster, behind the verdict cache if asked; and how many run at once.
pub fn tests_for(args: &PairArgs) -> Result<(Box<dyn Tests>, usize), String> {
    let (pattern, exit) = (args.pattern.as_deref(), args.exit);
    let timeout = Duration::from_secs_f64(args.run.common.timeout_seconds());
    // Queries as compiles on Compiler Explorer endpoints (--endpoint), else local tests.
    let local = args.cmd.is_some() || args.test_seed.is_some();
    let remote =
        args.endpoint
            .runner_with(pattern, exit, local, true, args.run.common.jobs, timeout)?;
    if remote.is_none() && args.cmd.is_none() && args.test_seed.is_none() {
        return Err("say what each side must do: --test-seed ./check-seed.sh --test-variant ./check-variant.sh, or --cmd 'CMD {}' --match REGEX (the variant's output must match, the seed's must not)".into());
    }
    // With --cmd, the seed is interesting when the output does *not* match.
    let properties = match remote {
        Some(_) => None,
        None => Some(Properties {
            seed: Some(property_from(
                args.test_seed.as_deref(),
                args.cmd.as_deref(),
                pattern,
                exit,
                true,
            )?),
            variant: property_from(
                args.test_variant.as_deref(),
                args.cmd.as_deref(),
                pattern,
                exit,
                false,
            )?,
        }),
    };
    // Compiles on endpoints, or tests on this machine or a cluster, behind the cache if asked.
    if remote.is_some() && (args.cluster.cluster.is_some() || args.cluster.cache.is_some()) {
        return Err("--endpoint, and --cluster or --cache: give one way to run the tests".into());
    }
    Ok(match (remote, properties) {
        (Some((runner, jobs)), _) => (Box::new(runner), jobs),
        (None, properties) => {
            let properties = properties.ok_or("no property")?;
            crate::cluster::sides_tests_for(
                &args.cluster,
                properties,
                args.run.common.jobs,
                timeout,
            )?
        }
    })
}

/// What the seed search runs, and how many at once: the two scripts, or over `--endpoint`
/// the variant's compile (`--match`, `--exit`) and a seed's (it compiles, and does not match).
fn seed_checks(args: &PairArgs, name: &str) -> Result<(Checks, usize), String> {
    let timeout = args.run.common.timeout_seconds();
    let focus = args.witness_focus.as_deref();
    let e = &args.endpoint;
    if !e.endpoints.is_empty() {
        if args.witness_trace.is_some() || args.test_seed.is_some() || args.cmd.is_some() {
            return Err("over --endpoint the seed search judges the endpoint's compiles: no --test-seed, --cmd or --witness-trace (--witness-focus REGEX still says where to look first)".into());
        }
        let (pattern, jobs) = (args.pattern.as_deref(), args.run.common.jobs);
        return Checks::over(e, pattern, args.exit, focus, name, jobs, timeout);
    }
    let (Some(test_seed), Some(test_variant)) = (&args.test_seed, &args.test_variant) else {
        return Err("--auto-seed needs the two scripts: --test-variant (exit 0 = the bug shows) and --test-seed (exit 0 = the compiler accepts it and the bug does not show), or --endpoint URL with --match REGEX".into());
    };
    let trace = args.witness_trace.as_deref();
    let checks = Checks::new(
        test_variant,
        Some(test_seed),
        None,
        trace,
        focus,
        name.to_string(),
        timeout,
    )?;
    Ok((checks, jobs(args.run.common.jobs)))
}

/// `--auto-seed`: a witness of the variant becomes the seed, saved as `<variant stem>.seed.<ext>`
/// beside it. `None` (after saying why) when the search finds none.
fn auto_seed(
    args: &PairArgs,
    lang: whittle::Lang,
    variant: &str,
    interrupted: &AtomicBool,
) -> Result<Option<(PathBuf, String)>, String> {
    use crate::commands::witness::{search, Searched};
    use whittle::witness::{Keep, WitnessSearch, WitnessSettings};
    let name = crate::input::file_name(&args.variant, "--variant")?;
    let (checks, jobs) = seed_checks(args, &name)?;
    let settings = WitnessSettings {
        budget: args.witness_budget.max(2),
        want: Some(1),
        // Any witness will do as a seed: diversity is for ranking a compiler's files.
        keep: Keep::All,
        ..WitnessSettings::default()
    };
    let mut session = WitnessSearch::new(lang, variant, settings)
        .map_err(|e| crate::input::unparseable(&args.variant, &e))?;
    eprintln!(
        "whittle pair: looking for a seed: mutants of {} that pass --test-seed (at most {} tests)",
        args.variant.display(),
        args.witness_budget
    );
    let ending = search(&mut session, checks, jobs, true, interrupted, |_| Ok(()))?;
    match ending {
        Searched::OriginalPasses(..) => {
            eprintln!("whittle pair: the variant {} does not pass --test-variant: check the test by hand in a folder holding {name}; it must exit 0.", args.variant.display());
            return Ok(None);
        }
        Searched::Interrupted => {
            eprintln!("whittle pair: interrupted before a seed was found");
            return Ok(None);
        }
        Searched::Done => {}
    }
    let Some(w) = session.witnesses().first() else {
        let s = session.stats();
        eprintln!(
            "whittle pair: no seed found in {} tests ({} still failing, {} rejected by --test-seed): raise --witness-budget, or give --seed",
            s.queries, s.failing, s.rejected
        );
        return Ok(None);
    };
    let stem = args
        .variant
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("variant");
    let path = match args.variant.extension().and_then(|e| e.to_str()) {
        Some(ext) => args.variant.with_file_name(format!("{stem}.seed.{ext}")),
        None => args.variant.with_file_name(format!("{stem}.seed")),
    };
    save(&path, &w.text)?;
    let what: Vec<String> = w
        .changes
        .iter()
        .map(|c| format!("line {}: {} -> {}", c.line, c.before, c.after))
        .collect();
    eprintln!(
        "whittle pair: seed found after {} tests ({}), saved as {}",
        session.stats().queries,
        what.join("; "),
        path.display()
    );
    Ok(Some((path, w.text.clone())))
}
