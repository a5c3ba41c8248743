//! `whittle serve`: the playground page and a Compiler Explorer-shaped compile API.
//!
//! - `static_files`: `/` and `/e` (index.html), `/web/**`.
//! - `api`: `/api/compilers[/<lang>]`, `/api/languages`, `POST /api/compiler/<id>/compile`, CORS.
//! - `compilers`: which compilers this machine has (probed once at start).
//! - `compile`: one job: its commands per compiler and its JSON answer.
//! - `jobs`: the limits and the bounded queue of jobs; `process`: one limited process.
//! - `user_args`: splitting and vetting the user's flags; `source_facts`: what the source says
//!   (Java class names, Rust `fn main`, ES modules); `http`: small tiny_http helpers.
//!
//! HTTP requests are taken by a pool of threads, compile jobs run on their own pool, so the page
//! keeps loading while jobs run.

mod api;
mod cancel;
mod compile;
mod compilers;
mod http;
mod jobs;
mod source_facts;
mod static_files;
mod user_args;

use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::thread;

pub use jobs::Limits;

pub struct ServeOptions {
    pub host: String,
    pub port: u16,
    /// The folder holding index.html and web/.
    pub root: PathBuf,
    pub limits: Limits,
    /// Web origins (`https://example.org`) whose pages may send compile requests, besides
    /// this server's own page and other pages on loopback addresses.
    pub allowed_origins: Vec<String>,
    /// Let pages from any web origin send compile requests.
    pub allow_any_origin: bool,
}

impl ServeOptions {
    /// Default limits and origins.
    pub fn new(host: impl Into<String>, port: u16, root: PathBuf) -> ServeOptions {
        ServeOptions {
            host: host.into(),
            port,
            root,
            limits: Limits::default(),
            allowed_origins: Vec::new(),
            allow_any_origin: false,
        }
    }
}

/// What every request handler shares.
pub(crate) struct State {
    compilers: Vec<compilers::Compiler>,
    limits: Limits,
    jobs: jobs::JobQueue,
    cancels: Arc<cancel::Cancels>,
    files: static_files::StaticFiles,
    allowed_origins: Vec<String>,
    allow_any_origin: bool,
}

/// Threads taking HTTP requests (static files answer at once; compile requests are handed to
/// the job pool).
const HTTP_THREADS: usize = 8;

/// Serves until the process is stopped.
pub fn run(opts: ServeOptions) -> Result<(), String> {
    let found = compilers::probe();
    let addr = match opts.host.parse::<IpAddr>() {
        Ok(IpAddr::V6(ip)) => format!("[{ip}]:{}", opts.port),
        _ => format!("{}:{}", opts.host, opts.port),
    };
    let server = tiny_http::Server::http(&addr).map_err(|e| {
        format!("could not listen on {addr}: {e}; is another server using port {}? Try --port <another>", opts.port)
    })?;
    let port = server
        .server_addr()
        .to_ip()
        .map(|a| a.port())
        .unwrap_or(opts.port);
    let shown_host = if opts.host.contains(':') {
        format!("[{}]", opts.host)
    } else {
        opts.host.clone()
    };
    println!("whittle serve: http://{shown_host}:{port}/");
    if !is_loopback(&opts.host) {
        eprintln!(
            "whittle serve: warning: listening on {} (not loopback): compile jobs, which run programs on this machine, are reachable from the network. Use --host 127.0.0.1 to keep them local.",
            opts.host
        );
    }
    report_compilers(&found);
    let l = &opts.limits;
    println!(
        "whittle serve: limits: {} job(s) at once ({} may wait), {} s per job, {} MiB of memory, {} KiB of output per stream, {} KiB request bodies{}",
        l.max_jobs,
        l.queue_len,
        l.job_timeout.as_secs_f64(),
        l.memory_bytes >> 20,
        l.output_bytes >> 10,
        l.body_bytes >> 10,
        if l.allow_execute { "" } else { "; execution off" }
    );
    if !opts.root.join("index.html").is_file() {
        eprintln!(
            "whittle serve: warning: no index.html in {}; pass --root <the project folder>",
            opts.root.display()
        );
    } else if !opts.root.join(static_files::WASM_FILE).is_file() {
        println!(
            "whittle serve: {} is missing: run `npm run build` in {} to build the engine for the page (the page loads, but cannot reduce without it)",
            static_files::WASM_FILE,
            opts.root.display()
        );
    }

    let _ = ctrlc::set_handler(|| {
        crate::process::kill_all();
        std::process::exit(130);
    });

    let state = Arc::new(State {
        compilers: found.compilers,
        jobs: jobs::JobQueue::new(opts.limits.max_jobs, opts.limits.queue_len),
        cancels: Arc::default(),
        limits: opts.limits,
        files: static_files::StaticFiles::new(opts.root),
        allowed_origins: opts.allowed_origins,
        allow_any_origin: opts.allow_any_origin,
    });
    let server = Arc::new(server);
    let workers: Vec<_> = (0..HTTP_THREADS)
        .map(|i| {
            let (server, state) = (Arc::clone(&server), Arc::clone(&state));
            thread::Builder::new()
                .name(format!("whittle-http-{i}"))
                .spawn(move || loop {
                    match server.recv() {
                        Ok(req) => handle(&state, req),
                        Err(e) => eprintln!("whittle serve: {e}"),
                    }
                })
                .map_err(|e| format!("could not start a thread: {e}"))
        })
        .collect::<Result<_, _>>()?;
    for w in workers {
        let _ = w.join();
    }
    Ok(())
}

fn handle(state: &Arc<State>, req: tiny_http::Request) {
    let (path, _) = http::split_target(req.url());
    if req
        .body_length()
        .is_some_and(|n| n > state.limits.body_bytes)
    {
        let mut r = http::error(
            413,
            format!("the request body is larger than {} bytes; send a smaller program or start whittle serve with a larger --max-body", state.limits.body_bytes),
        );
        r.add_header(http::header("Access-Control-Allow-Origin", "*"));
        r.add_header(http::header("Connection", "close"));
        return http::refuse_oversized(req, r);
    }
    if path == "/api" || path.starts_with("/api/") {
        api::handle(state, req);
    } else {
        let response = state.files.respond(&req);
        let _ = req.respond(response);
    }
}

fn is_loopback(host: &str) -> bool {
    host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn report_compilers(found: &compilers::Found) {
    if found.compilers.is_empty() {
        println!("whittle serve: no compilers found on PATH (looked for gcc, g++, clang, clang++, rustc, node, javac with java); the compile API lists none");
    } else {
        let list: Vec<String> = found
            .compilers
            .iter()
            .map(|c| format!("{} ({})", c.name, c.id))
            .collect();
        println!("whittle serve: compilers: {}", list.join(", "));
    }
    if !found.missing.is_empty() {
        println!("whittle serve: not found: {}", found.missing.join(", "));
    }
}
