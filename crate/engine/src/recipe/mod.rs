//! Recipes: properties made from a template and the original's answers (issue 27), as data
//! and pure functions that every shell shares: the crash signature picked from a compiler's
//! output, the flags of the undefined-behaviour guard, time limits derived from the
//! original's, and the recipe written as a standalone C-Reduce-style test script (which the
//! CLI runs itself, so Whittle, C-Vise and C-Reduce test exactly the same thing).

use serde::{Deserialize, Serialize};

pub mod answers;

/// The exit statuses of a recipe's script: 0 is interesting; the others say why not, so a
/// shell can count guard failures and slow runs apart (C-Reduce and C-Vise see only 0 or not).
pub mod status {
    pub const INTERESTING: i32 = 0;
    /// The bug does not show (builds agree, a build failed, another crash).
    pub const NOT_SHOWN: i32 = 1;
    /// The undefined-behaviour guard refused the candidate.
    pub const GUARD: i32 = 3;
    /// A program run passed its time limit.
    pub const SLOW: i32 = 4;
}

/// The shortest reference time a slow-compile recipe divides by (seconds): a compile that
/// took no measurable time is taken to take this long.
pub const SLOW_FLOOR: f64 = 0.01;

/// Whether a compile is slow: it took `cmd_s` seconds (`None`: cut at its limit, slow at
/// once) and exited `code` as the original's did (`expected`), more than `factor` times the
/// `reference_s` seconds of the reference compile (at least [`SLOW_FLOOR`]).
pub fn is_slow(
    factor: f64,
    expected: i32,
    cmd_s: Option<f64>,
    code: i32,
    reference_s: f64,
) -> bool {
    cmd_s.is_none_or(|t| code == expected && t > factor * reference_s.max(SLOW_FLOOR))
}

/// gcc warnings that flag undefined behaviour (or code whose meaning the compilers need not
/// agree on), made errors by the guard's reference build.
pub const UB_WARNINGS: &[&str] = &[
    "uninitialized",
    "maybe-uninitialized",
    "return-type",
    "implicit-function-declaration",
    "implicit-int",
    "int-conversion",
    "incompatible-pointer-types",
    "int-to-pointer-cast",
    "pointer-to-int-cast",
    "array-bounds",
    "div-by-zero",
    "shift-count-overflow",
    "shift-count-negative",
    "shift-negative-value",
    "sequence-point",
    "return-local-addr",
    "stringop-overflow",
    "stringop-overread",
    "nonnull",
    "builtin-declaration-mismatch",
    "aggressive-loop-optimizations",
    "use-after-free",
    "dangling-pointer",
    "free-nonheap-object",
    "main",
    // printf's arguments: one missing or of the wrong type is read from wherever it lies
    // (`printf("%g ")`), which no sanitizer sees.
    "format",
];

/// The guard's sanitizer build: every report aborts the run.
pub const SANITIZE: &str = "-fsanitize=undefined,address -fno-sanitize-recover=all";

/// The guard's reference build: the warnings above as errors, optimized so that gcc's
/// flow analysis (uninitialized, bounds) runs.
pub fn warning_flags() -> String {
    let errors: Vec<String> = UB_WARNINGS.iter().map(|w| format!("-Werror={w}")).collect();
    format!("-O2 {}", errors.join(" "))
}

/// A test's time limit from the original's run times (seconds): ten times the slowest, at
/// least one second.
pub fn adaptive_limit(runs: &[f64]) -> f64 {
    (runs.iter().cloned().fold(0.0, f64::max) * 10.0).max(1.0)
}

/// How many times the test runs on the original before a reduction, afresh: its verdicts tell
/// a flaky test ([`flaky`]), its times the adaptive limit ([`adaptive_limit`]).
pub const ORIGINAL_RUNS: usize = 3;

/// How many more times each accepted step of a flaky test is confirmed, unless the user says.
pub const FLAKY_CONFIRMATIONS: usize = 2;

/// Whether repeated verdicts on the same program disagree.
pub fn flaky(verdicts: &[bool]) -> bool {
    verdicts.iter().any(|&v| v) && verdicts.iter().any(|&v| !v)
}

/// How many more times each accepted step is confirmed, from the original's verdicts: the
/// user's number (`set`), else [`FLAKY_CONFIRMATIONS`] for a flaky test and none for another.
pub fn confirmations(verdicts: &[bool], set: Option<usize>) -> usize {
    set.unwrap_or(if flaky(verdicts) {
        FLAKY_CONFIRMATIONS
    } else {
        0
    })
}

/// Which of the two builds of a wrong-code recipe is the reference: the one whose run the
/// sanitized build agrees with on the original.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Build {
    A,
    B,
}

/// The undefined-behaviour guard of a wrong-code recipe.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Guard {
    /// The compiler command of the reference and sanitizer builds, e.g. `gcc` (flags such as
    /// `-I` may follow).
    pub cc: String,
    /// The build the sanitized run must agree with (exit status and stdout).
    pub reference: Build,
}

/// A crash's signature: every fragment must appear in the compiler's output (stdout and
/// stderr), and the exit status must be `code` when a signal ended the compiler.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signature {
    pub fragments: Vec<String>,
    pub code: Option<i32>,
}

impl Signature {
    pub fn matches(&self, output: &str, code: i32) -> bool {
        code != 0
            && self.code.is_none_or(|c| c == code)
            && self.fragments.iter().all(|f| output.contains(f.as_str()))
    }

    /// In words, for messages.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = self.fragments.iter().map(|f| format!("\"{f}\"")).collect();
        if let Some(c) = self.code {
            parts.push(match c {
                129..=192 => format!("killed by signal {}", c - 128),
                _ => format!("exit status {c}"),
            });
        }
        parts.join(" and ")
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Recipe {
    /// Two builds whose programs' runs disagree (exit status or stdout); each command is
    /// given the file and an output name (`{}` and `{out}`, else appended as `{} -o {out}`).
    WrongCode {
        a: String,
        b: String,
        /// Seconds each program run may take.
        run_limit: f64,
        guard: Option<Guard>,
    },
    /// A compile (`{}` for the file) that crashes with the original's signature.
    Crash { cmd: String, signature: Signature },
    /// A compile whose output still has the original's `message` (see [`message`]) and, with
    /// `errors`, no error message beyond those of the original.
    Diagnostic {
        cmd: String,
        message: String,
        errors: Option<Vec<String>>,
    },
    /// A compile that takes more than `factor` times as long as `reference` on the same
    /// candidate and exits with `code`, as on the original; past `limit` seconds it counts as
    /// slow at once.
    Slow {
        cmd: String,
        reference: String,
        factor: f64,
        code: i32,
        limit: f64,
    },
}

/// A compiler's message without where it is: from its severity (`error: `, `warning: `,
/// `note: `) on, else the whole line, trimmed.
pub fn message(line: &str) -> &str {
    let at = ["error: ", "warning: ", "note: "]
        .iter()
        .filter_map(|s| line.find(s))
        .min();
    at.map_or(line, |i| &line[i..]).trim()
}

/// The error messages of a compiler's output, each from `error: ` on (as the script's awk
/// reads them).
pub fn errors(output: &str) -> Vec<String> {
    let mut out: Vec<String> = output
        .lines()
        .filter_map(|l| l.find("error: ").map(|i| l[i..].to_string()))
        .collect();
    out.dedup();
    out
}

/// Words of a compile command that take the next word as their argument.
const WITH_ARGUMENT: &[&str] = &[
    "-I", "-D", "-U", "-include", "-isystem", "-iquote", "-x", "-L", "-l", "-Xlinker",
];

/// Flags that say what a compile writes and where: never tried away, or a compile that only
/// checked would link into its `-o` target (`-o /dev/null`, as root, replaces the device).
const OUTPUT_KIND: &[&str] = &["-c", "-S", "-E", "-fsyntax-only"];

/// The flags of a compile command that may be tried away, as ranges of its words (split at
/// white space): each `-` word with its argument, never the compiler, `{}`, `{out}`, `-o`
/// and its output, nor the flags of [`OUTPUT_KIND`]. None when the command has quotes or shell syntax, which words cannot
/// split safely.
pub fn flag_groups(cmd: &str) -> Vec<std::ops::Range<usize>> {
    if cmd.contains(|c: char| "'\"\\|;&<>$`()".contains(c)) {
        return Vec::new();
    }
    let words: Vec<&str> = cmd.split_whitespace().collect();
    let mut out = Vec::new();
    let mut i = 1;
    while i < words.len() {
        let w = words[i];
        let (width, goes) = flag_span(w);
        let width = width.min(words.len() - i);
        if w.starts_with('-') && goes && !w.contains("{}") {
            out.push(i..i + width);
        }
        i += width;
    }
    out
}

/// How many words a compile command's `flag` spans (2 with its argument: `-I dir`, `-o out`)
/// and whether it may be tried away: `-o` with its output and the flags of [`OUTPUT_KIND`]
/// never go.
pub fn flag_span(flag: &str) -> (usize, bool) {
    let width = match WITH_ARGUMENT.contains(&flag) || flag == "-o" {
        true => 2,
        false => 1,
    };
    (width, flag != "-o" && !OUTPUT_KIND.contains(&flag))
}

/// How many flag groups (see [`flag_groups`]) a compiler's flags have, the compiler not named.
pub fn flag_count(flags: &str) -> usize {
    flag_groups(&format!("cc {flags}")).len()
}

/// The flags without their `i`th group (see [`flag_groups`]); `None` past the last.
pub fn without_flag(flags: &str, i: usize) -> Option<String> {
    let cmd = format!("cc {flags}");
    let group = flag_groups(&cmd).get(i)?.clone();
    let rest = without_words(&cmd, group);
    Some(
        rest.strip_prefix("cc")
            .unwrap_or(&rest)
            .trim_start()
            .to_string(),
    )
}

/// `cmd` without the words `drop`.
pub fn without_words(cmd: &str, drop: std::ops::Range<usize>) -> String {
    cmd.split_whitespace()
        .enumerate()
        .filter(|(i, _)| !drop.contains(i))
        .map(|(_, w)| w)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The first line that contains `needle`, from `needle` on.
fn line_from<'a>(output: &'a str, needle: &str) -> Option<&'a str> {
    output
        .lines()
        .find_map(|l| l.find(needle).map(|i| l[i..].trim_end()))
}

/// `text` without a trailing `:LINE` or `:LINE:COL`: the line in the compiler's own sources
/// changes from one build of the compiler to the next, the crash does not.
fn without_line_numbers(text: &str) -> &str {
    let mut t = text.trim_end_matches(':');
    for _ in 0..2 {
        let stripped = t.trim_end_matches(|c: char| c.is_ascii_digit());
        if stripped.len() < t.len() && stripped.ends_with(':') {
            t = &stripped[..stripped.len() - 1];
        }
    }
    t
}

/// The first `n` frames of gcc's backtrace (`0x1234 name(args)`), past its signal handler.
fn gcc_frames(output: &str, n: usize) -> Vec<String> {
    output
        .lines()
        .filter_map(|l| l.trim().strip_prefix("0x"))
        .filter_map(|l| l.split_once(' ').map(|(_, name)| name.trim()))
        .filter(|name| !name.is_empty() && !name.starts_with("crash_signal"))
        .take(n)
        .map(|name| name.to_string())
        .collect()
}

/// The first `n` frames of clang's stack dump (` #3 0x... name (module+0x...)`), past
/// the frames of its signal handling and of libc.
fn clang_frames(output: &str, n: usize) -> Vec<String> {
    output
        .lines()
        .filter_map(|l| {
            let l = l.trim_start().strip_prefix('#')?;
            let (_, rest) = l.split_once(" 0x")?;
            let (_, name) = rest.split_once(' ')?;
            Some(name.split(" (").next().unwrap_or(name).trim())
        })
        .filter(|name| {
            !name.is_empty()
                && !name.starts_with("llvm::sys::")
                && !name.contains("SignalHandler")
                && !name.contains("CrashRecoveryContext")
                && !name.starts_with("__restore_rt")
                && !name.starts_with('(')
        })
        .take(n)
        .map(|name| name.to_string())
        .collect()
}

/// The signature of the crash in a compiler's output and exit status, or `None` when the
/// output shows no crash: gcc's internal compiler error (without line numbers, and the first
/// frames of its backtrace when it is a signal), an assertion (clang's or any program's), the
/// top frames of clang's stack dump, rustc's panic (location without line numbers, and
/// message), or a signal that ended the compiler.
pub fn crash_signature(output: &str, code: i32) -> Option<Signature> {
    if code == 0 {
        return None;
    }
    let mut fragments = Vec::new();
    if let Some(ice) = line_from(output, "internal compiler error: ") {
        fragments.push(without_line_numbers(ice).to_string());
        if !ice.contains(", at ") {
            fragments.extend(gcc_frames(output, 2));
        }
    } else if let Some(assertion) = line_from(output, "Assertion `") {
        fragments.push(assertion.to_string());
    } else if let Some(at) = line_from(output, "panicked at ") {
        fragments.push(without_line_numbers(at).to_string());
        // The panic's message is the next line (rustc 1.73 and later).
        let next = output
            .lines()
            .skip_while(|l| !l.contains("panicked at "))
            .nth(1)
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("note:"));
        fragments.extend(next.map(str::to_string));
    } else if output.contains("Stack dump:") {
        fragments.extend(clang_frames(output, 2));
    }
    let signal = (129..=192).contains(&code).then_some(code);
    (!fragments.is_empty() || signal.is_some()).then_some(Signature {
        fragments,
        code: signal,
    })
}

impl Recipe {
    /// The crash recipe of `cmd` from its answer on the original, if it crashed.
    pub fn crash(cmd: &str, output: &str, code: i32) -> Option<Recipe> {
        crash_signature(output, code).map(|signature| Recipe::Crash {
            cmd: cmd.to_string(),
            signature,
        })
    }

    /// The diagnostic recipe of `cmd` from its output on the original: the first line that
    /// contains `pick`, without its place; with `no_new_errors`, the original's errors are
    /// the only ones allowed. `None` when no line contains `pick`.
    pub fn diagnostic(cmd: &str, pick: &str, no_new_errors: bool, output: &str) -> Option<Recipe> {
        let line = output.lines().find(|l| l.contains(pick))?;
        Some(Recipe::Diagnostic {
            cmd: cmd.to_string(),
            message: message(line).to_string(),
            errors: no_new_errors.then(|| errors(output)),
        })
    }

    /// The slow-compile recipe from the original's compile times (seconds) and `cmd`'s exit
    /// status: `cmd` must take more than `factor` times as long as `reference` (at least 10
    /// ms); the error says so when the original does not already. Past twice the original's
    /// time and a second a compile counts as slow at once.
    pub fn slow(
        cmd: &str,
        reference: &str,
        factor: f64,
        (cmd_s, reference_s): (f64, f64),
        code: i32,
    ) -> Result<Recipe, String> {
        let tr = reference_s.max(SLOW_FLOOR);
        if cmd_s <= factor * tr {
            return Err(format!(
                "on the original `{cmd}` takes {cmd_s:.2} s, only {:.1} times the {tr:.2} s of `{reference}`: give a factor below that",
                cmd_s / tr
            ));
        }
        Ok(Recipe::Slow {
            cmd: cmd.to_string(),
            reference: reference.to_string(),
            factor,
            code,
            limit: 2.0 * cmd_s + 1.0,
        })
    }

    /// Whether a slow-compile recipe's compile is slow: it took `cmd_s` seconds (`None`: cut at
    /// the limit, slow at once) and exited `code`, the reference took `reference_s`. The same
    /// verdict as the script's; `None` for the other recipes.
    pub fn slow_verdict(&self, cmd_s: Option<f64>, code: i32, reference_s: f64) -> Option<bool> {
        let Recipe::Slow {
            factor,
            code: expected,
            ..
        } = self
        else {
            return None;
        };
        Some(is_slow(*factor, *expected, cmd_s, code, reference_s))
    }

    /// Whether one compile's answer (exit status and output) is interesting, for the recipes
    /// that need no more than one compile (a crash, a diagnostic); `None` for the others.
    /// The same verdict as the script's.
    pub fn judge(&self, code: i32, output: &str) -> Option<bool> {
        match self {
            Recipe::Crash { signature, .. } => Some(signature.matches(output, code)),
            Recipe::Diagnostic {
                message,
                errors: allowed,
                ..
            } => Some(
                output.contains(message.as_str())
                    && allowed
                        .as_ref()
                        .is_none_or(|a| errors(output).iter().all(|e| a.contains(e))),
            ),
            Recipe::WrongCode { .. } | Recipe::Slow { .. } => None,
        }
    }
}

/// A compile command given the file and the output name.
pub fn compile_command(cmd: &str, file: &str, out: &str) -> String {
    if cmd.contains("{}") {
        cmd.replace("{out}", out).replace("{}", file)
    } else {
        format!("{cmd} {file} -o {out}")
    }
}

/// `s` quoted for sh.
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Seconds for `timeout(1)`.
fn seconds(s: f64) -> String {
    format!("{:.2}", s.max(0.01))
}

impl Recipe {
    /// The recipe as a standalone POSIX sh script, run in a folder that holds the candidate
    /// as `file`: exit 0 when interesting (see [`status`] for the others). Needs only
    /// coreutils' `timeout` and `cmp`, and `grep`.
    pub fn script(&self, file: &str) -> String {
        let f = sh_quote(file);
        let mut s = String::from("#!/bin/sh\n");
        match self {
            Recipe::WrongCode {
                a,
                b,
                run_limit,
                guard,
            } => {
                s += "# Made by `whittle reduce --wrong-code --print-test`: exit 0 when the two builds'\n\
                      # programs disagree (exit status or stdout)";
                s += if guard.is_some() {
                    " and the candidate passes the undefined-behaviour\n# guard (3: the guard refused it; 4: a run was too slow; 1: the bug does not show).\n"
                } else {
                    " (4: a run was too slow; 1: the bug does not show).\n"
                };
                s += "# Runs as it is under C-Reduce and C-Vise.\n";
                let limit = seconds(*run_limit);
                s += &format!("limit={limit}  # seconds a program may run (10 x the original's slowest, at least 1)\n");
                s += "run() { timeout -k 1 \"$limit\" \"./$1\" </dev/null >\"$1.out\" 2>\"$1.err\"; }\n";
                s += "slow() { [ \"$1\" -eq 124 ] || [ \"$1\" -eq 137 ]; }\n";
                s += &format!(
                    "{} >/dev/null 2>&1 || exit 1\n",
                    compile_command(a, &f, "whittle-a")
                );
                s += &format!(
                    "{} >/dev/null 2>&1 || exit 1\n",
                    compile_command(b, &f, "whittle-b")
                );
                s += "run whittle-a; ea=$?\nrun whittle-b; eb=$?\n";
                s += "if slow $ea || slow $eb; then exit 4; fi\n";
                s += "[ $ea -eq $eb ] && cmp -s whittle-a.out whittle-b.out && exit 1\n";
                if let Some(g) = guard {
                    let r = match g.reference {
                        Build::A => "whittle-a",
                        Build::B => "whittle-b",
                    };
                    let er = match g.reference {
                        Build::A => "$ea",
                        Build::B => "$eb",
                    };
                    s += "# The guard, only for candidates that still show the bug: gcc's warnings that flag\n\
                          # undefined behaviour as errors, then a sanitized run that must print what the\n\
                          # reference build's run printed.\n";
                    s += &format!(
                        "{} {} -c {f} -o whittle-w.o >/dev/null 2>&1 || exit 3\n",
                        g.cc,
                        warning_flags()
                    );
                    s += &format!(
                        "{} -O0 -g {SANITIZE} {f} -o whittle-s -lm >/dev/null 2>&1 || exit 3\n",
                        g.cc
                    );
                    s += "ASAN_OPTIONS=detect_leaks=0 run whittle-s; es=$?\n";
                    s += "if slow $es; then exit 4; fi\n";
                    s += "grep -q -e 'runtime error' -e 'Sanitizer' whittle-s.err && exit 3\n";
                    s += &format!("[ $es -eq {er} ] && cmp -s whittle-s.out {r}.out || exit 3\n");
                }
                s += "exit 0\n";
            }
            Recipe::Crash { cmd, signature } => {
                s += "# Made by `whittle reduce --crash --print-test`: exit 0 when the compiler crashes\n\
                      # with the original's signature. Runs as it is under C-Reduce and C-Vise.\n";
                s += &format!(
                    "{} >whittle-crash.txt 2>&1\ncode=$?\n",
                    cmd.replace("{}", &f)
                );
                s += "[ $code -ne 0 ] || exit 1\n";
                if let Some(c) = signature.code {
                    s += &format!("[ $code -eq {c} ] || exit 1\n");
                }
                for fragment in &signature.fragments {
                    s += &format!(
                        "grep -qF -e {} whittle-crash.txt || exit 1\n",
                        sh_quote(fragment)
                    );
                }
                s += "exit 0\n";
            }
            Recipe::Diagnostic {
                cmd,
                message,
                errors,
            } => {
                s += "# Made by `whittle reduce --diagnostic --print-test`: exit 0 when the compiler's output\n\
                      # still has the original's message";
                s += if errors.is_some() {
                    ", and no error the original did not have.\n"
                } else {
                    ".\n"
                };
                s += "# Runs as it is under C-Reduce and C-Vise.\n";
                s += &format!("{} >whittle-out.txt 2>&1\n", cmd.replace("{}", &f));
                s += &format!(
                    "grep -qF -e {} whittle-out.txt || exit 1\n",
                    sh_quote(message)
                );
                if let Some(errors) = errors {
                    s += "cat >whittle-errors.txt <<'WHITTLE_END'\n";
                    for e in errors {
                        s += e;
                        s += "\n";
                    }
                    s += "WHITTLE_END\n";
                    s += "awk '{ i = index($0, \"error: \"); if (i) print substr($0, i) }' whittle-out.txt |\n  grep -vxF -f whittle-errors.txt | grep -q . && exit 1\n";
                }
                s += "exit 0\n";
            }
            Recipe::Slow {
                cmd,
                reference,
                factor,
                code,
                limit,
            } => {
                s += &format!(
                    "# Made by `whittle reduce --slow-compile --print-test`: exit 0 when the compile takes more\n\
                     # than {factor} times as long as the reference compile (at least 10 ms) and exits {code}\n\
                     # as on the original; past {} s it counts as slow. Runs as it is under C-Reduce and C-Vise.\n",
                    seconds(*limit)
                );
                s += "ms() { echo $(( $(date +%s%N) / 1000000 )); }\n";
                s += &format!(
                    "t0=$(ms)\n{} >/dev/null 2>&1\nt1=$(ms)\n",
                    reference.replace("{}", &f)
                );
                s += &format!(
                    "timeout -k 1 {} sh -c {} >/dev/null 2>&1\ncode=$?\nt2=$(ms)\n",
                    seconds(*limit),
                    sh_quote(&cmd.replace("{}", &f))
                );
                let floor = (SLOW_FLOOR * 1000.0) as i64;
                s += &format!("ref=$((t1 - t0)); [ $ref -ge {floor} ] || ref={floor}\n");
                s += "if [ $code -eq 124 ] || [ $code -eq 137 ]; then exit 0; fi\n";
                s += &format!("[ $code -eq {code} ] || exit 1\n");
                s += &format!(
                    "[ $(( (t2 - t1) * 100 )) -gt $(( {} * ref )) ] || exit 1\n",
                    (factor * 100.0).round() as i64
                );
                s += "exit 0\n";
            }
        }
        s
    }

    /// The compile commands whose flags `--reduce-flags` tries away.
    pub fn commands_mut(&mut self) -> Vec<&mut String> {
        match self {
            Recipe::WrongCode { a, b, .. } => vec![a, b],
            Recipe::Crash { cmd, .. }
            | Recipe::Diagnostic { cmd, .. }
            | Recipe::Slow { cmd, .. } => {
                vec![cmd]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slow_compile_is_judged_against_its_reference() {
        let too_fast = Recipe::slow("cc -O2 {}", "cc -O0 {}", 5.0, (0.4, 0.1), 0);
        assert!(too_fast.unwrap_err().contains("only 4.0 times"));
        let r = Recipe::slow("cc -O2 {}", "cc -O0 {}", 5.0, (2.0, 0.1), 0).unwrap();
        assert!(matches!(r, Recipe::Slow { limit, .. } if limit == 5.0));
        assert_eq!(r.slow_verdict(Some(0.6), 0, 0.1), Some(true));
        assert_eq!(r.slow_verdict(Some(0.4), 0, 0.1), Some(false));
        assert_eq!(
            r.slow_verdict(Some(0.6), 1, 0.1),
            Some(false),
            "another exit status"
        );
        assert_eq!(
            r.slow_verdict(Some(0.06), 0, 0.0),
            Some(true),
            "a reference of 10 ms at least"
        );
        assert_eq!(r.slow_verdict(None, 1, 0.1), Some(true), "cut at the limit");
        let crash = Recipe::Crash {
            cmd: String::new(),
            signature: Signature::default(),
        };
        assert_eq!(crash.slow_verdict(Some(1.0), 0, 0.1), None);
    }

    #[test]
    fn flags_are_tried_away_group_by_group() {
        let flags = "-O2 -I inc -Wall -c -o x.o";
        assert_eq!(flag_count(flags), 3);
        assert_eq!(without_flag(flags, 0).unwrap(), "-I inc -Wall -c -o x.o");
        assert_eq!(without_flag(flags, 1).unwrap(), "-O2 -Wall -c -o x.o");
        assert_eq!(without_flag(flags, 2).unwrap(), "-O2 -I inc -c -o x.o");
        assert_eq!(without_flag(flags, 3), None);
        assert_eq!(flag_count("-DX='a b'"), 0, "quotes: nothing split");
        assert_eq!(flag_count(""), 0);
    }

    #[test]
    fn a_gcc_ice_loses_its_line_number() {
        let out = "x.c: In function 'f':\nx.c:3:1: internal compiler error: in fold_binary_loc, at fold-const.cc:1234\n0x1234 fold_binary_loc(...)\n";
        let s = crash_signature(out, 4).unwrap();
        assert_eq!(
            s.fragments,
            ["internal compiler error: in fold_binary_loc, at fold-const.cc"]
        );
        assert!(s.matches(
            "y.c:1:1: internal compiler error: in fold_binary_loc, at fold-const.cc:99",
            4
        ));
        assert!(!s.matches("internal compiler error: in expand_expr, at expr.cc:7", 4));
    }

    #[test]
    fn a_gcc_segfault_keeps_its_first_frames() {
        let out = "internal compiler error: Segmentation fault\n0xe5f crash_signal\n\t../gcc/toplev.cc:314\n0x7a1 walk_tree(tree_node**)\n0x7a2 gimplify_expr(x)\n0x7a3 more\n";
        let s = crash_signature(out, 4).unwrap();
        assert_eq!(
            s.fragments,
            [
                "internal compiler error: Segmentation fault",
                "walk_tree(tree_node**)",
                "gimplify_expr(x)"
            ]
        );
    }

    #[test]
    fn clang_rustc_and_signals() {
        let a = "clang: /src/Sema.cpp:12: void f(): Assertion `x && \"y\"' failed.\n";
        assert_eq!(
            crash_signature(a, 134).unwrap().fragments,
            ["Assertion `x && \"y\"' failed."]
        );
        let dump = "Stack dump:\n0.\tProgram arguments: clang\n #0 0x0001 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/usr/lib/libLLVM.so+0x1)\n #1 0x0002 SignalHandler(int) (/usr/lib/libLLVM.so+0x2)\n #2 0x0003 (/lib/libc.so.6+0x3)\n #3 0x0004 clang::Sema::CheckX(clang::Expr*) (/usr/lib/libclang.so+0x4)\n #4 0x0005 clang::Parser::ParseY() (/usr/lib/libclang.so+0x5)\n";
        assert_eq!(
            crash_signature(dump, 139).unwrap().fragments,
            [
                "clang::Sema::CheckX(clang::Expr*)",
                "clang::Parser::ParseY()"
            ]
        );
        let panic = "thread 'rustc' panicked at compiler/rustc_middle/src/ty/mod.rs:123:45:\nbox is empty\nnote: run with RUST_BACKTRACE=1\n";
        assert_eq!(
            crash_signature(panic, 101).unwrap().fragments,
            [
                "panicked at compiler/rustc_middle/src/ty/mod.rs",
                "box is empty"
            ]
        );
        let segv = crash_signature("", 139).unwrap();
        assert_eq!(segv.code, Some(139));
        assert!(segv.matches("", 139) && !segv.matches("", 134));
        assert_eq!(crash_signature("error: expected ';'", 1), None);
        assert_eq!(crash_signature("internal compiler error: x", 0), None);
    }

    #[test]
    fn limits_and_flakiness() {
        assert_eq!(adaptive_limit(&[0.01, 0.02]), 1.0);
        assert_eq!(adaptive_limit(&[0.3, 0.5, 0.4]), 5.0);
        assert!(flaky(&[true, false, true]));
        assert!(!flaky(&[true, true, true]) && !flaky(&[false, false]));
    }

    #[test]
    fn messages_lose_their_place_and_flags_go_with_their_arguments() {
        assert_eq!(
            message("x.c:3:7: warning: comparison of integer expressions [-Wsign-compare]"),
            "warning: comparison of integer expressions [-Wsign-compare]"
        );
        assert_eq!(message("  In function 'f':"), "In function 'f':");
        assert_eq!(
            errors("a.c:1:1: error: x\nb\ncollect2: error: ld returned 1\n"),
            ["error: x", "error: ld returned 1"]
        );
        let cmd = "gcc -O2 -I inc -Wall -c {} -o {out}";
        let groups = flag_groups(cmd);
        assert_eq!(groups, [1..2, 2..4, 4..5], "-c and -o stay");
        assert_eq!(without_words(cmd, 2..4), "gcc -O2 -Wall -c {} -o {out}");
        assert!(flag_groups("gcc -DX='a b' -c {}").is_empty());
    }

    #[test]
    fn one_compile_is_judged_as_the_script_judges_it() {
        let original = "x.c:2:3: warning: unused variable 'v' [-Wunused-variable]\nx.c:4:1: error: expected ';'\n";
        let r = Recipe::diagnostic("gcc -c {}", "Wunused", true, original).unwrap();
        assert!(r
            .judge(
                1,
                "y.c:1:1: warning: unused variable 'v' [-Wunused-variable]"
            )
            .unwrap());
        assert!(r.judge(1, original).unwrap());
        let new_error = "warning: unused variable 'v' [-Wunused-variable]\nerror: 'w' undeclared";
        assert!(!r.judge(1, new_error).unwrap());
        assert!(!r
            .judge(0, "warning: unused variable 'w' [-Wunused-variable]")
            .unwrap());
        assert!(Recipe::diagnostic("gcc", "nothing like it", false, original).is_none());
        let ice = "internal compiler error: in f, at g.cc:12";
        let crash = Recipe::crash("gcc", ice, 4).unwrap();
        assert_eq!(
            crash.judge(4, "internal compiler error: in f, at g.cc:99"),
            Some(true)
        );
        assert_eq!(crash.judge(0, ice), Some(false));
        assert!(Recipe::crash("gcc", "fine", 0).is_none());
    }

    #[test]
    fn compile_commands_take_the_file_and_output() {
        assert_eq!(compile_command("tcc -w", "'x.c'", "a"), "tcc -w 'x.c' -o a");
        assert_eq!(
            compile_command("gcc {} -o {out} -lm", "'x.c'", "a"),
            "gcc 'x.c' -o a -lm"
        );
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
    }
}
