//! End-to-end tests of `whittle serve`: the built binary on 127.0.0.1 (a port the OS picks),
//! spoken to with hand-written HTTP/1.1 over TcpStream.
//!
//! The compile tests need gcc on PATH (scripts/setup.sh installs it with the rest); the harness
//! is in `support/`.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod support;

use support::*;

const JSON: &[(&str, &str)] = &[("Content-Type", "application/json")];

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
fn lists_compilers_and_languages() {
    let s = Server::start(&[]);
    let r = s.get("/api/compilers");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    let list = r.json();
    let list = list.as_array().unwrap();
    for c in list {
        for field in [
            "id",
            "name",
            "lang",
            "compilerType",
            "semver",
            "instructionSet",
        ] {
            assert!(c.get(field).is_some(), "{c} has no {field}");
        }
    }
    if have("gcc") {
        assert!(
            list.iter().any(|c| c["id"] == "gcc" && c["lang"] == "c"),
            "{list:?}"
        );
        let c_only = s.get("/api/compilers/c").json();
        assert!(c_only.as_array().unwrap().iter().all(|c| c["lang"] == "c"));
        let langs = s.get("/api/languages").json();
        assert!(langs.as_array().unwrap().iter().any(|l| l["id"] == "c"));
        // Plain text when asked for text only, as Compiler Explorer does.
        let text = s.request("GET", "/api/compilers", &[("Accept", "text/plain")], b"");
        assert!(text.text().contains("gcc"));
        assert!(text
            .header("content-type")
            .unwrap()
            .starts_with("text/plain"));
        // ?fields= picks fields.
        let few = s.get("/api/compilers/c?fields=id,name").json();
        assert!(few[0].get("semver").is_none() && few[0].get("id").is_some());
    }
}

#[test]
fn compiles_c_with_warnings_in_compiler_explorer_shape() {
    require_gcc();
    let s = Server::start(&[]);
    let r = s.compile(
        "gcc",
        &json!({
            "source": "int main(void){int *p = 0; int x = p; return x;}",
            "options": {"userArguments": "-O2 -Wall", "filters": {"execute": false}},
            "lang": "c",
        }),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    let v = r.json();
    assert_eq!(v["code"], 0, "{v}");
    let stderr = stream(&v["stderr"]);
    assert!(
        stderr.contains("makes integer from pointer without a cast"),
        "{stderr}"
    );
    assert!(
        stderr.contains("<source>:1:"),
        "messages name the source <source>: {stderr}"
    );
    assert!(stream(&v["asm"]).contains("main:"), "{}", v["asm"]);
    assert_eq!(v["okToCache"], true);
    assert!(v.get("execResult").is_none());
}

#[test]
fn syntax_error_gives_nonzero_code() {
    require_gcc();
    let s = Server::start(&[]);
    let v = s
        .compile(
            "gcc",
            &json!({"source": "int main( {", "options": {"userArguments": ""}}),
        )
        .json();
    assert_ne!(v["code"], 0, "{v}");
    assert!(stream(&v["stderr"]).contains("error"), "{v}");
}

#[test]
fn executes_the_program() {
    require_gcc();
    let s = Server::start(&[]);
    let source = "#include <stdio.h>\nint main(int argc, char **argv) {\n  char line[32] = \"\";\n  fgets(line, sizeof line, stdin);\n  printf(\"hello %s %s\", argv[1], line);\n  return 7;\n}\n";
    let v = s
        .compile("gcc", &json!({
            "source": source,
            "options": {"userArguments": "-O1", "filters": {"execute": true}, "executeParameters": {"args": ["there"], "stdin": "from stdin\n"}},
        }))
        .json();
    assert_eq!(v["code"], 0, "{v}");
    assert_eq!(v["didExecute"], true, "{v}");
    let e = &v["execResult"];
    assert_eq!(e["didExecute"], true);
    assert_eq!(e["code"], 7);
    assert_eq!(stream(&e["stdout"]), "hello there from stdin");
}

#[test]
fn a_job_that_never_ends_times_out_and_the_server_lives_on() {
    require_gcc();
    let s = Server::start(&["--job-timeout", "2", "--max-jobs", "1", "--max-queue", "0"]);
    let start = Instant::now();
    let looping = std::thread::scope(|scope| {
        let job = scope.spawn(|| s.compile("gcc", &json!({"source": "int main(){for(;;);}", "options": {"filters": {"execute": true}}})));
        // While the only job slot is busy, the page still loads at once.
        std::thread::sleep(Duration::from_millis(500));
        let t = Instant::now();
        let page = s.get("/");
        assert_eq!(page.status, 200);
        assert!(
            t.elapsed() < Duration::from_secs(1),
            "the page waited {:?} for a compile job",
            t.elapsed()
        );
        // No room to wait (--max-queue 0): turned away at once (429, which the page waits
        // out), with a hint when to retry.
        let busy = s.compile("gcc", &json!({"source": "int x;"}));
        assert_eq!(busy.status, 429, "{}", busy.text());
        assert_eq!(busy.header("retry-after"), Some("1"));
        job.join().unwrap()
    });
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "took {:?}",
        start.elapsed()
    );
    let v = looping.json();
    let e = &v["execResult"];
    assert_eq!(e["timedOut"], true, "{v}");
    assert_eq!(e["okToCache"], false);
    assert_ne!(e["code"], 0);
    // Still serving, and still compiling.
    assert_eq!(s.get("/").status, 200);
    let ok = s.compile("gcc", &json!({"source": "int main(void){return 0;}", "options": {"filters": {"execute": true}}})).json();
    assert_eq!(ok["execResult"]["code"], 0, "{ok}");
}

#[test]
fn a_called_off_job_stops_at_once_and_frees_its_slot() {
    require_gcc();
    let s = Server::start(&["--job-timeout", "30", "--max-jobs", "1"]);
    let start = Instant::now();
    let looping = std::thread::scope(|scope| {
        let job = scope.spawn(|| {
            let body = json!({"source": "int main(){for(;;);}", "options": {"filters": {"execute": true}}});
            s.request(
                "POST",
                "/api/compiler/gcc/compile",
                &[("Content-Type", "application/json"), ("Accept", "application/json"), ("X-Whittle-Job", "reducer-7")],
                &serde_json::to_vec(&body).unwrap(),
            )
        });
        std::thread::sleep(Duration::from_millis(1500));
        let unknown = s
            .request("POST", "/api/cancel/no-such-job", JSON, b"")
            .json();
        assert_eq!(unknown["cancelled"], false);
        let called_off = s.request("POST", "/api/cancel/reducer-7", JSON, b"").json();
        assert_eq!(called_off["cancelled"], true, "{called_off}");
        job.join().unwrap()
    });
    // Well before the 30 s job timeout: the program was killed when the job was called off.
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "took {:?}",
        start.elapsed()
    );
    assert_eq!(looping.json()["execResult"]["okToCache"], false);
    // The only slot is free again.
    let ok = s.compile("gcc", &json!({"source": "int main(void){return 0;}", "options": {"filters": {"execute": true}}})).json();
    assert_eq!(ok["execResult"]["code"], 0, "{ok}");
}

#[test]
fn refuses_bad_requests_with_json_errors() {
    let s = Server::start(&[]);
    // Unknown compiler: 404 listing the known ids.
    let r = s.compile("no-such-compiler", &json!({"source": "int x;"}));
    assert_eq!(r.status, 404);
    let v = r.json();
    assert!(v["error"].as_str().unwrap().contains("no-such-compiler"));
    assert!(v["known"].is_array());
    // A body over the limit (2 MiB by default): 413.
    let big = json!({"source": "x".repeat(3 << 20)}).to_string();
    let id = if have("gcc") {
        "gcc"
    } else {
        "no-such-compiler"
    };
    if id == "gcc" {
        let r = s.request(
            "POST",
            "/api/compiler/gcc/compile",
            &[("Content-Type", "application/json")],
            big.as_bytes(),
        );
        assert_eq!(r.status, 413, "{}", r.text());
        assert!(r.json()["error"].as_str().unwrap().contains("larger than"));
        // Malformed JSON: 400 with the parser's message.
        let r = s.request(
            "POST",
            "/api/compiler/gcc/compile",
            &[("Content-Type", "application/json")],
            b"{\"source\": ",
        );
        assert_eq!(r.status, 400);
        assert!(r.json()["error"].as_str().unwrap().contains("JSON"));
        // Flags that would write elsewhere: 400 saying which.
        for flags in [
            "-o /tmp/elsewhere",
            "-fplugin=./x.so",
            "@flags.txt",
            "-I../up",
        ] {
            let r = s.compile(
                "gcc",
                &json!({"source": "int x;", "options": {"userArguments": flags}}),
            );
            assert_eq!(r.status, 400, "{flags}: {}", r.text());
            assert!(
                r.json()["error"].as_str().unwrap().contains("not allowed"),
                "{flags}"
            );
        }
        // A page from another site may not run compile jobs here.
        let body = json!({"source": "int x;"}).to_string();
        let r = s.request(
            "POST",
            "/api/compiler/gcc/compile",
            &[("Origin", "https://elsewhere.example")],
            body.as_bytes(),
        );
        assert_eq!(r.status, 403, "{}", r.text());
        assert!(r.json()["error"]
            .as_str()
            .unwrap()
            .contains("--allow-origin"));
    }
}

#[test]
fn survives_a_request_claiming_a_huge_body() {
    let s = Server::start(&[]);
    // A server that drained such a body into one buffer of the claimed size would try to
    // allocate 100 GB, fail, and abort.
    let mut stream = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(b"POST /api/compiler/gcc/compile HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000000\r\n\r\n").unwrap();
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 413");
    drop(stream);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(s.get("/").status, 200, "the server died");
}

#[test]
fn answers_cors_preflight() {
    let s = Server::start(&[]);
    let r = s.request(
        "OPTIONS",
        "/api/compiler/gcc/compile",
        &[
            ("Origin", "http://localhost:5173"),
            ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "content-type"),
        ],
        b"",
    );
    assert!(r.status == 204 || r.status == 200, "{}", r.status);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    assert!(r
        .header("access-control-allow-methods")
        .unwrap()
        .contains("POST"));
    assert!(r
        .header("access-control-allow-headers")
        .unwrap()
        .to_ascii_lowercase()
        .contains("content-type"));
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

// ---- Hardening: timeouts, descriptors, Host names, content types, cancel keys, framing ----

/// A connection to the server from `local` (another loopback address than 127.0.0.1: a
/// different client as far as the server can tell).
fn connect_from(local: std::net::Ipv4Addr, port: u16) -> TcpStream {
    use std::os::fd::FromRawFd;
    fn sockaddr(ip: std::net::Ipv4Addr, port: u16) -> libc::sockaddr_in {
        // SAFETY: sockaddr_in is plain data; all zeroes is a valid value.
        let mut a: libc::sockaddr_in = unsafe { std::mem::zeroed() };
        a.sin_family = libc::AF_INET as libc::sa_family_t;
        a.sin_addr.s_addr = u32::from(ip).to_be();
        a.sin_port = port.to_be();
        a
    }
    let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    // SAFETY: plain socket calls on a descriptor this function owns; the addresses outlive the
    // calls; the descriptor is handed to TcpStream, which closes it.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        assert!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
        let stream = TcpStream::from_raw_fd(fd);
        let from = sockaddr(local, 0);
        let r = libc::bind(fd, &from as *const _ as *const libc::sockaddr, len);
        assert_eq!(r, 0, "bind {local}: {}", std::io::Error::last_os_error());
        let to = sockaddr(std::net::Ipv4Addr::LOCALHOST, port);
        let r = libc::connect(fd, &to as *const _ as *const libc::sockaddr, len);
        assert_eq!(r, 0, "connect: {}", std::io::Error::last_os_error());
        stream
    }
}

/// Reads one answer (with a Content-Length) from a kept-alive connection.
fn read_one_answer(stream: &mut TcpStream) -> Reply {
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse().unwrap());
            if raw.len() >= end + 4 + len {
                return Reply::parse(&raw);
            }
        }
        let n = stream.read(&mut buf).expect("read an answer");
        assert!(
            n > 0,
            "closed before a whole answer: {:?}",
            String::from_utf8_lossy(&raw)
        );
        raw.extend_from_slice(&buf[..n]);
    }
}

/// Waits (at most `limit`) for the server to close `stream`; how long that took.
fn time_until_closed(stream: &mut TcpStream, limit: Duration) -> Duration {
    let start = Instant::now();
    stream.set_read_timeout(Some(limit)).unwrap();
    let mut buf = [0u8; 1024];
    loop {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return start.elapsed(),
            Ok(_) => assert!(start.elapsed() < limit, "still open after {limit:?}"),
        }
    }
}

#[test]
fn idle_connections_do_not_delay_other_clients() {
    let s = Server::start(&[]);
    let mut idle = Vec::new();
    for i in 0..200 {
        let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
        match i % 3 {
            0 => {}                                                           // says nothing
            1 => c.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n").unwrap(), // half a request
            _ => c
                .write_all(b"POST /api/cancel/k HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
                .unwrap(), // a body that never comes
        }
        idle.push(c);
    }
    std::thread::sleep(Duration::from_millis(200));
    for path in ["/api/compilers", "/", "/web/x.js"] {
        let t = Instant::now();
        let r = s.get(path);
        let took = t.elapsed();
        assert_eq!(r.status, 200, "{path}");
        assert!(
            took < Duration::from_secs(1),
            "{path} took {took:?} with 200 idle connections open"
        );
    }
    drop(idle);
}

#[test]
fn slow_and_idle_clients_are_disconnected() {
    let s = Server::start(&[]);
    // The server allows 10 s for a request's headers, including between kept-alive requests.
    let limit = Duration::from_secs(10);
    let late = limit + Duration::from_secs(5);
    std::thread::scope(|scope| {
        let silent = scope.spawn(|| {
            let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
            time_until_closed(&mut c, late + Duration::from_secs(5))
        });
        let trickling = scope.spawn(|| {
            // Slowloris: a header line every half second, never the end of the headers.
            let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
            let start = Instant::now();
            c.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                .unwrap();
            while start.elapsed() < late + Duration::from_secs(5) {
                std::thread::sleep(Duration::from_millis(500));
                if c.write_all(b"X-Slow: 1\r\n").is_err() {
                    break;
                }
            }
            start.elapsed()
        });
        let kept_alive = scope.spawn(|| {
            let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
            c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            for _ in 0..2 {
                c.write_all(b"GET /web/x.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    .unwrap();
                assert_eq!(read_one_answer(&mut c).text(), "export const x = 1;\n");
            }
            time_until_closed(&mut c, late + Duration::from_secs(5))
        });
        for (what, t) in [
            ("a silent connection", silent.join().unwrap()),
            ("a client trickling headers", trickling.join().unwrap()),
            ("an idle kept-alive connection", kept_alive.join().unwrap()),
        ] {
            eprintln!("{what}: closed after {t:?}");
            assert!(
                t >= limit - Duration::from_secs(1) && t < late,
                "{what} was closed after {t:?} (the limit is {limit:?})"
            );
        }
    });
    assert_eq!(s.get("/").status, 200);
}

#[test]
fn refused_requests_close_their_sockets_and_leak_no_descriptors() {
    let mut s = Server::start(&["--max-body", "64"]);
    assert_eq!(s.get("/").status, 200);
    std::thread::sleep(Duration::from_millis(300));
    let before = s.open_fds();
    let head = format!(
        "POST /api/compiler/gcc/compile HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        s.port,
        1 << 20
    );
    for i in 0..300 {
        let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        c.write_all(head.as_bytes()).unwrap();
        // Part of the claimed megabyte, as a client that had started sending would.
        let _ = c.write_all(&[b'x'; 8192]);
        let mut raw = Vec::new();
        // read_to_end returns only once the server has closed the connection.
        c.read_to_end(&mut raw)
            .unwrap_or_else(|e| panic!("request {i}: {e}"));
        let r = Reply::parse(&raw);
        assert_eq!(r.status, 413, "request {i}: {}", r.text());
        assert!(r.text().contains("larger than"));
    }
    // A chunked body (no Content-Length) found too large while reading: 413, closed too.
    let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    c.write_all(b"POST /api/cancel/k HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").unwrap();
    for _ in 0..20 {
        let _ = c.write_all(format!("{:x}\r\n{}\r\n", 8192, "y".repeat(8192)).as_bytes());
    }
    let _ = c.write_all(b"0\r\n\r\n");
    let mut raw = Vec::new();
    c.read_to_end(&mut raw).unwrap();
    assert_eq!(Reply::parse(&raw).status, 413);
    drop(c);

    let deadline = Instant::now() + Duration::from_secs(10);
    let mut after = s.open_fds();
    while after > before && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        after = s.open_fds();
    }
    assert!(
        after <= before,
        "{before} descriptors before, {after} after"
    );
    assert!(s.alive());
    assert_eq!(s.get("/").status, 200);
}

#[test]
fn a_client_that_stops_reading_is_dropped() {
    let mut s = Server::start(&[]);
    // Larger than the socket buffers on both sides, and not compressed (not a text type).
    let size = 48 << 20;
    std::fs::write(s._root.path().join("web/big.bin"), vec![7u8; size]).unwrap();
    assert_eq!(s.get("/").status, 200);
    std::thread::sleep(Duration::from_millis(300));
    let before = s.open_fds();
    let mut c = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    c.write_all(b"GET /web/big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .unwrap();
    // Read a little, then stop reading: the answer stalls.
    let mut first = [0u8; 4096];
    c.read_exact(&mut first).unwrap();
    assert!(first.starts_with(b"HTTP/1.1 200"));
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(s.open_fds(), before + 1, "the stalled connection is open");
    // The server gives up on it after 30 s without progress.
    let deadline = Instant::now() + Duration::from_secs(45);
    while s.open_fds() > before && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(250));
    }
    assert_eq!(
        s.open_fds(),
        before,
        "the stalled connection was not closed"
    );
    // What was in flight still arrives, then the end: not the whole file.
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut rest = Vec::new();
    let _ = c.read_to_end(&mut rest);
    assert!(rest.len() + first.len() < size, "{} bytes", rest.len());
    assert!(s.alive());
}

#[test]
fn survives_running_out_of_file_descriptors() {
    use std::os::unix::process::CommandExt;
    let mut s = Server::start_with(&[], |c| {
        // SAFETY: setrlimit is async-signal-safe; the closure touches nothing else.
        unsafe {
            c.pre_exec(|| {
                let lim = libc::rlimit {
                    rlim_cur: 64,
                    rlim_max: 64,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    });
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], s.port));
    // More connections than the server has descriptors for: the rest wait in its backlog
    // while its accept fails with EMFILE.
    let mut held = Vec::new();
    for _ in 0..100 {
        match TcpStream::connect_timeout(&addr, Duration::from_secs(1)) {
            Ok(c) => held.push(c),
            Err(_) => break,
        }
    }
    assert!(held.len() > 64, "only {} connections", held.len());
    std::thread::sleep(Duration::from_millis(500));
    assert!(s.alive(), "the server died out of descriptors");
    drop(held);
    // Once they are gone, it serves again.
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.get("/")));
        match r {
            Ok(r) if r.status == 200 => break,
            _ if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(200)),
            Ok(r) => panic!("still failing: {} {}", r.status, r.text()),
            Err(_) => panic!("still failing"),
        }
    }
    assert!(s.alive());
}

#[test]
fn refuses_other_host_names_on_loopback() {
    let s = Server::start(&[]);
    for host in [
        "evil.example",
        "evil.example:8080",
        "localhost.evil.example",
        "127.0.0.1.evil.example",
        "192.168.1.10",
    ] {
        for path in ["/", "/api/compilers", "/e"] {
            let r = s.request(
                "GET",
                path,
                &[("Host", host), ("Accept", "application/json")],
                b"",
            );
            assert_eq!(r.status, 403, "{host} {path}: {}", r.text());
            assert!(r.text().contains("DNS rebinding"), "{}", r.text());
            assert!(r.text().contains(host), "{}", r.text());
        }
        let r = s.compile_with(&[("Host", host)], "gcc", &json!({"source": "int x;"}));
        assert_eq!(r.status, 403, "{host}: {}", r.text());
        assert!(r.json()["error"]
            .as_str()
            .unwrap()
            .contains("DNS rebinding"));
    }
    // Absolute-form targets are checked too.
    let r = s.request("GET", "http://evil.example/", &[], b"");
    assert_eq!(r.status, 403, "{}", r.text());
    let port = s.port.to_string();
    for host in [
        "localhost".to_string(),
        format!("localhost:{port}"),
        format!("LocalHost.:{port}"),
        "app.localhost:5173".to_string(),
        "127.0.0.1".to_string(),
        format!("127.0.0.2:{port}"),
        "[::1]:8080".to_string(),
    ] {
        let r = s.request("GET", "/api/compilers", &[("Host", &host)], b"");
        assert_eq!(r.status, 200, "{host}: {}", r.text());
    }
}

impl Server {
    fn compile_with(&self, headers: &[(&str, &str)], compiler: &str, body: &Value) -> Reply {
        let mut all = vec![
            ("Content-Type", "application/json"),
            ("Accept", "application/json"),
        ];
        all.extend_from_slice(headers);
        self.request(
            "POST",
            &format!("/api/compiler/{compiler}/compile"),
            &all,
            &serde_json::to_vec(body).unwrap(),
        )
    }
}

#[test]
fn compile_and_cancel_requests_must_be_json() {
    require_gcc();
    let s = Server::start(&[]);
    for content_type in [
        None,
        Some("text/plain"),
        Some("text/plain;charset=UTF-8"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
    ] {
        let headers: Vec<(&str, &str)> = content_type
            .map(|t| ("Content-Type", t))
            .into_iter()
            .collect();
        // Compiler Explorer's plain form (bare source, flags in ?options=) is refused too.
        let r = s.request(
            "POST",
            "/api/compiler/gcc/compile?options=-O2",
            &headers,
            b"int main(void){return 0;}",
        );
        assert_eq!(r.status, 415, "{content_type:?}: {}", r.text());
        let msg = r.json()["error"].as_str().unwrap().to_string();
        assert!(msg.contains("Content-Type: application/json"), "{msg}");
        let r = s.request("POST", "/api/cancel/some-key", &headers, b"");
        assert_eq!(r.status, 415, "{content_type:?}: {}", r.text());
        assert!(r.json()["error"]
            .as_str()
            .unwrap()
            .contains("application/json"));
    }
    let r = s.request(
        "POST",
        "/api/compiler/gcc/compile",
        &[("Content-Type", "Application/JSON; charset=utf-8")],
        json!({"source": "int main(void){return 0;}"})
            .to_string()
            .as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = s.request("POST", "/api/cancel/some-key", JSON, b"");
    assert_eq!(r.status, 200);
    assert_eq!(r.json(), json!({"cancelled": false}));
}

#[test]
fn cancel_keys_belong_to_the_client_that_sent_them() {
    require_gcc();
    let s = Server::start(&["--job-timeout", "30", "--max-jobs", "2"]);
    let origin = format!("http://127.0.0.1:{}", s.port);
    let looping =
        json!({"source": "int main(){for(;;);}", "options": {"filters": {"execute": true}}});
    let start = Instant::now();
    let answer = std::thread::scope(|scope| {
        let job = scope.spawn(|| {
            s.compile_with(
                &[("Origin", &origin), ("X-Whittle-Job", "bound-1")],
                "gcc",
                &looping,
            )
        });
        std::thread::sleep(Duration::from_millis(1500));
        // Nobody can take the key while its job runs, not even the same client.
        for who in [&[][..], &[("Origin", origin.as_str())][..]] {
            let mut headers = who.to_vec();
            headers.push(("X-Whittle-Job", "bound-1"));
            let r = s.compile_with(&headers, "gcc", &json!({"source": "int x;"}));
            assert_eq!(r.status, 409, "{}", r.text());
            assert!(r.json()["error"]
                .as_str()
                .unwrap()
                .contains("X-Whittle-Job"));
        }
        // Other clients cannot call it off: no origin, another origin, another address.
        let cancel = |headers: &[(&str, &str)]| {
            let mut all = JSON.to_vec();
            all.extend_from_slice(headers);
            s.request("POST", "/api/cancel/bound-1", &all, b"").json()
        };
        assert_eq!(cancel(&[])["cancelled"], false);
        assert_eq!(
            cancel(&[("Origin", "http://localhost:5173")])["cancelled"],
            false
        );
        let elsewhere = s
            .request_over(
                connect_from(std::net::Ipv4Addr::new(127, 0, 0, 2), s.port),
                "POST",
                "/api/cancel/bound-1",
                &[("Content-Type", "application/json"), ("Origin", &origin)],
                b"",
            )
            .json();
        assert_eq!(elsewhere["cancelled"], false);
        // The job is still running after all that; its own client calls it off.
        assert!(!job.is_finished());
        assert_eq!(cancel(&[("Origin", &origin)])["cancelled"], true);
        job.join().unwrap()
    });
    assert!(
        start.elapsed() < Duration::from_secs(15),
        "took {:?}",
        start.elapsed()
    );
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(answer.json()["execResult"]["okToCache"], false);
    // The key is free again once its job has ended.
    let again = s.compile_with(
        &[("X-Whittle-Job", "bound-1")],
        "gcc",
        &json!({"source": "int main(void){return 0;}"}),
    );
    assert_eq!(again.status, 200, "{}", again.text());
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

/// xorshift64*: a small deterministic generator for the random-input test.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const KEYS: &[&str] = &[
    "source",
    "options",
    "lang",
    "userArguments",
    "filters",
    "execute",
    "binary",
    "intel",
    "executeParameters",
    "args",
    "stdin",
    "compilerOptions",
    "tools",
    "libraries",
    "",
    "x",
];

const PIECES: &[&str] = &[
    "int main(void){return 0;}",
    "int x;",
    "-O2",
    "-Wall",
    "-o",
    "/etc/passwd",
    "-fplugin=x.so",
    "@f",
    "-I..",
    "{",
    "}",
    "\"",
    "'",
    "\\",
    "\0",
    "\n",
    " ",
    "é",
    "😀",
    "\u{202e}",
    "a",
    "0",
    "-x",
    "c++",
    "--",
    "$(id)",
    ";",
    "#include </dev/zero>",
    "%s%n",
    "\u{fffd}",
];

const SAFE_FLAGS: &[&str] = &[
    "-O0",
    "-O2",
    "-Wall",
    "-w",
    "-std=c99",
    "-g",
    "-DX=1",
    "-fsyntax-only",
];

fn random_string(rng: &mut Rng) -> String {
    let n = match rng.below(40) {
        0 => 20_000 + rng.below(60_000), // sometimes over the 256 KiB limit once escaped
        1..=4 => rng.below(2000),
        _ => rng.below(12),
    };
    let mut s = String::new();
    for _ in 0..n {
        s.push_str(rng.pick(PIECES));
    }
    s
}

fn random_value(rng: &mut Rng, depth: usize) -> Value {
    let kinds = if depth > 4 { 6 } else { 8 };
    match rng.below(kinds) {
        0 => Value::Null,
        1 => Value::Bool(rng.below(2) == 0),
        2 => json!(match rng.below(4) {
            0 => rng.next() as i64,
            1 => -(rng.below(10) as i64),
            _ => rng.below(100) as i64,
        }),
        3 => json!([1e308, -0.0, 0.5, 1e-300, f64::MAX][rng.below(5)]),
        4 | 5 => Value::String(random_string(rng)),
        6 => Value::Array(
            (0..rng.below(5))
                .map(|_| random_value(rng, depth + 1))
                .collect(),
        ),
        _ => random_object(rng, depth + 1),
    }
}

fn random_object(rng: &mut Rng, depth: usize) -> Value {
    let mut map = serde_json::Map::new();
    for _ in 0..rng.below(6) {
        let key = if rng.below(5) == 0 {
            random_string(rng)
        } else {
            rng.pick(KEYS).to_string()
        };
        map.insert(key, random_value(rng, depth));
    }
    Value::Object(map)
}

/// A body shaped like Compiler Explorer's request in parts, random elsewhere.
fn random_request(rng: &mut Rng) -> Vec<u8> {
    let value = match rng.below(6) {
        0 => random_value(rng, 0),
        1 => random_object(rng, 0),
        _ => {
            // Each part well-formed three times in four, random otherwise.
            let typed = |rng: &mut Rng| rng.below(4) != 0;
            let flags = if typed(rng) {
                let n = rng.below(4);
                Value::String(
                    (0..n)
                        .map(|_| rng.pick(SAFE_FLAGS))
                        .collect::<Vec<_>>()
                        .join(" "),
                )
            } else if rng.below(2) == 0 {
                Value::String(random_string(rng))
            } else {
                random_value(rng, 3)
            };
            let filters = if typed(rng) {
                json!({"execute": rng.below(2) == 0, "binary": rng.below(4) == 0, "intel": rng.below(2) == 0})
            } else {
                random_object(rng, 2)
            };
            let mut options = json!({"userArguments": flags, "filters": filters});
            if rng.below(2) == 0 {
                options["executeParameters"] = if typed(rng) {
                    let args: Vec<String> = (0..rng.below(4)).map(|_| random_string(rng)).collect();
                    json!({"args": args, "stdin": random_string(rng)})
                } else {
                    json!({"args": random_value(rng, 3), "stdin": random_value(rng, 3)})
                };
            }
            if rng.below(3) == 0 {
                options["compilerOptions"] = random_value(rng, 2);
            }
            let source = match rng.below(4) {
                0 => random_value(rng, 2),
                1 => Value::String(format!(
                    "#include <stdio.h>\nint main(int c, char **v) {{ puts({:?}); return c; }}\n",
                    random_string(rng)
                )),
                _ => Value::String(random_string(rng)),
            };
            let mut request = json!({"source": source, "options": options});
            if rng.below(2) == 0 {
                request["lang"] = if typed(rng) {
                    json!("c")
                } else {
                    random_value(rng, 4)
                };
            }
            request
        }
    };
    let mut body = serde_json::to_vec(&value).unwrap();
    match rng.below(12) {
        0 => body.truncate(rng.below(body.len() + 1)), // broken JSON
        1 => {
            // Deep nesting: past serde_json's recursion limit, and far past it.
            let depth = [100, 200, 5_000, 100_000][rng.below(4)];
            body = "[".repeat(depth).into_bytes();
            body.extend("]".repeat(depth).into_bytes());
        }
        _ => {}
    }
    body
}

#[test]
fn the_compile_api_survives_random_json() {
    require_gcc();
    let mut s = Server::start(&["--job-timeout", "5", "--max-body", "256"]);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut seen: std::collections::BTreeMap<u16, usize> = Default::default();
    let deadline = Instant::now() + Duration::from_secs(150);
    for case in 0..400 {
        if Instant::now() > deadline {
            break;
        }
        let body = random_request(&mut rng);
        let id = if rng.below(10) == 0 { "nope" } else { "gcc" };
        let r = s.request(
            "POST",
            &format!("/api/compiler/{id}/compile"),
            &[
                ("Content-Type", "application/json"),
                ("Accept", "application/json"),
            ],
            &body,
        );
        let shown = String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned();
        assert!(
            r.status == 200 || (400..500).contains(&r.status),
            "case {case}: HTTP {} for {shown}: {}",
            r.status,
            r.text()
        );
        let v = r.json();
        if r.status == 200 {
            assert!(v["code"].is_number(), "case {case}: {v}");
        } else {
            assert!(v["error"].is_string(), "case {case}: {v}");
        }
        *seen.entry(r.status).or_default() += 1;
        assert!(s.alive(), "case {case} killed the server: {shown}");
    }
    eprintln!("statuses seen: {seen:?}");
    assert!(seen.get(&200).is_some_and(|&n| n > 0), "{seen:?}");
    assert!(seen.get(&400).is_some_and(|&n| n > 0), "{seen:?}");
    assert_eq!(s.get("/").status, 200);
    assert_eq!(s.get("/api/compilers").status, 200);
}

/// The processes descended from `pid` (from /proc's parent links).
fn descendants(pid: u32) -> Vec<u32> {
    let mut parent_of = HashMap::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(p) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else {
            continue;
        };
        // "pid (comm) state ppid ...": comm may hold spaces, so split after its ')'.
        let after = &stat[stat.rfind(')').unwrap_or(0) + 1..];
        if let Some(ppid) = after
            .split_whitespace()
            .nth(1)
            .and_then(|x| x.parse::<u32>().ok())
        {
            parent_of.insert(p, ppid);
        }
    }
    let mut found = vec![pid];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        found.extend(
            parent_of
                .iter()
                .filter(|&(_, &pp)| pp == p)
                .map(|(&c, _)| c),
        );
        i += 1;
    }
    found.remove(0);
    found
}

/// Whether process `pid` still runs (a zombie waiting to be reaped does not).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let after = &stat[stat.rfind(')').unwrap_or(0) + 1..];
        !matches!(after.split_whitespace().next(), Some("Z" | "X"))
    })
}

#[test]
fn signals_kill_running_jobs_and_remove_their_folders() {
    require_gcc();
    for (signal, code) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        let tmp = tempfile::tempdir().unwrap();
        let tmp_path = tmp.path().to_path_buf();
        let mut s = Server::start_with(&["--job-timeout", "60"], |c| {
            c.env("TMPDIR", &tmp_path);
        });
        let jobs = tmp.path().join(format!("whittle-serve-{}", s.child.id()));
        let port = s.port;
        let client = std::thread::spawn(move || {
            // Ends with an error or a cut-off answer when the server goes.
            let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
            c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            let body = json!({"source": "int main(){for(;;);}", "options": {"filters": {"execute": true}}}).to_string();
            let _ = c.write_all(format!("POST /api/compiler/gcc/compile HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
            let mut sink = Vec::new();
            let _ = c.read_to_end(&mut sink);
        });
        // Wait for the job's folder and for the program to be running.
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut seen = Vec::new();
        while Instant::now() < deadline {
            let folders = std::fs::read_dir(&jobs).map(|d| d.count()).unwrap_or(0);
            seen = descendants(s.child.id());
            if folders > 0 && !seen.is_empty() {
                std::thread::sleep(Duration::from_millis(1500)); // compiled, now running
                seen = descendants(s.child.id());
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(jobs.is_dir(), "no job folder in {}", jobs.display());
        assert!(!seen.is_empty(), "the job runs no process");
        // SAFETY: signals our own child process.
        unsafe {
            libc::kill(s.child.id() as i32, signal);
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        let status = loop {
            if let Some(st) = s.child.try_wait().unwrap() {
                break st;
            }
            assert!(
                Instant::now() < deadline,
                "still running 10 s after signal {signal}"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(
            status.code(),
            Some(code),
            "after signal {signal}: {status:?}"
        );
        assert!(!jobs.exists(), "{} is still there", jobs.display());
        let deadline = Instant::now() + Duration::from_secs(5);
        while seen.iter().any(|&p| running(p)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        let left: Vec<u32> = seen.iter().copied().filter(|&p| running(p)).collect();
        assert!(
            left.is_empty(),
            "job processes {left:?} outlived the server"
        );
        client.join().unwrap();
    }
}
