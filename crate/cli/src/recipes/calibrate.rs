//! A template made into a recipe by running its steps on the original: the crash's signature,
//! the wrong-code builds' disagreement, the guard's verdict, which build is the reference,
//! and how long a program may run. Each refusal says what to do.

use crate::scratch::Scratch;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use whittle::recipe::{self, compile_command, sh_quote, Build, Guard, Recipe};
use whittle_serve::process::{self, Confinement, Exit, Spec};
use whittle_serve::sandbox::Sandbox;

/// A spec in a PID namespace that dies with whittle, as the tests run, when bubblewrap is
/// there: a killed run leaves no compiler behind.
fn tethered(program: PathBuf, args: Vec<OsString>, dir: &Path, limit: Duration) -> Spec {
    static TETHER: OnceLock<Option<Arc<Sandbox>>> = OnceLock::new();
    let mut spec = Spec::new(program, args, dir.to_path_buf(), Instant::now() + limit);
    if let Some(sandbox) = TETHER.get_or_init(|| Sandbox::detect().ok().map(Arc::new)) {
        spec.confinement = Confinement::Tethered(sandbox.clone());
    }
    spec
}

/// `cmd` run by sh in `dir`, within `limit`.
fn sh(dir: &Path, cmd: &str, limit: Duration) -> Result<Exit, String> {
    process::run(tethered(
        "sh".into(),
        vec!["-c".into(), cmd.into()],
        dir,
        limit,
    ))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The last lines of a compiler's complaint, for messages.
fn tail(o: &Exit) -> String {
    let all = text(&o.stderr) + &text(&o.stdout);
    let lines: Vec<&str> = all.lines().collect();
    lines[lines.len().saturating_sub(8)..].join("\n")
}

fn folder_with(name: &str, text: &str) -> Result<Scratch, String> {
    let dir = Scratch::new("calibrate")?;
    std::fs::write(dir.path().join(name), text)
        .map_err(|e| format!("cannot write {name} in {}: {e}", dir.path().display()))?;
    Ok(dir)
}

/// `cmd` (`{}` for the file) run on the original, in `dir`, which holds it as `name`; refused
/// when it runs past `limit`.
fn on_original(dir: &Scratch, cmd: &str, name: &str, limit: Duration) -> Result<Exit, String> {
    let o = sh(dir.path(), &cmd.replace("{}", &sh_quote(name)), limit)?;
    if o.timed_out {
        return Err(format!(
            "`{cmd}` on the original ran past {:.0} s (--timeout)",
            limit.as_secs_f64()
        ));
    }
    Ok(o)
}

pub fn crash(cmd: &str, name: &str, text: &str, limit: Duration) -> Result<Recipe, String> {
    let dir = folder_with(name, text)?;
    let o = on_original(&dir, cmd, name, limit)?;
    let output = text_of(&o);
    Recipe::crash(cmd, &output, o.code).ok_or_else(|| {
        format!(
            "the original does not crash `{cmd}`: it exited {} and printed no internal compiler error, assertion, panic or stack dump; for another message use --match REGEX. Its output:\n{}",
            o.code,
            tail(&o)
        )
    })
}

fn text_of(o: &Exit) -> String {
    text(&o.stdout) + &text(&o.stderr)
}

/// A program's run: exit status and stdout.
type Answer = (i32, Vec<u8>);

/// Builds with `cmd` into `out` and runs the program three times: its answer and the
/// slowest run's seconds.
fn build_and_run(
    dir: &Path,
    label: &str,
    cmd: &str,
    out: &str,
    name: &str,
    limit: Duration,
) -> Result<(Answer, f64), String> {
    let o = sh(dir, &compile_command(cmd, &sh_quote(name), out), limit)?;
    if o.code != 0 || o.timed_out {
        return Err(format!(
            "{label} does not build the original (exit {}):\n{}",
            o.code,
            tail(&o)
        ));
    }
    let mut answer: Option<Answer> = None;
    let mut slowest: f64 = 0.0;
    for _ in 0..3 {
        let ran = run(dir, out, limit)?;
        if ran.timed_out {
            return Err(format!(
                "the original's program built by {label} did not end within {:.0} s (--timeout)",
                limit.as_secs_f64()
            ));
        }
        slowest = slowest.max(ran.elapsed.as_secs_f64());
        let this = (ran.code, ran.stdout);
        match &answer {
            Some(a) if *a != this => return Err(format!(
                "the original's program built by {label} answers differently from run to run (it may print an address, the time, or read memory it never set): two builds of it cannot be compared"
            )),
            _ => answer = Some(this),
        }
    }
    Ok((answer.unwrap_or_default(), slowest))
}

fn run(dir: &Path, program: &str, limit: Duration) -> Result<Exit, String> {
    let mut spec = tethered(dir.join(program), vec![], dir, limit);
    spec.env = vec![("ASAN_OPTIONS".into(), "detect_leaks=0".into())];
    spec.output_cap = 8 << 20;
    process::run(spec)
}

pub fn wrong_code(
    a: &str,
    b: &str,
    guard: Option<&str>,
    name: &str,
    text: &str,
    limit: Duration,
) -> Result<Recipe, String> {
    let dir = folder_with(name, text)?;
    let d = dir.path();
    let (answer_a, time_a) = build_and_run(d, "CMD_A", a, "whittle-a", name, limit)?;
    let (answer_b, time_b) = build_and_run(d, "CMD_B", b, "whittle-b", name, limit)?;
    if answer_a == answer_b {
        return Err(format!(
            "the two builds agree on the original (exit {}, the same output): there is no wrong code to reduce",
            answer_a.0
        ));
    }
    let mut times = vec![time_a, time_b];
    let guard = match guard {
        Some(cc) => {
            let (g, time) = guard_of(d, cc, name, &answer_a, &answer_b, limit)?;
            times.push(time);
            Some(g)
        }
        None => None,
    };
    Ok(Recipe::WrongCode {
        a: a.to_string(),
        b: b.to_string(),
        run_limit: recipe::adaptive_limit(&times),
        guard,
    })
}

/// The guard's verdict on the original, and which build its sanitized run agrees with.
fn guard_of(
    d: &Path,
    cc: &str,
    name: &str,
    answer_a: &Answer,
    answer_b: &Answer,
    limit: Duration,
) -> Result<(Guard, f64), String> {
    let f = sh_quote(name);
    let warnings = sh(
        d,
        &format!("{cc} {} -c {f} -o whittle-w.o", recipe::warning_flags()),
        limit,
    )?;
    if warnings.code != 0 {
        return Err(format!(
            "the guard refuses the original: `{cc}` with the warnings that flag undefined behaviour as errors says:\n{}\nFix the original, or reduce with --no-guard (the result may then show no real bug)",
            tail(&warnings)
        ));
    }
    let build = sh(
        d,
        &format!("{cc} -O0 -g {} {f} -o whittle-s -lm", recipe::SANITIZE),
        limit,
    )?;
    if build.code != 0 {
        return Err(format!(
            "the guard cannot build the original with sanitizers (`{cc}`; --guard-cc names another compiler, --no-guard turns the guard off):\n{}",
            tail(&build)
        ));
    }
    let ran = run(d, "whittle-s", limit)?;
    let answer = (ran.code, ran.stdout.clone());
    let stderr = text(&ran.stderr);
    let reference = if stderr.contains("runtime error") || stderr.contains("Sanitizer") {
        None
    } else if answer == *answer_a {
        Some(Build::A)
    } else if answer == *answer_b {
        Some(Build::B)
    } else {
        None
    };
    let reference = reference.ok_or_else(|| {
        let last: Vec<&str> = stderr.lines().take(6).collect();
        format!(
            "the guard refuses the original: its sanitized run (exit {}) agrees with neither build{}\nFix the original, or reduce with --no-guard (the result may then show no real bug)",
            ran.code,
            if last.is_empty() { String::new() } else { format!(":\n{}", last.join("\n")) }
        )
    })?;
    Ok((
        Guard {
            cc: cc.to_string(),
            reference,
        },
        ran.elapsed.as_secs_f64(),
    ))
}

/// The diagnostic recipe: the first line of `cmd`'s output on the original that contains
/// `pick`, without its place; with `no_new_errors`, the original's error messages are the only
/// ones a candidate may have.
pub fn diagnostic(
    cmd: &str,
    pick: &str,
    no_new_errors: bool,
    name: &str,
    text: &str,
    limit: Duration,
) -> Result<Recipe, String> {
    let dir = folder_with(name, text)?;
    let o = on_original(&dir, cmd, name, limit)?;
    let output = text_of(&o);
    Recipe::diagnostic(cmd, pick, no_new_errors, &output).ok_or_else(|| {
        format!(
            "no line of `{cmd}`'s output on the original contains \"{pick}\"; pick a few words of one of these:\n{}",
            tail(&o)
        )
    })
}

/// The slow-compile recipe: `cmd` must take more than `factor` times as long as `reference`;
/// the original must already (one run of each).
pub fn slow(
    cmd: &str,
    reference: &str,
    factor: f64,
    name: &str,
    text: &str,
    limit: Duration,
) -> Result<Recipe, String> {
    let dir = folder_with(name, text)?;
    let r = on_original(&dir, reference, name, limit)?;
    let c = on_original(&dir, cmd, name, limit)?;
    Recipe::slow(
        cmd,
        reference,
        factor,
        (c.elapsed.as_secs_f64(), r.elapsed.as_secs_f64()),
        c.code,
    )
}

/// The default reference of a slow compile: `cmd` with its optimization flags made `-O0`.
pub fn unoptimized(cmd: &str) -> Option<String> {
    let words: Vec<&str> = cmd.split_whitespace().collect();
    let changed = words.iter().any(|w| w.starts_with("-O") && *w != "-O0");
    changed.then(|| {
        let words: Vec<&str> = words
            .iter()
            .map(|w| if w.starts_with("-O") { "-O0" } else { w })
            .collect();
        words.join(" ")
    })
}

/// The recipe with each of its commands' flags (and their arguments) tried away, from the
/// last, on the reduced program `text`: a flag goes when the recipe's script still says
/// interesting without it.
pub fn fewest_flags(
    recipe: &Recipe,
    name: &str,
    text: &str,
    limit: Duration,
) -> Result<Recipe, String> {
    let dir = folder_with(name, text)?;
    let script = dir.path().join("whittle-test.sh");
    let mut best = recipe.clone();
    for k in 0..best.commands_mut().len() {
        let mut i = recipe::flag_groups(best.commands_mut()[k]).len();
        while i > 0 {
            i -= 1;
            let mut candidate = best.clone();
            {
                let cmd = &mut *candidate.commands_mut()[k];
                let group = recipe::flag_groups(cmd)[i].clone();
                *cmd = recipe::without_words(cmd, group);
            }
            std::fs::write(&script, candidate.script(name))
                .map_err(|e| format!("cannot write {}: {e}", script.display()))?;
            let o = sh(dir.path(), "sh ./whittle-test.sh", limit)?;
            if o.code == recipe::status::INTERESTING && !o.timed_out {
                best = candidate;
            }
        }
    }
    Ok(best)
}
