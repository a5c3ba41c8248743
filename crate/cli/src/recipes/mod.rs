//! The property of `whittle reduce` made ready before the reduction (issue 27): a template
//! (`--wrong-code`, `--crash`, `--diagnostic`, `--slow-compile`) calibrated on the original and written as a test script
//! ([`whittle::recipe`]), the original tested three times (a flaky test is said so, and its
//! steps confirmed), and the time limit derived from the original's runs.

mod calibrate;
mod confirm;

pub use confirm::confirmed;

use crate::commands::args::{PropertyArgs, RunArgs};
use crate::runner::{Job, Properties, Property, Runner, TestOutcome};
use crate::scratch::Scratch;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use whittle::recipe::{self, Recipe};
use whittle::Side;

#[derive(clap::Args)]
pub struct RecipeArgs {
    /// Wrong code: two compile commands, each given FILE and an output name (`{}` and
    /// `{out}`, else appended as `{} -o {out}`); interesting when both build and their
    /// programs' runs disagree (exit status or stdout), guarded against undefined behaviour.
    /// With --endpoint, each is a compiler id and its flags (`cg152 -O2`), as is --guard-cc.
    #[arg(long, num_args = 2, value_names = ["CMD_A", "CMD_B"], conflicts_with_all = ["test", "cmd", "pattern", "exit", "crash", "diagnostic", "slow_compile"])]
    pub wrong_code: Option<Vec<String>>,
    /// With --cmd (or --endpoint): interesting when the command crashes with the original's
    /// signature (gcc's internal compiler error, an assertion, clang's stack dump, rustc's
    /// panic, a signal).
    #[arg(long, conflicts_with_all = ["pattern", "exit", "diagnostic", "slow_compile"])]
    pub crash: bool,
    /// With --cmd (or --endpoint): interesting while the command's output has the original's
    /// message that contains TEXT (its first such line, without file and line), e.g.
    /// --diagnostic Wsign-compare.
    #[arg(long, value_name = "TEXT", conflicts_with_all = ["pattern", "exit", "slow_compile"])]
    pub diagnostic: Option<String>,
    /// With --diagnostic: and no error message the original did not have.
    #[arg(long, requires = "diagnostic")]
    pub no_new_errors: bool,
    /// With --cmd: interesting while the command takes more than N times as long as
    /// --reference on the same candidate (and exits as on the original).
    #[arg(long, requires = "cmd", value_name = "N", conflicts_with_all = ["pattern", "exit"])]
    pub slow_compile: Option<f64>,
    /// With --slow-compile: the compile to compare with (default: --cmd with -O0 for its -O
    /// flags).
    #[arg(long, requires = "slow_compile", value_name = "CMD")]
    pub reference: Option<String>,
    /// After the program, reduce the template's flags: each flag (with its argument) is tried
    /// away on the result, and the fewest that keep the property are printed. With a folder
    /// and --cmd: the command's flags and the files it names are reduced with the folder (the
    /// result in DIR.cmd).
    #[arg(long)]
    pub reduce_flags: bool,
    /// With --crash, --diagnostic or --wrong-code: do not remember verdicts (by default they
    /// are kept in $XDG_CACHE_HOME/whittle/verdicts, else ~/.cache/whittle/verdicts, keyed by
    /// the template's script, which names the compilers' versions).
    #[arg(long, conflicts_with = "cache")]
    pub no_cache: bool,
    /// With --wrong-code: no undefined-behaviour guard (a result may then show no real bug).
    #[arg(long, requires = "wrong_code")]
    pub no_guard: bool,
    /// The guard's compiler (gcc's warnings and sanitizers); flags such as -I may follow.
    #[arg(long, default_value = "gcc", value_name = "CMD")]
    pub guard_cc: String,
    /// Print the test as a standalone C-Reduce-style script (exit 0 = interesting) and exit,
    /// so C-Vise and C-Reduce can run the same test.
    #[arg(long)]
    pub print_test: bool,
    /// Confirm each step the test accepts N more times; a step that does not hold is undone
    /// (by default 2 when the original's three verdicts disagree, else 0).
    #[arg(long, value_name = "N")]
    pub confirm: Option<usize>,
}

/// What the run counts apart, from the test threads.
#[derive(Default, Debug)]
pub struct Tally {
    /// Candidates that showed the bug but failed the undefined-behaviour guard.
    pub guard: AtomicUsize,
    /// Candidates whose program ran past the recipe's run limit.
    pub slow: AtomicUsize,
    /// Accepted steps a confirmation undid.
    pub undone: AtomicUsize,
}

impl Tally {
    pub fn count(counter: &AtomicUsize) {
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

/// The property, ready to reduce with.
pub struct Prepared {
    pub property: Property,
    pub timeout: Duration,
    pub tally: Arc<Tally>,
    /// The template's recipe, if one made the property.
    pub recipe: Option<Recipe>,
    /// Holds the recipe's script while the run lasts.
    _folder: Option<Scratch>,
}

/// Where a template's verdicts are remembered unless `--no-cache` or `--cache DIR` says
/// otherwise: templates are deterministic (a slow compile, which is timed, is not).
pub fn default_cache(args: &RecipeArgs) -> Option<PathBuf> {
    let template = args.crash || args.diagnostic.is_some() || args.wrong_code.is_some();
    if !template || args.no_cache || args.print_test {
        return None;
    }
    let home = std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(home.join("whittle").join("verdicts"))
}

/// The first line of `--version` of each command's program, as comments: a template's
/// script names the compilers it ran, so that verdicts kept for one compiler are never
/// reused for another.
fn versions(recipe: &Recipe) -> String {
    let mut r = recipe.clone();
    let mut programs: Vec<String> = r
        .commands_mut()
        .iter()
        .filter_map(|c| c.split_whitespace().find(|w| !w.contains('=')))
        .map(str::to_string)
        .collect();
    if let Recipe::WrongCode { guard: Some(g), .. } = recipe {
        programs.extend(g.cc.split_whitespace().next().map(str::to_string));
    }
    programs.dedup();
    let mut out = String::new();
    for p in programs {
        let said = std::process::Command::new(&p).arg("--version").output();
        let first = said.ok().map(|o| {
            let text = String::from_utf8_lossy(&o.stdout).into_owned()
                + &String::from_utf8_lossy(&o.stderr);
            text.lines().next().unwrap_or("").trim().to_string()
        });
        out += &format!("# {p} --version: {}\n", first.unwrap_or_default());
    }
    out
}

/// The recipe's script, with the versions of the compilers it runs after its first line.
fn script_of(recipe: &Recipe, name: &str) -> String {
    let script = recipe.script(name);
    let (shebang, rest) = script.split_once('\n').unwrap_or((&script, ""));
    format!("{shebang}\n{}{rest}", versions(recipe))
}

/// --crash or --diagnostic given neither a command nor an endpoint.
const NO_CMD: &str =
    "--crash and --diagnostic need --cmd CMD, the compile to watch (or --endpoint URL with --compiler ID)";

/// The default limit of a test, when neither the user nor the original's runs say.
const DEFAULT_TIMEOUT: f64 = 60.0;

/// Makes the property from the command line and the original (`text`, tested as `name`).
/// `Ok(None)` when `--print-test` printed the script. A `deterministic` test (`--cache`) is
/// not run three times on the original.
pub fn prepare(
    args: &RecipeArgs,
    property: &PropertyArgs,
    run: &RunArgs,
    name: &str,
    text: &str,
    deterministic: bool,
) -> Result<Option<Prepared>, String> {
    let tally = Arc::new(Tally::default());
    let limit = Duration::from_secs_f64(run.common.timeout.unwrap_or(DEFAULT_TIMEOUT));
    let recipe = if let Some(cmds) = &args.wrong_code {
        let guard = (!args.no_guard).then_some(args.guard_cc.as_str());
        Some(calibrate::wrong_code(
            &cmds[0], &cmds[1], guard, name, text, limit,
        )?)
    } else if args.crash {
        let cmd = property.cmd.as_deref().ok_or(NO_CMD)?;
        Some(calibrate::crash(cmd, name, text, limit)?)
    } else if let Some(pick) = &args.diagnostic {
        let cmd = property.cmd.as_deref().ok_or(NO_CMD)?;
        let strict = args.no_new_errors;
        Some(calibrate::diagnostic(cmd, pick, strict, name, text, limit)?)
    } else if let Some(factor) = args.slow_compile {
        let cmd = property.cmd.as_deref().unwrap_or_default();
        let reference = match &args.reference {
            Some(r) => r.clone(),
            None => calibrate::unoptimized(cmd).ok_or(
                "--slow-compile needs --reference CMD, the compile to compare with (--cmd has no -O flag to make -O0)",
            )?,
        };
        Some(calibrate::slow(cmd, &reference, factor, name, text, limit)?)
    } else {
        None
    };
    if args.reduce_flags && recipe.is_none() {
        return Err("--reduce-flags needs a template: --wrong-code, --crash, --diagnostic or --slow-compile".into());
    }
    if args.print_test {
        let recipe = recipe.ok_or(
            "--print-test needs a template: --wrong-code, --crash, --diagnostic or --slow-compile",
        )?;
        print!("{}", script_of(&recipe, name));
        return Ok(None);
    }
    let (mut test, folder) = match &recipe {
        Some(recipe) => {
            let folder = Scratch::new("recipe")?;
            let path = folder.path().join("test.sh");
            write_script(&path, &script_of(recipe, name))?;
            let test = Property::Recipe {
                script: path,
                tally: tally.clone(),
            };
            (test, Some(folder))
        }
        None => (property.property()?, None),
    };
    if let Some(recipe) = &recipe {
        eprintln!("whittle reduce: {}", describe(recipe));
    }
    // A test declared deterministic (`--cache`) is not tried three times: a second run then
    // runs no test at all.
    let (verdicts, times) = match deterministic {
        true => (Vec::new(), Vec::new()),
        false => test_original(&test, name, text, limit)?,
    };
    let confirm = recipe::confirmations(&verdicts, args.confirm);
    if recipe::flaky(&verdicts) {
        eprintln!(
            "whittle reduce: the test is flaky: {} of {} runs on the original said interesting; each accepted step is confirmed {confirm} more times",
            verdicts.iter().filter(|&&v| v).count(),
            verdicts.len()
        );
    }
    let timeout = match run.common.timeout {
        Some(t) => Duration::from_secs_f64(t),
        None if verdicts.iter().any(|&v| v) => {
            let t = recipe::adaptive_limit(&times);
            eprintln!("whittle reduce: a test may take {t:.1} s (10 x the original's slowest of 3 runs, at least 1 s; --timeout sets it)");
            Duration::from_secs_f64(t)
        }
        // The original is not interesting: the reduction says so, with the test's output.
        None => limit,
    };
    if confirm > 0 {
        test = Property::Confirmed {
            test: Box::new(test),
            times: confirm,
            tally: tally.clone(),
        };
    }
    Ok(Some(Prepared {
        property: test,
        timeout,
        tally,
        recipe,
        _folder: folder,
    }))
}

pub fn describe(recipe: &Recipe) -> String {
    match recipe {
        Recipe::WrongCode {
            run_limit, guard, ..
        } => format!(
            "wrong code: the two builds' runs disagree on the original; a run may take {run_limit:.1} s; {}",
            match guard {
                Some(g) => format!(
                    "guarded against undefined behaviour by {} (the sanitized run agrees with CMD_{:?})",
                    g.cc, g.reference
                ),
                None => "no guard against undefined behaviour (--no-guard)".into(),
            }
        ),
        Recipe::Crash { signature, .. } => {
            format!("crash signature: {}", signature.describe())
        }
        Recipe::Diagnostic {
            message, errors, ..
        } => format!(
            "diagnostic: \"{message}\"{}",
            match errors {
                Some(e) => format!(", and no error beyond the original's {}", e.len()),
                None => String::new(),
            }
        ),
        Recipe::Slow {
            reference, factor, ..
        } => format!("slow compile: more than {factor} times as long as `{reference}`"),
    }
}

/// After the reduction, with `--reduce-flags`: the fewest flags that keep the property on
/// the result `text`, said and returned as the commands.
pub fn reduce_flags(
    prepared: &Prepared,
    name: &str,
    text: &str,
) -> Result<Option<Vec<String>>, String> {
    let Some(recipe) = &prepared.recipe else {
        return Ok(None);
    };
    let mut before = recipe.clone();
    let fewest = calibrate::fewest_flags(recipe, name, text, prepared.timeout)?;
    let mut after = fewest.clone();
    let pairs = before.commands_mut().into_iter().zip(after.commands_mut());
    let mut kept = Vec::new();
    for (b, a) in pairs {
        eprintln!("whittle reduce: flags: `{b}` -> `{a}`");
        kept.push(a.clone());
    }
    Ok(Some(kept))
}

fn write_script(path: &Path, text: &str) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text)
        .and_then(|()| std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)))
        .map_err(|e| format!("cannot write the test script {}: {e}", path.display()))
}

/// The original tested [`recipe::ORIGINAL_RUNS`] times, one after another, on the test pool (so a killed run
/// leaves no test behind): each verdict, and the time of each run (seconds).
fn test_original(
    test: &Property,
    name: &str,
    text: &str,
    limit: Duration,
) -> Result<(Vec<bool>, Vec<f64>), String> {
    let pool = Runner::new(
        Properties {
            seed: None,
            variant: test.clone(),
        },
        1,
        limit,
    );
    let (mut verdicts, mut times) = (vec![], vec![]);
    for id in 0..recipe::ORIGINAL_RUNS as u64 {
        let start = Instant::now();
        pool.submit(Job {
            id,
            side: Side::Variant,
            original: false,
            file: (name.to_string(), text.to_string()),
        });
        let done = pool
            .results
            .recv()
            .map_err(|_| "the test of the original did not come back".to_string())?;
        times.push(start.elapsed().as_secs_f64());
        match done.outcome {
            TestOutcome::Interesting => verdicts.push(true),
            TestOutcome::Boring => verdicts.push(false),
            // The reduction says why the original fails.
            _ => return Ok((vec![false], times)),
        }
    }
    Ok((verdicts, times))
}

/// The run's figures for the closing lines and `--stats-json`.
pub fn figures(tally: &Tally, timeouts: usize) -> serde_json::Value {
    serde_json::json!({
        "timeouts": timeouts,
        "guard_rejected": tally.guard.load(Ordering::Relaxed),
        "slow_runs": tally.slow.load(Ordering::Relaxed),
        "undone": tally.undone.load(Ordering::Relaxed),
    })
}

/// The closing line of those figures, when any is not 0.
pub fn summary(tally: &Tally, timeouts: usize) -> Option<String> {
    let g = |c: &AtomicUsize| c.load(Ordering::Relaxed);
    let parts: Vec<String> = [
        (timeouts, "tests timed out"),
        (
            g(&tally.guard),
            "candidates failed the undefined-behaviour guard",
        ),
        (
            g(&tally.slow),
            "candidates' programs ran past the run limit",
        ),
        (g(&tally.undone), "accepted steps undone by a confirmation"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}
