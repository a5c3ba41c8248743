//! End-to-end tests of `whittle serve`'s compile jobs: time limits, calling a job off (and who
//! may), and signals that end the server with its jobs.
//!
//! They need gcc on PATH (scripts/setup.sh installs it with the rest).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::json;

mod support;

use support::*;

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
