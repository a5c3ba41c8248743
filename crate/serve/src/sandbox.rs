//! Where jobs run. A compile job of `whittle serve` runs inside bubblewrap, in a view of the
//! system holding only what compilers need (/usr, a few files of /etc, the toolchains' folders
//! at neutral paths) with its job folder the only writable place, a private /tmp, no network,
//! its own PID namespace (nothing outlives it) and a cleared environment; as uid 65534 in a
//! user namespace of its own, with no capabilities and a seccomp filter (see [`crate::jail`]);
//! and, where the kernel lets us, in its own control groups, which cap its memory (by what it
//! really uses, so node, the JVM and sanitizer builds are covered too) and its number of
//! processes. A user's test for `whittle reduce` runs with the whole file system (it is the
//! user's own script), but in a PID namespace that dies with whittle, even on SIGKILL.

use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::jail;

const BWRAP: &str = "bwrap";
/// The PATH inside the sandbox: the system's, and where rustup puts rustc.
const PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/// Where the dropper (this binary) and the toolchains' folders appear inside.
const DROPPER_INSIDE: &str = "/opt/whittle/bin/whittle";
const RUSTUP_INSIDE: &str = "/opt/whittle/rustup";
const CARGO_INSIDE: &str = "/opt/whittle/cargo";
/// The top-level links (or folders) of a merged /usr.
const TOP_LEVEL: &[&str] = &["bin", "sbin", "lib", "lib32", "lib64", "libx32"];
/// What of /etc jobs see: the dynamic loader's cache, the alternatives behind cc and java,
/// user and group names, the time zone, TLS certificates and OpenSSL's configuration (node
/// reads it), and the JVM's configuration (`/etc/java-*`). Never shadow, sudoers, ssh keys.
const ETC: &[&str] = &[
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "passwd",
    "group",
    "nsswitch.conf",
    "localtime",
    "timezone",
    "ssl",
];

/// bubblewrap, found and shown to work on this machine.
#[derive(Clone, Debug)]
pub struct Sandbox {
    bwrap: PathBuf,
    /// Extra PATH entries and variables a toolchain needs (rustup's proxies read RUSTUP_HOME).
    path: String,
    toolchain_env: Vec<(String, OsString)>,
    /// Folders jobs read, as (outside, inside): the toolchains', the tcc build's (same path).
    binds: Vec<(PathBuf, PathBuf)>,
    /// This binary, run inside as the dropper. (Bound by path: a rebuilt binary in its place
    /// serves as well; one removed under a running server makes its jobs fail, saying so.)
    dropper: PathBuf,
    /// Whether bubblewrap runs privileged (we are root): the dropper then changes uid itself.
    privileged: bool,
    /// The size of a job's private /tmp.
    tmp_bytes: u64,
}

/// The caps the dropper sets for one process.
#[derive(Clone, Copy, Debug)]
pub struct JobCaps {
    /// `RLIMIT_NPROC` in the job's own user namespace: the job's processes and threads.
    pub processes: u64,
    /// `RLIMIT_DATA` in bytes, if any.
    pub data: Option<u64>,
    /// Whether the job may use ptrace (a built program's LeakSanitizer does; compilers never).
    pub ptrace: bool,
}

impl Sandbox {
    /// bubblewrap, if it runs a program in a PID namespace here; else why not. (Enough for
    /// tethering a user's test; [`Sandbox::check_jail`] says whether compile jobs can run.)
    pub fn detect() -> Result<Sandbox, String> {
        let sandbox = Sandbox::unprobed()?;
        sandbox.probe()?;
        Ok(sandbox)
    }

    /// Whether bubblewrap runs a program in a PID namespace here (what [`Sandbox::detect`]
    /// asks once; a caller that knows it does may skip it: [`Sandbox::unprobed`]).
    fn probe(&self) -> Result<(), String> {
        let bwrap = &self.bwrap;
        // The probe sees /usr and its links only: a view of all of / would copy every mount
        // under it, and a job folder (a tmpfs) unmounted meanwhile fails the copy.
        let probe = std::process::Command::new(bwrap)
            .args(root_view().concat())
            .args(["--dev", "/dev", "--proc", "/proc"])
            .args(["--unshare-all", "--die-with-parent", "--", "/bin/true"])
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("could not run {}: {e}", bwrap.display()))?;
        if !probe.status.success() {
            return Err(format!(
                "{} cannot make a sandbox here ({}): it needs user or PID namespaces, which this kernel or container does not allow",
                bwrap.display(),
                String::from_utf8_lossy(&probe.stderr).trim()
            ));
        }
        Ok(())
    }

    /// The sandbox without the probe: for a caller that saw [`Sandbox::detect`] succeed on
    /// this machine already (a cluster worker's tasks after its first).
    pub fn unprobed() -> Result<Sandbox, String> {
        let bwrap = find_on_path(BWRAP).ok_or(
            "bubblewrap (bwrap) is not installed: install it (apt-get install bubblewrap; scripts/setup.sh does)",
        )?;
        let mut path = PATH.to_string();
        let mut toolchain_env = Vec::new();
        let mut binds = Vec::new();
        // rustc is usually rustup's proxy, which finds the toolchain through these; they are
        // shown at neutral paths, so that a home folder (root's is 0700) stays hidden.
        if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
            let rustup = std::env::var_os("RUSTUP_HOME").map_or(home.join(".rustup"), Into::into);
            let cargo = std::env::var_os("CARGO_HOME").map_or(home.join(".cargo"), Into::into);
            if rustup.is_dir() && cargo.join("bin").is_dir() {
                path = format!("{CARGO_INSIDE}/bin:{path}");
                toolchain_env.push(("RUSTUP_HOME".into(), RUSTUP_INSIDE.into()));
                toolchain_env.push(("CARGO_HOME".into(), CARGO_INSIDE.into()));
                binds.push((rustup, RUSTUP_INSIDE.into()));
                binds.push((cargo.join("bin"), Path::new(CARGO_INSIDE).join("bin")));
            }
        }
        let dropper = std::env::current_exe()
            .map_err(|e| format!("cannot find this program's own file: {e}"))?;
        Ok(Sandbox {
            bwrap,
            path,
            toolchain_env,
            binds,
            dropper,
            privileged: jail::is_root(),
            tmp_bytes: 256 << 20,
        })
    }

    /// Whether a compile job can run here: a probe job in the full jail (identity, user
    /// namespace, filter); `Err` says why not.
    pub fn check_jail(&self) -> Result<(), String> {
        let dir = tempfile::Builder::new()
            .prefix("whittle-jail-probe-")
            .tempdir()
            .map_err(|e| format!("cannot make a temporary folder: {e}"))?;
        jail::give_to_job(dir.path())?;
        let caps = JobCaps {
            processes: 16,
            data: None,
            ptrace: false,
        };
        let (bwrap, args) = self.wrap(Path::new("/bin/true"), &[], dir.path(), &[], caps);
        let out = std::process::Command::new(bwrap)
            .args(args)
            .env_clear()
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("could not run {}: {e}", self.bwrap.display()))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "a probe job could not be confined ({}): the kernel must allow user namespaces (sysctl user.max_user_namespaces > 0)",
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    }

    /// Lets jobs read `dir` (at the same path).
    pub fn expose(&mut self, dir: PathBuf) {
        if !self.binds.iter().any(|(d, _)| *d == dir) {
            self.binds.push((dir.clone(), dir));
        }
    }

    /// Caps the size of a job's private /tmp.
    pub fn set_tmp_size(&mut self, bytes: u64) {
        self.tmp_bytes = bytes;
    }

    /// Where `path` (outside) is inside the sandbox: toolchains appear at neutral paths.
    fn inside(&self, path: &Path) -> PathBuf {
        self.binds
            .iter()
            .find_map(|(out, inside)| path.strip_prefix(out).ok().map(|rest| inside.join(rest)))
            .unwrap_or_else(|| path.to_path_buf())
    }

    /// `program args` as run inside the sandbox, with only `dir` writable and `env` set (on
    /// top of PATH, HOME = `dir`, TMPDIR = /tmp, LANG), through the dropper with `caps`.
    pub fn wrap(
        &self,
        program: &Path,
        args: &[OsString],
        dir: &Path,
        env: &[(String, OsString)],
        caps: JobCaps,
    ) -> (PathBuf, Vec<OsString>) {
        let mut a: Vec<OsString> = Vec::new();
        // bubblewrap (as root) makes the folders above a mount point 0700: the job's uid could
        // not pass through them, so they are made first, 0755, once each.
        let mut made: Vec<PathBuf> = vec!["/".into(), "/tmp".into()];
        let mut push = |xs: &[&std::ffi::OsStr]| {
            if let [op, _, dest] = xs {
                if ["--ro-bind", "--bind", "--symlink"].iter().any(|o| op == o) {
                    let above: Vec<&Path> = Path::new(dest).ancestors().skip(1).collect();
                    for p in above.into_iter().rev() {
                        if !made.iter().any(|m| m == p) {
                            made.push(p.to_path_buf());
                            a.extend(["--perms".into(), "0755".into(), "--dir".into()]);
                            a.push(p.as_os_str().to_owned());
                        }
                    }
                }
            }
            a.extend(xs.iter().map(|x| x.to_os_string()));
        };
        let d = dir.as_os_str();
        // Root (a tmpfs bubblewrap makes) gets /usr, the top-level links into it, some of /etc.
        for op in root_view() {
            push(&op.each_ref().map(|x| x.as_os_str()));
        }
        for etc in etc_entries() {
            push(&["--ro-bind".as_ref(), etc.as_os_str(), etc.as_os_str()]);
        }
        let tmp = self.tmp_bytes.to_string();
        push(&[
            "--perms".as_ref(),
            "1777".as_ref(),
            "--size".as_ref(),
            tmp.as_ref(),
        ]);
        push(&["--tmpfs".as_ref(), "/tmp".as_ref()]);
        for (out, inside) in &self.binds {
            push(&["--ro-bind".as_ref(), out.as_os_str(), inside.as_os_str()]);
        }
        push(&[
            "--ro-bind".as_ref(),
            self.dropper.as_os_str(),
            DROPPER_INSIDE.as_ref(),
        ]);
        push(&["--bind".as_ref(), d, d]);
        push(&[
            "--dev".as_ref(),
            "/dev".as_ref(),
            "--proc".as_ref(),
            "/proc".as_ref(),
        ]);
        for unshare in ["ipc", "pid", "net", "uts", "cgroup-try"] {
            a.push(format!("--unshare-{unshare}").into());
        }
        a.extend(["--die-with-parent", "--new-session", "--cap-drop", "ALL"].map(Into::into));
        if self.privileged {
            // For the dropper, which gives up uid 0 (and with it these) before the job runs.
            a.extend(["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"].map(Into::into));
        } else {
            let id = jail::JOB_ID.to_string();
            a.extend(["--unshare-user", "--uid", &id, "--gid", &id].map(Into::into));
        }
        a.extend(["--clearenv".into(), "--chdir".into(), "/".into()]);
        let mut set = |k: &str, v: &std::ffi::OsStr| {
            a.extend(["--setenv".into(), k.into(), v.to_os_string()]);
        };
        set("PATH", self.path.as_ref());
        set("HOME", d);
        set("TMPDIR", "/tmp".as_ref());
        set("LANG", "C.UTF-8".as_ref());
        for (k, v) in self.toolchain_env.iter().chain(env) {
            set(k, v);
        }
        a.push("--".into());
        a.push(DROPPER_INSIDE.into());
        a.extend(jail::dropper_args(caps, dir, &self.inside(program), args));
        (self.bwrap.clone(), a)
    }

    /// `program args` in a PID namespace that dies with us (for a user's own test script:
    /// the file system, network and environment stay as they are), with a /dev of its own:
    /// clang run as root deletes its output file when a compile fails, and a test's
    /// `-o /dev/null` took the machine's /dev/null with it (every later spawn failed).
    pub fn tether(&self, program: &Path, args: &[OsString]) -> (PathBuf, Vec<OsString>) {
        let mut a: Vec<OsString> = [
            "--dev-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--unshare-pid",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        a.extend(["--die-with-parent".into(), "--".into()]);
        a.push(program.as_os_str().to_os_string());
        a.extend(args.iter().cloned());
        (self.bwrap.clone(), a)
    }

    pub fn describe(&self) -> String {
        format!(
            "bubblewrap ({}): jobs run as uid and gid {id} ({}) in their own user namespace, no capabilities, no_new_privs; they see /usr, part of /etc, the toolchains and their job folder only (the folder writable), a private /tmp of {} MiB, no network, own PID namespace, cleared environment; {}",
            self.bwrap.display(),
            if self.privileged {
                "outside too"
            } else {
                "this server's uid outside"
            },
            self.tmp_bytes >> 20,
            crate::seccomp::describe(),
            id = jail::JOB_ID,
        )
    }
}

/// The entries of /etc jobs see ([`ETC`], and the JVM's `/etc/java-*`) that exist here.
/// bubblewrap's arguments that show /usr and the top-level links into it (or the folders,
/// where they are not links), read-only.
fn root_view() -> Vec<[OsString; 3]> {
    let mut ops: Vec<[OsString; 3]> = vec![["--ro-bind".into(), "/usr".into(), "/usr".into()]];
    for name in TOP_LEVEL {
        let host = Path::new("/").join(name);
        if let Ok(target) = std::fs::read_link(&host) {
            ops.push(["--symlink".into(), target.into(), host.into()]);
        } else if host.is_dir() {
            ops.push(["--ro-bind".into(), host.clone().into(), host.into()]);
        }
    }
    ops
}

fn etc_entries() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = ETC
        .iter()
        .map(|n| Path::new("/etc").join(n))
        .filter(|p| p.exists())
        .collect();
    if let Ok(entries) = std::fs::read_dir("/etc") {
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with("java-") {
                v.push(e.path());
            }
        }
    }
    v
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(name))
            .find(|f| f.is_file())
    })
}

/// Control groups that cap a job's memory and processes, where this kernel offers them to us
/// (cgroup v1 `memory` and `pids` hierarchies, or cgroup v2 with both controllers).
#[derive(Clone, Debug)]
pub struct Cgroups {
    /// Where each job's groups are made, one folder per controller (v1) or one (v2).
    parents: Vec<PathBuf>,
    v2: bool,
}

/// One job's groups, removed when dropped.
pub struct JobGroups {
    dirs: Vec<PathBuf>,
    /// `cgroup.procs` of each, opened before the fork: the child writes "0" to join.
    pub procs: Vec<File>,
}

static NEXT_GROUP: AtomicU64 = AtomicU64::new(0);
/// This server's groups, to remove when it stops.
static SERVER_GROUPS: std::sync::OnceLock<Cgroups> = std::sync::OnceLock::new();

/// Removes this server's control groups (when it stops; its jobs were killed first).
pub fn remove_server_cgroups() {
    if let Some(c) = SERVER_GROUPS.get() {
        c.remove();
    }
}

/// Removes the groups of whittle servers that are no longer running.
fn sweep_stale(hierarchy: &Path) {
    let Ok(entries) = std::fs::read_dir(hierarchy) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let pid = name.to_str().and_then(|n| n.strip_prefix("whittle-"));
        if pid.is_some_and(|p| !Path::new("/proc").join(p).exists()) {
            Cgroups {
                parents: vec![e.path()],
                v2: false,
            }
            .remove();
        }
    }
}

impl Cgroups {
    /// Groups for whittle's jobs, made under the hierarchies found; `Err` says why not.
    pub fn detect() -> Result<Cgroups, String> {
        let root = Path::new("/sys/fs/cgroup");
        let name = format!("whittle-{}", std::process::id());
        let v2 = root.join("cgroup.controllers");
        let (parents, v2) = if let Ok(controllers) = std::fs::read_to_string(&v2) {
            if !(controllers.contains("memory") && controllers.contains("pids")) {
                return Err("cgroup v2 without the memory and pids controllers".into());
            }
            std::fs::write(root.join("cgroup.subtree_control"), "+memory +pids")
                .map_err(|e| format!("cannot enable cgroup v2 controllers: {e}"))?;
            (vec![root.join(&name)], true)
        } else {
            let v1: Vec<PathBuf> = ["memory", "pids"].iter().map(|c| root.join(c)).collect();
            if !v1.iter().all(|d| d.join("cgroup.procs").exists()) {
                return Err("no cgroup memory and pids controllers at /sys/fs/cgroup".into());
            }
            (v1.iter().map(|d| d.join(&name)).collect(), false)
        };
        for p in &parents {
            if let Some(h) = p.parent() {
                sweep_stale(h);
            }
            std::fs::create_dir_all(p)
                .map_err(|e| format!("cannot make the cgroup {}: {e}", p.display()))?;
        }
        if v2 {
            let _ = std::fs::write(parents[0].join("cgroup.subtree_control"), "+memory +pids");
        }
        let groups = Cgroups { parents, v2 };
        let _ = SERVER_GROUPS.set(groups.clone());
        Ok(groups)
    }

    /// A job's groups with these caps.
    pub fn job(&self, memory: u64, processes: u64) -> Result<JobGroups, String> {
        let n = NEXT_GROUP.fetch_add(1, Ordering::SeqCst);
        let mut groups = JobGroups {
            dirs: Vec::new(),
            procs: Vec::new(),
        };
        for parent in &self.parents {
            let dir = parent.join(format!("job-{n}"));
            std::fs::create_dir(&dir)
                .map_err(|e| format!("cannot make the cgroup {}: {e}", dir.display()))?;
            groups.dirs.push(dir.clone());
            let caps: &[(&str, String)] = if self.v2 {
                &[
                    ("memory.max", memory.to_string()),
                    ("memory.swap.max", "0".into()),
                    ("pids.max", processes.to_string()),
                ]
            } else if parent.parent().is_some_and(|p| p.ends_with("memory")) {
                &[("memory.limit_in_bytes", memory.to_string())]
            } else {
                &[("pids.max", processes.to_string())]
            };
            for (file, value) in caps {
                let path = dir.join(file);
                // memory.swap.max is absent without swap accounting: not needed then.
                if path.exists() {
                    std::fs::write(&path, value)
                        .map_err(|e| format!("cannot set {}: {e}", path.display()))?;
                }
            }
            let procs = std::fs::OpenOptions::new()
                .write(true)
                .open(dir.join("cgroup.procs"))
                .map_err(|e| format!("cannot open {}: {e}", dir.display()))?;
            groups.procs.push(procs);
        }
        Ok(groups)
    }

    /// Removes the groups of this server (its jobs are over).
    pub fn remove(&self) {
        for p in &self.parents {
            if let Ok(entries) = std::fs::read_dir(p) {
                for e in entries.flatten() {
                    let _ = std::fs::remove_dir(e.path());
                }
            }
            let _ = std::fs::remove_dir(p);
        }
    }

    pub fn describe(&self) -> String {
        format!(
            "control groups ({}): memory and process caps per job",
            if self.v2 { "v2" } else { "v1" }
        )
    }
}

impl JobGroups {
    /// Joins the calling process to every group: for `pre_exec`, so it writes with raw
    /// syscalls only (async-signal-safe).
    pub fn join_raw(fds: &[i32]) -> std::io::Result<()> {
        for &fd in fds {
            // SAFETY: write(2) of a static buffer to a descriptor we opened.
            if unsafe { libc::write(fd, b"0".as_ptr().cast(), 1) } != 1 {
                return Err(std::io::Error::last_os_error());
            }
        }
        Ok(())
    }

    /// Whether the kernel killed something of the job for passing its memory cap: the OOM
    /// killer's count (v2 `memory.events`, v1 `memory.oom_control`), or v1 `under_oom` on
    /// kernels without that count. Not v1's `memory.failcnt`, which also counts the times the
    /// cap was merely reached and memory reclaimed (page cache), with nothing killed.
    pub fn hit_memory_cap(&self) -> bool {
        let counted = |text: &str, key: &str| {
            text.lines().any(|l| {
                l.strip_prefix(key)
                    .and_then(|n| n.trim().parse::<u64>().ok())
                    .is_some_and(|n| n > 0)
            })
        };
        self.dirs.iter().any(|d| {
            let read = |f: &str| std::fs::read_to_string(d.join(f)).unwrap_or_default();
            let events = read("memory.events");
            let control = read("memory.oom_control");
            counted(&events, "oom_kill ")
                || counted(&control, "oom_kill ")
                || (!control.contains("oom_kill ") && counted(&control, "under_oom "))
        })
    }
}

impl Drop for JobGroups {
    fn drop(&mut self) {
        // Empty once every process has been reaped; a zombie may take a moment.
        for d in &self.dirs {
            for _ in 0..50 {
                if std::fs::remove_dir(d).is_ok() || !d.exists() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
    }
}
