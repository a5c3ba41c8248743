//! Writing the files a run makes (results, FILE.orig, witnesses, statistics) without ever
//! following a symbolic link whittle did not make: each write goes to a fresh file with an
//! unpredictable name, created with O_EXCL|O_NOFOLLOW beside its destination, then renamed
//! over it, so a link planted at either name is replaced or refused, never written through.

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// Held while a file is written: a run stopped by a signal waits for the write under way
/// and starts none after it (see [`crate::stop`]).
static WRITING: Mutex<()> = Mutex::new(());

pub fn writing() -> MutexGuard<'static, ()> {
    WRITING.lock().unwrap_or_else(|e| e.into_inner())
}

/// A program file whittle reads and then replaces as it improves: its text and its
/// permission bits. A symbolic link is refused: replacing it would replace the link, and
/// writing through it would write where the link's owner chose.
pub struct OwnFile {
    pub text: String,
    pub mode: u32,
}

pub fn read_own(path: &Path) -> Result<OwnFile, String> {
    let opened = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path);
    let mut file = match opened {
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            let target =
                std::fs::read_link(path).map_or_else(|_| "?".into(), |t| t.display().to_string());
            return Err(format!(
                "{} is a symbolic link (to {target}); whittle writes the results in place and never through a link: pass the file itself",
                path.display()
            ));
        }
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        Ok(f) => f,
    };
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!(
            "{} is not a regular file: copy the program into one",
            path.display()
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(OwnFile {
        text: crate::input::utf8(path, bytes)?,
        mode: meta.permissions().mode() & 0o7777,
    })
}

/// Writes `text` to `path` through a temporary file and a rename, so a crash never leaves
/// half a file. An existing regular file keeps its permission bits; a link at `path` is
/// replaced, not followed.
pub fn save(path: &Path, text: &str) -> Result<(), String> {
    let mode = std::fs::symlink_metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.permissions().mode() & 0o7777);
    let _writing = writing();
    let (tmp, mut file) =
        fresh_beside(path, mode).map_err(|e| format!("cannot save {}: {e}", path.display()))?;
    let written = file
        .write_all(text.as_bytes())
        .and_then(|_| std::fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("cannot save {}: {e}", path.display()));
    }
    Ok(())
}

/// Writes several files as [`save`] writes one (`None` removes a file): every new text
/// first goes to its temporary file, then the renames and removals follow at once under
/// the write guard, so a run stopped by a signal leaves all of them or none changed.
pub fn save_tree(writes: &[(PathBuf, Option<&str>)]) -> Result<(), String> {
    let _writing = writing();
    let mut ready: Vec<(PathBuf, &Path)> = Vec::new();
    let mut failed = None;
    for (path, text) in writes {
        let Some(text) = text else { continue };
        let mode = std::fs::symlink_metadata(path)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.permissions().mode() & 0o7777);
        let made = fresh_beside(path, mode).and_then(|(tmp, mut file)| {
            let written = file.write_all(text.as_bytes());
            ready.push((tmp, path));
            written
        });
        if let Err(e) = made {
            failed = Some(format!("cannot save {}: {e}", path.display()));
            break;
        }
    }
    if let Some(msg) = failed {
        for (tmp, _) in &ready {
            let _ = std::fs::remove_file(tmp);
        }
        return Err(msg);
    }
    for (tmp, path) in &ready {
        std::fs::rename(tmp, path).map_err(|e| format!("cannot save {}: {e}", path.display()))?;
    }
    for (path, text) in writes {
        if text.is_none() {
            match std::fs::remove_file(path) {
                Err(e) if e.kind() != ErrorKind::NotFound => {
                    return Err(format!("cannot remove {}: {e}", path.display()))
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// Keeps the original as `orig` (FILE.orig) with `mode`, unless a file is there already (an
/// earlier run's original, maybe the only copy: never touched). Whether it made it.
pub fn keep_original(orig: &Path, text: &str, mode: u32) -> Result<bool, String> {
    let _writing = writing();
    match create_new(orig, Some(mode)) {
        Ok(mut file) => {
            if let Err(e) = file.write_all(text.as_bytes()) {
                let _ = std::fs::remove_file(orig);
                return Err(format!(
                    "cannot keep the original as {}: {e}",
                    orig.display()
                ));
            }
            Ok(true)
        }
        Err(e) if e.kind() == ErrorKind::AlreadyExists => {
            if std::fs::symlink_metadata(orig).is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(format!(
                    "{} is a symbolic link; whittle keeps the original there and never writes through a link: remove it or move it away",
                    orig.display()
                ));
            }
            Ok(false)
        }
        Err(e) => Err(format!(
            "cannot keep the original as {}: {e}",
            orig.display()
        )),
    }
}

/// An output folder (FILE.witnesses/): made if missing; refused if it is a link.
pub fn own_folder(dir: &Path) -> Result<(), String> {
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot make {}: {e}", parent.display()))?;
    }
    match std::fs::create_dir(dir) {
        Ok(()) => return Ok(()),
        Err(e) if e.kind() != ErrorKind::AlreadyExists => {
            return Err(format!("cannot make {}: {e}", dir.display()))
        }
        Err(_) => {}
    }
    let meta = std::fs::symlink_metadata(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if meta.file_type().is_symlink() {
        return Err(format!(
            "{} is a symbolic link; whittle never writes through one: remove it, or pass --out with another folder",
            dir.display()
        ));
    }
    if !meta.is_dir() {
        return Err(format!("{} is not a folder", dir.display()));
    }
    Ok(())
}

/// Creates `path` only if nothing (not even a dangling link) is there; with `mode`, or as
/// the umask says.
fn create_new(path: &Path, mode: Option<u32>) -> std::io::Result<File> {
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(if mode.is_some() { 0o600 } else { 0o666 })
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)?;
    if let Some(mode) = mode {
        // Set after creation: the umask would otherwise clear bits the original had.
        file.set_permissions(std::fs::Permissions::from_mode(mode))?;
    }
    Ok(file)
}

/// A new file beside `path` (a rename stays on one file system) under a name no one can
/// guess: `.NAME.whittle-PID-RANDOM.tmp`.
fn fresh_beside(path: &Path, mode: Option<u32>) -> std::io::Result<(PathBuf, File)> {
    let name = path
        .file_name()
        .map_or_else(Default::default, |n| n.to_string_lossy());
    loop {
        let tmp = path.with_file_name(format!(
            ".{name}.whittle-{}-{:016x}.tmp",
            std::process::id(),
            random()
        ));
        match create_new(&tmp, mode) {
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            made => return made.map(|f| (tmp, f)),
        }
    }
}

fn random() -> u64 {
    let mut n = 0u64;
    // SAFETY: getrandom writes at most 8 bytes into `n`, which we own.
    let got = unsafe { libc::getrandom((&mut n as *mut u64).cast(), 8, 0) };
    if got != 8 {
        // No entropy source: the time still makes a name hard to plant ahead.
        let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        n ^= t.map_or(0, |d| d.as_nanos() as u64);
    }
    n
}
