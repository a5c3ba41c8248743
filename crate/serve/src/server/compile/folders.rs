//! Job folders: one folder per server process (so one killed without cleaning up leaves
//! something to recognise), removed when the server stops, and those of dead servers swept.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// Set once the server has begun to stop (a signal): jobs get no answer from then on.
pub(super) static STOPPING: AtomicBool = AtomicBool::new(false);

/// While the server stops, a job neither starts nor answers: it waits for the exit, which
/// closes its connection (a 500 for a folder removed under it would read as a failure).
pub(super) fn wait_out_a_stop() {
    while STOPPING.load(std::sync::atomic::Ordering::SeqCst) {
        std::thread::park();
    }
}

/// Where this server's job folders are: one folder per server process, so that a server
/// killed without cleaning up leaves something to recognise.
pub(super) fn jobs_folder() -> PathBuf {
    std::env::temp_dir().join(format!("whittle-serve-{}", std::process::id()))
}

/// Marks the server as stopping: from now on no job starts or answers.
pub fn stop_jobs() {
    STOPPING.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Removes this server's job folders (on SIGINT and SIGTERM, after its jobs were killed).
pub fn remove_job_folders() {
    crate::jail::unmount_under(&jobs_folder());
    let _ = std::fs::remove_dir_all(jobs_folder());
    crate::sandbox::remove_server_cgroups();
}

/// Removes the job folders of servers that are no longer running (killed with SIGKILL, say).
pub fn sweep_stale_job_folders() -> usize {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return 0;
    };
    let mut swept = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("whittle-serve-"))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let alive = Path::new("/proc").join(pid.to_string()).exists();
        if !alive {
            crate::jail::unmount_under(&e.path());
        }
        if !alive && std::fs::remove_dir_all(e.path()).is_ok() {
            swept += 1;
        }
    }
    swept
}
