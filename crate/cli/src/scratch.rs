//! The temporary folders a run makes (`$TMPDIR/whittle-PID-<random>`, one per test): removed
//! when dropped, removed by [`remove_all`] when a signal stops the run, and swept at the next
//! start by [`sweep`] when a run was killed outright.
//!
//! A folder's owner holds a lock (flock) on it while it lives; the kernel drops the lock when
//! the owner dies, however it dies. The PID in the name is not enough: a whittle running
//! inside a test (a PID namespace) sees no process with its parent run's PID.

use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// The folders alive now, for [`remove_all`].
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A folder younger than this is never swept: its owner may not have locked it yet.
const SETTLING: Duration = Duration::from_secs(10);

/// A fresh, private (0700) temporary folder, removed when dropped.
pub struct Scratch {
    dir: tempfile::TempDir,
    /// The folder, open and locked while it lives.
    _lock: File,
}

impl Scratch {
    pub fn new(tag: &str) -> Result<Scratch, String> {
        let dir = tempfile::Builder::new()
            .prefix(&format!("whittle-{}-{tag}", std::process::id()))
            .tempdir()
            .map_err(|e| format!("cannot make a temporary folder: {e}"))?;
        let lock = File::open(dir.path())
            .and_then(|f| {
                lock(&f)
                    .then_some(f)
                    .ok_or_else(std::io::Error::last_os_error)
            })
            .map_err(|e| format!("cannot lock {}: {e}", dir.path().display()))?;
        live().push(dir.path().to_path_buf());
        Ok(Scratch { dir, _lock: lock })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        live().retain(|p| p != self.dir.path());
    }
}

/// Takes the folder's lock, without waiting: false if someone holds it.
fn lock(folder: &File) -> bool {
    // SAFETY: flock on a descriptor we own.
    unsafe { libc::flock(folder.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
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

/// Removes the folders of runs that are gone: `whittle-PID-…` folders of this user that no
/// one holds locked (and not just made).
pub fn sweep() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    for e in entries.flatten() {
        if owner(&e.file_name().to_string_lossy()).is_none() {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(e.path()) else {
            continue;
        };
        let settled = meta
            .modified()
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age >= SETTLING);
        if !(meta.is_dir() && meta.uid() == me && settled) {
            continue;
        }
        // Held locked while it is removed, so no other sweep races this one.
        if let Ok(folder) = File::open(e.path()) {
            if lock(&folder) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
}

/// The PID in a run's folder name, `whittle-PID-…`.
fn owner(name: &str) -> Option<u32> {
    let (pid, _) = name.strip_prefix("whittle-")?.split_once('-')?;
    pid.parse().ok().filter(|&p| p > 0)
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
