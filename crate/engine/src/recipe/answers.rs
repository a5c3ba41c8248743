//! Wrong code judged over a compile endpoint's answers, step by step: the CLI's `--wrong-code
//! --endpoint` and the page's wrong-code property both ask [`next`] which compile to make
//! next, so the guard's two compiles run only for candidates that still show the bug, and both
//! judge as the local script does (see [`super::Recipe::script`]).

use super::Build;
use serde::{Deserialize, Serialize};

/// A program's run in an answer.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    pub code: i32,
    #[serde(default)]
    pub stdout: String,
    #[serde(default)]
    pub stderr: String,
}

/// One compile's answer, as the page normalizes the endpoint's JSON: the compiler's exit
/// status, and the program's run when it ran.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    pub code: i32,
    #[serde(default)]
    pub run: Option<Run>,
}

impl Answer {
    /// What the program did, when it was built and ran: exit status and stdout (what two
    /// builds must disagree on, as the script compares them).
    fn outcome(&self) -> Option<(i32, &str)> {
        let run = self.run.as_ref().filter(|_| self.code == 0)?;
        Some((run.code, run.stdout.as_str()))
    }

    /// Whether a sanitizer reported something in the run.
    fn reported(&self) -> bool {
        self.run
            .as_ref()
            .is_some_and(|r| r.stderr.contains("runtime error") || r.stderr.contains("Sanitizer"))
    }
}

/// The compiles of a wrong-code recipe, in the order [`next`] asks for them: the two builds
/// (each run), the guard's build with the warnings that flag undefined behaviour made errors
/// (not run), and the guard's sanitized build (run).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Step {
    A,
    B,
    Warnings,
    Sanitized,
}

impl Step {
    pub const ALL: [Step; 4] = [Step::A, Step::B, Step::Warnings, Step::Sanitized];

    /// The flags the guard's steps add to the guard compiler's own.
    pub fn extra_flags(self) -> String {
        match self {
            Step::A | Step::B => String::new(),
            Step::Warnings => super::warning_flags(),
            Step::Sanitized => format!("-O0 -g {}", super::SANITIZE),
        }
    }

    /// Whether the step's program runs.
    pub fn runs(self) -> bool {
        self != Step::Warnings
    }
}

/// What [`next`] says: the verdict, or the compile it needs first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Next {
    Verdict(bool),
    Need(Step),
}

/// The verdict on a candidate from the answers so far (in [`Step::ALL`]'s order), or the next
/// compile to make. `reference`: the guard's reference build (see [`calibrate`]), or `None`
/// without a guard.
pub fn next(answers: &[Answer], reference: Option<Build>) -> Next {
    let Some(need) = Step::ALL.get(answers.len()).copied() else {
        return Next::Verdict(judged(answers, reference));
    };
    if answers.len() < 2 {
        return Next::Need(need);
    }
    let (Some(a), Some(b)) = (answers[0].outcome(), answers[1].outcome()) else {
        return Next::Verdict(false);
    };
    if a == b {
        return Next::Verdict(false);
    }
    let Some(_) = reference else {
        return Next::Verdict(true);
    };
    if answers.len() == 3 && answers[2].code != 0 {
        return Next::Verdict(false);
    }
    Next::Need(need)
}

/// The verdict once every step answered.
fn judged(answers: &[Answer], reference: Option<Build>) -> bool {
    let (Some(a), Some(b)) = (answers[0].outcome(), answers[1].outcome()) else {
        return false;
    };
    let expected = match reference {
        None => return a != b,
        Some(Build::A) => a,
        Some(Build::B) => b,
    };
    a != b
        && answers[2].code == 0
        && !answers[3].reported()
        && answers[3].outcome() == Some(expected)
}

/// Why a wrong-code recipe cannot reduce the original, in words that name its builds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A build did not build and run (which of `a` and `b` did).
    NotRun { a: bool, b: bool },
    /// The two builds' programs agree (the exit status both had).
    Agree(i32),
    /// The guard's warnings build fails on the original (the compiler's output).
    Warnings,
    /// The guard's sanitized run agrees with neither build, or a sanitizer reported.
    Sanitized,
}

impl Refusal {
    /// The refusal in words: `a`, `b` and `guard` name the builds, `no_guard` says how to
    /// reduce without the guard.
    pub fn describe(&self, a: &str, b: &str, guard: &str, no_guard: &str) -> String {
        let said = |ran: bool| {
            if ran {
                "built and ran"
            } else {
                "did not build and run"
            }
        };
        match self {
            Refusal::NotRun { a: ra, b: rb } => format!(
                "the original {} with {a} and {} with {b}: check the compilers and flags",
                said(*ra),
                said(*rb)
            ),
            Refusal::Agree(code) => format!(
                "the two builds agree on the original (exit {code}, the same output): there is no wrong code to reduce"
            ),
            Refusal::Warnings => format!(
                "the guard refuses the original: {guard} with the warnings that flag undefined behaviour as errors fails. Fix the original, or {no_guard}"
            ),
            Refusal::Sanitized => format!(
                "the guard refuses the original: its sanitized run by {guard} agrees with neither build, or a sanitizer reported. Fix the original, or {no_guard}"
            ),
        }
    }
}

/// The reference build from the original's answers (all four steps with the guard, the first
/// two without): the build whose run the sanitized run agrees with.
pub fn calibrate(answers: &[Answer], guard: bool) -> Result<Option<Build>, Refusal> {
    let (a, b) = (answers[0].outcome(), answers[1].outcome());
    let (Some(a), Some(b)) = (a, b) else {
        return Err(Refusal::NotRun {
            a: a.is_some(),
            b: b.is_some(),
        });
    };
    if a == b {
        return Err(Refusal::Agree(a.0));
    }
    if !guard {
        return Ok(None);
    }
    if answers[2].code != 0 {
        return Err(Refusal::Warnings);
    }
    let sanitized = answers[3].outcome().filter(|_| !answers[3].reported());
    if sanitized == Some(a) {
        Ok(Some(Build::A))
    } else if sanitized == Some(b) {
        Ok(Some(Build::B))
    } else {
        Err(Refusal::Sanitized)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ran(code: i32, stdout: &str) -> Answer {
        Answer {
            code: 0,
            run: Some(Run {
                code,
                stdout: stdout.into(),
                stderr: String::new(),
            }),
        }
    }

    #[test]
    fn the_guard_runs_only_for_candidates_that_still_disagree() {
        assert_eq!(next(&[], Some(Build::A)), Next::Need(Step::A));
        assert_eq!(next(&[ran(0, "1")], None), Next::Need(Step::B));
        let agree = [ran(0, "1"), ran(0, "1")];
        assert_eq!(next(&agree, Some(Build::A)), Next::Verdict(false));
        let differ = [ran(0, "1"), ran(0, "2")];
        assert_eq!(next(&differ, None), Next::Verdict(true));
        assert_eq!(next(&differ, Some(Build::B)), Next::Need(Step::Warnings));
        let mut warned = differ.to_vec();
        warned.push(Answer { code: 1, run: None });
        assert_eq!(next(&warned, Some(Build::B)), Next::Verdict(false));
        let mut clean = differ.to_vec();
        clean.push(Answer::default());
        assert_eq!(next(&clean, Some(Build::B)), Next::Need(Step::Sanitized));
        let mut all = clean.clone();
        all.push(ran(0, "2"));
        assert_eq!(next(&all, Some(Build::B)), Next::Verdict(true));
        assert_eq!(next(&all, Some(Build::A)), Next::Verdict(false));
        let mut reported = clean;
        reported.push(Answer {
            run: Some(Run {
                code: 0,
                stdout: "2".into(),
                stderr: "x.c:3:5: runtime error: signed integer overflow".into(),
            }),
            ..Answer::default()
        });
        assert_eq!(next(&reported, Some(Build::B)), Next::Verdict(false));
        let unbuilt = [Answer { code: 1, run: None }, ran(0, "2")];
        assert_eq!(next(&unbuilt, None), Next::Verdict(false));
    }

    #[test]
    fn the_reference_is_the_build_the_sanitized_run_agrees_with() {
        let all = [ran(0, "1"), ran(3, "1"), Answer::default(), ran(3, "1")];
        assert_eq!(calibrate(&all, true), Ok(Some(Build::B)));
        assert_eq!(calibrate(&all[..2], false), Ok(None));
        assert_eq!(
            calibrate(&[ran(0, "1"), ran(0, "1")], false),
            Err(Refusal::Agree(0))
        );
        let neither = [ran(0, "1"), ran(3, "1"), Answer::default(), ran(5, "")];
        assert_eq!(calibrate(&neither, true), Err(Refusal::Sanitized));
        let unbuilt = [ran(0, "1"), Answer::default()];
        let refusal = calibrate(&unbuilt, false).unwrap_err();
        assert!(refusal
            .describe("gcc -O0", "gcc -O2", "gcc", "untick the guard")
            .contains("built and ran with gcc -O0 and did not build and run with gcc -O2"));
    }
}
