//! `whittle serve`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

#[derive(clap::Args)]
pub struct ServeArgs {
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on. Anything but loopback makes compile jobs (which run programs on
    /// this machine) reachable from the network.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// The folder holding index.html and web/ (default: the project folder).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Wall time per compile job in seconds (compiling, linking and running together).
    #[arg(long, value_name = "SECONDS", default_value_t = 20.0)]
    pub job_timeout: f64,
    /// Compile jobs running at once (default: the number of cores); more wait in a queue.
    #[arg(long, value_name = "N")]
    pub max_jobs: Option<usize>,
    /// Compile jobs that may wait for a turn; beyond that requests get 429.
    #[arg(long, value_name = "N", default_value_t = 256)]
    pub max_queue: usize,
    /// Memory of a job in MiB: a control-group cap on all it runs where the kernel offers one,
    /// else an address-space limit for compilers and compiled programs (node and the JVM also
    /// get a heap of half of it).
    #[arg(long, value_name = "MIB", default_value_t = 2048)]
    pub max_memory: u64,
    /// Output in one answer (stdout, stderr, asm together), in KiB; the rest is dropped and the
    /// answer says `truncated`.
    #[arg(long, value_name = "KIB", default_value_t = 1024)]
    pub max_output: usize,
    /// Largest request body, in KiB (413 beyond).
    #[arg(long, value_name = "KIB", default_value_t = 2048)]
    pub max_body: usize,
    /// Never run compiled programs (`filters.execute` is answered with didExecute: false).
    #[arg(long)]
    pub no_execute: bool,
    /// Let pages from this web origin (e.g. https://example.org) send compile requests; this
    /// server's own page and pages on localhost always may. Repeatable; `*` allows any origin.
    #[arg(long, value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
    /// Lines of output in one answer (all streams together).
    #[arg(long, value_name = "N", default_value_t = 20_000)]
    pub max_output_lines: usize,
    /// Processes and threads a job may have at once (an rlimit in the job's own user
    /// namespace, and a control group's cap where available).
    #[arg(long, value_name = "N", default_value_t = 256)]
    pub max_processes: u64,
    /// What a job may write in its folder, in MiB (a tmpfs of that size when the server runs
    /// as root; else each file is capped at that size); also the size of its private /tmp.
    #[arg(long, value_name = "MIB", default_value_t = 256)]
    pub max_job_disk: u64,
    /// Cap jobs with rlimits only, not control groups (for testing what holds without them).
    #[arg(long)]
    pub no_cgroups: bool,
    /// tcc's coverage build (scripts/build-tcc.sh), offered as the compiler `tcc` whose answers
    /// carry the compile's coverage (default: target/tcc/build of the project, when built).
    #[arg(long, value_name = "DIR")]
    pub tcc: Option<PathBuf>,
    /// Run compile jobs and programs even though no sandbox works here: they can then read and
    /// write whatever this user can, and reach the network. Never on a shared machine.
    #[arg(long)]
    pub unsafe_no_sandbox: bool,
}

pub fn run(args: ServeArgs) -> i32 {
    let project = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = args.root.unwrap_or_else(|| project.clone());
    let mut opts = whittle_serve::server::ServeOptions::new(args.host, args.port, root);
    if !(args.job_timeout > 0.0 && args.job_timeout.is_finite()) {
        eprintln!("whittle serve: --job-timeout must be a positive number of seconds");
        return 2;
    }
    let l = &mut opts.limits;
    l.job_timeout = Duration::from_secs_f64(args.job_timeout);
    if let Some(n) = args.max_jobs {
        l.max_jobs = n.max(1);
    }
    l.queue_len = args.max_queue;
    l.memory_bytes = args.max_memory << 20;
    l.output_bytes = args.max_output << 10;
    l.output_lines = args.max_output_lines.max(1);
    l.processes = args.max_processes.max(8);
    l.unsafe_no_sandbox = args.unsafe_no_sandbox;
    l.job_disk = args.max_job_disk.max(1) << 20;
    confine(l, !args.no_cgroups);
    l.body_bytes = args.max_body << 10;
    l.allow_execute = !args.no_execute;
    opts.allow_any_origin = args.allow_origin.iter().any(|o| o == "*");
    opts.allowed_origins = args.allow_origin.into_iter().filter(|o| o != "*").collect();
    opts.tcc_required = args.tcc.is_some();
    opts.tcc = Some(args.tcc.unwrap_or_else(|| project.join("target/tcc/build")));
    expose_tcc(opts.tcc.as_deref(), &mut opts.limits);
    match whittle_serve::server::run(opts) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("whittle serve: {e}");
            1
        }
    }
}

/// Jobs see only what compilers need: a tcc build (in a checkout they do not see) is bound
/// into their view, read-only.
fn expose_tcc(tcc: Option<&Path>, l: &mut whittle_serve::server::Limits) {
    let (Some(dir), Some(sandbox)) = (tcc.and_then(|d| d.canonicalize().ok()), l.sandbox.as_mut())
    else {
        return;
    };
    let mut s = (**sandbox).clone();
    s.expose(dir);
    *sandbox = std::sync::Arc::new(s);
}

/// Finds the sandbox and control groups, says at start what jobs run in, and sweeps the job
/// folders of servers that were killed.
fn confine(l: &mut whittle_serve::server::Limits, use_cgroups: bool) {
    let swept = whittle_serve::server::sweep_stale_job_folders();
    if swept > 0 {
        println!("whittle serve: removed {swept} job folder(s) left by servers that were killed");
    }
    let sandbox = whittle_serve::sandbox::Sandbox::detect().and_then(|mut s| {
        s.set_tmp_size(l.job_disk);
        s.check_jail().map(|()| s)
    });
    match sandbox {
        Ok(sandbox) => {
            eprintln!("whittle serve: sandbox: {}", sandbox.describe());
            l.sandbox = Some(Arc::new(sandbox));
        }
        Err(why) if l.unsafe_no_sandbox => eprintln!(
            "whittle serve: warning: no sandbox ({why}); --unsafe-no-sandbox: jobs run as this user, with its files and the network"
        ),
        Err(why) => eprintln!(
            "whittle serve: no sandbox: {why}. Compile jobs are refused; fix that, or start with --unsafe-no-sandbox to run them unconfined"
        ),
    }
    let disk = match whittle_serve::jail::disk_cap_works(&std::env::temp_dir()) {
        Ok(()) => format!("a job folder is a tmpfs of {} MiB", l.job_disk >> 20),
        Err(why) => format!(
            "a job is killed once its folder holds more than {} MiB, measured every {} ms ({why})",
            l.job_disk >> 20,
            whittle_serve::process::CANCEL_POLL.as_millis()
        ),
    };
    let cgroups = if use_cgroups {
        whittle_serve::sandbox::Cgroups::detect()
    } else {
        Err("--no-cgroups".into())
    };
    match cgroups {
        Ok(cgroups) => {
            eprintln!(
                "whittle serve: limits: {}, {} MiB and {} processes a job; {disk}",
                cgroups.describe(),
                l.memory_bytes >> 20,
                l.processes
            );
            l.cgroups = Some(Arc::new(cgroups));
        }
        Err(why) => eprintln!(
            "whittle serve: limits: no control groups ({why}): {} processes and threads a job (RLIMIT_NPROC in its own user namespace); memory is capped per process, at {} MiB of address space for compilers and programs, {} MiB of data (RLIMIT_DATA) for node and java, which also get a heap limit, and resident memory (the sanitizers' hard_rss_limit_mb) for sanitizer builds' programs; {disk}",
            l.processes,
            l.memory_bytes >> 20,
            l.memory_bytes >> 20,
        ),
    }
}
