//! Recipes for the page (issue 27): the crash template's signature and the wrong-code
//! property's judge, the engine's own (`whittle::recipe`), so the page and the CLI judge alike.

use crate::to_js;
use wasm_bindgen::prelude::*;
use whittle::recipe::answers::{self, Answer, Step};
use whittle::recipe::{self, Build};

fn answers_of(value: JsValue) -> Result<Vec<Answer>, JsError> {
    serde_wasm_bindgen::from_value(value).map_err(|e| {
        JsError::new(&format!(
            "a compile answer the wrong-code judge cannot read: {e}"
        ))
    })
}

fn build_of(name: Option<String>) -> Result<Option<Build>, JsError> {
    match name.as_deref() {
        None | Some("") => Ok(None),
        Some("A") => Ok(Some(Build::A)),
        Some("B") => Ok(Some(Build::B)),
        Some(other) => Err(JsError::new(&format!(
            "no build {other}: the reference is A or B"
        ))),
    }
}

/// The signature of the crash in a compiler's output and exit status: `{fragments, code}`
/// (every fragment must appear; `code` is the signal's status, or null), or null when the
/// answer shows no crash.
#[wasm_bindgen(js_name = crashSignature, unchecked_return_type = "CrashSignature | null")]
pub fn crash_signature(output: &str, code: i32) -> Result<JsValue, JsError> {
    to_js(&recipe::crash_signature(output, code))
}

/// The error messages of a compiler's output, each from `error: ` on (what a diagnostic
/// property's "no error the original did not have" compares).
#[wasm_bindgen(js_name = compileErrors)]
pub fn compile_errors(output: &str) -> Vec<String> {
    recipe::errors(output)
}

/// The flags a wrong-code step adds to its compiler's (`'a' | 'b' | 'warnings' |
/// 'sanitized'`): the guard's warnings made errors, or its sanitizers.
#[wasm_bindgen(js_name = wrongCodeFlags)]
pub fn wrong_code_flags(
    #[wasm_bindgen(unchecked_param_type = "WrongCodeStep")] step: JsValue,
) -> Result<String, JsError> {
    let step: Step =
        serde_wasm_bindgen::from_value(step).map_err(|e| JsError::new(&e.to_string()))?;
    Ok(step.extra_flags())
}

/// What a wrong-code property needs after `answers` (`[{code, run: {code, stdout, stderr} |
/// null}]`, in the order asked): `{verdict: boolean}` or `{need: 'a' | 'b' | 'warnings' |
/// 'sanitized'}`. `reference`: 'A', 'B', or null without the guard.
#[wasm_bindgen(js_name = wrongCodeNext, unchecked_return_type = "WrongCodeNext")]
pub fn wrong_code_next(
    #[wasm_bindgen(unchecked_param_type = "CompileAnswer[]")] answers: JsValue,
    reference: Option<String>,
) -> Result<JsValue, JsError> {
    to_js(&answers::next(&answers_of(answers)?, build_of(reference)?))
}

/// The reference build ('A', 'B', or null without the guard) from the original's answers to
/// every step; throws, naming the builds (`a`, `b`, `guard`), when the original shows no wrong
/// code or the guard refuses it.
#[wasm_bindgen(js_name = wrongCodeCalibrate)]
pub fn wrong_code_calibrate(
    #[wasm_bindgen(unchecked_param_type = "CompileAnswer[]")] answers: JsValue,
    guard: bool,
    a: &str,
    b: &str,
    guard_name: &str,
) -> Result<Option<String>, JsError> {
    let answers = answers_of(answers)?;
    if answers.len() < if guard { 4 } else { 2 } {
        return Err(JsError::new(
            "the wrong-code judge needs an answer for every step of the original",
        ));
    }
    answers::calibrate(&answers, guard)
        .map(|r| r.map(|b| format!("{b:?}")))
        .map_err(|r| {
            JsError::new(&r.describe(
                a,
                b,
                guard_name,
                "untick “guard against undefined behaviour”",
            ))
        })
}

/// How many times a run tests the original afresh before it reduces (its verdicts tell a
/// flaky property, its times the adaptive limit).
#[wasm_bindgen(js_name = originalRuns)]
pub fn original_runs() -> usize {
    recipe::ORIGINAL_RUNS
}

/// How many more times each accepted step is confirmed, from the original's verdicts: `set`
/// (the settings' Confirm), else two for a flaky property and none for another.
#[wasm_bindgen]
pub fn confirmations(verdicts: Vec<u8>, set: Option<usize>) -> usize {
    let verdicts: Vec<bool> = verdicts.iter().map(|&v| v != 0).collect();
    recipe::confirmations(&verdicts, set)
}

/// A query's time limit (ms) from the original's compile times (ms): ten times the slowest,
/// at least a second.
#[wasm_bindgen(js_name = adaptiveLimit)]
pub fn adaptive_limit(times_ms: Vec<f64>) -> f64 {
    let seconds: Vec<f64> = times_ms.iter().map(|t| t / 1e3).collect();
    recipe::adaptive_limit(&seconds) * 1e3
}

/// The slow-compile property's limit from the original's compile times (ms): past it a
/// compile counts as slow at once; throws, in words, when the original's compile is not
/// already more than `factor` times its reference's (`cmd`, `reference`: the two compiles,
/// for the message).
#[wasm_bindgen(js_name = slowCalibrate)]
pub fn slow_calibrate(
    factor: f64,
    cmd_ms: f64,
    reference_ms: f64,
    code: i32,
    cmd: &str,
    reference: &str,
) -> Result<f64, JsError> {
    match recipe::Recipe::slow(
        cmd,
        reference,
        factor,
        (cmd_ms / 1e3, reference_ms / 1e3),
        code,
    ) {
        Ok(recipe::Recipe::Slow { limit, .. }) => Ok(limit * 1e3),
        Ok(_) => unreachable!("Recipe::slow makes a slow recipe"),
        Err(e) => Err(JsError::new(&e)),
    }
}

/// Whether a candidate's compile is slow as the original's was: it took `cmd_ms` (null: cut
/// at the limit) and exited `code`; the original's exited `expected`; the reference took
/// `reference_ms`.
#[wasm_bindgen(js_name = slowVerdict)]
pub fn slow_verdict(
    factor: f64,
    expected: i32,
    cmd_ms: Option<f64>,
    code: i32,
    reference_ms: f64,
) -> bool {
    recipe::is_slow(
        factor,
        expected,
        cmd_ms.map(|t| t / 1e3),
        code,
        reference_ms / 1e3,
    )
}

/// How many flags (each with its argument) of a compiler's flags may be tried away.
#[wasm_bindgen(js_name = flagCount)]
pub fn flag_count(flags: &str) -> usize {
    recipe::flag_count(flags)
}

/// The flags without their `i`th flag (with its argument), or undefined past the last.
#[wasm_bindgen(js_name = withoutFlag)]
pub fn without_flag(flags: &str, i: usize) -> Option<String> {
    recipe::without_flag(flags, i)
}
