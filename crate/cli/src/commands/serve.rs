//! `whittle serve`.

use std::path::PathBuf;
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
    /// Compile jobs that may wait for a turn; beyond that requests get 503.
    #[arg(long, value_name = "N", default_value_t = 256)]
    pub max_queue: usize,
    /// Address-space limit for compilers and compiled programs, in MiB (node and the JVM get a
    /// heap of half of it instead).
    #[arg(long, value_name = "MIB", default_value_t = 2048)]
    pub max_memory: u64,
    /// Output kept per stream (stdout, stderr, asm), in KiB; the rest is dropped and the answer
    /// says `truncated`.
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
}

pub fn run(args: ServeArgs) -> i32 {
    let root = args
        .root
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."));
    let mut opts = crate::server::ServeOptions::new(args.host, args.port, root);
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
    l.body_bytes = args.max_body << 10;
    l.allow_execute = !args.no_execute;
    opts.allow_any_origin = args.allow_origin.iter().any(|o| o == "*");
    opts.allowed_origins = args.allow_origin.into_iter().filter(|o| o != "*").collect();
    match crate::server::run(opts) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("whittle serve: {e}");
            1
        }
    }
}
