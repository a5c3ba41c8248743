//! `whittle serve`: the playground page and a Compiler Explorer-shaped compile API.
//!
//! - `static_files`: `/` and `/e` (index.html), `/web/**`.
//! - `api`: `/api/compilers[/<lang>]`, `/api/languages`, `POST /api/compiler/<id>/compile`, CORS.
//! - `compilers`: which compilers this machine has (probed once at start).
//! - `compile`: one job: its commands per compiler and its JSON answer.
//! - `jobs`: the limits and the bounded queue of jobs; `process`: one limited process.
//! - `user_args`: splitting and vetting the user's flags; `pragmas`: refusing sources that
//!   pass their compiler options or file names; `source_facts`: what the source says
//!   (Java class names, Rust `fn main`, ES modules); `http`: small HTTP helpers;
//!   `cancel`: the keys that call jobs off.
//!
//! HTTP is hyper's HTTP/1.1 on a small tokio runtime: a task per connection, so idle or slow
//! clients cost a little memory, never a thread. Headers must arrive within
//! [`HEADER_READ_TIMEOUT`], bodies within `api::BODY_TIMEOUT`; a connection that moves no byte
//! for [`STALL_TIMEOUT`] while no request of its own is being answered is closed. At most
//! [`MAX_CONNECTIONS`] are open at once (more are answered 503 at once), and the request
//! bodies held at once share one budget (`http::BodyBudget`: past it, 503), so that clients
//! sending bodies slowly cannot grow the server's memory without bound. A client that closes
//! its connection while its compile job waits or runs calls the job off. Compile jobs
//! run on their own pool of threads (`jobs`), static files on tokio's blocking threads, so the
//! page keeps loading while jobs run.
//!
//! On loopback (the default), requests must name a loopback host (`Host: localhost`,
//! `127.0.0.1`, `[::1]`, any port), which defeats DNS rebinding. Every answer except the embed
//! (`/e`) tells browsers not to frame it on other sites.

mod api;
mod cancel;
pub(crate) mod compile;
pub use compile::sweep_stale_job_folders;
mod compilers;
mod family;
mod http;
mod jobs;
mod memory;
mod pragmas;
mod source_facts;
mod static_files;
mod user_args;

use std::convert::Infallible;
use std::future::{poll_fn, Future};
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::Request;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

use http::Resp;
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
    /// tcc's coverage build (scripts/build-tcc.sh), offered as the compiler `tcc` if it works.
    pub tcc: Option<PathBuf>,
    /// Refuse to start when `tcc` does not work (it was asked for by name).
    pub tcc_required: bool,
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
            tcc: None,
            tcc_required: false,
        }
    }
}

/// What every request handler shares.
pub(crate) struct State {
    compilers: Vec<compilers::Compiler>,
    limits: Limits,
    jobs: jobs::JobQueue,
    /// The bytes of request bodies held at once.
    bodies: Arc<http::BodyBudget>,
    cancels: Arc<cancel::Cancels>,
    files: static_files::StaticFiles,
    allowed_origins: Vec<String>,
    allow_any_origin: bool,
    /// Listening on loopback: requests must name a loopback host.
    loopback_only: bool,
    /// The port listened on (for messages).
    port: u16,
}

/// A request's headers must have arrived this long after the connection is ready for one
/// (including a kept-alive connection waiting for its next request).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// A connection that moves no byte this long while none of its requests is being answered
/// (a client that stopped reading its answer, say) is closed.
pub const STALL_TIMEOUT: Duration = Duration::from_secs(30);
/// After its last answer, a connection reads and drops what the client still sends (a refused
/// body) for up to this long, so the client reads its answer instead of a reset.
const LINGER: Duration = Duration::from_secs(2);
const LINGER_BYTES: usize = 64 << 20;
/// After an accept error (EMFILE: out of file descriptors), wait this long before the next.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);
/// Threads running the HTTP tasks; blocking work (files) has its own.
const HTTP_THREADS: usize = 2;
/// Connections open at once; past it a connection is answered 503 and closed.
pub const MAX_CONNECTIONS: usize = 256;
/// A connection's read buffer at most (request heads must fit; bodies stream through it).
const READ_BUFFER: usize = 64 << 10;
/// The request bodies held at once, all together: this, or four of the largest allowed.
const BODY_BUDGET: usize = 32 << 20;
/// How long a connection refused for the cap lingers to let its client read the answer.
const REFUSED_LINGER: Duration = Duration::from_secs(1);

/// Serves until the process is stopped.
pub fn run(opts: ServeOptions) -> Result<(), String> {
    memory::tune();
    let found = compilers::probe(opts.tcc.as_deref());
    if let (true, Some(why)) = (opts.tcc_required, &found.tcc_problem) {
        return Err(format!("--tcc: {why}"));
    }
    let addr = match opts.host.parse::<IpAddr>() {
        Ok(IpAddr::V6(ip)) => format!("[{ip}]:{}", opts.port),
        _ => format!("{}:{}", opts.host, opts.port),
    };
    let listener = std::net::TcpListener::bind(&addr)
        .and_then(|l| l.set_nonblocking(true).map(|()| l))
        .map_err(|e| {
            format!("could not listen on {addr}: {e}; is another server using port {}? Try --port <another>", opts.port)
        })?;
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(opts.port);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(HTTP_THREADS)
        .max_blocking_threads(32)
        .thread_name("whittle-http")
        .enable_all()
        .build()
        .map_err(|e| format!("could not start the HTTP runtime: {e}"))?;
    let _entered = runtime.enter();
    let listener =
        TcpListener::from_std(listener).map_err(|e| format!("could not listen on {addr}: {e}"))?;
    // Before the first line, which tells a waiting test or script that the server is up.
    on_signals_stop()?;

    let shown_host = if opts.host.contains(':') {
        format!("[{}]", opts.host)
    } else {
        opts.host.clone()
    };
    println!("whittle serve: http://{shown_host}:{port}/");
    let loopback_only = is_loopback(&opts.host);
    if !loopback_only {
        eprintln!(
            "whittle serve: warning: listening on {} (not loopback): compile jobs, which run programs on this machine, are reachable from the network. Use --host 127.0.0.1 to keep them local.",
            opts.host
        );
    }
    report_compilers(&found);
    let l = &opts.limits;
    println!(
        "whittle serve: limits: {} job(s) at once ({} may wait), {} s per job, {} MiB of memory, {} KiB of output per stream, {} KiB request bodies ({} MiB of bodies at once), {} connections{}",
        l.max_jobs,
        l.queue_len,
        l.job_timeout.as_secs_f64(),
        l.memory_bytes >> 20,
        l.output_bytes >> 10,
        l.body_bytes >> 10,
        body_budget(l.body_bytes) >> 20,
        MAX_CONNECTIONS,
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

    let state = Arc::new(State {
        compilers: found.compilers,
        jobs: jobs::JobQueue::new(opts.limits.max_jobs, opts.limits.queue_len),
        bodies: http::BodyBudget::new(body_budget(opts.limits.body_bytes)),
        cancels: Arc::default(),
        limits: opts.limits,
        files: static_files::StaticFiles::new(opts.root),
        allowed_origins: opts.allowed_origins,
        allow_any_origin: opts.allow_any_origin,
        loopback_only,
        port,
    });
    runtime.block_on(accept_loop(listener, state));
    Ok(())
}

fn body_budget(body_bytes: usize) -> usize {
    BODY_BUDGET.max(body_bytes.saturating_mul(4))
}

/// On SIGINT or SIGTERM: kill the jobs' processes, remove their folders, exit 130 or 143.
fn on_signals_stop() -> Result<(), String> {
    use tokio::signal::unix::{signal, SignalKind};
    let install = |kind| signal(kind).map_err(|e| format!("could not handle signals: {e}"));
    let mut interrupt = install(SignalKind::interrupt())?;
    let mut terminate = install(SignalKind::terminate())?;
    tokio::spawn(async move {
        let code = tokio::select! {
            _ = interrupt.recv() => 130,
            _ = terminate.recv() => 143,
        };
        compile::stop_jobs();
        crate::process::kill_all();
        compile::remove_job_folders();
        std::process::exit(code);
    });
    Ok(())
}

/// Accepts connections until the process ends. Accept errors (out of file descriptors, most
/// likely) are reported now and then and waited out: connections close, descriptors free up.
async fn accept_loop(listener: TcpListener, state: Arc<State>) {
    let mut last_report: Option<Instant> = None;
    let mut unreported = 0u64;
    let open = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => match Arc::clone(&open).try_acquire_owned() {
                Ok(place) => {
                    let state = Arc::clone(&state);
                    tokio::spawn(async move {
                        serve_connection(state, stream, peer).await;
                        drop(place);
                    });
                }
                Err(_) => {
                    tokio::spawn(refuse_connection(stream));
                }
            },
            Err(e) => {
                use std::io::ErrorKind::*;
                if matches!(
                    e.kind(),
                    ConnectionAborted | ConnectionReset | Interrupted | WouldBlock
                ) {
                    continue;
                }
                unreported += 1;
                if last_report.is_none_or(|t| t.elapsed() >= Duration::from_secs(5)) {
                    eprintln!(
                        "whittle serve: could not accept a connection ({unreported} time(s) since the last report): {e}; waiting for connections to close"
                    );
                    last_report = Some(Instant::now());
                    unreported = 0;
                }
                tokio::time::sleep(ACCEPT_BACKOFF).await;
            }
        }
    }
}

/// Answers a connection past [`MAX_CONNECTIONS`] with a 503 without reading its request.
async fn refuse_connection(mut stream: TcpStream) {
    let body = format!(
        "{{\"error\": \"whittle serve has {MAX_CONNECTIONS} connections open, as many as it keeps; try again shortly\"}}\n"
    );
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json; charset=utf-8\r\nretry-after: 1\r\naccess-control-allow-origin: *\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let write = stream.write_all(answer.as_bytes());
    if let Ok(Ok(())) = tokio::time::timeout(REFUSED_LINGER, write).await {
        linger_close(stream, REFUSED_LINGER).await;
    }
}

type BoxedAnswer = Pin<Box<dyn Future<Output = Result<Resp, Infallible>> + Send>>;

async fn serve_connection(state: Arc<State>, stream: TcpStream, peer: SocketAddr) {
    let _ = stream.set_nodelay(true);
    let activity = Arc::new(Activity::new());
    let io = TokioIo::new(Watched {
        inner: stream,
        activity: Arc::clone(&activity),
    });
    let service = {
        let activity = Arc::clone(&activity);
        service_fn(move |req: Request<Incoming>| -> BoxedAnswer {
            let state = Arc::clone(&state);
            let busy = Busy::new(&activity);
            Box::pin(async move {
                let response = handle(state, req, peer.ip()).await;
                drop(busy);
                Ok(response)
            })
        })
    };
    let mut conn = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .max_buf_size(READ_BUFFER)
        .serve_connection(io, service);
    let mut watchdog = tokio::time::interval(Duration::from_secs(1));
    let ended = loop {
        tokio::select! {
            r = poll_fn(|cx| conn.poll_without_shutdown(cx)) => break r,
            _ = watchdog.tick() => {
                if activity.stalled(STALL_TIMEOUT) {
                    return; // dropping the connection closes it
                }
            }
        }
    };
    if ended.is_err() {
        return; // timed out, malformed or reset: close at once
    }
    linger_close(conn.into_parts().io.into_inner().inner, LINGER).await;
}

/// Closes our side, then reads and drops whatever the client still sends (a body we refused)
/// until it closes too, for a bounded time and size: closing a socket with unread data sends
/// a reset, which can destroy the answer before the client reads it.
async fn linger_close(mut stream: TcpStream, linger: Duration) {
    if stream.shutdown().await.is_err() {
        return;
    }
    let deadline = tokio::time::Instant::now() + linger;
    let mut buf = vec![0u8; 4 << 10];
    let mut drained = 0;
    while drained < LINGER_BYTES {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => drained += n,
            _ => break,
        }
    }
}

/// When a connection last moved a byte, and how many of its requests are being answered.
struct Activity {
    start: Instant,
    last_ms: AtomicU64,
    busy: AtomicUsize,
}

impl Activity {
    fn new() -> Activity {
        Activity {
            start: Instant::now(),
            last_ms: AtomicU64::new(0),
            busy: AtomicUsize::new(0),
        }
    }

    fn touch(&self) {
        self.last_ms
            .store(self.start.elapsed().as_millis() as u64, Ordering::Relaxed);
    }

    fn stalled(&self, after: Duration) -> bool {
        let idle_ms = (self.start.elapsed().as_millis() as u64)
            .saturating_sub(self.last_ms.load(Ordering::Relaxed));
        self.busy.load(Ordering::SeqCst) == 0 && idle_ms >= after.as_millis() as u64
    }
}

/// A request being answered (a compile job may take long without a byte moving).
struct Busy(Arc<Activity>);

impl Busy {
    fn new(activity: &Arc<Activity>) -> Busy {
        activity.busy.fetch_add(1, Ordering::SeqCst);
        Busy(Arc::clone(activity))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.touch();
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A TCP stream that records when bytes move.
struct Watched {
    inner: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.touch();
        }
        r
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, data);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        r
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// One request: the checks every request passes, then the API or a file; then the framing
/// headers (an answer without its own policy, as the page, the embed and the engine's sandbox
/// have (static_files.rs), may be framed only by this server's own pages).
async fn handle(state: Arc<State>, req: Request<Incoming>, peer: IpAddr) -> Resp {
    let (parts, body) = req.into_parts();
    let path = parts.uri.path().to_string();
    let mut response = route(state, parts, body, peer, &path).await;
    if !response.headers().contains_key("content-security-policy") {
        http::set(
            &mut response,
            "content-security-policy",
            "frame-ancestors 'self'",
        );
        http::set(&mut response, "x-frame-options", "SAMEORIGIN");
    }
    response
}

async fn route(
    state: Arc<State>,
    parts: hyper::http::request::Parts,
    body: Incoming,
    peer: IpAddr,
    path: &str,
) -> Resp {
    if http::claimed_length(&parts.headers).is_some_and(|n| n > state.limits.body_bytes as u64) {
        let mut r = http::error(
            413,
            format!("the request body is larger than {} bytes; send a smaller program or start whittle serve with a larger --max-body", state.limits.body_bytes),
        );
        http::set(&mut r, "access-control-allow-origin", "*");
        http::set(&mut r, "connection", "close");
        return r;
    }
    if state.loopback_only {
        let host = http::header_value(&parts.headers, "host");
        let authority = parts.uri.authority().map(|a| a.as_str().to_string());
        // A request without Host (HTTP/1.0) comes from no browser, so from no rebinding page.
        if let Some(bad) = [host, authority]
            .into_iter()
            .flatten()
            .find(|h| !http::is_loopback_host(h))
        {
            let mut r = http::refusal(
                403,
                path,
                format!(
                    "this server listens on loopback and answers only requests addressed to localhost, 127.0.0.1 or [::1]; this one was addressed to {bad:?}. \
                     (A name that resolves to this machine is refused, as a web page could use one to reach it by DNS rebinding.) \
                     Open the page at http://127.0.0.1:{port}/ or http://localhost:{port}/, or start whittle serve with --host <an address of this machine> to serve other names",
                    port = state.port
                ),
            );
            http::set(&mut r, "connection", "close");
            return r;
        }
    }
    if path == "/api" || path.starts_with("/api/") {
        return api::handle(state, parts, body, peer).await;
    }
    let target = parts.uri.path().to_string();
    let work = move || state.files.respond(&parts.method, &target, &parts.headers);
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| http::text(500, format!("could not serve the file: {e}\n")))
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
    if let Some(why) = &found.tcc_problem {
        println!("whittle serve: tcc with coverage is not offered: {why}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_listen_addresses() {
        for host in ["127.0.0.1", "127.0.0.2", "::1", "localhost"] {
            assert!(is_loopback(host), "{host}");
        }
        // Elsewhere any Host name is served, as before.
        for host in ["0.0.0.0", "::", "192.168.1.10", "example.org"] {
            assert!(!is_loopback(host), "{host}");
        }
    }
}
