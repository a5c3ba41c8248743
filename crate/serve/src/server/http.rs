//! Small HTTP helpers over hyper: responses, headers, bodies with a size and time limit and
//! the server's budget for all bodies together, URL paths, and the checks every request goes through (Host names on loopback, JSON content
//! types).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Bytes, Incoming};
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::{Response, StatusCode};
use serde_json::{json, Value};

/// Every answer: the whole body in memory (the largest is the engine's wasm, a few MiB).
pub type Resp = Response<Full<Bytes>>;

/// Sets header `name` (replacing any earlier value); values that are not valid header text
/// are skipped.
pub fn set(r: &mut Resp, name: &'static str, value: &str) {
    if let Ok(v) = HeaderValue::from_str(value) {
        r.headers_mut().insert(HeaderName::from_static(name), v);
    }
}

pub fn bytes(status: u16, body: impl Into<Bytes>, content_type: &str) -> Resp {
    let mut r = Response::new(Full::new(body.into()));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    set(&mut r, "content-type", content_type);
    r
}

/// A status with no body (204, 304).
pub fn empty(status: u16) -> Resp {
    let mut r = Response::new(Full::new(Bytes::new()));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r
}

pub fn text(status: u16, body: impl Into<String>) -> Resp {
    bytes(
        status,
        body.into().into_bytes(),
        "text/plain; charset=utf-8",
    )
}

pub fn json(status: u16, value: &Value) -> Resp {
    let mut body = serde_json::to_vec(value).expect("JSON values serialize");
    body.push(b'\n');
    bytes(status, body, "application/json; charset=utf-8")
}

/// `{"error": message}` with `status`.
pub fn error(status: u16, message: impl Into<String>) -> Resp {
    json(status, &json!({ "error": message.into() }))
}

/// `{"error": message}` for API paths, the message as text elsewhere.
pub fn refusal(status: u16, path: &str, message: impl Into<String>) -> Resp {
    if path == "/api" || path.starts_with("/api/") {
        error(status, message)
    } else {
        text(status, format!("{}\n", message.into()))
    }
}

/// The value of request header `name` (case-insensitive), if present and text.
pub fn header_value(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// Whether the client wants JSON: yes unless its Accept names a text type and no JSON.
pub fn wants_json(headers: &HeaderMap) -> bool {
    match header_value(headers, "accept") {
        None => true,
        Some(a) => {
            let a = a.to_ascii_lowercase();
            a.contains("json") || !(a.contains("text/plain") || a.contains("text/html"))
        }
    }
}

/// The body length the request claims (`Content-Length`), if any.
pub fn claimed_length(headers: &HeaderMap) -> Option<u64> {
    header_value(headers, "content-length").and_then(|v| v.trim().parse().ok())
}

/// Whether a `Content-Type` value is `application/json` (any parameters, any case). Only
/// that type: the CORS-safelisted ones (`text/plain`, forms) are what another site's page may
/// send without a preflight.
pub fn is_json_content_type(value: Option<&str>) -> bool {
    value.is_some_and(|v| {
        v.split(';')
            .next()
            .unwrap_or("")
            .trim()
            .eq_ignore_ascii_case("application/json")
    })
}

pub enum BodyError {
    TooLarge {
        limit: usize,
    },
    TimedOut {
        after: Duration,
    },
    /// The bytes of all bodies held at once would pass the server's budget.
    OverBudget {
        budget: usize,
    },
    Io(String),
}

/// The bytes of request bodies the server holds at once, all connections together: bodies
/// being received, and those kept as the source of a job that waits or runs. A body that
/// would pass it is refused (503), so that many clients sending large bodies slowly cannot
/// grow the server's memory without bound.
pub struct BodyBudget {
    limit: usize,
    used: AtomicUsize,
    /// Bytes given back since memory was last returned to the system.
    freed: AtomicUsize,
}

/// After this many bytes of bodies are given back, the allocator returns its free memory to
/// the system (glibc keeps freed memory for reuse otherwise).
const TRIM_AFTER: usize = 4 << 20;

impl BodyBudget {
    pub fn new(limit: usize) -> Arc<BodyBudget> {
        Arc::new(BodyBudget {
            limit,
            used: AtomicUsize::new(0),
            freed: AtomicUsize::new(0),
        })
    }
}

/// Bytes taken from a [`BodyBudget`], given back when dropped.
pub struct Charge {
    budget: Arc<BodyBudget>,
    bytes: usize,
}

impl Charge {
    pub fn new(budget: &Arc<BodyBudget>) -> Charge {
        Charge {
            budget: Arc::clone(budget),
            bytes: 0,
        }
    }

    /// Takes `n` more bytes; false (taking none) when the budget has no room for them.
    fn take(&mut self, n: usize) -> bool {
        let b = &self.budget;
        let before = b.used.fetch_add(n, Ordering::SeqCst);
        if before + n > b.limit {
            b.used.fetch_sub(n, Ordering::SeqCst);
            return false;
        }
        self.bytes += n;
        true
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        let b = &self.budget;
        b.used.fetch_sub(self.bytes, Ordering::SeqCst);
        if b.freed.fetch_add(self.bytes, Ordering::SeqCst) + self.bytes >= TRIM_AFTER {
            b.freed.store(0, Ordering::SeqCst);
            super::memory::give_back();
        }
    }
}

/// Reads the request body within `deadline`, refusing it once it passes `limit` bytes or the
/// server's `budget`. The charge holds the body's bytes in the budget until it is dropped.
pub async fn read_body(
    mut body: Incoming,
    limit: usize,
    deadline: Duration,
    budget: &Arc<BodyBudget>,
) -> Result<(Vec<u8>, Charge), BodyError> {
    let mut charge = Charge::new(budget);
    // Room for what the client says it sends, within the limit: reserved, not yet touched.
    let expected = body.size_hint().exact().unwrap_or(0).min(limit as u64);
    let mut bytes = Vec::with_capacity(expected as usize);
    let until = tokio::time::Instant::now() + deadline;
    loop {
        let frame = match tokio::time::timeout_at(until, body.frame()).await {
            Err(_) => return Err(BodyError::TimedOut { after: deadline }),
            Ok(None) => return Ok((bytes, charge)),
            Ok(Some(Err(e))) => return Err(BodyError::Io(e.to_string())),
            Ok(Some(Ok(frame))) => frame,
        };
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        if bytes.len() + data.len() > limit {
            return Err(BodyError::TooLarge { limit });
        }
        if !charge.take(data.len()) {
            return Err(BodyError::OverBudget {
                budget: budget.limit,
            });
        }
        bytes.extend_from_slice(&data);
    }
}

/// Whether a `Host` header (or a request target's authority) names this machine's loopback
/// interface: `localhost`, `*.localhost`, `127.x.x.x` or `[::1]`, with any port. A server on
/// loopback refuses other names: a page whose own name an attacker pointed at 127.0.0.1 (DNS
/// rebinding) would otherwise be same-origin with it.
pub fn is_loopback_host(host: &str) -> bool {
    let host = host.trim();
    let name = if let Some(rest) = host.strip_prefix('[') {
        let Some((v6, after)) = rest.split_once(']') else {
            return false;
        };
        if !(after.is_empty() || after.strip_prefix(':').is_some_and(is_port)) {
            return false;
        }
        return v6.parse::<std::net::Ipv6Addr>().is_ok_and(|ip| {
            ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        });
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) if is_port(port) => name,
            Some(_) => return false,
            None => host,
        }
    };
    let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
    name == "localhost"
        || (name.ends_with(".localhost") && name.len() > ".localhost".len())
        || name
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn is_port(s: &str) -> bool {
    s.is_empty() || (s.len() <= 5 && s.bytes().all(|b| b.is_ascii_digit()))
}

/// Decodes `%XX` escapes (and `+` as a space when `plus_is_space`, as in query strings).
/// `None` when the result is not UTF-8 or an escape is malformed.
pub fn percent_decode(s: &str, plus_is_space: bool) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = s.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// The decoded value of `name` in a query string.
pub fn query_param(query: &str, name: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (percent_decode(k, true)? == name)
            .then(|| percent_decode(v, true))
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_paths_and_queries() {
        assert_eq!(
            percent_decode("/api/compilers/c%2B%2B", false).as_deref(),
            Some("/api/compilers/c++")
        );
        assert_eq!(percent_decode("%2e%2e", false).as_deref(), Some(".."));
        assert_eq!(percent_decode("%zz", false), None);
        assert_eq!(
            query_param("fields=id,name&options=-O2+-Wall", "options").as_deref(),
            Some("-O2 -Wall")
        );
        assert_eq!(query_param("a=1", "b"), None);
    }

    #[test]
    fn loopback_host_names() {
        for ok in [
            "localhost",
            "localhost:8080",
            "LOCALHOST.",
            "app.localhost:3000",
            "127.0.0.1",
            "127.0.0.1:8080",
            "127.1.2.3:1",
            "[::1]",
            "[::1]:8080",
            "[::ffff:127.0.0.1]:80",
        ] {
            assert!(is_loopback_host(ok), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:8080",
            "localhost.evil.example",
            ".localhost",
            "127.0.0.1.evil.example",
            "128.0.0.1",
            "0.0.0.0",
            "[::2]:80",
            "[::1]x",
            "localhost:80:80",
            "",
        ] {
            assert!(!is_loopback_host(bad), "{bad}");
        }
    }

    #[test]
    fn json_content_types() {
        assert!(is_json_content_type(Some("application/json")));
        assert!(is_json_content_type(Some(
            "Application/JSON; charset=utf-8"
        )));
        for bad in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data",
            "application/jsonx",
            "",
        ] {
            assert!(!is_json_content_type(Some(bad)), "{bad}");
        }
        assert!(!is_json_content_type(None));
    }
}
