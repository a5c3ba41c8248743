//! Running one process with limits: the one runner for users' tests (`whittle reduce`) and
//! compile jobs (`whittle serve`). Its own process group (killed whole on timeout, on cancel
//! and when it ends, so stray children do not linger), a parent-death signal, resource limits
//! (CPU time, file size, open files, core dumps, optionally address space), optionally a
//! sandbox and control groups (see [`crate::sandbox`]), a wall-clock deadline, and capped
//! capture of stdout and stderr.

use std::collections::HashSet;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::sandbox::{Cgroups, JobCaps, Sandbox};

/// How a process is confined.
#[derive(Clone, Default)]
pub enum Confinement {
    /// As it is (only the limits below).
    #[default]
    None,
    /// In a PID namespace that dies with us; file system and environment as they are.
    Tethered(Arc<Sandbox>),
    /// In the sandbox, with `cwd` its only writable folder, at most `processes` processes and
    /// threads (an rlimit in the job's own user namespace), and in control groups with these
    /// caps when the kernel offers them.
    Jailed {
        sandbox: Arc<Sandbox>,
        cgroups: Option<Arc<Cgroups>>,
        memory: u64,
        processes: u64,
    },
}

/// What to run and within which limits.
pub struct Spec {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub cwd: PathBuf,
    pub env: Vec<(String, OsString)>,
    /// Bytes fed to stdin; `None` gives the process /dev/null.
    pub stdin: Option<Vec<u8>>,
    pub deadline: Instant,
    /// `RLIMIT_AS` in bytes; `None` leaves it alone (node and the JVM reserve far more address
    /// space than they use, and sanitizers need terabytes of it).
    pub address_space: Option<u64>,
    /// Bytes kept per stream; the rest is read and dropped.
    pub output_cap: usize,
    /// Set when the client no longer wants the answer: the group is killed at once.
    pub cancel: Arc<AtomicBool>,
    pub confinement: Confinement,
    /// `RLIMIT_CPU` in seconds.
    pub cpu_seconds: Option<u64>,
    /// `RLIMIT_DATA` in bytes, for a jailed process (its heap and private writable mappings:
    /// unlike `RLIMIT_AS` it does not count what node and the JVM only reserve).
    pub data: Option<u64>,
    /// Whether a jailed process may use ptrace: a built program may (LeakSanitizer stops its
    /// threads with it), a compiler may not.
    pub ptrace: bool,
    /// Bytes `cwd` may hold, watched while the process runs, where no tmpfs caps the folder:
    /// past them the group is killed.
    pub disk: Option<u64>,
}

impl Spec {
    /// A spec with no stdin, no limits beyond the defaults and no confinement.
    pub fn new(program: PathBuf, args: Vec<OsString>, cwd: PathBuf, deadline: Instant) -> Spec {
        Spec {
            program,
            args,
            cwd,
            env: Vec::new(),
            stdin: None,
            deadline,
            address_space: None,
            output_cap: 64 * 1024,
            cancel: Arc::default(),
            confinement: Confinement::None,
            cpu_seconds: None,
            data: None,
            ptrace: false,
            disk: None,
        }
    }
}

/// How a process ended: its exit (status or signal), output and limits hit.
#[derive(Debug, Default)]
pub struct Exit {
    /// The exit status, or 128 + the signal number when a signal ended it (as a shell reports).
    pub code: i32,
    pub signal: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    pub timed_out: bool,
    /// Killed because the job was called off.
    pub cancelled: bool,
    /// Something was killed for passing the memory cap.
    pub out_of_memory: bool,
    /// Killed for writing more than [`Spec::disk`] into its folder.
    pub over_disk: bool,
    pub elapsed: Duration,
}

impl Exit {
    pub fn truncated(&self) -> bool {
        self.stdout_truncated || self.stderr_truncated
    }
}

/// Process groups alive right now, so that Ctrl-C can take them down with the server.
static LIVE_GROUPS: Mutex<Option<HashSet<i32>>> = Mutex::new(None);

fn register(pgid: i32) {
    LIVE_GROUPS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(HashSet::new)
        .insert(pgid);
}

fn unregister(pgid: i32) {
    if let Some(set) = LIVE_GROUPS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_mut()
    {
        set.remove(&pgid);
    }
}

/// Kills every job's process group (used when the server is interrupted).
pub fn kill_all() {
    if let Some(set) = LIVE_GROUPS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
    {
        for &pgid in set {
            kill_group(pgid);
        }
    }
}

fn kill_group(pgid: i32) {
    // SAFETY: kill(2) with a negative pid signals a process group; no memory is involved.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

/// How often a running job looks whether it was called off.
pub const CANCEL_POLL: Duration = Duration::from_millis(20);

/// Largest file a job may write (the assembly of a big program is a few MiB at most).
pub const FILE_SIZE_LIMIT: u64 = 512 << 20;
/// Open files per process.
const OPEN_FILES_LIMIT: u64 = 1024;

/// Runs `spec` to completion or its deadline. `Err` when it could not be started.
pub fn run(spec: Spec) -> Result<Exit, String> {
    let start = Instant::now();
    if start >= spec.deadline {
        return Ok(Exit {
            code: 128 + libc::SIGKILL,
            signal: Some(libc::SIGKILL),
            timed_out: true,
            ..Exit::default()
        });
    }
    let groups = match &spec.confinement {
        Confinement::Jailed {
            cgroups: Some(c),
            memory,
            processes,
            ..
        } => Some(c.job(*memory, *processes)?),
        _ => None,
    };
    let group_fds: Vec<i32> = groups
        .iter()
        .flat_map(|g| g.procs.iter().map(|f| f.as_raw_fd()))
        .collect();
    let (program, args) = match &spec.confinement {
        Confinement::None => (spec.program.clone(), spec.args.clone()),
        Confinement::Tethered(sandbox) => sandbox.tether(&spec.program, &spec.args),
        Confinement::Jailed {
            sandbox, processes, ..
        } => {
            let caps = JobCaps {
                processes: *processes,
                data: spec.data,
                ptrace: spec.ptrace,
            };
            sandbox.wrap(&spec.program, &spec.args, &spec.cwd, &spec.env, caps)
        }
    };
    let (address_space, cpu) = (spec.address_space, spec.cpu_seconds);
    // A tethered job dies with us through bubblewrap and needs no control group: its limits
    // are set by prlimit, so the spawn needs no closure between fork and exec (see PRLIMIT).
    let light = matches!(spec.confinement, Confinement::Tethered(_))
        && group_fds.is_empty()
        && std::path::Path::new(PRLIMIT).is_file();
    let mut cmd = if light {
        let mut c = Command::new(PRLIMIT);
        // Each option sets the soft and the hard limit.
        let options = limits(address_space, cpu).into_iter();
        c.args(options.map(|(_, name, v)| format!("--{name}={v}")))
            .arg(&program);
        c
    } else {
        Command::new(&program)
    };
    if matches!(spec.confinement, Confinement::Jailed { .. }) {
        cmd.env_clear(); // bwrap sets the job's environment itself
    }
    cmd.args(&args)
        .current_dir(&spec.cwd)
        .stdin(if spec.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    for (k, v) in &spec.env {
        cmd.env(k, v);
    }
    // SAFETY: the closure runs between fork and exec and only calls prctl(2), setrlimit(2)
    // and write(2), which are async-signal-safe; it allocates nothing.
    let limits = limits(address_space, cpu);
    unsafe {
        if !light {
            cmd.pre_exec(move || {
                // If the server dies (even by SIGKILL), the job's direct child goes with it:
                // the compiler driver or the compiled program. (The driver's helpers, like
                // cc1, are short-lived; a dead server cannot enforce a deadline on them.)
                #[cfg(target_os = "linux")]
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                for &(resource, _, value) in &limits {
                    set_limit(resource, value)?;
                }
                crate::sandbox::JobGroups::join_raw(&group_fds)
            });
        }
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("could not start {}: {e}", spec.program.display()))?;
    let pid = child.id() as i32;
    register(pid);

    if let (Some(bytes), Some(mut stdin)) = (spec.stdin, child.stdin.take()) {
        // A program that never reads its input must not block us, so write from a thread.
        thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
    }
    let out = Capture::start(child.stdout.take().expect("piped stdout"), spec.output_cap);
    let err = Capture::start(child.stderr.take().expect("piped stderr"), spec.output_cap);

    // Wait for the exit without reaping it (WNOWAIT), so that the pid, and with it the
    // process group id, cannot be reused before we kill the group below.
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        loop {
            // SAFETY: waitid(2) writes into the zeroed siginfo_t we own.
            let r = unsafe {
                let mut info: libc::siginfo_t = std::mem::zeroed();
                libc::waitid(
                    libc::P_PID,
                    pid as libc::id_t,
                    &mut info,
                    libc::WEXITED | libc::WNOWAIT,
                )
            };
            if r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                break;
            }
        }
        let _ = tx.send(());
    });
    // Waits in slices, to hear a cancel soon.
    let (mut timed_out, mut cancelled, mut over_disk) = (false, false, false);
    // Measured at each slice: a walk of a job's folder takes microseconds.
    let full = |cap: u64| crate::jail::folder_bytes(&spec.cwd) > cap;
    loop {
        let left = spec.deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left.min(CANCEL_POLL)) {
            Err(mpsc::RecvTimeoutError::Timeout) if spec.cancel.load(Ordering::SeqCst) => {
                cancelled = true
            }
            Err(mpsc::RecvTimeoutError::Timeout) if spec.disk.is_some_and(full) => over_disk = true,
            Err(mpsc::RecvTimeoutError::Timeout) if left > CANCEL_POLL => continue,
            Err(mpsc::RecvTimeoutError::Timeout) => timed_out = true,
            _ => {}
        }
        break;
    }
    kill_group(pid);
    let status = child
        .wait()
        .map_err(|e| format!("waiting for {}: {e}", spec.program.display()))?;
    unregister(pid);
    let elapsed = start.elapsed();

    // The pipes close once every process of the group is gone; a process that left the group
    // (setsid) could hold them open, so wait only briefly.
    let grace = Instant::now() + Duration::from_secs(1);
    let (stdout, stdout_truncated) = out.finish(grace);
    let (stderr, stderr_truncated) = err.finish(grace);

    let (code, signal) = match (status.code(), status.signal()) {
        (Some(c), _) => (c, None),
        (None, Some(s)) => (128 + s, Some(s)),
        (None, None) => (-1, None),
    };
    let out_of_memory = groups.as_ref().is_some_and(|g| g.hit_memory_cap());
    drop(groups);
    Ok(Exit {
        code,
        signal,
        stdout,
        stderr,
        stdout_truncated,
        stderr_truncated,
        timed_out,
        cancelled,
        out_of_memory,
        over_disk,
        elapsed,
    })
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
type Resource = libc::c_int;

/// The limits every job runs under, each with prlimit's name for it: core dumps off, file
/// size, open files, and address space and CPU seconds when given.
fn limits(address_space: Option<u64>, cpu: Option<u64>) -> Vec<(Resource, &'static str, u64)> {
    let mut v = vec![
        (libc::RLIMIT_CORE, "core", 0),
        (libc::RLIMIT_FSIZE, "fsize", FILE_SIZE_LIMIT),
        (libc::RLIMIT_NOFILE, "nofile", OPEN_FILES_LIMIT),
    ];
    v.extend(address_space.map(|b| (libc::RLIMIT_AS, "as", b)));
    v.extend(cpu.map(|s| (libc::RLIMIT_CPU, "cpu", s)));
    v
}

/// util-linux's prlimit (Debian's essential util-linux has it), which sets its limits and
/// executes the rest of its command line. A spawn with no closure to run between fork and
/// exec is a posix_spawn, which shares this process's memory until the exec instead of
/// copying its page tables: a reducer holding a megabyte program's trees spent milliseconds
/// per fork, and its engine then took a fault on every page it wrote.
const PRLIMIT: &str = "/usr/bin/prlimit";

fn set_limit(resource: Resource, bytes: u64) -> std::io::Result<()> {
    let lim = libc::rlimit {
        rlim_cur: bytes as libc::rlim_t,
        rlim_max: bytes as libc::rlim_t,
    };
    // SAFETY: setrlimit(2) reads the struct we pass.
    if unsafe { libc::setrlimit(resource, &lim) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// A stream read on its own thread into a buffer of at most `cap` bytes.
struct Capture {
    buf: Arc<Mutex<(Vec<u8>, bool)>>,
    done: mpsc::Receiver<()>,
}

impl Capture {
    fn start<R: Read + Send + 'static>(mut stream: R, cap: usize) -> Capture {
        let buf = Arc::new(Mutex::new((Vec::new(), false)));
        let (tx, done) = mpsc::channel();
        let shared = Arc::clone(&buf);
        thread::spawn(move || {
            let mut chunk = [0u8; 16 * 1024];
            loop {
                match stream.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        let mut g = shared.lock().unwrap_or_else(|e| e.into_inner());
                        let room = cap.saturating_sub(g.0.len());
                        if n > room {
                            g.1 = true;
                        }
                        let keep = n.min(room);
                        g.0.extend_from_slice(&chunk[..keep]);
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                }
            }
            let _ = tx.send(());
        });
        Capture { buf, done }
    }

    /// The bytes read by `until`, and whether some were dropped.
    fn finish(self, until: Instant) -> (Vec<u8>, bool) {
        let _ = self
            .done
            .recv_timeout(until.saturating_duration_since(Instant::now()));
        let mut g = self.buf.lock().unwrap_or_else(|e| e.into_inner());
        (std::mem::take(&mut g.0), g.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, secs: u64, cap: usize) -> Exit {
        let mut spec = Spec::new(
            "/bin/sh".into(),
            vec!["-c".into(), script.into()],
            std::env::temp_dir(),
            Instant::now() + Duration::from_secs(secs),
        );
        spec.stdin = Some(b"in".to_vec());
        spec.address_space = Some(1 << 30);
        spec.output_cap = cap;
        run(spec).unwrap()
    }

    #[test]
    fn captures_streams_and_exit_code() {
        let o = sh("cat; echo out; echo err >&2; exit 3", 10, 1 << 20);
        assert_eq!(o.code, 3);
        assert_eq!(o.stdout, b"inout\n");
        assert_eq!(o.stderr, b"err\n");
        assert!(!o.timed_out && !o.truncated());
    }

    #[test]
    fn kills_the_whole_group_on_timeout() {
        let t = Instant::now();
        let o = sh("sleep 30 & sleep 30; echo never", 1, 1 << 20);
        assert!(o.timed_out);
        assert_eq!(o.signal, Some(libc::SIGKILL));
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "took {:?}",
            t.elapsed()
        );
    }

    #[test]
    fn caps_output() {
        let o = sh("yes | head -c 100000", 10, 1000);
        assert_eq!(o.stdout.len(), 1000);
        assert!(o.stdout_truncated);
        assert_eq!(o.code, 0);
    }

    #[test]
    fn signal_gives_shell_style_code() {
        let o = sh("kill -SEGV $$", 10, 1000);
        assert_eq!(o.signal, Some(libc::SIGSEGV));
        assert_eq!(o.code, 128 + libc::SIGSEGV);
    }

    /// `script` tethered (bubblewrap, spawned through prlimit), with a CPU limit too.
    fn tethered(script: &str, secs: u64) -> Exit {
        let sandbox = Sandbox::detect().expect("bubblewrap (npm run setup installs it)");
        let mut spec = Spec::new(
            "/bin/sh".into(),
            vec!["-c".into(), script.into()],
            std::env::temp_dir(),
            Instant::now() + Duration::from_secs(secs),
        );
        spec.address_space = Some(1 << 30);
        spec.cpu_seconds = Some(7);
        spec.confinement = Confinement::Tethered(Arc::new(sandbox));
        run(spec).unwrap()
    }

    #[test]
    fn a_tethered_job_runs_under_every_limit() {
        let o = tethered("ulimit -c; ulimit -f; ulimit -n; ulimit -v; ulimit -t", 10);
        let want = format!(
            "0\n{}\n{OPEN_FILES_LIMIT}\n{}\n7\n",
            FILE_SIZE_LIMIT / 512,
            (1u64 << 30) / 1024
        );
        assert_eq!(String::from_utf8_lossy(&o.stdout), want);
        assert_eq!(o.code, 0);
    }

    #[test]
    fn a_tethered_job_has_a_dev_of_its_own() {
        // What a test does to /dev (clang as root deletes a failed compile's `-o /dev/null`)
        // stays in its sandbox. A file made there is the probe: no device is touched.
        let probe = format!("/dev/whittle-probe-{}", std::process::id());
        let o = tethered(
            &format!("touch {probe} && test -c /dev/null && echo made"),
            10,
        );
        let leaked = std::path::Path::new(&probe).exists();
        let _ = std::fs::remove_file(&probe);
        assert_eq!(String::from_utf8_lossy(&o.stdout), "made\n");
        assert!(!leaked, "{probe} was made in the machine's /dev");
    }

    #[test]
    fn a_tethered_job_is_killed_whole_on_timeout() {
        let t = Instant::now();
        let o = tethered("sleep 30 & sleep 30; echo never", 1);
        assert!(o.timed_out && o.stdout.is_empty());
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "took {:?}",
            t.elapsed()
        );
    }
}
