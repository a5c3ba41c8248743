//! `--confirm N`: a flaky test's yes is asked again before its step is taken.

use super::Tally;
use crate::runner::{run_job, Done, Job, Property, TestOutcome};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use whittle_serve::sandbox::Sandbox;

/// Runs `test` on `job`; a candidate's yes must hold `times` more times (each in a fresh
/// folder), else the step is undone: reported boring, and counted. The original, known
/// interesting, is asked up to `times` more times until it says yes.
pub fn confirmed(
    test: &Property,
    times: usize,
    tally: &Tally,
    job: &Job,
    files: &[(String, Vec<u8>)],
    timeout: Duration,
    cancel: Arc<AtomicBool>,
    tether: Option<&Arc<Sandbox>>,
) -> Done {
    let mut first = run_job(test, job, files, timeout, cancel.clone(), tether);
    if job.original {
        for _ in 0..times {
            if !matches!(first.outcome, TestOutcome::Boring) {
                break;
            }
            first = run_job(test, job, files, timeout, cancel.clone(), tether);
        }
        return first;
    }
    if !matches!(first.outcome, TestOutcome::Interesting) {
        return first;
    }
    for _ in 0..times {
        let again = run_job(test, job, files, timeout, cancel.clone(), tether);
        match again.outcome {
            TestOutcome::Interesting => {}
            TestOutcome::Cancelled => return again,
            _ => {
                Tally::count(&tally.undone);
                return Done {
                    outcome: TestOutcome::Boring,
                    ..again
                };
            }
        }
    }
    first
}
