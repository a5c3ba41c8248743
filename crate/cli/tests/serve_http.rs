//! End-to-end tests of `whittle serve`'s HTTP hardening: slow, idle and greedy clients, running
//! out of descriptors, huge bodies, and Host names other than loopback's.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::json;

mod support;

use support::*;

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
