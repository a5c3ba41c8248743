//! Flags more than one command takes: the property (`reduce`, `generate`), the run's
//! (`reduce`, `pair`) and those of every command that runs tests (`Common`).

use crate::drive::property_from;
use std::path::PathBuf;
use whittle::catalog;
use whittle::reduce::{Settings, Strategy};

/// What makes a program interesting, for `reduce` and `generate` (a pair has one per side).
#[derive(clap::Args)]
pub struct PropertyArgs {
    /// An interestingness test: run in a folder holding the candidate under FILE's name; exit 0 = interesting.
    #[arg(long, conflicts_with = "cmd")]
    pub test: Option<PathBuf>,
    /// A command instead of a script; `{}` stands for the file, e.g. 'gcc -O2 -Wall -c {}'
    /// (with --match, or with --crash).
    #[arg(long)]
    pub cmd: Option<String>,
    /// With --cmd: a regex the command's output (stdout and stderr) must match.
    #[arg(long = "match", value_name = "REGEX")]
    pub pattern: Option<String>,
    /// With --cmd: the exit status the command must have.
    #[arg(long)]
    pub exit: Option<i32>,
}

impl PropertyArgs {
    pub fn property(&self) -> Result<crate::runner::Property, String> {
        property_from(
            self.test.as_deref(),
            self.cmd.as_deref(),
            self.pattern.as_deref(),
            self.exit,
            false,
        )
    }
}

/// Options `reduce` and `pair` share.
#[derive(clap::Args)]
pub struct RunArgs {
    /// The strategy (for pairs: what MinCommonality runs).
    #[arg(long, default_value = "perses", help = strategy_help())]
    pub strategy: String,
    #[command(flatten)]
    pub common: Common,
    #[arg(long, help = lang_help())]
    pub lang: Option<String>,
    #[arg(long, value_name = "NAME", value_delimiter = ',', help = skip_pass_help())]
    pub skip_pass: Vec<String>,
}

/// Options every command that runs tests takes: `reduce`, `pair`, `generate`, `witness`.
#[derive(clap::Args)]
pub struct Common {
    /// Tests run in parallel (default: the number of cores).
    #[arg(short = 'j', long = "jobs")]
    pub jobs: Option<usize>,
    /// Seconds a test may run before its whole process group is killed (`reduce`: by default
    /// 10 times the original's slowest of 3 runs, at least 1; the others: 60).
    #[arg(long)]
    pub timeout: Option<f64>,
    /// Write the final statistics as JSON here (`witness`: with the witnesses and the
    /// ranking).
    #[arg(long, value_name = "PATH")]
    pub stats_json: Option<PathBuf>,
    /// No progress line, even on a terminal.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

impl Common {
    /// The time limit of a test where no calibration sets it.
    pub fn timeout_seconds(&self) -> f64 {
        self.timeout.unwrap_or(60.0)
    }
}

fn skip_pass_help() -> String {
    format!(
        "Leave a pass out (repeatable, or NAME,NAME): {} (see --list-passes)",
        catalog::pass_names()
    )
}

fn strategy_help() -> String {
    format!(
        "{} (for pairs: what MinCommonality runs)",
        catalog::strategy_names()
    )
}

fn lang_help() -> String {
    format!(
        "The language ({}), when the file name does not tell",
        catalog::lang_names()
    )
}

impl RunArgs {
    pub fn strategy(&self) -> Result<Strategy, String> {
        catalog::strategy(&self.strategy)
    }

    pub fn settings(&self) -> Result<Settings, String> {
        let (skipped, skipped_cross) =
            catalog::skipped_passes(self.skip_pass.iter().map(String::as_str))?;
        Ok(Settings {
            strategy: self.strategy()?,
            // A test of the incremental validity check itself: confirm each verdict in full.
            cross_check: std::env::var_os("WHITTLE_CHECK_INCREMENTAL").is_some(),
            skipped,
            skipped_cross,
            ..Settings::default()
        })
    }
}
