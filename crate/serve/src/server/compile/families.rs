//! What a job runs, per compiler family (see the module above for each one's commands).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::super::{compilers, source_facts};
use super::answer::{options_of, ExecResult, JobResult};
use super::step::{os, Ctx};
use crate::process::Exit;

/// Runs the program built at `program` if `build` succeeded (and execution is allowed).
pub(super) fn execute_built(
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
pub(super) fn execution(
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

pub(in crate::server) fn c_like(ctx: &mut Ctx<'_>) -> Result<JobResult, String> {
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
pub(super) fn link_and_run(
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
pub(super) fn disassemble(ctx: &Ctx<'_>, objdump: &Path, intel: bool) -> (Vec<u8>, bool) {
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
pub(in crate::server) fn tcc(ctx: &mut Ctx<'_>) -> Result<JobResult, String> {
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

pub(in crate::server) fn rustc(ctx: &mut Ctx<'_>) -> Result<JobResult, String> {
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

pub(in crate::server) fn node(ctx: &mut Ctx<'_>) -> Result<JobResult, String> {
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

pub(in crate::server) fn javac(ctx: &mut Ctx<'_>) -> Result<JobResult, String> {
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

pub(super) fn collect_class_files(dir: &Path, out: &mut Vec<PathBuf>) {
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
