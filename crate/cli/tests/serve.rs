//! End-to-end tests of `whittle serve`: the built binary on 127.0.0.1 (a port the OS picks),
//! spoken to with hand-written HTTP/1.1 over TcpStream.
//!
//! The compile tests need gcc on PATH; without it they say so and pass.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// A running `whittle serve`, stopped (Ctrl-C, then kill) when dropped.
struct Server {
    child: Child,
    port: u16,
    _root: tempfile::TempDir,
}

const INDEX: &str = "<!doctype html><title>whittle test page</title>";

impl Server {
    fn start(extra: &[&str]) -> Server {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("index.html"), INDEX).unwrap();
        std::fs::create_dir_all(root.path().join("web")).unwrap();
        std::fs::write(root.path().join("web/x.js"), "export const x = 1;\n").unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_whittle"))
            .args(["serve", "--host", "127.0.0.1", "--port", "0", "--root"])
            .arg(root.path())
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start whittle serve");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        out.read_line(&mut first).unwrap();
        // "whittle serve: http://127.0.0.1:PORT/"
        let port = first
            .trim()
            .strip_prefix("whittle serve: http://127.0.0.1:")
            .and_then(|r| r.strip_suffix('/'))
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("unexpected first line: {first:?}"));
        let mut rest = String::new();
        out.read_line(&mut rest).unwrap();
        assert!(
            rest.contains("compilers") || rest.contains("no compilers"),
            "second line: {rest:?}"
        );
        // Keep draining stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut sink = Vec::new();
            let _ = out.read_to_end(&mut sink);
        });
        Server {
            child,
            port,
            _root: root,
        }
    }

    fn request(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n",
            self.port
        );
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        if !body.is_empty() || method == "POST" {
            head.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        // The server may answer (413) before reading all of a large body.
        let _ = stream.write_all(body);
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).expect("read the answer");
        Reply::parse(&raw)
    }

    fn get(&self, path: &str) -> Reply {
        self.request("GET", path, &[("Accept", "application/json")], b"")
    }

    fn compile(&self, compiler: &str, body: &Value) -> Reply {
        let body = serde_json::to_vec(body).unwrap();
        self.request(
            "POST",
            &format!("/api/compiler/{compiler}/compile"),
            &[
                ("Content-Type", "application/json"),
                ("Accept", "application/json"),
            ],
            &body,
        )
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // SAFETY: signals our own child process.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGINT);
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Reply {
    status: u16,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

impl Reply {
    fn parse(raw: &[u8]) -> Reply {
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(raw)));
        let head = String::from_utf8_lossy(&raw[..split]).into_owned();
        let mut lines = head.split("\r\n");
        let status = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers: HashMap<String, String> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let mut body = raw[split + 4..].to_vec();
        if headers
            .get("transfer-encoding")
            .is_some_and(|t| t.contains("chunked"))
        {
            body = dechunk(&body);
        }
        Reply {
            status,
            headers,
            body,
        }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(eol) = data.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size_text = String::from_utf8_lossy(&data[..eol]);
        let size =
            usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16).unwrap_or(0);
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[eol + 2..eol + 2 + size]);
        data = &data[eol + 2 + size + 2..];
    }
}

/// The text of each line of a CE stream (`[{"text": ...}]`), joined.
fn stream(v: &Value) -> String {
    v.as_array()
        .unwrap_or_else(|| panic!("not a stream: {v}"))
        .iter()
        .map(|l| l["text"].as_str().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

fn have(exe: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| Path::new(&d).join(exe).is_file()))
}

/// The compile tests need gcc, as the bench and the browser tests do; a machine without it
/// fails them rather than passing them untested.
fn require_gcc() {
    assert!(
        have("gcc"),
        "gcc is not on PATH: install it (apt-get install -y gcc) to run the compile tests"
    );
}

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
        // No room to wait (--max-queue 0): turned away at once, with a hint when to retry.
        let busy = s.compile("gcc", &json!({"source": "int x;"}));
        assert_eq!(busy.status, 503, "{}", busy.text());
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
            .request("POST", "/api/cancel/no-such-job", &[], b"")
            .json();
        assert_eq!(unknown["cancelled"], false);
        let called_off = s.request("POST", "/api/cancel/reducer-7", &[], b"").json();
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
    // tiny_http would drain such a body into one buffer of the claimed size when the request is
    // dropped, and a failed 100 GB allocation aborts the process.
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
