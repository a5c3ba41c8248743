//! End-to-end tests of `whittle serve` as a web server of the page: its files, compressed
//! when that pays, the embed, the framing policy, and what it says when the engine is not built.

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Command, Stdio};

mod support;

use support::*;

#[test]
fn serves_the_page_the_embed_and_web_files() {
    let s = Server::start(&[]);
    let r = s.get("/");
    assert_eq!(r.status, 200);
    assert_eq!(r.text(), INDEX);
    assert!(r.header("content-type").unwrap().starts_with("text/html"));
    assert_eq!(s.get("/e").text(), INDEX);
    let js = s.get("/web/x.js");
    assert_eq!(js.status, 200);
    assert!(
        js.header("content-type")
            .unwrap()
            .starts_with("text/javascript"),
        "{:?}",
        js.headers
    );
    assert_eq!(js.text(), "export const x = 1;\n");
    let missing = s.get("/web/nope.js");
    assert_eq!(missing.status, 404);
    assert!(missing.text().contains("/web/nope.js"));
    // Revalidation answers 304 with the same ETag.
    let etag = js.header("etag").unwrap().to_string();
    let again = s.request("GET", "/web/x.js", &[("If-None-Match", &etag)], b"");
    assert_eq!(again.status, 304);
}

#[test]
fn gzips_larger_text_files_for_clients_that_accept_it() {
    let s = Server::start(&[]);
    // A JS file well over the 1 KiB threshold, written next to the tiny x.js.
    let big: String = (0..200)
        .map(|i| format!("export const value{i} = {i} * 2;\n"))
        .collect();
    assert!(big.len() > 4096);
    std::fs::write(s._root.path().join("web/big.js"), &big).unwrap();

    let gz = s.request(
        "GET",
        "/web/big.js",
        &[("Accept-Encoding", "gzip, deflate, br")],
        b"",
    );
    assert_eq!(gz.status, 200);
    assert_eq!(
        gz.header("content-encoding"),
        Some("gzip"),
        "{:?}",
        gz.headers
    );
    assert_eq!(gz.header("vary"), Some("Accept-Encoding"));
    assert!(gz
        .header("content-type")
        .unwrap()
        .starts_with("text/javascript"));
    assert_eq!(
        gz.header("content-length")
            .unwrap()
            .parse::<usize>()
            .unwrap(),
        gz.body.len()
    );
    assert!(
        gz.body.len() < big.len() / 2,
        "{} bytes gzipped from {}",
        gz.body.len(),
        big.len()
    );
    let mut unzipped = String::new();
    flate2::read::GzDecoder::new(&gz.body[..])
        .read_to_string(&mut unzipped)
        .expect("a gzip body");
    assert_eq!(unzipped, big);

    // Again (from the cache): the same bytes.
    let again = s.request("GET", "/web/big.js", &[("Accept-Encoding", "gzip")], b"");
    assert_eq!(again.body, gz.body);

    // Without gzip in Accept-Encoding (or with q=0): the file as it is.
    for headers in [
        &[][..],
        &[("Accept-Encoding", "identity")][..],
        &[("Accept-Encoding", "gzip;q=0")][..],
    ] {
        let plain = s.request("GET", "/web/big.js", headers, b"");
        assert_eq!(plain.status, 200);
        assert_eq!(plain.header("content-encoding"), None, "{headers:?}");
        assert_eq!(plain.text(), big);
        assert_eq!(
            plain
                .header("content-length")
                .unwrap()
                .parse::<usize>()
                .unwrap(),
            big.len()
        );
    }

    // Each encoding revalidates with its own ETag.
    let gz_etag = gz.header("etag").unwrap().to_string();
    let plain_etag = s
        .request("GET", "/web/big.js", &[], b"")
        .header("etag")
        .unwrap()
        .to_string();
    assert_ne!(gz_etag, plain_etag);
    let revalidated = s.request(
        "GET",
        "/web/big.js",
        &[("Accept-Encoding", "gzip"), ("If-None-Match", &gz_etag)],
        b"",
    );
    assert_eq!(revalidated.status, 304);
    assert!(revalidated.body.is_empty());
    let stale = s.request(
        "GET",
        "/web/big.js",
        &[("Accept-Encoding", "gzip"), ("If-None-Match", &plain_etag)],
        b"",
    );
    assert_eq!(stale.status, 200);
    assert_eq!(stale.header("content-encoding"), Some("gzip"));

    // HEAD: the gzip variant's headers, no body.
    let head = s.request("HEAD", "/web/big.js", &[("Accept-Encoding", "gzip")], b"");
    assert_eq!(head.status, 200);
    assert_eq!(head.header("content-encoding"), Some("gzip"));
    assert_eq!(
        head.header("content-length")
            .unwrap()
            .parse::<usize>()
            .unwrap(),
        gz.body.len()
    );
    assert!(head.body.is_empty());

    // A changed file is compressed afresh, not served from the cache.
    let bigger = format!("{big}export const changed = true;\n");
    std::fs::write(s._root.path().join("web/big.js"), &bigger).unwrap();
    let changed = s.request("GET", "/web/big.js", &[("Accept-Encoding", "gzip")], b"");
    let mut unzipped = String::new();
    flate2::read::GzDecoder::new(&changed.body[..])
        .read_to_string(&mut unzipped)
        .unwrap();
    assert_eq!(unzipped, bigger);

    // A tiny file goes out as it is.
    let tiny = s.request("GET", "/web/x.js", &[("Accept-Encoding", "gzip")], b"");
    assert_eq!(tiny.status, 200);
    assert_eq!(tiny.header("content-encoding"), None);
    assert_eq!(tiny.text(), "export const x = 1;\n");
}

#[test]
fn refuses_path_traversal() {
    let s = Server::start(&[]);
    for path in [
        "/web/../../etc/passwd",
        "/web/%2e%2e/%2e%2e/etc/passwd",
        "/web/./x.js",
    ] {
        let r = s.get(path);
        assert_eq!(r.status, 403, "{path}: {}", r.text());
        assert!(!r.text().contains("root:"), "{path} leaked a file");
    }
}

#[test]
fn says_how_to_build_the_engine_when_the_wasm_is_missing() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("index.html"), INDEX).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_whittle"))
        .args(["serve", "--port", "0", "--root"])
        .arg(root.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut seen = String::new();
    for _ in 0..6 {
        let mut line = String::new();
        if out.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        seen.push_str(&line);
        if line.contains("npm run build") {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(seen.contains("npm run build"), "{seen}");
    let _: PathBuf = root.path().to_path_buf();
}

#[test]
fn only_the_embed_may_be_framed_by_other_sites() {
    let s = Server::start(&[]);
    // The page: its own policy (its scripts only; any endpoint; framed by this server only).
    for path in ["/", "/index.html"] {
        let r = s.get(path);
        let csp = r.header("content-security-policy").unwrap_or_default();
        for part in [
            "frame-ancestors 'self'",
            "script-src 'self';",
            "connect-src *;",
            "frame-src 'self'",
        ] {
            assert!(csp.contains(part), "{path}: {csp}");
        }
        assert_eq!(r.header("x-frame-options"), Some("SAMEORIGIN"), "{path}");
    }
    for path in ["/web/x.js", "/web/nope.js", "/api/compilers", "/nope"] {
        let r = s.get(path);
        assert_eq!(
            r.header("content-security-policy"),
            Some("frame-ancestors 'self'"),
            "{path}"
        );
        assert_eq!(r.header("x-frame-options"), Some("SAMEORIGIN"), "{path}");
    }
    // The embed: any site may frame it; it connects only to this server.
    for path in ["/e", "/e/"] {
        let r = s.get(path);
        assert_eq!(r.status, 200);
        assert_eq!(r.text(), INDEX);
        let csp = r.header("content-security-policy").unwrap_or_default();
        assert!(csp.contains("frame-ancestors *"), "{path}: {csp}");
        assert!(csp.contains("connect-src 'self';"), "{path}: {csp}");
        assert_eq!(r.header("x-frame-options"), None, "{path}");
    }
}
