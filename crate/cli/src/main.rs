//! The `whittle` command line: parse, reduce, pair, generate, witness, serve. The native shells
//! around the engine (crate `whittle`): they read files and decide what to run; `whittle-serve`
//! runs it (contained processes) and serves HTTP.

mod cache;
mod cluster;
mod commands;
mod drive;
mod files;
mod folder;
mod folder_pair;
mod generator_process;
mod input;
mod progress;
mod recipes;
mod remote;
mod runner;
mod scratch;
mod stop;

use clap::{Parser, Subcommand};
use commands::{coverage as cov, generate, pair, parse, reduce, serve, witness};
use whittle_serve::jail;

#[derive(Parser)]
#[command(
    name = "whittle",
    version,
    about = "Reduce programs that make a compiler misbehave"
)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse a file and report language, token count, errors and round-trip.
    Parse(parse::ParseArgs),
    /// Reduce a program while a test keeps saying it is interesting.
    Reduce(reduce::ReduceArgs),
    /// Reduce a seed and a variant together, down to the difference that matters (PPR).
    Pair(pair::PairArgs),
    /// Reduce a generator's run instead of its output (GReduce).
    Generate(generate::GenerateArgs),
    /// Serve the playground page and the compile API.
    Serve(serve::ServeArgs),
    /// Mutate a failing program into witnesses that pass; rank the compiler's files by coverage (DiWi).
    Witness(witness::WitnessArgs),
    /// Run one compile of a compiler built with --coverage; print what it covered as JSON.
    Coverage(cov::CoverageArgs),
    /// On a cluster's worker: run one query read on stdin (see docs/cluster.md).
    #[command(hide = true)]
    ClusterTask,
}

fn main() {
    // A compile job's first program inside its sandbox (see `jail`), before any parsing.
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if argv.get(1).is_some_and(|a| a == jail::DROPPER) {
        jail::enter(&argv[2..]);
    }
    let args = Args::parse();
    let code = match args.command {
        Command::Parse(a) => parse::run(a),
        // Runs that Ctrl-C and SIGTERM must stop within a second, even mid-parse.
        Command::Reduce(a) => stop::run("reduce", || reduce::run(a)),
        Command::Pair(a) => stop::run("pair", || pair::run(a)),
        Command::Generate(a) => stop::run("generate", || generate::run(a)),
        Command::Witness(a) => stop::run("witness", || witness::run(a)),
        Command::Serve(a) => serve::run(a),
        Command::Coverage(a) => cov::run(a),
        Command::ClusterTask => stop::run("cluster-task", cluster::run_task),
    };
    std::process::exit(code);
}
