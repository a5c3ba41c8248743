//! The `whittle` command line: parse, reduce, pair, serve.

mod cli;

use clap::{Parser, Subcommand};

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
    Parse(cli::parse::ParseArgs),
    /// Reduce a program while a test keeps saying it is interesting.
    Reduce(cli::reduce::ReduceArgs),
    /// Reduce a seed and a variant together, down to the difference that matters (PPR).
    Pair(cli::pair::PairArgs),
    /// Serve the playground page and the compile API.
    Serve(cli::serve::ServeArgs),
}

fn main() {
    let args = Args::parse();
    let code = match args.command {
        Command::Parse(a) => cli::parse::run(a),
        Command::Reduce(a) => cli::reduce::run(a),
        Command::Pair(a) => cli::pair::run(a),
        Command::Serve(a) => cli::serve::run(a),
    };
    std::process::exit(code);
}
