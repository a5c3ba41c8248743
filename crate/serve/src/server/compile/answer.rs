//! What a job produced and the JSON Compiler Explorer answers with, cut to the answer's
//! budget of bytes and lines.

use std::ffi::OsString;

use serde_json::{json, Map, Value};

use crate::process::Exit;
use whittle::witness::Coverage;

/// What a job produced, before it is turned into JSON.
#[derive(Default)]
pub(in crate::server) struct JobResult {
    pub(super) compile: Exit,
    pub(super) asm: Vec<u8>,
    pub(super) asm_truncated: bool,
    /// What the compiler was given, for the answer's `compilationOptions`.
    pub(super) options: Vec<String>,
    pub(super) exec: Option<ExecResult>,
    /// What the compile covered (tcc only), or why gcov could not tell.
    pub(super) coverage: Option<Result<Coverage, String>>,
}

pub(super) enum ExecResult {
    /// The program ran.
    Ran { build: Option<Exit>, run: Exit },
    /// It was not run: the compile or build failed, or execution is turned off.
    NotRun { build: Option<Exit>, reason: String },
}

impl JobResult {
    pub(super) fn to_json(&self, budget: &mut Budget) -> Value {
        let c = &self.compile;
        let asm = if c.code != 0 && self.asm.is_empty() {
            vec![json!({"text": "<Compilation failed>"})]
        } else {
            let mut lines = budget.take(&self.asm, self.asm_truncated);
            lines.retain(|l| !l["text"].as_str().is_some_and(|t| t.trim().is_empty()));
            lines
        };
        let mut o = Map::new();
        o.insert("code".into(), json!(c.code));
        o.insert(
            "okToCache".into(),
            json!(!c.timed_out && !c.cancelled && !self.exec_timed_out()),
        );
        o.insert("timedOut".into(), json!(c.timed_out));
        o.insert(
            "truncated".into(),
            json!(c.truncated() || self.asm_truncated || self.exec_truncated()),
        );
        o.insert(
            "stdout".into(),
            lines_json(&c.stdout, c.stdout_truncated, false, budget),
        );
        o.insert(
            "stderr".into(),
            lines_json(&c.stderr, c.stderr_truncated, c.timed_out, budget),
        );
        o.insert("asm".into(), Value::Array(asm));
        o.insert("compilationOptions".into(), json!(self.options));
        o.insert("execTime".into(), json!(c.elapsed.as_millis() as u64));
        if let Some(exec) = &self.exec {
            let e = exec.to_json(budget);
            o.insert("didExecute".into(), e["didExecute"].clone());
            o.insert("execResult".into(), e);
        }
        if budget.cut {
            o.insert("truncated".into(), json!(true));
        }
        // Outside the output budget: its size is bounded by the compiler's, not the program's.
        match &self.coverage {
            Some(Ok(c)) => {
                o.insert("coverage".into(), json!(c));
            }
            Some(Err(e)) => {
                o.insert("coverage".into(), Value::Null);
                o.insert("coverageError".into(), json!(e));
            }
            None => {}
        }
        Value::Object(o)
    }

    pub(super) fn exec_timed_out(&self) -> bool {
        matches!(&self.exec, Some(ExecResult::Ran { run, .. }) if run.timed_out)
            || matches!(&self.exec, Some(ExecResult::Ran { build: Some(b), .. } | ExecResult::NotRun { build: Some(b), .. }) if b.timed_out)
    }

    pub(super) fn exec_truncated(&self) -> bool {
        matches!(&self.exec, Some(ExecResult::Ran { run, .. }) if run.truncated())
    }
}

impl ExecResult {
    pub(super) fn to_json(&self, budget: &mut Budget) -> Value {
        match self {
            ExecResult::Ran { build, run } => {
                let mut o = json!({
                    "code": run.code,
                    "didExecute": true,
                    "okToCache": !run.timed_out && !run.cancelled,
                    "timedOut": run.timed_out,
                    "truncated": run.truncated(),
                    "stdout": lines_json(&run.stdout, run.stdout_truncated, false, budget),
                    "stderr": lines_json(&run.stderr, run.stderr_truncated, run.timed_out, budget),
                    "execTime": run.elapsed.as_millis() as u64,
                });
                if let Some(s) = run.signal {
                    o["signal"] = json!(s);
                }
                if let Some(b) = build {
                    o["buildResult"] = build_json(b, budget);
                }
                o
            }
            ExecResult::NotRun { build, reason } => {
                let mut o = json!({
                    "code": -1,
                    "didExecute": false,
                    "okToCache": true,
                    "timedOut": false,
                    "stdout": [],
                    "stderr": [{"text": reason}],
                });
                if let Some(b) = build {
                    o["buildResult"] = build_json(b, budget);
                    o["timedOut"] = json!(b.timed_out);
                }
                o
            }
        }
    }
}

fn build_json(b: &Exit, budget: &mut Budget) -> Value {
    json!({
        "code": b.code,
        "timedOut": b.timed_out,
        "stdout": lines_json(&b.stdout, b.stdout_truncated, false, budget),
        "stderr": lines_json(&b.stderr, b.stderr_truncated, b.timed_out, budget),
    })
}

/// What is left of one answer's output cap, in bytes and in lines. Output is cut to it while
/// still bytes, before any of it becomes JSON: an answer's size is bounded whatever a program
/// prints.
pub(super) struct Budget {
    pub(super) bytes: usize,
    pub(super) lines: usize,
    /// Whether something was left out.
    pub(super) cut: bool,
}

impl Budget {
    /// `[{"text": line}, ...]` of `bytes` within the budget, with a note when something was
    /// left out (here or, `truncated`, already by the capture).
    pub(super) fn take(&mut self, bytes: &[u8], truncated: bool) -> Vec<Value> {
        let mut out = Vec::new();
        let mut cut = truncated;
        for line in bytes.split(|&b| b == b'\n') {
            if self.lines == 0 || line.len() > self.bytes {
                cut = true;
                break;
            }
            self.lines -= 1;
            self.bytes -= line.len();
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            out.push(json!({"text": String::from_utf8_lossy(line)}));
        }
        // `a\n` splits into `a` and an empty tail that is no line.
        if !cut && bytes.ends_with(b"\n") {
            out.pop();
        }
        if bytes.is_empty() {
            out.clear();
        }
        self.cut |= cut;
        if cut {
            out.push(json!({"text": "[truncated: the answer's output is capped; see whittle serve --max-output]"}));
        }
        out
    }
}

/// `[{"text": line}, ...]` within the budget, with a note when the stream was cut short or
/// the step killed.
fn lines_json(bytes: &[u8], truncated: bool, timed_out: bool, budget: &mut Budget) -> Value {
    let mut lines = budget.take(bytes, truncated);
    if timed_out {
        lines.push(json!({"text": "Killed - processing time exceeded"}));
    }
    Value::Array(lines)
}

pub(super) fn options_of(args: &[OsString]) -> Vec<String> {
    args.iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}
