//! One compile job in Compiler Explorer's shape: the request body it accepts, the commands it
//! runs for each kind of compiler (in a fresh temporary folder, removed afterwards), and the
//! JSON it answers.
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

use std::ffi::OsString;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::compilers::{self, Compiler, Driver};
use super::jobs::Limits;
use super::{pragmas, source_facts, user_args};
use crate::process::{self, Confinement, Exit, Spec};
use whittle::witness::Coverage;

/// The body of `POST /api/compiler/<id>/compile`.
#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub struct CompileRequest {
    pub source: Option<String>,
    pub options: RequestOptions,
    pub lang: Option<String>,
}

#[derive(Deserialize, Default, Debug)]
#[serde(default, rename_all = "camelCase")]
pub struct RequestOptions {
    pub user_arguments: String,
    pub filters: Filters,
    pub execute_parameters: ExecuteParameters,
    pub compiler_options: Value,
}

#[derive(Deserialize, Default, Debug, Clone, Copy)]
#[serde(default)]
pub struct Filters {
    pub execute: bool,
    pub binary: bool,
    pub intel: bool,
}

#[derive(Deserialize, Default, Debug)]
#[serde(default)]
pub struct ExecuteParameters {
    pub args: ProgramArgs,
    pub stdin: String,
}

/// Program arguments: a list, or one string split shell-like.
#[derive(Deserialize, Debug)]
#[serde(untagged)]
pub enum ProgramArgs {
    List(Vec<String>),
    Line(String),
}

impl Default for ProgramArgs {
    fn default() -> Self {
        ProgramArgs::List(Vec::new())
    }
}

/// A validated job, ready to run on a job thread.
pub struct CompileJob {
    compiler: Compiler,
    source: String,
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
    let program_args = match req.options.execute_parameters.args {
        ProgramArgs::List(v) => v,
        ProgramArgs::Line(s) => user_args::split(&s)?,
    };
    Ok(CompileJob {
        compiler: compiler.clone(),
        source,
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
    let result = match job.compiler.driver {
        Driver::Gcc | Driver::Clang => c_like(&mut ctx),
        Driver::Rustc => rustc(&mut ctx),
        Driver::Node => node(&mut ctx),
        Driver::Javac => javac(&mut ctx),
        Driver::Tcc => tcc(&mut ctx),
    }?;
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

/// Set once the server has begun to stop (a signal): jobs get no answer from then on.
static STOPPING: AtomicBool = AtomicBool::new(false);

/// While the server stops, a job neither starts nor answers: it waits for the exit, which
/// closes its connection (a 500 for a folder removed under it would read as a failure).
fn wait_out_a_stop() {
    while STOPPING.load(std::sync::atomic::Ordering::SeqCst) {
        std::thread::park();
    }
}

/// Where this server's job folders are: one folder per server process, so that a server
/// killed without cleaning up leaves something to recognise.
fn jobs_folder() -> PathBuf {
    std::env::temp_dir().join(format!("whittle-serve-{}", std::process::id()))
}

/// Marks the server as stopping: from now on no job starts or answers.
pub fn stop_jobs() {
    STOPPING.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Removes this server's job folders (on SIGINT and SIGTERM, after its jobs were killed).
pub fn remove_job_folders() {
    crate::jail::unmount_under(&jobs_folder());
    let _ = std::fs::remove_dir_all(jobs_folder());
    crate::sandbox::remove_server_cgroups();
}

/// Removes the job folders of servers that are no longer running (killed with SIGKILL, say).
pub fn sweep_stale_job_folders() -> usize {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return 0;
    };
    let mut swept = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("whittle-serve-"))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let alive = Path::new("/proc").join(pid.to_string()).exists();
        if !alive {
            crate::jail::unmount_under(&e.path());
        }
        if !alive && std::fs::remove_dir_all(e.path()).is_ok() {
            swept += 1;
        }
    }
    swept
}

struct Ctx<'a> {
    job: &'a CompileJob,
    dir: PathBuf,
    deadline: Instant,
    /// The source's file name in the job folder.
    source_name: String,
    /// No tmpfs caps the folder: each step is killed once the folder holds more than the cap.
    watch_disk: bool,
}

impl Ctx<'_> {
    fn write_source(&mut self, name: &str) -> Result<(), String> {
        self.source_name = name.to_string();
        let path = self.dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("could not make {}: {e}", parent.display()))?;
        }
        std::fs::write(&path, &self.job.source)
            .map_err(|e| format!("could not write {}: {e}", path.display()))
    }

    fn step(
        &self,
        program: &Path,
        args: Vec<OsString>,
        stdin: Option<Vec<u8>>,
        address_space: Option<u64>,
    ) -> Exit {
        self.step_with_env(program, args, stdin, address_space, Vec::new(), false)
    }

    /// A step with these environment variables besides the sandbox's; `built`: it runs the
    /// job's built program, which may use ptrace (LeakSanitizer does), as compilers may not.
    fn step_with_env(
        &self,
        program: &Path,
        args: Vec<OsString>,
        stdin: Option<Vec<u8>>,
        address_space: Option<u64>,
        mut env: Vec<(String, OsString)>,
        built: bool,
    ) -> Exit {
        let limits = &self.job.limits;
        let mut spec = Spec::new(program.to_path_buf(), args, self.dir.clone(), self.deadline);
        spec.stdin = stdin;
        spec.address_space = address_space;
        spec.output_cap = limits.output_bytes;
        spec.cancel = self.job.cancel.clone();
        spec.cpu_seconds = Some(limits.job_timeout.as_secs() + 1);
        spec.confinement = self.confinement();
        spec.data = self.data_limit(address_space);
        spec.disk = self.watch_disk.then_some(limits.job_disk);
        spec.ptrace = built;
        if limits.cgroups.is_none() && spec.data.is_none() {
            // A sanitizer build's program: its runtime enforces a resident-memory cap.
            let cap = format!("hard_rss_limit_mb={}", limits.memory_bytes >> 20);
            for var in [
                "ASAN_OPTIONS",
                "LSAN_OPTIONS",
                "MSAN_OPTIONS",
                "TSAN_OPTIONS",
            ] {
                env.push((var.into(), cap.clone().into()));
            }
        }
        if limits.sandbox.is_none() {
            env.push(("TMPDIR".into(), self.dir.clone().into_os_string()));
        }
        spec.env = env;
        let mut out = process::run(spec).unwrap_or_else(|e| Exit {
            code: -1,
            stderr: e.into_bytes(),
            ..Exit::default()
        });
        // The kernel's OOM count says something was killed; a step that still succeeded (a
        // killed helper it retried, or another process of the job) did not fail for it.
        if out.out_of_memory && out.code != 0 {
            let note = format!(
                "\nKilled - the job passed its memory limit of {} MiB\n",
                limits.memory_bytes >> 20
            );
            out.stderr.extend_from_slice(note.as_bytes());
        }
        if out.over_disk {
            let note = format!(
                "\nKilled - the job wrote more than its folder's cap of {} MiB\n",
                limits.job_disk >> 20
            );
            out.stderr.extend_from_slice(note.as_bytes());
        }
        out
    }

    /// The sandbox and control groups every step runs in (none with --unsafe-no-sandbox).
    fn confinement(&self) -> Confinement {
        let limits = &self.job.limits;
        match &limits.sandbox {
            Some(sandbox) => Confinement::Jailed {
                sandbox: sandbox.clone(),
                cgroups: limits.cgroups.clone(),
                memory: limits.memory_bytes,
                processes: limits.processes,
            },
            None => Confinement::None,
        }
    }

    /// `RLIMIT_DATA` where no control group caps memory: the step's address-space limit, and
    /// the job's memory for node and the JVM (which get no address-space limit); none for a
    /// sanitizer build's program (its shadow memory is terabytes of private mappings; its
    /// runtime's hard_rss_limit_mb caps it instead).
    fn data_limit(&self, address_space: Option<u64>) -> Option<u64> {
        let limits = &self.job.limits;
        if limits.cgroups.is_some() {
            return None;
        }
        address_space.or(
            matches!(self.job.compiler.driver, Driver::Node | Driver::Javac)
                .then_some(limits.memory_bytes),
        )
    }

    /// Runs a compiler (messages cleaned up, memory-limited unless `address_space` says not).
    fn compile(&self, program: &Path, args: Vec<OsString>, address_space: Option<u64>) -> Exit {
        self.compile_with_env(program, args, address_space, Vec::new())
    }

    fn compile_with_env(
        &self,
        program: &Path,
        args: Vec<OsString>,
        address_space: Option<u64>,
        env: Vec<(String, OsString)>,
    ) -> Exit {
        let mut out = self.step_with_env(program, args, None, address_space, env, false);
        out.stdout = self.clean(&out.stdout);
        out.stderr = self.clean(&out.stderr);
        out
    }

    /// A fresh folder `name` in the job folder.
    fn subfolder(&self, name: &str) -> Result<PathBuf, String> {
        let dir = self.dir.join(name);
        std::fs::create_dir(&dir).map_err(|e| format!("could not make {}: {e}", dir.display()))?;
        crate::jail::give_to_job(&dir)?;
        Ok(dir)
    }

    /// Runs the built program with the request's arguments and stdin.
    fn execute(&self, program: &Path, args: Vec<OsString>, address_space: Option<u64>) -> Exit {
        let mut all = args;
        all.extend(self.job.program_args.iter().map(OsString::from));
        let stdin = Some(self.job.stdin.clone().into_bytes());
        let mut out = self.step_with_env(program, all, stdin, address_space, Vec::new(), true);
        out.stdout = self.without_dir(&out.stdout);
        out.stderr = self.without_dir(&out.stderr);
        out
    }

    /// Compiler messages without the job folder, and with the source called `<source>`.
    fn clean(&self, bytes: &[u8]) -> Vec<u8> {
        let mut text = String::from_utf8(self.without_dir(bytes))
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        if !self.source_name.is_empty() {
            text = text.replace(&self.source_name, "<source>");
        }
        text.into_bytes()
    }

    /// `bytes` with the job folder's random path taken out (`DIR/x` -> `x`, `DIR` -> `.`), so
    /// that answers do not differ from one job to the next: debug info puts it in the asm, and
    /// sanitizers print it when the program runs.
    fn without_dir(&self, bytes: &[u8]) -> Vec<u8> {
        let dir = self.dir.to_string_lossy().into_owned();
        let real = self
            .dir
            .canonicalize()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| dir.clone());
        let needle = |d: &str| bytes.windows(d.len()).any(|w| w == d.as_bytes());
        if !needle(&dir) && !needle(&real) {
            return bytes.to_vec();
        }
        let mut text = String::from_utf8_lossy(bytes).into_owned();
        for d in [&real, &dir] {
            text = text.replace(&format!("{d}/"), "").replace(d.as_str(), ".");
        }
        text.into_bytes()
    }

    fn memory(&self) -> u64 {
        self.job.limits.memory_bytes
    }

    fn heap_mib(&self) -> u64 {
        ((self.memory() / 2) >> 20).max(64)
    }

    fn wants_execute(&self) -> bool {
        self.job.filters.execute
    }

    fn user_args(&self) -> impl Iterator<Item = OsString> + '_ {
        self.job.user_args.iter().map(OsString::from)
    }

    fn has_user_arg(&self, prefix: &str) -> bool {
        self.job.user_args.iter().any(|a| a.starts_with(prefix))
    }

    fn read_asm(&self, name: &str) -> (Vec<u8>, bool) {
        let (asm, truncated) = read_capped(&self.dir.join(name), self.job.limits.output_bytes);
        (self.without_dir(&asm), truncated)
    }
}

fn read_capped(path: &Path, cap: usize) -> (Vec<u8>, bool) {
    use std::io::Read;
    let Ok(file) = std::fs::File::open(path) else {
        return (Vec::new(), false);
    };
    let mut buf = Vec::new();
    let _ = file.take(cap as u64 + 1).read_to_end(&mut buf);
    let truncated = buf.len() > cap;
    buf.truncate(cap);
    (buf, truncated)
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// What a job produced, before it is turned into JSON.
#[derive(Default)]
struct JobResult {
    compile: Exit,
    asm: Vec<u8>,
    asm_truncated: bool,
    /// What the compiler was given, for the answer's `compilationOptions`.
    options: Vec<String>,
    exec: Option<ExecResult>,
    /// What the compile covered (tcc only), or why gcov could not tell.
    coverage: Option<Result<Coverage, String>>,
}

enum ExecResult {
    /// The program ran.
    Ran { build: Option<Exit>, run: Exit },
    /// It was not run: the compile or build failed, or execution is turned off.
    NotRun { build: Option<Exit>, reason: String },
}

impl JobResult {
    fn to_json(&self, budget: &mut Budget) -> Value {
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

    fn exec_timed_out(&self) -> bool {
        matches!(&self.exec, Some(ExecResult::Ran { run, .. }) if run.timed_out)
            || matches!(&self.exec, Some(ExecResult::Ran { build: Some(b), .. } | ExecResult::NotRun { build: Some(b), .. }) if b.timed_out)
    }

    fn exec_truncated(&self) -> bool {
        matches!(&self.exec, Some(ExecResult::Ran { run, .. }) if run.truncated())
    }
}

impl ExecResult {
    fn to_json(&self, budget: &mut Budget) -> Value {
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
struct Budget {
    bytes: usize,
    lines: usize,
    /// Whether something was left out.
    cut: bool,
}

impl Budget {
    /// `[{"text": line}, ...]` of `bytes` within the budget, with a note when something was
    /// left out (here or, `truncated`, already by the capture).
    fn take(&mut self, bytes: &[u8], truncated: bool) -> Vec<Value> {
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

fn options_of(args: &[OsString]) -> Vec<String> {
    args.iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// Runs the program built at `program` if `build` succeeded (and execution is allowed).
fn execute_built(
    ctx: &Ctx<'_>,
    build: Option<Exit>,
    program: &Path,
    args: Vec<OsString>,
    address_space: Option<u64>,
) -> ExecResult {
    if let Some(b) = &build {
        if b.code != 0 || b.timed_out {
            return ExecResult::NotRun {
                build,
                reason: "Build failed".into(),
            };
        }
    }
    let run = ctx.execute(program, args, address_space);
    ExecResult::Ran { build, run }
}

/// What running the program gives, if the request asked for it: refused when this server
/// does not execute, not run when the compile failed, else what `run` builds and runs.
fn execution(
    ctx: &Ctx<'_>,
    compile: &Exit,
    run: impl FnOnce() -> ExecResult,
) -> Option<ExecResult> {
    if !ctx.wants_execute() {
        return None;
    }
    if !ctx.job.limits.allow_execute {
        return Some(ExecResult::NotRun {
            build: None,
            reason: "execution is turned off on this server (whittle serve --no-execute)".into(),
        });
    }
    if compile.code != 0 || compile.timed_out {
        return Some(ExecResult::NotRun {
            build: None,
            reason: "Build failed".into(),
        });
    }
    Some(run())
}

fn c_like(ctx: &mut Ctx<'_>) -> Result<JobResult, String> {
    let c = &ctx.job.compiler;
    ctx.write_source(if c.lang == "c++" {
        "example.cpp"
    } else {
        "example.c"
    })?;
    let binary = ctx.job.filters.binary && c.disassembler.is_some();
    let intel = ctx.job.filters.intel && std::env::consts::ARCH == "x86_64";
    let mut args = if binary {
        os(&["-c", "-o", "output.o"])
    } else {
        os(&["-S", "-o", "output.s"])
    };
    if intel {
        args.push("-masm=intel".into());
    }
    args.extend(ctx.user_args());
    args.push(ctx.source_name.clone().into());
    let options = options_of(&args);
    let compile = ctx.compile(&c.exe, args, Some(ctx.memory()));
    let (asm, asm_truncated) = if compile.code != 0 {
        (Vec::new(), false)
    } else if binary {
        let objdump = c.disassembler.as_ref().expect("checked above");
        disassemble(ctx, objdump, intel)
    } else {
        ctx.read_asm("output.s")
    };
    let exec = execution(ctx, &compile, || {
        // Sanitizers reserve terabytes of address space for their shadow memory.
        let run_limit = if ctx.has_user_arg("-fsanitize") {
            None
        } else {
            Some(ctx.memory())
        };
        link_and_run(ctx, &c.exe, Vec::new(), Vec::new(), run_limit)
    });
    Ok(JobResult {
        compile,
        asm,
        asm_truncated,
        options,
        exec,
        coverage: None,
    })
}

/// Builds the source into `program` with `exe FIRST -o program USER-ARGS SOURCE` (under
/// `env`) and runs it: what a C or C++ job's execution is.
fn link_and_run(
    ctx: &Ctx<'_>,
    exe: &Path,
    first: Vec<OsString>,
    env: Vec<(String, OsString)>,
    run_limit: Option<u64>,
) -> ExecResult {
    let mut largs = first;
    largs.extend(os(&["-o", "program"]));
    largs.extend(ctx.user_args());
    largs.push(ctx.source_name.clone().into());
    let build = ctx.compile_with_env(exe, largs, Some(ctx.memory()), env);
    execute_built(
        ctx,
        Some(build),
        &ctx.dir.join("program"),
        vec![],
        run_limit,
    )
}

/// `objdump -d` of the job's `output.o`.
fn disassemble(ctx: &Ctx<'_>, objdump: &Path, intel: bool) -> (Vec<u8>, bool) {
    let mut dargs = os(&["-d", "-r", "-C", "--no-show-raw-insn"]);
    if intel {
        dargs.extend(os(&["-M", "intel"]));
    }
    dargs.push("output.o".into());
    let d = ctx.step(objdump, dargs, None, Some(ctx.memory()));
    (ctx.without_dir(&d.stdout), d.stdout_truncated)
}

/// tcc's coverage build: compiles to an object with its counters in `coverage/` of the job
/// folder (its own, so parallel jobs never mix counters), reads them with gcov in the same
/// sandbox, and shows `objdump -d` of the object. The build for executing counts into another
/// folder: the answer's coverage is the one compile's.
fn tcc(ctx: &mut Ctx<'_>) -> Result<JobResult, String> {
    let c = &ctx.job.compiler;
    let gcov = c
        .gcov
        .as_ref()
        .expect("tcc is offered with its coverage build");
    ctx.write_source("example.c")?;
    let base = compilers::tcc_base_args(gcov.objects());
    let mut args = base.clone();
    args.extend(os(&["-c", "-o", "output.o"]));
    args.extend(ctx.user_args());
    args.push(ctx.source_name.clone().into());
    let options = options_of(&args);
    let counters = ctx.subfolder("coverage")?;
    let env = gcov.env(&counters);
    let compile = ctx.compile_with_env(&c.exe, args, Some(ctx.memory()), env);
    let coverage = gcov.collect(&counters, ctx.deadline, ctx.confinement());
    let (asm, asm_truncated) = match &c.disassembler {
        Some(objdump) if compile.code == 0 => {
            let intel = ctx.job.filters.intel && std::env::consts::ARCH == "x86_64";
            disassemble(ctx, objdump, intel)
        }
        _ => (Vec::new(), false),
    };
    let exec = execution(ctx, &compile, || {
        let build_counters = match ctx.subfolder("build-coverage") {
            Ok(d) => d,
            Err(reason) => {
                return ExecResult::NotRun {
                    build: None,
                    reason,
                }
            }
        };
        let env = gcov.env(&build_counters);
        link_and_run(ctx, &c.exe, base, env, Some(ctx.memory()))
    });
    Ok(JobResult {
        compile,
        asm,
        asm_truncated,
        options,
        exec,
        coverage: Some(coverage),
    })
}

fn rustc(ctx: &mut Ctx<'_>) -> Result<JobResult, String> {
    let c = &ctx.job.compiler;
    ctx.write_source("example.rs")?;
    let src = ctx.source_name.clone();
    let mut base = Vec::new();
    if !ctx.has_user_arg("--edition") {
        base.extend(os(&["--edition", "2021"]));
    }
    let is_program = source_facts::rust_has_main(&ctx.job.source);
    let user_sets_crate_type = ctx.has_user_arg("--crate-type");
    let mut args = base.clone();
    if !user_sets_crate_type {
        args.extend(os(&[
            "--crate-type",
            if is_program { "bin" } else { "lib" },
        ]));
    }
    // One codegen unit, so that optimised builds still write a single .s file.
    args.extend(os(&[
        "--emit",
        "asm",
        "-o",
        "output.s",
        "-C",
        "codegen-units=1",
    ]));
    args.extend(ctx.user_args());
    args.push(src.clone().into());
    let options = options_of(&args);
    let compile = ctx.compile(&c.exe, args, Some(ctx.memory()));
    let (asm, asm_truncated) = if compile.code == 0 {
        ctx.read_asm("output.s")
    } else {
        (Vec::new(), false)
    };
    let exec = execution(ctx, &compile, || {
        let mut bargs = base;
        if !user_sets_crate_type {
            bargs.extend(os(&["--crate-type", "bin"]));
        }
        bargs.extend(os(&["-o", "program"]));
        bargs.extend(ctx.user_args());
        bargs.push(src.into());
        let build = ctx.compile(&c.exe, bargs, Some(ctx.memory()));
        execute_built(
            ctx,
            Some(build),
            &ctx.dir.join("program"),
            vec![],
            Some(ctx.memory()),
        )
    });
    Ok(JobResult {
        compile,
        asm,
        asm_truncated,
        options,
        exec,
        coverage: None,
    })
}

fn node(ctx: &mut Ctx<'_>) -> Result<JobResult, String> {
    let c = &ctx.job.compiler;
    ctx.write_source(if source_facts::js_is_module(&ctx.job.source) {
        "example.mjs"
    } else {
        "example.js"
    })?;
    let src = ctx.source_name.clone();
    let mut args: Vec<OsString> = ctx.user_args().collect();
    args.push("--check".into());
    args.push(src.clone().into());
    let options = options_of(&args);
    // V8 reserves tens of GiB of address space up front, so node gets a heap limit instead.
    let compile = ctx.compile(&c.exe, args, None);
    let exec = execution(ctx, &compile, || {
        let mut rargs: Vec<OsString> = Vec::new();
        if !ctx.has_user_arg("--max-old-space-size") {
            rargs.push(format!("--max-old-space-size={}", ctx.heap_mib()).into());
        }
        rargs.extend(ctx.user_args());
        rargs.push(src.into());
        execute_built(ctx, None, &c.exe, rargs, None)
    });
    Ok(JobResult {
        compile,
        asm: Vec::new(),
        asm_truncated: false,
        options,
        exec,
        coverage: None,
    })
}

fn javac(ctx: &mut Ctx<'_>) -> Result<JobResult, String> {
    let c = &ctx.job.compiler;
    let names = source_facts::java_names(&ctx.job.source);
    ctx.write_source(&format!("{}.java", names.file_stem))?;
    let src = ctx.source_name.clone();
    ctx.subfolder("classes")?;
    let heap = format!("-Xmx{}m", ctx.heap_mib());
    // The JVM reserves more address space than RLIMIT_AS would allow, so it gets -Xmx instead;
    // javac and javap start faster with the client compiler and no perf data file.
    let fast_jvm = |heap: &str| -> Vec<OsString> {
        [
            heap,
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-XX:-UsePerfData",
        ]
        .iter()
        .map(|f| OsString::from(format!("-J{f}")))
        .collect()
    };
    let mut args = fast_jvm(&heap);
    args.extend(os(&["-encoding", "UTF-8", "-d", "classes"]));
    args.extend(ctx.user_args());
    args.push(src.clone().into());
    let options = options_of(&args);
    let compile = ctx.compile(&c.exe, args, None);
    let (asm, asm_truncated) = match (&c.disassembler, compile.code) {
        (Some(javap), 0) => {
            let mut classes = Vec::new();
            collect_class_files(&ctx.dir.join("classes"), &mut classes);
            classes.sort();
            if classes.is_empty() {
                (Vec::new(), false)
            } else {
                let mut dargs = fast_jvm(&heap);
                dargs.extend(os(&["-c", "-p"]));
                dargs.extend(
                    classes
                        .iter()
                        .map(|p| p.strip_prefix(&ctx.dir).unwrap_or(p).as_os_str().to_owned()),
                );
                let d = ctx.step(javap, dargs, None, None);
                (d.stdout, d.stdout_truncated)
            }
        }
        _ => (Vec::new(), false),
    };
    let exec = execution(ctx, &compile, || {
        let java = c.runner.as_ref().expect("javac is offered only with java");
        let rargs = vec![
            OsString::from(heap),
            "-XX:-UsePerfData".into(),
            "-cp".into(),
            "classes".into(),
            names.qualified_main().into(),
        ];
        execute_built(ctx, None, java, rargs, None)
    });
    Ok(JobResult {
        compile,
        asm,
        asm_truncated,
        options,
        exec,
        coverage: None,
    })
}

fn collect_class_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_class_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "class") {
            out.push(p);
        }
    }
}
