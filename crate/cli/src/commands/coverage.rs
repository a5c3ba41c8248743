//! `whittle coverage --objects DIR -- CMD [ARGS...]`: runs one compile of a compiler built with
//! `--coverage` and prints what it covered, as one line of Coverage JSON
//! (`{"tccgen.c": {"gen_op": [101, 102]}}`). The counters go to a private temporary folder,
//! so any number of these may run at once. This is the coverage command `whittle witness
//! --coverage` runs.
//!
//! CMD's stdout and stderr go to whittle's stderr (stdout is the JSON's); the exit status is
//! CMD's (128 + the signal when one ended it), so a script can still tell a crash. whittle's
//! own failures exit 125 (no coverage build, gcov failed), 127 when CMD could not start.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use whittle_serve::coverage::Gcov;
use whittle_serve::process::{self, Confinement, Exit, Spec};

/// whittle's own failure (as `env` and `git bisect run` use it).
const OWN_FAILURE: i32 = 125;
/// CMD could not be started (as a shell says "not found").
const NOT_STARTED: i32 = 127;
/// CMD's output kept (each stream) for forwarding.
const OUTPUT_CAP: usize = 64 << 20;
/// How long gcov may take to read the counters.
const GCOV_TIME: Duration = Duration::from_secs(120);

#[derive(clap::Args)]
pub struct CoverageArgs {
    /// The compiler's build folder, holding its .gcno files (scripts/build-tcc.sh builds tcc
    /// into target/tcc/build).
    #[arg(long, value_name = "DIR")]
    pub objects: PathBuf,
    /// Seconds CMD may run; past that its whole process group is killed (exit status 137).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// The compile: the compiler built with --coverage and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<OsString>,
}

pub fn run(args: CoverageArgs) -> i32 {
    match coverage(args) {
        Ok(code) => code,
        Err((code, e)) => {
            eprintln!("whittle coverage: {e}");
            code
        }
    }
}

fn coverage(args: CoverageArgs) -> Result<i32, (i32, String)> {
    let own = |e: String| (OWN_FAILURE, e);
    let gcov = Gcov::new(&args.objects).map_err(own)?;
    let deadline = deadline(args.timeout).map_err(own)?;
    // 0700, removed when dropped: no other compile's counters get in. Named for this
    // process, so that a run killed outright has its folder swept by the next.
    crate::scratch::sweep();
    let counters = crate::scratch::Scratch::new("coverage-").map_err(own)?;
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&cancel);
    // Ctrl-C kills CMD's group and still removes the folder.
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));

    let outcome = run_command(&args.command, gcov.env(counters.path()), deadline, cancel)
        .map_err(|e| (NOT_STARTED, e))?;
    forward(&outcome);
    if outcome.cancelled {
        return Ok(130);
    }
    if outcome.timed_out {
        eprintln!("whittle coverage: the command ran out of time and was killed");
    }
    let cov = gcov
        .collect(
            counters.path(),
            Instant::now() + GCOV_TIME,
            Confinement::None,
        )
        .map_err(own)?;
    let json = serde_json::to_string(&cov).expect("coverage serializes");
    let mut out = std::io::stdout().lock();
    writeln!(out, "{json}")
        .and_then(|()| out.flush())
        .map_err(|e| own(format!("cannot write the coverage: {e}")))?;
    Ok(outcome.code)
}

/// `--timeout` as a deadline; without one, CMD runs as long as it takes.
fn deadline(timeout: Option<f64>) -> Result<Instant, String> {
    let far = Duration::from_secs(10 * 365 * 24 * 3600);
    let limit = match timeout {
        None => far,
        Some(s) if s > 0.0 && s.is_finite() => Duration::from_secs_f64(s).min(far),
        Some(_) => return Err("--timeout must be a positive number of seconds".into()),
    };
    Ok(Instant::now() + limit)
}

/// Runs CMD in the current folder with the counters' environment, in its own process group
/// (which dies with whittle).
fn run_command(
    command: &[OsString],
    env: Vec<(String, OsString)>,
    deadline: Instant,
    cancel: Arc<AtomicBool>,
) -> Result<Exit, String> {
    let (program, args) = command.split_first().ok_or("no command after --")?;
    let cwd = std::env::current_dir().map_err(|e| format!("no current folder: {e}"))?;
    let mut spec = Spec::new(program.into(), args.to_vec(), cwd, deadline);
    spec.env = env;
    spec.output_cap = OUTPUT_CAP;
    spec.cancel = cancel;
    process::run(spec)
}

/// CMD's stdout, then its stderr, to whittle's stderr.
fn forward(o: &Exit) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(&o.stdout);
    let _ = err.write_all(&o.stderr);
    if o.truncated() {
        let _ = writeln!(
            err,
            "whittle coverage: [the command's output was cut at {} MiB]",
            OUTPUT_CAP >> 20
        );
    }
}
