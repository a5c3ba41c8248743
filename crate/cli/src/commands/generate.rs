//! `whittle generate`: generator-based reduction (GReduce). The generator is a program that
//! speaks the line protocol of docs/generator-protocol.md; whittle runs it freely from a seed,
//! then again and again with fewer loop iterations and optional parts, and keeps the smallest
//! output that its test still finds interesting.

use crate::drive::{
    describe, exit_status, interrupt_flag, run_tests, save, timed, write_stats, Ending, Shell,
};
use crate::generator_process::ProcessGenerator;
use crate::runner::Tests;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use whittle::generator::{Generated, GeneratorSession, GeneratorSettings};
use whittle::{catalog, Side};

#[derive(clap::Args)]
pub struct GenerateArgs {
    /// The generator: a command (run with sh -c) that speaks whittle's line protocol, e.g.
    /// 'node examples/generators/run.mjs examples/generators/password.mjs'.
    #[arg(long)]
    pub generator: String,
    /// The random seed of the first, free run (default: the one the generator names in its
    /// hello; `--seed N` still works).
    #[arg(long, alias = "seed", value_name = "N")]
    pub rng_seed: Option<u64>,
    #[command(flatten)]
    pub property: super::args::PropertyArgs,
    /// Outputs as compiles on Compiler Explorer-compatible endpoints (with --match and/or
    /// --exit) instead of a local test.
    #[command(flatten)]
    pub endpoint: crate::remote::EndpointArgs,
    /// Where the tests run (`--cluster`), their files, and the verdict cache (`--cache`).
    #[command(flatten)]
    pub cluster: crate::cluster::ClusterArgs,
    /// Where the smallest interesting output goes as it improves (its trace beside it, FILE.trace.json).
    #[arg(long, short = 'o', default_value = "generated.txt")]
    pub output: PathBuf,
    /// What a replay does when the run leaves the reduced trace.
    #[arg(long, default_value = "realign", help = align_help())]
    pub align: String,
    /// How the trace is reduced.
    #[arg(long, default_value = "hdd", help = trace_help())]
    pub trace: String,
    #[command(flatten)]
    pub common: super::args::Common,
    /// Seconds one run of the generator may take.
    #[arg(long, default_value_t = 10.0)]
    pub gen_timeout: f64,
}

pub fn run(args: GenerateArgs) -> i32 {
    match generate(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("whittle generate: {e}");
            2
        }
    }
}

type Session = GeneratorSession<ProcessGenerator>;

fn align_help() -> String {
    format!(
        "What a replay does when the run leaves the reduced trace: {}",
        catalog::align_names()
    )
}

fn trace_help() -> String {
    format!(
        "How the trace is reduced: {} (hdd over the tree of loops and selections, ddmin over the flat decision sequence)",
        catalog::trace_names()
    )
}

/// The output and its trace, written as they improve.
struct GenShell<'a> {
    name: String,
    output: &'a Path,
}

impl GenShell<'_> {
    fn trace_path(&self) -> PathBuf {
        let mut p = self.output.as_os_str().to_owned();
        p.push(".trace.json");
        PathBuf::from(p)
    }
}

impl Shell<Generated<ProcessGenerator>> for GenShell<'_> {
    fn file_name(&self, _side: Side) -> String {
        self.name.clone()
    }

    fn save(&self, session: &Session) -> Result<(), String> {
        save(self.output, session.best())?;
        let trace = serde_json::to_string_pretty(session.trace()).unwrap_or_default();
        save(&self.trace_path(), &trace)
    }
}

fn generate(args: GenerateArgs) -> Result<i32, String> {
    let align = catalog::align(&args.align)?;
    let trace = catalog::trace_strategy(&args.trace)?;
    let timeout = Duration::from_secs_f64(args.common.timeout_seconds());
    // Compiles on endpoints (--endpoint), else the local test.
    let remote = args
        .endpoint
        .runner_for(&args.property, args.common.jobs, timeout)?;
    let property = match remote {
        Some(_) => None,
        None => Some(args.property.property()?),
    };
    let name = crate::input::file_name(&args.output, "--output")?;
    if !(args.gen_timeout > 0.0 && args.gen_timeout.is_finite()) {
        return Err("--gen-timeout must be a positive number of seconds".into());
    }
    let generator = ProcessGenerator::new(
        args.generator.clone(),
        Duration::from_secs_f64(args.gen_timeout),
    );
    let seed = match args.rng_seed {
        Some(s) => s,
        None => generator
            .default_seed()
            .map_err(|e| format!("{}; check the generator by hand: {}", e.0, args.generator))?
            .unwrap_or(0),
    };
    let started = Instant::now();
    if remote.is_some() && (args.cluster.cluster.is_some() || args.cluster.cache.is_some()) {
        return Err("--endpoint, and --cluster or --cache: give one way to run the tests".into());
    }
    // Compiles on endpoints, or tests on this machine or a cluster, behind the cache if asked.
    let (runner, jobs): (Box<dyn Tests>, usize) = match (remote, property) {
        (Some((runner, jobs)), _) => (Box::new(runner), jobs),
        (None, Some(property)) => {
            crate::cluster::tests_for(&args.cluster, property, args.common.jobs, timeout)?
        }
        (None, None) => unreachable!("a local test without --endpoint"),
    };
    let settings = GeneratorSettings {
        rng_seed: seed,
        align,
        trace,
    };
    let (session, setup_cpu) = timed(|| GeneratorSession::new(generator, settings));
    let mut session = session.map_err(|e| {
        format!(
            "the generator's free run from seed {seed} failed: {}; check it by hand: {}",
            e.0, args.generator
        )
    })?;
    eprintln!(
        "whittle generate: seed {seed}, output {} bytes, {} units in its trace ({}, {}, {jobs} tests at a time)",
        session.best().len(),
        session.trace().units().len(),
        trace.name(),
        align.name()
    );
    let shell = GenShell {
        name: name.clone(),
        output: &args.output,
    };
    shell.save(&session)?;
    let interrupted = interrupt_flag();
    let run = run_tests(
        &mut session,
        &shell,
        runner.as_ref(),
        jobs,
        args.common.quiet,
        &interrupted,
        started,
    )?;
    match run.ending {
        Ending::OriginalFails { done, verdict } => {
            eprintln!(
                "whittle generate: the output of seed {seed} is not interesting: the test says {}.",
                describe(&verdict)
            );
            if !done.output.trim().is_empty() {
                eprintln!("Its output was:\n{}", done.output.trim_end());
            }
            eprintln!(
                "It is in {}: run the test on it by hand, or try another --rng-seed.",
                args.output.display()
            );
            return Ok(1);
        }
        Ending::Interrupted => eprintln!(
            "whittle generate: interrupted; the best output so far is in {}",
            args.output.display()
        ),
        Ending::Done => {}
    }
    shell.save(&session)?;
    let wall = started.elapsed().as_secs_f64();
    let engine = run.engine + setup_cpu;
    let s = session.stats();
    eprintln!(
        "whittle generate: {} -> {} bytes in {wall:.1} s; {} queries ({} cache hits, {} generator runs that failed or halted); the result is in {}",
        s.bytes_before, s.bytes_now, s.queries, s.cache_hits, session.failed_runs(), args.output.display()
    );
    run.say_cache("generate", args.cluster.cache.is_some());
    if let Some(msg) = &run.first_failure {
        eprintln!("whittle generate: note: some tests could not run: {msg}");
    }
    if let Some(path) = &args.common.stats_json {
        let mut json = serde_json::to_value(s).unwrap_or_default();
        json["wall_seconds"] = wall.into();
        json["engine_seconds"] = engine.as_secs_f64().into();
        json["rng_seed"] = seed.into();
        json["align"] = align.name().into();
        json["trace"] = trace.name().into();
        json["failed_runs"] = session.failed_runs().into();
        json["jobs"] = jobs.into();
        run.add_test_figures(&mut json);
        // Cut short by Ctrl-C or SIGTERM: the figures are those of the best so far.
        json["interrupted"] = interrupted.load(std::sync::atomic::Ordering::SeqCst).into();
        json["verdicts"] = session.recording().to_string().into();
        json["trace_tree"] = serde_json::to_value(session.trace()).unwrap_or_default();
        write_stats(path, &json)?;
    }
    Ok(exit_status(&interrupted))
}
