//! What the server tests share: a running `whittle serve` on 127.0.0.1 (a port the OS picks),
//! spoken to with hand-written HTTP/1.1 over TcpStream, and its answers.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A running `whittle serve`, stopped (Ctrl-C, then kill) when dropped.
pub struct Server {
    pub child: Child,
    pub port: u16,
    pub _root: tempfile::TempDir,
}

pub const INDEX: &str = "<!doctype html><title>whittle test page</title>";

/// The content type compile and cancel requests must carry.
pub const JSON: &[(&str, &str)] = &[("Content-Type", "application/json")];

impl Server {
    pub fn start(extra: &[&str]) -> Server {
        Server::start_with(extra, |_| {})
    }

    /// A server with these extra arguments and environment variables.
    pub fn start_with_env(extra: &[&str], env: &[(&str, &str)]) -> Server {
        Server::start_with(extra, |c| {
            c.envs(env.iter().copied());
        })
    }

    /// Starts the server after `configure` has adjusted its command.
    pub fn start_with(extra: &[&str], configure: impl FnOnce(&mut Command)) -> Server {
        let root = tempfile::tempdir().unwrap();
        // Readable by a server that a test runs as another user.
        std::fs::set_permissions(
            root.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        std::fs::write(root.path().join("index.html"), INDEX).unwrap();
        std::fs::create_dir_all(root.path().join("web")).unwrap();
        std::fs::write(root.path().join("web/x.js"), "export const x = 1;\n").unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_whittle"));
        command
            .args(["serve", "--host", "127.0.0.1", "--port", "0", "--root"])
            .arg(root.path())
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        configure(&mut command);
        let mut child = command.spawn().expect("start whittle serve");
        let mut out = BufReader::new(child.stdout.take().unwrap());
        // "whittle serve: http://127.0.0.1:PORT/", after any notice of its start (job folders
        // a killed server left, say).
        let mut first = String::new();
        for _ in 0..8 {
            first.clear();
            out.read_line(&mut first).unwrap();
            if first.starts_with("whittle serve: http") || first.is_empty() {
                break;
            }
        }
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

    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Reply {
        let stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        self.request_over(stream, method, path, headers, body)
    }

    /// A request over `stream`, with `Host: 127.0.0.1:<port>` unless `headers` name a Host.
    pub fn request_over(
        &self,
        mut stream: TcpStream,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Reply {
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            head.push_str(&format!("Host: 127.0.0.1:{}\r\n", self.port));
        }
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

    /// How many file descriptors the server has open.
    pub fn open_fds(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.child.id()))
            .expect("read /proc/<pid>/fd")
            .count()
    }

    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    pub fn get(&self, path: &str) -> Reply {
        self.request("GET", path, &[("Accept", "application/json")], b"")
    }

    pub fn compile(&self, compiler: &str, body: &Value) -> Reply {
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

    pub fn compile_with(&self, headers: &[(&str, &str)], compiler: &str, body: &Value) -> Reply {
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

pub struct Reply {
    pub status: u16,
    pub headers: HashMap<String, String>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn parse(raw: &[u8]) -> Reply {
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

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
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
pub fn stream(v: &Value) -> String {
    v.as_array()
        .unwrap_or_else(|| panic!("not a stream: {v}"))
        .iter()
        .map(|l| l["text"].as_str().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn have(exe: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| Path::new(&d).join(exe).is_file()))
}

/// The compile tests need gcc, as the bench and the browser tests do; a machine without it
/// fails them rather than passing them untested.
pub fn require_gcc() {
    assert!(
        have("gcc"),
        "gcc is not on PATH: install it (apt-get install -y gcc) to run the compile tests"
    );
}

/// tcc's coverage build (scripts/build-tcc.sh, which setup.sh runs): the witness and coverage
/// tests need it, and fail rather than pass untested without it.
pub fn require_tcc() -> std::path::PathBuf {
    let build = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/tcc/build");
    let ok = build.join("tcc").is_file() && build.join("tccgen.gcno").is_file();
    assert!(
        ok,
        "tcc's coverage build is missing at {}: run scripts/build-tcc.sh",
        build.display()
    );
    build.canonicalize().expect("the tcc build folder")
}

/// Runs `whittle ARGS` in `dir` to its end.
pub fn whittle(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_whittle"))
        .args(args)
        .current_dir(dir)
        // A template's verdicts are kept in the test's own folder, not the user's cache.
        .env("XDG_CACHE_HOME", dir.join(".cache"))
        .output()
        .expect("run whittle")
}

/// Writes `dir/name`, runnable when `executable` (a test script).
pub fn write(dir: &Path, name: &str, text: &str, executable: bool) {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    if executable {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// The JSON in `dir/name` (a `--stats-json` file).
pub fn read_json(dir: &Path, name: &str) -> Value {
    let text = std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A connection to the server from `local` (another loopback address than 127.0.0.1: a
/// different client as far as the server can tell).
pub fn connect_from(local: std::net::Ipv4Addr, port: u16) -> TcpStream {
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

/// Makes this test process the subreaper of everything it starts, so a process whose parent
/// died (a killed whittle's test, a daemon that double-forked) is still among its descendants,
/// and tests can look for leftovers among their own processes only.
pub fn adopt_orphans() {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes one integer argument and touches no memory.
    let r = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    assert_eq!(r, 0, "prctl(PR_SET_CHILD_SUBREAPER)");
}

/// This test process's live descendants (zombies left out) for which `pick` holds, given the
/// process's `/proc/<pid>` folder. Call `adopt_orphans` before starting them.
pub fn own_processes(pick: impl Fn(&Path) -> bool) -> usize {
    descendants(std::process::id())
        .into_iter()
        .map(|pid| std::path::PathBuf::from(format!("/proc/{pid}")))
        .filter(|dir| {
            let stat = std::fs::read_to_string(dir.join("stat")).unwrap_or_default();
            let state = stat[stat.rfind(')').map_or(0, |i| i + 1)..]
                .split_whitespace()
                .next();
            matches!(state, Some(s) if s != "Z" && s != "X") && pick(dir)
        })
        .count()
}

/// The processes descended from `pid` (from /proc's parent links).
pub fn descendants(pid: u32) -> Vec<u32> {
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
