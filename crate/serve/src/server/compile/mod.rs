//! One compile job in Compiler Explorer's shape: the request body it accepts (`request`), the
//! commands it runs for each family of compilers (`families`), each one a step in a fresh
//! job folder (`step`; the folders' lifetime is `folders`'), and the JSON it answers
//! (`answer`).
//!
//! - gcc, g++, clang, clang++: `cc -S -o output.s ARGS example.c` (the `binary` filter
//!   compiles to an object and shows `objdump -d`); executing links `cc -o program ARGS
//!   example.c` and runs `./program`.
//! - rustc: `rustc --edition 2021 --crate-type bin|lib --emit asm -o output.s ARGS example.rs`
//!   (bin when the source has a top-level `fn main`); executing builds and runs a program.
//! - node: `node ARGS --check example.js` (`.mjs` for ES modules); executing runs it.
//! - javac: `javac -d classes ARGS Name.java` (named after the public class); asm is
//!   `javap -c -p` of the classes; executing runs `java -cp classes Main`.
//! - tcc (its coverage build): `tcc -B DIR -I DIR/include -c -o output.o ARGS example.c`, asm
//!   from `objdump -d` (tcc writes no assembly); executing links and runs as for gcc. The
//!   answer's `coverage` is what that one compile covered (see `crate::coverage`).
//!
//! Compiler messages name the source `<source>`, as Compiler Explorer's do, so that a property
//! written against one works against the other.

mod answer;
pub(in crate::server) mod families;
mod files;
mod folders;
mod request;
mod step;

use std::os::unix::fs::DirBuilderExt;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use super::compilers::Compiler;
use super::jobs::Limits;
use super::{pragmas, user_args};
use answer::Budget;
pub(in crate::server) use answer::JobResult;
use folders::{jobs_folder, wait_out_a_stop};
pub use folders::{remove_job_folders, stop_jobs, sweep_stale_job_folders};
pub use request::CompileRequest;
use request::Filters;
use request::ProgramArgs;
use serde_json::Value;
pub(in crate::server) use step::Ctx;

/// A validated job, ready to run on a job thread.
pub struct CompileJob {
    compiler: Compiler,
    source: String,
    /// Files beside the source: `(relative path, contents)`, names checked (`files::check`).
    files: Vec<(String, String)>,
    user_args: Vec<String>,
    filters: Filters,
    program_args: Vec<String>,
    stdin: String,
    limits: Limits,
    /// Set to call the job off (see `cancel.rs`).
    pub cancel: Arc<AtomicBool>,
}

/// Checks a request; `Err` is a message for a 400 answer.
pub fn prepare(
    compiler: &Compiler,
    req: CompileRequest,
    limits: &Limits,
) -> Result<CompileJob, String> {
    if limits.sandbox.is_none() && !limits.unsafe_no_sandbox {
        return Err("this server runs no compile jobs: it has no sandbox (see its start-up message); install bubblewrap, or start whittle serve with --unsafe-no-sandbox".into());
    }
    let source = req.source.ok_or("the body has no \"source\": send {\"source\": \"...\", \"options\": {\"userArguments\": \"-O2\"}}")?;
    let user_args = user_args::split(&req.options.user_arguments)?;
    user_args::check(compiler.driver, &user_args)?;
    pragmas::check(compiler.driver, &source)?;
    let files = files::check(req.files)?;
    for (name, text) in &files {
        pragmas::check(compiler.driver, text).map_err(|e| format!("{name}: {e}"))?;
    }
    let program_args = match req.options.execute_parameters.args {
        ProgramArgs::List(v) => v,
        ProgramArgs::Line(s) => user_args::split(&s)?,
    };
    Ok(CompileJob {
        compiler: compiler.clone(),
        source,
        files,
        user_args,
        filters: req.options.filters,
        program_args,
        stdin: req.options.execute_parameters.stdin,
        limits: limits.clone(),
        cancel: Arc::default(),
    })
}

/// Runs a job and returns Compiler Explorer's JSON answer. `Err` only when the job folder or
/// the source file could not be made (a 500).
pub fn run(job: CompileJob) -> Result<Value, String> {
    wait_out_a_stop();
    let parent = jobs_folder();
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&parent)
        .map_err(|e| format!("could not make {}: {e}", parent.display()))?;
    // 0700: no other user reads or writes a job; a tmpfs of --max-job-disk when we are root.
    let dir = crate::jail::JobFolder::new(&parent, job.limits.job_disk)?;
    let mut ctx = Ctx {
        job: &job,
        dir: dir.path().to_path_buf(),
        watch_disk: !dir.capped(),
        deadline: Instant::now() + job.limits.job_timeout,
        source_name: String::new(),
    };
    let result = job.compiler.driver.family().compile(&mut ctx)?;
    let mut budget = Budget {
        bytes: job.limits.output_bytes,
        lines: job.limits.output_lines,
        cut: false,
    };
    // A job killed because the server is stopping has no answer: its client sees the
    // connection close, not a verdict.
    wait_out_a_stop();
    Ok(result.to_json(&mut budget))
    // `dir` is removed here.
}
