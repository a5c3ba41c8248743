//! Small HTTP helpers over tiny_http: responses, headers, bodies with a size limit, URL paths.

use std::io::{Cursor, Read};

use serde_json::{json, Value};
use tiny_http::{Header, Request, Response, ResponseBox, StatusCode};

pub fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("valid header")
}

pub fn bytes(status: u16, body: Vec<u8>, content_type: &str) -> ResponseBox {
    let len = body.len();
    Response::new(
        StatusCode(status),
        vec![header("Content-Type", content_type)],
        Cursor::new(body),
        Some(len),
        None,
    )
    .boxed()
}

pub fn text(status: u16, body: impl Into<String>) -> ResponseBox {
    bytes(
        status,
        body.into().into_bytes(),
        "text/plain; charset=utf-8",
    )
}

pub fn json(status: u16, value: &Value) -> ResponseBox {
    let mut body = serde_json::to_vec(value).expect("JSON values serialize");
    body.push(b'\n');
    bytes(status, body, "application/json; charset=utf-8")
}

/// `{"error": message}` with `status`.
pub fn error(status: u16, message: impl Into<String>) -> ResponseBox {
    json(status, &json!({ "error": message.into() }))
}

/// The value of request header `name` (case-insensitive), if present.
pub fn header_value(req: &Request, name: &str) -> Option<String> {
    req.headers()
        .iter()
        .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str().to_string())
}

/// Whether the client wants JSON: yes unless its Accept names a text type and no JSON.
pub fn wants_json(req: &Request) -> bool {
    match header_value(req, "Accept") {
        None => true,
        Some(a) => {
            let a = a.to_ascii_lowercase();
            a.contains("json") || !(a.contains("text/plain") || a.contains("text/html"))
        }
    }
}

pub enum BodyError {
    TooLarge { limit: usize },
    Io(std::io::Error),
}

/// Reads the request body, refusing it once it passes `limit` bytes.
pub fn read_body(req: &mut Request, limit: usize) -> Result<Vec<u8>, BodyError> {
    if req.body_length().is_some_and(|n| n > limit) {
        return Err(BodyError::TooLarge { limit });
    }
    let mut body = Vec::new();
    req.as_reader()
        .take(limit as u64 + 1)
        .read_to_end(&mut body)
        .map_err(BodyError::Io)?;
    if body.len() > limit {
        return Err(BodyError::TooLarge { limit });
    }
    Ok(body)
}

/// Above this claimed body size, tiny_http would crash the server when the request is dropped:
/// its body reader drains what is left into one buffer of the claimed size (100 GB claimed, 100
/// GB allocated, allocation failure, abort).
const DRAIN_LIMIT: usize = 256 << 20;

/// Answers `response` to a request claiming an over-large body. Above `DRAIN_LIMIT` the
/// connection is answered through tiny_http's `upgrade` and then leaked, never dropped, so its
/// body reader never runs its drain: one file descriptor per such request, instead of a crash.
pub fn refuse_oversized(req: Request, response: ResponseBox) {
    if req.body_length().is_some_and(|n| n > DRAIN_LIMIT) {
        eprintln!(
            "whittle serve: refused a request claiming a {} byte body",
            req.body_length().unwrap_or(0)
        );
        let stream = req.upgrade("refused", response);
        std::mem::forget(stream);
    } else {
        let _ = req.respond(response);
    }
}

/// Splits a request target into its decoded path and its raw query string.
pub fn split_target(url: &str) -> (&str, &str) {
    let url = url.split('#').next().unwrap_or("");
    match url.split_once('?') {
        Some((p, q)) => (p, q),
        None => (url, ""),
    }
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
        assert_eq!(split_target("/a/b?x=1#f"), ("/a/b", "x=1"));
        assert_eq!(
            query_param("fields=id,name&options=-O2+-Wall", "options").as_deref(),
            Some("-O2 -Wall")
        );
        assert_eq!(query_param("a=1", "b"), None);
    }
}
