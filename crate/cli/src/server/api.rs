//! The Compiler Explorer-shaped API under `/api/`:
//!
//! - `GET /api/compilers`, `GET /api/compilers/<lang>`: the compilers found here (JSON unless
//!   the Accept header asks for text only); `?fields=id,name` picks fields.
//! - `GET /api/languages`: the languages that have a compiler.
//! - `POST /api/compiler/<id>/compile`: a compile job (see `compile.rs`). The body is CE's JSON,
//!   or, as with CE, the bare source with flags in `?options=`.
//! - `POST /api/cancel/<key>`: calls off the job whose request carried `X-Whittle-Job: <key>`
//!   (see `cancel.rs`).
//! - `OPTIONS /api/*`: CORS preflight. Every answer carries `Access-Control-Allow-Origin: *`.
//!
//! Compile requests that a browser sends from a page of another site are refused (403) unless
//! that origin was allowed with `--allow-origin`: with CORS open, any web page could otherwise
//! run programs on this machine while its user merely visits it.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde_json::{json, Value};
use tiny_http::{Method, Request, ResponseBox};

use super::cancel::Cancels;
use super::compile::{self, CompileRequest};
use super::compilers::{self, Compiler};
use super::http::{self, header, header_value, BodyError};
use super::State;

pub fn handle(state: &Arc<State>, req: Request) {
    let (raw_path, query) = http::split_target(req.url());
    let (raw_path, query) = (raw_path.to_string(), query.to_string());
    let segments: Option<Vec<String>> = raw_path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| http::percent_decode(s, false))
        .collect();
    let Some(segments) = segments else {
        return respond(
            req,
            http::error(400, format!("bad percent-encoding in {raw_path}")),
        );
    };
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    let method = req.method().clone();
    let response = match (&method, segments.as_slice()) {
        (Method::Options, _) => preflight(&req),
        (Method::Get | Method::Head, ["api", "compilers"]) => list_compilers(&req, &state.compilers, None, &query),
        (Method::Get | Method::Head, ["api", "compilers", lang]) => list_compilers(&req, &state.compilers, Some(lang), &query),
        (Method::Get | Method::Head, ["api", "languages"]) => languages(&req, &state.compilers),
        (Method::Post, ["api", "compiler", id, "compile"]) => {
            let id = id.to_string();
            return compile_request(state, req, &id, &query);
        }
        (Method::Post, ["api", "cancel", key]) => cancel_job(state, &req, key),
        (_, ["api", "compiler", _, "compile"] | ["api", "cancel", _]) => method_not_allowed("POST"),
        (_, ["api", "compilers", ..] | ["api", "languages"]) => method_not_allowed("GET"),
        _ => http::error(
            404,
            format!(
                "no API endpoint {raw_path}; there are GET /api/compilers, GET /api/compilers/<lang>, GET /api/languages, POST /api/compiler/<id>/compile and POST /api/cancel/<key> (ids here: {})",
                compilers::ids(&state.compilers)
            ),
        ),
    };
    respond(req, response);
}

/// `POST /api/cancel/<key>`: calls off the job whose request carried `X-Whittle-Job: <key>`.
fn cancel_job(state: &State, req: &Request, key: &str) -> ResponseBox {
    if let Err(msg) = origin_allowed(state, req) {
        return http::error(403, msg);
    }
    http::json(200, &json!({"cancelled": state.cancels.cancel(key)}))
}

/// Sends `response` with the CORS header every API answer carries.
fn respond(req: Request, mut response: ResponseBox) {
    response.add_header(header("Access-Control-Allow-Origin", "*"));
    response.add_header(header("Vary", "Accept"));
    let _ = req.respond(response);
}

fn method_not_allowed(allow: &str) -> ResponseBox {
    let mut r = http::error(405, format!("use {allow} here"));
    r.add_header(header("Allow", &format!("{allow}, OPTIONS")));
    r
}

fn preflight(req: &Request) -> ResponseBox {
    let mut r = tiny_http::Response::empty(204).boxed();
    r.add_header(header("Access-Control-Allow-Methods", "GET, POST, OPTIONS"));
    let asked = header_value(req, "Access-Control-Request-Headers").unwrap_or_default();
    let allowed = if asked.is_empty() {
        "Content-Type, Accept".to_string()
    } else {
        asked
    };
    r.add_header(header("Access-Control-Allow-Headers", &allowed));
    r.add_header(header("Access-Control-Max-Age", "86400"));
    r
}

fn list_compilers(req: &Request, all: &[Compiler], lang: Option<&str>, query: &str) -> ResponseBox {
    let chosen: Vec<&Compiler> = all
        .iter()
        .filter(|c| lang.is_none_or(|l| c.lang == normalize_lang(l)))
        .collect();
    if !http::wants_json(req) {
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

fn languages(req: &Request, all: &[Compiler]) -> ResponseBox {
    let list = compilers::languages_json(all);
    if !http::wants_json(req) {
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
fn origin_allowed(state: &State, req: &Request) -> Result<(), String> {
    let Some(origin) = header_value(req, "Origin") else {
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
        && header_value(req, "Host").is_some_and(|h| {
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

fn compile_request(state: &Arc<State>, mut req: Request, id: &str, query: &str) {
    let Some(compiler) = state.compilers.iter().find(|c| c.id == id) else {
        let known: Vec<&str> = state.compilers.iter().map(|c| c.id).collect();
        let msg = if known.is_empty() {
            format!("no compiler {id:?}: none of gcc, g++, clang, clang++, rustc, node, javac was found on this machine's PATH")
        } else {
            format!("no compiler {id:?} here; known ids: {}", known.join(", "))
        };
        return respond(req, http::json(404, &json!({"error": msg, "known": known})));
    };
    if let Err(msg) = origin_allowed(state, &req) {
        return respond(req, http::error(403, msg));
    }
    let body = match http::read_body(&mut req, state.limits.body_bytes) {
        Ok(b) => b,
        Err(BodyError::TooLarge { limit }) => {
            let mut r = http::error(413, format!("the request body is larger than {limit} bytes; send a smaller program or start whittle serve with a larger --max-body"));
            r.add_header(header("Connection", "close"));
            return respond(req, r);
        }
        Err(BodyError::Io(e)) => {
            return respond(
                req,
                http::error(400, format!("could not read the request body: {e}")),
            )
        }
    };
    let content_type = header_value(&req, "Content-Type")
        .unwrap_or_default()
        .to_ascii_lowercase();
    let is_json = content_type.contains("json")
        || body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    let request = if is_json {
        match serde_json::from_slice::<CompileRequest>(&body) {
            Ok(r) => r,
            Err(e) => {
                return respond(
                    req,
                    http::error(400, format!("malformed JSON in the request body: {e}")),
                )
            }
        }
    } else {
        // Compiler Explorer's plain form: the body is the source, flags in ?options=.
        let mut r = CompileRequest {
            source: Some(String::from_utf8_lossy(&body).into_owned()),
            ..CompileRequest::default()
        };
        r.options.user_arguments = http::query_param(query, "options").unwrap_or_default();
        r
    };
    let mut job = match compile::prepare(compiler, request, &state.limits) {
        Ok(job) => job,
        Err(msg) => return respond(req, http::error(400, msg)),
    };
    let Some(ticket) = state.jobs.reserve() else {
        let mut r = http::error(503, "too many compile jobs are waiting; try again shortly (or start whittle serve with more --max-jobs)");
        r.add_header(header("Retry-After", "1"));
        return respond(req, r);
    };
    let as_json = http::wants_json(&req);
    let registration = Cancels::register(
        &state.cancels,
        header_value(&req, "X-Whittle-Job").as_deref(),
    );
    job.cancel = registration.flag.clone();
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
    state
        .jobs
        .submit(ticket, work, move |response| respond(req, response));
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
