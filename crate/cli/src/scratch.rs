//! The temporary folders a run makes (`$TMPDIR/whittle-PID-XXXXXX`, one per test): removed
//! when dropped, removed by [`remove_all`] when a signal stops the run, and swept at the next
//! start by [`sweep`] when a run was killed outright (the PID in the name is its owner's).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The folders alive now, for [`remove_all`].
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A fresh, private (0700) temporary folder, removed when dropped.
pub struct Scratch(tempfile::TempDir);

impl Scratch {
    pub fn new(tag: &str) -> Result<Scratch, String> {
        let dir = tempfile::Builder::new()
            .prefix(&format!("whittle-{}-{tag}", std::process::id()))
            .tempdir()
            .map_err(|e| format!("cannot make a temporary folder: {e}"))?;
        live().push(dir.path().to_path_buf());
        Ok(Scratch(dir))
    }

    pub fn path(&self) -> &Path {
        self.0.path()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        live().retain(|p| p != self.0.path());
    }
}

/// How many folders are alive.
pub fn count() -> usize {
    live().len()
}

/// Removes every folder alive (a run stopping at once, its tests killed).
pub fn remove_all() {
    for dir in live().drain(..) {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Removes the folders of runs that are gone: `whittle-PID-…` whose PID is no process and
/// which belong to this user.
pub fn sweep() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    for e in entries.flatten() {
        let Some(pid) = owner(&e.file_name().to_string_lossy()) else {
            continue;
        };
        use std::os::unix::fs::MetadataExt;
        let mine = e
            .metadata()
            .is_ok_and(|m| m.is_dir() && !m.file_type().is_symlink() && m.uid() == me);
        if mine && pid != std::process::id() && !alive(pid) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// The PID in a run's folder name, `whittle-PID-…`.
fn owner(name: &str) -> Option<u32> {
    let (pid, _) = name.strip_prefix("whittle-")?.split_once('-')?;
    pid.parse().ok().filter(|&p| p > 0)
}

/// Whether a process `pid` exists (EPERM: it does, someone else's).
fn alive(pid: u32) -> bool {
    // SAFETY: signal 0 checks only that the process exists; nothing is sent.
    let found = unsafe { libc::kill(pid as i32, 0) } == 0;
    found || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owner_is_read_from_the_name() {
        assert_eq!(owner("whittle-1234-abcXYZ"), Some(1234));
        assert_eq!(owner("whittle-1234-cov-abc"), Some(1234));
        assert_eq!(owner("whittle-cli-script-99"), None);
        assert_eq!(owner("whittle-0-x"), None);
        assert_eq!(owner("other-1234-x"), None);
    }
}
