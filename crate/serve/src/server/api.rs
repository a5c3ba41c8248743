//! The Compiler Explorer-shaped API under `/api/`:
//!
//! - `GET /api/compilers`, `GET /api/compilers/<lang>`: the compilers found here (JSON unless
//!   the Accept header asks for text only); `?fields=id,name` picks fields.
//! - `GET /api/languages`: the languages that have a compiler.
//! - `POST /api/compiler/<id>/compile`: a compile job (see `compile.rs`). The body is CE's JSON,
//!   sent as `Content-Type: application/json` (anything else, including CE's plain form of a
//!   bare source with flags in `?options=`, is refused with 415: a page of another site can
//!   send those without a CORS preflight). A full queue answers 429 with `Retry-After`.
//! - `POST /api/cancel/<key>`: calls off the job whose request carried `X-Whittle-Job: <key>`,
//!   when it comes from the same client (origin and address) as that request (see
//!   `cancel.rs`); also `Content-Type: application/json` (the body is ignored).
//! - `OPTIONS /api/*`: CORS preflight. Every answer carries `Access-Control-Allow-Origin: *`.
//!
//! Compile requests that a browser sends from a page of another site are refused (403) unless
//! that origin was allowed with `--allow-origin`: with CORS open, any web page could otherwise
//! run programs on this machine while its user merely visits it.

use std::net::IpAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::header::HeaderMap;
use hyper::http::request::Parts;
use hyper::Method;
use serde_json::{json, Value};

use super::cancel::{CallOffOnDrop, Cancels, Owner};
use super::compile::{self, CompileRequest};
use super::compilers::{self, Compiler};
use super::http::{self, header_value, BodyError, Resp};
use super::State;

/// How long a client may take to send a request body.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// Answers an `/api/` request from `peer`.
pub async fn handle(state: Arc<State>, parts: Parts, body: Incoming, peer: IpAddr) -> Resp {
    let mut response = route(&state, parts, body, peer).await;
    http::set(&mut response, "access-control-allow-origin", "*");
    http::set(&mut response, "vary", "Accept");
    response
}

async fn route(state: &Arc<State>, parts: Parts, body: Incoming, peer: IpAddr) -> Resp {
    let raw_path = parts.uri.path().to_string();
    let query = parts.uri.query().unwrap_or("").to_string();
    let segments: Option<Vec<String>> = raw_path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| http::percent_decode(s, false))
        .collect();
    let Some(segments) = segments else {
        return http::error(400, format!("bad percent-encoding in {raw_path}"));
    };
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    let headers = &parts.headers;
    match (&parts.method, segments.as_slice()) {
        (&Method::OPTIONS, _) => preflight(headers),
        (&Method::GET | &Method::HEAD, ["api", "compilers"]) => list_compilers(headers, &state.compilers, None, &query),
        (&Method::GET | &Method::HEAD, ["api", "compilers", lang]) => list_compilers(headers, &state.compilers, Some(lang), &query),
        (&Method::GET | &Method::HEAD, ["api", "languages"]) => languages(headers, &state.compilers),
        (&Method::POST, ["api", "compiler", id, "compile"]) => compile_request(state, headers, body, id, peer).await,
        (&Method::POST, ["api", "cancel", key]) => cancel_job(state, headers, body, key, peer).await,
        (_, ["api", "compiler", _, "compile"] | ["api", "cancel", _]) => method_not_allowed("POST"),
        (_, ["api", "compilers", ..] | ["api", "languages"]) => method_not_allowed("GET"),
        _ => http::error(
            404,
            format!(
                "no API endpoint {raw_path}; there are GET /api/compilers, GET /api/compilers/<lang>, GET /api/languages, POST /api/compiler/<id>/compile and POST /api/cancel/<key> (ids here: {})",
                compilers::ids(&state.compilers)
            ),
        ),
    }
}

/// A 415 answer unless the request says its body is JSON.
fn unless_json(headers: &HeaderMap, what: &str) -> Option<Resp> {
    let sent = header_value(headers, "content-type");
    if http::is_json_content_type(sent.as_deref()) {
        return None;
    }
    let sent = sent.map_or("no Content-Type".to_string(), |t| {
        format!("Content-Type {t:?}")
    });
    Some(http::error(
        415,
        format!(
            "{what} must be sent with Content-Type: application/json (this one had {sent}); \
             send the Compiler Explorer JSON body, e.g. {{\"source\": \"int main(){{}}\", \"options\": {{\"userArguments\": \"-O2\"}}}}"
        ),
    ))
}

/// Reads a body within the size and time limits and the server's budget for bodies; the
/// charge keeps its bytes counted until dropped. The error is the answer to send.
async fn body_within_limits(
    state: &State,
    body: Incoming,
) -> Result<(Vec<u8>, http::Charge), Resp> {
    let limit = state.limits.body_bytes;
    let mut refused = match http::read_body(body, limit, BODY_TIMEOUT, &state.bodies).await {
        Ok(read) => return Ok(read),
        Err(BodyError::TooLarge { limit }) => http::error(413, format!("the request body is larger than {limit} bytes; send a smaller program or start whittle serve with a larger --max-body")),
        Err(BodyError::TimedOut { after }) => http::error(
            408,
            format!(
                "the request body did not arrive within {} s",
                after.as_secs()
            ),
        ),
        Err(BodyError::OverBudget { budget }) => {
            let mut r = http::error(
                503,
                format!(
                    "the server is holding as many request bodies as it can ({} MiB in all, for requests being received or waiting for their job); try again shortly",
                    budget >> 20
                ),
            );
            http::set(&mut r, "retry-after", "1");
            r
        }
        Err(BodyError::Io(e)) => http::error(400, format!("could not read the request body: {e}")),
    };
    http::set(&mut refused, "connection", "close");
    Err(refused)
}

/// `POST /api/cancel/<key>`: calls off the job whose request carried `X-Whittle-Job: <key>`,
/// if this client (origin and address) sent that request.
async fn cancel_job(
    state: &State,
    headers: &HeaderMap,
    body: Incoming,
    key: &str,
    peer: IpAddr,
) -> Resp {
    if let Err(msg) = origin_allowed(state, headers) {
        return http::error(403, msg);
    }
    if let Some(r) = unless_json(headers, "POST /api/cancel/<key>") {
        return r;
    }
    if let Err(r) = body_within_limits(state, body).await {
        return r;
    }
    let owner = Owner::new(header_value(headers, "origin").as_deref(), peer);
    http::json(
        200,
        &json!({"cancelled": state.cancels.cancel(key, &owner)}),
    )
}

fn method_not_allowed(allow: &str) -> Resp {
    let mut r = http::error(405, format!("use {allow} here"));
    http::set(&mut r, "allow", &format!("{allow}, OPTIONS"));
    r
}

fn preflight(headers: &HeaderMap) -> Resp {
    let mut r = http::empty(204);
    http::set(&mut r, "access-control-allow-methods", "GET, POST, OPTIONS");
    let asked = header_value(headers, "access-control-request-headers").unwrap_or_default();
    let allowed = if asked.is_empty() {
        "Content-Type, Accept".to_string()
    } else {
        asked
    };
    http::set(&mut r, "access-control-allow-headers", &allowed);
    http::set(&mut r, "access-control-max-age", "86400");
    r
}

fn list_compilers(headers: &HeaderMap, all: &[Compiler], lang: Option<&str>, query: &str) -> Resp {
    let chosen: Vec<&Compiler> = all
        .iter()
        .filter(|c| lang.is_none_or(|l| c.lang == normalize_lang(l)))
        .collect();
    if !http::wants_json(headers) {
        let mut out = String::from("Compiler Name | Description\n");
        for c in &chosen {
            out.push_str(&c.to_text());
            out.push('\n');
        }
        return http::text(200, out);
    }
    let fields = http::query_param(query, "fields").filter(|f| f != "all");
    let list: Vec<Value> = chosen
        .iter()
        .map(|c| {
            let mut v = c.to_json();
            if let (Some(fields), Value::Object(map)) = (&fields, &mut v) {
                let keep: Vec<&str> = fields.split(',').map(str::trim).collect();
                map.retain(|k, _| keep.contains(&k.as_str()));
            }
            v
        })
        .collect();
    http::json(200, &Value::Array(list))
}

/// Accepts the spellings people use for C++ and JavaScript.
fn normalize_lang(lang: &str) -> &str {
    match lang {
        "cpp" | "cxx" | "c++" => "c++",
        "js" | "javascript" => "javascript",
        "rs" | "rust" => "rust",
        other => other,
    }
}

fn languages(headers: &HeaderMap, all: &[Compiler]) -> Resp {
    let list = compilers::languages_json(all);
    if !http::wants_json(headers) {
        let mut out = String::from("Id | Name\n");
        for l in list.as_array().into_iter().flatten() {
            out.push_str(&format!(
                "{} | {}\n",
                l["id"].as_str().unwrap_or(""),
                l["name"].as_str().unwrap_or("")
            ));
        }
        return http::text(200, out);
    }
    http::json(200, &list)
}

/// Whether a compile request may come from `origin` (the browser's Origin header).
fn origin_allowed(state: &State, headers: &HeaderMap) -> Result<(), String> {
    let Some(origin) = header_value(headers, "origin") else {
        return Ok(());
    };
    if state.allow_any_origin
        || state
            .allowed_origins
            .iter()
            .any(|o| o.trim_end_matches('/') == origin.trim_end_matches('/'))
    {
        return Ok(());
    }
    let host = origin_host(&origin);
    let loopback = host == "localhost"
        || host.ends_with(".localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    // A page from this server reached by IP address (--host 0.0.0.0) is same-origin; a page
    // reached by a domain name could be DNS rebinding, so it must be allowed by name.
    let same_origin_by_ip = host.parse::<std::net::IpAddr>().is_ok()
        && header_value(headers, "host").is_some_and(|h| {
            origin
                .split("://")
                .nth(1)
                .is_some_and(|o| o.trim_end_matches('/') == h)
        });
    if loopback || same_origin_by_ip {
        return Ok(());
    }
    Err(format!(
        "compile requests from pages at {origin} are refused: a web page from another site could otherwise run programs on this machine. \
         If you trust it, start whittle serve with --allow-origin {origin}"
    ))
}

/// `http://[::1]:8080` -> `::1`; `https://a.example` -> `a.example`.
fn origin_host(origin: &str) -> String {
    let rest = origin.split("://").nth(1).unwrap_or(origin);
    let authority = rest.split('/').next().unwrap_or("");
    if let Some(v6) = authority.strip_prefix('[') {
        return v6.split(']').next().unwrap_or("").to_string();
    }
    authority
        .rsplit_once(':')
        .map_or(authority, |(h, _)| h)
        .to_ascii_lowercase()
}

async fn compile_request(
    state: &Arc<State>,
    headers: &HeaderMap,
    body: Incoming,
    id: &str,
    peer: IpAddr,
) -> Resp {
    let Some(compiler) = state.compilers.iter().find(|c| c.id == id) else {
        let known: Vec<&str> = state.compilers.iter().map(|c| c.id).collect();
        let msg = if known.is_empty() {
            format!("no compiler {id:?}: none of gcc, g++, clang, clang++, rustc, node, javac was found on this machine's PATH")
        } else {
            format!("no compiler {id:?} here; known ids: {}", known.join(", "))
        };
        return http::json(404, &json!({"error": msg, "known": known}));
    };
    if let Err(msg) = origin_allowed(state, headers) {
        return http::error(403, msg);
    }
    if let Some(r) = unless_json(headers, "POST /api/compiler/<id>/compile") {
        return r;
    }
    // The charge stays until the answer: the job's copy of the source takes the body's place.
    let (body, _charge) = match body_within_limits(state, body).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let parsed = serde_json::from_slice::<CompileRequest>(&body);
    drop(body);
    let request = match parsed {
        Ok(r) => r,
        Err(e) => return http::error(400, format!("malformed JSON in the request body: {e}")),
    };
    let mut job = match compile::prepare(compiler, request, &state.limits) {
        Ok(job) => job,
        Err(msg) => return http::error(400, msg),
    };
    let owner = Owner::new(header_value(headers, "origin").as_deref(), peer);
    let key = header_value(headers, "x-whittle-job");
    let registration = match Cancels::register(&state.cancels, key.as_deref(), owner) {
        Ok(r) => r,
        Err(_) => {
            return http::error(
                409,
                format!(
                    "the job key {:?} (X-Whittle-Job) belongs to a job that has not ended; use a fresh key for each request",
                    key.unwrap_or_default()
                ),
            )
        }
    };
    let Some(ticket) = state.jobs.reserve() else {
        let mut r = http::error(429, "too many compile jobs are waiting; try again shortly (or start whittle serve with more --max-jobs)");
        http::set(&mut r, "retry-after", "1");
        return r;
    };
    let as_json = http::wants_json(headers);
    job.cancel = registration.flag.clone();
    let job_flag = registration.flag.clone();
    let work = move || {
        let _registration = registration; // the key is forgotten when the job ends
        if job.cancel.load(Ordering::SeqCst) {
            return http::error(409, "the job was called off before it started");
        }
        match compile::run(job) {
            Ok(v) if as_json => http::json(200, &v),
            Ok(v) => http::text(200, as_text(&v)),
            Err(e) => {
                eprintln!("whittle serve: {e}");
                http::error(500, e)
            }
        }
    };
    // The job runs on the blocking job pool; this task waits for its answer without holding
    // a thread. A client that hangs up closes its connection, which drops this task: then
    // the job is called off (killed, or skipped if it still waits), freeing its place.
    let hang_up = CallOffOnDrop::new(&job_flag);
    let (tx, rx) = tokio::sync::oneshot::channel();
    state.jobs.submit(ticket, work, move |response| {
        let _ = tx.send(response);
    });
    let answer = rx.await.unwrap_or_else(|_| {
        http::error(
            500,
            "the compile job failed without an answer (see the server's log)",
        )
    });
    hang_up.disarm();
    answer
}

/// Compiler Explorer's plain-text answer: the asm, then the messages and the run's output.
fn as_text(v: &Value) -> String {
    let lines = |key: &Value| -> Vec<String> {
        key.as_array()
            .into_iter()
            .flatten()
            .filter_map(|l| l["text"].as_str().map(str::to_string))
            .collect()
    };
    let mut out = lines(&v["asm"]).join("\n");
    out.push('\n');
    for (title, key) in [
        ("Standard out", &v["stdout"]),
        ("Standard error", &v["stderr"]),
    ] {
        let l = lines(key);
        if !l.is_empty() {
            out.push_str(&format!("# {title}:\n{}\n", l.join("\n")));
        }
    }
    out.push_str(&format!(
        "# Compiler exited with result code {}\n",
        v["code"]
    ));
    if let Some(e) = v.get("execResult") {
        out.push_str(&format!(
            "# Execution result with exit code {}\n",
            e["code"]
        ));
        for (title, key) in [
            ("Standard out", &e["stdout"]),
            ("Standard error", &e["stderr"]),
        ] {
            let l = lines(key);
            if !l.is_empty() {
                out.push_str(&format!("# {title}:\n{}\n", l.join("\n")));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origin_hosts() {
        assert_eq!(origin_host("http://127.0.0.1:8080"), "127.0.0.1");
        assert_eq!(origin_host("http://[::1]:8080"), "::1");
        assert_eq!(origin_host("https://Example.com"), "example.com");
        assert_eq!(normalize_lang("cpp"), "c++");
    }
}
