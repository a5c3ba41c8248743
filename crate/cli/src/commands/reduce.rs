//! `whittle reduce`: the C-Reduce/C-Vise protocol around a [`Session`].

use super::args::{PropertyArgs, RunArgs};
use crate::drive::{
    exit_status, interrupt_flag, pass_table, run_tests, save, say_original_fails, stats_json,
    timed, write_stats, Ending, Shell,
};
use crate::runner::Tests;
use std::path::{Path, PathBuf};
use std::time::Instant;
use whittle::reduce::{Session, Settings, Single};
use whittle::{catalog, Side};

#[derive(clap::Args)]
pub struct ReduceArgs {
    /// The program to reduce, or a folder of them (reduced together, one test seeing the whole
    /// tree); each new best is written back to it (the original is kept as FILE.orig).
    #[arg(required_unless_present = "list_passes")]
    pub file: Option<PathBuf>,
    /// Print the passes (name, the rounds each runs in, what it does) and exit.
    #[arg(long, exclusive = true)]
    pub list_passes: bool,
    #[command(flatten)]
    pub property: PropertyArgs,
    #[command(flatten)]
    pub recipe: crate::recipes::RecipeArgs,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub endpoint: crate::remote::EndpointArgs,
    #[command(flatten)]
    pub cluster: crate::cluster::ClusterArgs,
    /// Refuse a program the grammar cannot fully parse (by default it is reduced tolerantly:
    /// no candidate may add a syntax error the program did not have).
    #[arg(long)]
    pub strict: bool,
    /// C only: do not end by leaving out `int` where C89 and K&R C let it go (`f() { ... }`,
    /// `typedef t;`), for a compiler that rejects implicit int. Those candidates do not parse
    /// as C99 and are counted apart (unparsed queries).
    #[arg(long)]
    pub no_implicit_int: bool,
    /// Keep the original's layout instead of ending with the result laid out afresh (one
    /// statement a line, two-space indents; kept only if the test still passes).
    #[arg(long)]
    pub keep_layout: bool,
}

pub fn run(args: ReduceArgs) -> i32 {
    let Some(file) = args.file.clone() else {
        // Clap asks for a FILE unless the passes are listed.
        print!("{}", catalog::pass_table());
        return 0;
    };
    // A folder is reduced as one test case (crate::folder).
    let reduced = match file.is_dir() {
        true => crate::folder::reduce(args, &file),
        false => reduce(args, &file),
    };
    match reduced {
        Ok(code) => code,
        Err(e) => {
            eprintln!("whittle reduce: {e}");
            2
        }
    }
}

/// `whittle reduce` around the test loop: one file, written back as it improves.
struct SingleShell<'a> {
    name: String,
    file: &'a Path,
}

impl Shell<Single> for SingleShell<'_> {
    fn file_name(&self, _side: Side) -> String {
        self.name.clone()
    }

    fn save(&self, session: &Session) -> Result<(), String> {
        save(self.file, session.best())
    }
}

fn reduce(mut args: ReduceArgs, file: &Path) -> Result<i32, String> {
    // Read without following a link, with the mode its replacements keep.
    let crate::files::OwnFile { text, mode } = crate::files::read_own(file)?;
    let lang = crate::input::pick_lang(args.run.lang.as_deref(), file, &text)?;
    let settings = Settings {
        strict: args.strict,
        implicit_int: !args.no_implicit_int,
        format: !args.keep_layout,
        ..args.run.settings()?
    };
    let strategy = settings.strategy;
    let name = crate::input::file_name(file, "FILE")?;
    // Queries as compiles on Compiler Explorer endpoints (--endpoint), else local tests.
    let remote = remote_runner(&args, &text)?;
    if remote.is_some() && args.cluster.cluster.is_some() {
        return Err("--endpoint and --cluster both say where tests run: give one".into());
    }
    // The clocks start before the parse: parsing the original is the engine's work too (and
    // before the original's three tests, which are the run's).
    let started = Instant::now();
    let prepared = match remote {
        Some(_) => None,
        None => {
            match crate::recipes::prepare(
                &args.recipe,
                &args.property,
                &args.run,
                &name,
                &text,
                args.cluster.cache.is_some(),
            )? {
                Some(prepared) => Some(prepared),
                None => return Ok(0), // --print-test
            }
        }
    };
    let (session, parse_cpu) = timed(|| Session::new(lang, &text, settings));
    let mut session = session.map_err(|e| {
        let refusal = crate::input::unparseable(file, &e);
        format!("{refusal} (or drop --strict: whittle then reduces it, adding no syntax error)")
    })?;
    if let Some(note) = grammar_coverage_note(&session) {
        eprintln!("whittle reduce: {note}");
    }

    let orig = PathBuf::from(format!("{}.orig", file.display()));
    // An existing FILE.orig may be the only copy of an earlier run's original: never touched.
    let made_orig = crate::files::keep_original(&orig, &text, mode)?;
    // The session has its own copies: a big input is not held once more.
    drop(text);
    let interrupted = interrupt_flag();
    // Compiles on endpoints, or tests on this machine's threads or a cluster, behind the
    // verdict cache if asked.
    let (runner, jobs, tally): (Box<dyn Tests>, usize, _) = match (remote, &prepared) {
        (Some((runner, jobs)), _) => (Box::new(runner), jobs, Default::default()),
        (None, Some(prepared)) => {
            if let (None, Some(dir)) = (
                &args.cluster.cache,
                crate::recipes::default_cache(&args.recipe),
            ) {
                eprintln!(
                    "whittle reduce: verdicts are remembered in {} (--no-cache: not)",
                    dir.display()
                );
                args.cluster.cache = Some(dir);
            }
            let (runner, jobs) = crate::cluster::tests_for(
                &args.cluster,
                prepared.property.clone(),
                args.run.common.jobs,
                prepared.timeout,
            )?;
            (runner, jobs, prepared.tally.clone())
        }
        (None, None) => unreachable!("a local run is prepared"),
    };
    let shell = SingleShell {
        name: name.clone(),
        file,
    };
    // A run the main thread has to end (the engine busy past a signal's grace) writes these.
    if let Some(path) = &args.run.common.stats_json {
        crate::stop::figures_to(path);
    }
    // Until here: reading, parsing, and reaching the tests' runner (a cluster's connection).
    let setup = started.elapsed().as_secs_f64();
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
            let by_hand = format!("copy {name} into an empty folder and run the test there");
            say_original_fails(&file.display().to_string(), &done, &verdict, &by_hand);
            if made_orig {
                let _ = std::fs::remove_file(&orig);
            }
            return Ok(1);
        }
        Ending::Interrupted => eprintln!(
            "whittle reduce: interrupted; the best so far ({} tokens) is in {}",
            session.stats().tokens_now,
            file.display()
        ),
        Ending::Done => {}
    }
    save(file, session.best())?;
    let wall = started.elapsed().as_secs_f64();
    let flags = match (&prepared, args.recipe.reduce_flags) {
        (Some(p), true) if matches!(run.ending, Ending::Done) => {
            crate::recipes::reduce_flags(p, &name, session.best())?
        }
        _ => None,
    };
    let engine = run.engine + parse_cpu;
    let s = session.stats();
    eprintln!(
        "whittle reduce: {} -> {} tokens, {} -> {} bytes in {:.1} s; {} queries ({} cache hits, {} invalid candidates skipped, {} invalid queries, {} errors); engine {:.2} s ({:.0}% of the wall time)",
        s.tokens_before, s.tokens_now, s.bytes_before, s.bytes_now, wall, s.queries, s.cache_hits, s.invalid_skipped, s.invalid_queries, s.errors, engine.as_secs_f64(),
        100.0 * engine.as_secs_f64() / wall.max(1e-9)
    );
    if s.unparsed_queries > 0 {
        eprintln!(
            "whittle reduce: {} queries of candidates with implicit int, which C99 cannot parse (--no-implicit-int leaves them out)",
            s.unparsed_queries
        );
    }
    let tally = &tally;
    if let Some(line) = crate::recipes::summary(tally, run.timeouts) {
        eprintln!("whittle reduce: {line}");
    }
    run.say_cache("reduce", args.cluster.cache.is_some());
    for line in pass_table(s, &run.pass_wall) {
        eprintln!("whittle reduce:   {line}");
    }
    eprintln!(
        "whittle reduce: the result is in {} (the original in {})",
        file.display(),
        orig.display()
    );
    if let Some(note) = grammar_coverage_note(&session) {
        eprintln!("whittle reduce: the result: {note}");
    }
    if let Some(msg) = &run.first_failure {
        eprintln!("whittle reduce: note: some tests could not run: {msg}");
    }
    if let Some(path) = &args.run.common.stats_json {
        let mut json = stats_json(s, &run.pass_wall);
        json["wall_seconds"] = wall.into();
        json["setup_seconds"] = setup.into();
        json["engine_seconds"] = engine.as_secs_f64().into();
        json["strategy"] = strategy.name().into();
        let (covered, all) = session.grammar_coverage();
        json["error_tokens"] = (all - covered).into();
        json["jobs"] = jobs.into();
        json["recipe"] = crate::recipes::figures(tally, run.timeouts);
        if let Some(flags) = &flags {
            json["recipe"]["fewest_flags"] = flags.clone().into();
        }
        run.add_test_figures(&mut json);
        // Cut short by Ctrl-C or SIGTERM: the figures are those of the best so far.
        json["interrupted"] = interrupted.load(std::sync::atomic::Ordering::SeqCst).into();
        json["history"] = serde_json::to_value(session.history()).unwrap_or_default();
        // The verdicts replay the reduction without the test (`Session::replay`).
        json["verdicts"] = session.recording().to_string().into();
        write_stats(path, &json)?;
    }
    Ok(exit_status(&interrupted))
}

/// What share of the program the grammar covers, when it is not all of it.
/// The runner of compiles on endpoints, with the property `--match`/`--exit` say or a
/// template (`--crash`, `--diagnostic`) calibrated on the original's compile there; `None`
/// without `--endpoint`.
fn remote_runner(
    args: &ReduceArgs,
    text: &str,
) -> Result<Option<(crate::runner::Runner, usize)>, String> {
    let (endpoint, r) = (&args.endpoint, &args.recipe);
    let timeout = std::time::Duration::from_secs_f64(args.run.common.timeout_seconds());
    if endpoint.endpoints.is_empty() {
        return Ok(None);
    }
    if r.slow_compile.is_some() {
        return Err("--slow-compile times local compiles; over --endpoint use --crash, --diagnostic TEXT or --wrong-code ID_A ID_B, or say what is interesting with --match REGEX and/or --exit N".into());
    }
    if r.print_test || r.reduce_flags {
        return Err(
            "--print-test and --reduce-flags work on a local command (--cmd), not over --endpoint"
                .into(),
        );
    }
    if let Some(builds) = &r.wrong_code {
        // Each build is a compiler id and its flags; so is the guard's compiler.
        let guard = (!r.no_guard).then_some(r.guard_cc.as_str());
        let plan = endpoint.calibrate_wrong_code(&builds[0], &builds[1], guard, text, timeout)?;
        eprintln!(
            "whittle reduce: wrong code: the runs of {} and {} disagree on the original; {}",
            builds[0],
            builds[1],
            match guard {
                Some(g) => format!("guarded against undefined behaviour by {g}"),
                None => "no guard against undefined behaviour (--no-guard)".into(),
            }
        );
        return endpoint
            .runner_for_wrong_code(plan, args.run.common.jobs, timeout)
            .map(Some);
    }
    if !r.crash && r.diagnostic.is_none() {
        return endpoint.runner_for(&args.property, args.run.common.jobs, timeout);
    }
    if args.property.test.is_some() || args.property.cmd.is_some() {
        return Err("with --endpoint the compile is the endpoint's (--compiler, --flags): no --test or --cmd".into());
    }
    let diagnostic = r.diagnostic.as_deref().map(|d| (d, r.no_new_errors));
    let recipe = endpoint.calibrate(r.crash, diagnostic, text, timeout)?;
    eprintln!("whittle reduce: {}", crate::recipes::describe(&recipe));
    endpoint
        .runner_for_recipe(recipe, args.run.common.jobs, timeout)
        .map(Some)
}

fn grammar_coverage_note(session: &Session) -> Option<String> {
    let (covered, all) = session.grammar_coverage();
    (covered < all).then(|| {
        format!(
            "{}; reducing tolerantly: no candidate may add a syntax error (--strict refuses such input)",
            crate::input::grammar_coverage(covered, all)
        )
    })
}
