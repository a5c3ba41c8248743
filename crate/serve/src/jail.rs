//! Who a compile job runs as, and what it may ask of the kernel. bubblewrap (see
//! [`crate::sandbox`]) builds the job's view of the file system; inside it, the job's first
//! program is this binary's hidden `__jail` command, the dropper, which before it executes the
//! job's program:
//!
//! - sets no_new_privs (no setuid binary or file capability grants anything from then on);
//! - becomes uid and gid 65534 with no supplementary groups and no capabilities, really so
//!   outside too when the server runs as root (bubblewrap's own user namespace would map the
//!   job's uid back to root there, and DAC checks would still see root);
//! - enters a user namespace of its own, so that `RLIMIT_NPROC` counts this job's processes
//!   and threads only, whatever else runs as 65534 (since Linux 5.14 the count is kept per user
//!   namespace, and checked against the limit of each level): one uid serves every job, a job
//!   has at most `--max-processes`, and all of them together at most that many times
//!   `--max-jobs` (a job's steps run one after another), with or without control groups;
//! - sets the process and memory rlimits;
//! - installs a seccomp filter refusing what no compiler or test program needs (ptrace too,
//!   unless the job's step runs its built program).
//!
//! It also owns the job folder: when the server runs as root, a tmpfs of the folder cap.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

use crate::sandbox::JobCaps;

/// The job's uid and gid, inside and outside: `nobody`.
pub const JOB_ID: u32 = 65534;
/// The dropper's subcommand (hidden; not for people).
pub const DROPPER: &str = "__jail";

const USAGE: &str = "usage: __jail PROCESSES DATA PTRACE DIR -- PROGRAM ARGS...";

/// Whether we run as root (then jobs are dropped to [`JOB_ID`] and folders get a tmpfs).
pub fn is_root() -> bool {
    // SAFETY: geteuid(2) has no failure mode and touches no memory.
    unsafe { libc::geteuid() == 0 }
}

/// The arguments that make the dropper run `program args` with these caps.
pub fn dropper_args(caps: JobCaps, dir: &Path, program: &Path, args: &[OsString]) -> Vec<OsString> {
    let mut a: Vec<OsString> = vec![
        DROPPER.into(),
        caps.processes.to_string().into(),
        caps.data.unwrap_or(0).to_string().into(),
        u8::from(caps.ptrace).to_string().into(),
        dir.as_os_str().to_owned(),
        "--".into(),
        program.as_os_str().to_owned(),
    ];
    a.extend(args.iter().cloned());
    a
}

/// The dropper: `__jail PROCESSES DATA PTRACE DIR -- PROGRAM ARGS...` (DATA 0: no data limit;
/// PTRACE 1: ptrace allowed), run
/// in DIR (which only the job's uid may enter, so not before it has that uid). Never returns;
/// exit status 125 with a message when the job cannot be confined.
pub fn enter(args: &[OsString]) -> ! {
    let fail = |what: &str| -> ! {
        eprintln!("whittle jail: {what}");
        std::process::exit(125)
    };
    let num = |i: usize| -> u64 {
        args.get(i)
            .and_then(|a| a.to_str())
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| fail(USAGE))
    };
    let (processes, data, ptrace) = (num(0), num(1), num(2) == 1);
    if args.get(4).is_none_or(|a| a != "--") || args.len() < 6 {
        fail(USAGE);
    }
    if let Err(e) = confine(processes, data, ptrace) {
        fail(&e);
    }
    // Nothing the server or bubblewrap may have left open reaches the job.
    // SAFETY: close_range(2) with CLOSE_RANGE_CLOEXEC only marks descriptors.
    unsafe {
        libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        );
    }
    if let Err(e) = std::env::set_current_dir(&args[3]) {
        fail(&format!(
            "cannot enter {}: {e}",
            Path::new(&args[3]).display()
        ));
    }
    let e = std::process::Command::new(&args[5]).args(&args[6..]).exec();
    eprintln!(
        "whittle jail: cannot run {}: {e}",
        Path::new(&args[5]).display()
    );
    std::process::exit(127)
}

fn check(r: libc::c_int, what: &str) -> Result<(), String> {
    if r == 0 {
        Ok(())
    } else {
        Err(format!("{what}: {}", std::io::Error::last_os_error()))
    }
}

/// Everything but the exec (see the module's comment), in this order: the identity needs
/// CAP_SETUID, the user namespace must come before the filter refuses it.
fn confine(processes: u64, data: u64, ptrace: bool) -> Result<(), String> {
    // SAFETY: plain system calls on values we own.
    unsafe {
        check(
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0),
            "no_new_privs",
        )?;
        if libc::geteuid() == 0 {
            check(libc::setgroups(0, std::ptr::null()), "setgroups")?;
        }
        check(libc::setresgid(JOB_ID, JOB_ID, JOB_ID), "setresgid")?;
        check(libc::setresuid(JOB_ID, JOB_ID, JOB_ID), "setresuid")?;
        // Changing uid made us undumpable, which makes /proc/self root's: we need its maps.
        check(libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0), "dumpable")?;
        check(libc::unshare(libc::CLONE_NEWUSER), "own user namespace")?;
        // A new user namespace starts with a full bounding set; nothing needs it.
        for cap in 0..=63 {
            if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 {
                break; // past the last capability this kernel knows
            }
        }
    }
    let map = format!("{JOB_ID} {JOB_ID} 1");
    for (file, text) in [
        ("uid_map", map.as_str()),
        ("setgroups", "deny"),
        ("gid_map", map.as_str()),
    ] {
        std::fs::write(Path::new("/proc/self").join(file), text)
            .map_err(|e| format!("writing /proc/self/{file}: {e}"))?;
    }
    set_limit(libc::RLIMIT_NPROC, processes)?;
    if data > 0 {
        set_limit(libc::RLIMIT_DATA, data)?;
    }
    // SAFETY: getuid(2) and friends cannot fail.
    let ids = unsafe { (libc::getuid(), libc::geteuid(), libc::getgid()) };
    if ids != (JOB_ID, JOB_ID, JOB_ID) {
        return Err(format!("still uid/euid/gid {ids:?} after dropping"));
    }
    crate::seccomp::install(ptrace)
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
type Resource = libc::c_int;

fn set_limit(resource: Resource, value: u64) -> Result<(), String> {
    let lim = libc::rlimit {
        rlim_cur: value as libc::rlim_t,
        rlim_max: value as libc::rlim_t,
    };
    // SAFETY: setrlimit(2) reads the struct we pass.
    check(unsafe { libc::setrlimit(resource, &lim) }, "setrlimit")
}

/// Gives a folder the server made in a job folder to the job (so it may write there).
pub fn give_to_job(path: &Path) -> Result<(), String> {
    if !is_root() {
        return Ok(()); // the job's uid maps to ours
    }
    std::os::unix::fs::lchown(path, Some(JOB_ID), Some(JOB_ID))
        .map_err(|e| format!("could not give {} to the job: {e}", path.display()))
}

/// A job folder, private to the server and the job, removed when dropped. When the server
/// runs as root it is a tmpfs of at most `disk` bytes (what the job may write in all).
pub struct JobFolder {
    dir: tempfile::TempDir,
    mounted: bool,
}

impl JobFolder {
    pub fn new(parent: &Path, disk: u64) -> Result<JobFolder, String> {
        let private = std::os::unix::fs::PermissionsExt::from_mode(0o700);
        let dir = tempfile::Builder::new()
            .prefix("job-")
            .permissions(private)
            .tempdir_in(parent)
            .map_err(|e| format!("could not make a job folder in {}: {e}", parent.display()))?;
        let mounted = is_root() && mount_tmpfs(dir.path(), disk).is_ok();
        give_to_job(dir.path())?;
        Ok(JobFolder { dir, mounted })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Whether a tmpfs caps what the job writes; if not, the server watches the folder.
    pub fn capped(&self) -> bool {
        self.mounted
    }
}

/// Entries past which a job's folder counts as over any cap (and a walk stays short).
const MOST_ENTRIES: usize = 100_000;

/// The bytes a job's folder takes on disk; `u64::MAX` past [`MOST_ENTRIES`] entries. A folder
/// the job made unreadable is opened up first: the server owns the job's files when it is not
/// root, and may change their mode.
pub fn folder_bytes(dir: &Path) -> u64 {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let (mut bytes, mut entries) = (0u64, 0usize);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let list = std::fs::read_dir(&d).or_else(|_| {
            std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700))?;
            std::fs::read_dir(&d)
        });
        for e in list.into_iter().flatten().flatten() {
            entries += 1;
            if entries > MOST_ENTRIES {
                return u64::MAX;
            }
            let Ok(meta) = e.path().symlink_metadata() else {
                continue;
            };
            bytes += meta.blocks() * 512;
            if meta.is_dir() {
                stack.push(e.path());
            }
        }
    }
    bytes
}

impl Drop for JobFolder {
    fn drop(&mut self) {
        if self.mounted {
            unmount(self.dir.path());
        }
        // `dir` removes the (now empty) mount point.
    }
}

fn mount_tmpfs(dir: &Path, bytes: u64) -> Result<(), String> {
    use std::os::unix::ffi::OsStrExt;
    let target = std::ffi::CString::new(dir.as_os_str().as_bytes()).map_err(|e| e.to_string())?;
    let options =
        std::ffi::CString::new(format!("size={bytes},mode=0700,uid={JOB_ID},gid={JOB_ID}"))
            .expect("no NUL");
    // SAFETY: mount(2) with NUL-terminated strings that outlive the call.
    let r = unsafe {
        libc::mount(
            c"tmpfs".as_ptr(),
            target.as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            options.as_ptr().cast(),
        )
    };
    check(r, "mount tmpfs")
}

fn unmount(dir: &Path) {
    use std::os::unix::ffi::OsStrExt;
    if let Ok(target) = std::ffi::CString::new(dir.as_os_str().as_bytes()) {
        // SAFETY: umount2(2) with a NUL-terminated path; a lazy unmount cannot block.
        unsafe {
            libc::umount2(target.as_ptr(), libc::MNT_DETACH);
        }
    }
}

/// Unmounts the job tmpfs mounted under `dir` (a server's job folders, before removing them).
pub fn unmount_under(dir: &Path) {
    let Ok(table) = std::fs::read_to_string("/proc/self/mountinfo") else {
        return;
    };
    for line in table.lines() {
        // The fifth field is the mount point (octal escapes for spaces, which ours lack).
        if let Some(point) = line.split(' ').nth(4).map(PathBuf::from) {
            if point.starts_with(dir) && point != dir {
                unmount(&point);
            }
        }
    }
}

/// Whether job folders get their size cap: a probe mount, as the server will do per job.
pub fn disk_cap_works(parent: &Path) -> Result<(), String> {
    if !is_root() {
        return Err("not root, so no tmpfs can be mounted".into());
    }
    let probe = tempfile::Builder::new()
        .prefix("whittle-disk-probe-")
        .tempdir_in(parent)
        .map_err(|e| e.to_string())?;
    mount_tmpfs(probe.path(), 1 << 20)?;
    unmount(probe.path());
    Ok(())
}
