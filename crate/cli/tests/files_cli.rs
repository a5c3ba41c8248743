//! The files `whittle` writes: never through a symbolic link it did not make (FILE.orig, its
//! temporary files, --stats-json, the witnesses' folder), FILE's permission bits kept, a
//! symlinked FILE refused; and its temporary folders, gone after a run and swept when a
//! killed run left them.

mod support;

use std::os::unix::fs::{symlink, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, SystemTime};

const PROGRAM: &str = "int helper(int x) { return x * 2; }\nint unused(void) { return 7; }\nint main(void) {\n  int marker = 42;\n  return helper(marker);\n}\n";

/// A folder holding input.c, check.sh (keeps `marker = 42`) and a private TMPDIR.
fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    support::write(dir.path(), "input.c", PROGRAM, false);
    support::write(
        dir.path(),
        "check.sh",
        "#!/bin/sh\ngrep -q 'marker = 42' input.c\n",
        true,
    );
    std::fs::create_dir(dir.path().join("tmp")).unwrap();
    dir
}

/// `whittle ARGS` in `dir`, its temporary folders in `dir/tmp`.
fn whittle(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_whittle"))
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", dir.join("tmp"))
        .output()
        .unwrap()
}

fn reduce(dir: &Path, extra: &[&str]) -> Output {
    let args = ["reduce", "--test", "./check.sh", "input.c", "-q"];
    whittle(dir, &[&args[..], extra].concat())
}

fn read(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path).unwrap()
}

fn is_link(path: impl AsRef<Path>) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

fn mode(path: impl AsRef<Path>) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The names in `dir` that start with `prefix`.
fn named(dir: &Path, prefix: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix))
        .collect()
}

#[test]
fn a_symlinked_orig_is_refused_and_its_target_untouched() {
    // Dangling: its target would be created; to a file: it would be overwritten.
    for existing in [false, true] {
        let d = setup();
        let target = d.path().join("elsewhere.txt");
        if existing {
            std::fs::write(&target, "precious").unwrap();
        }
        symlink(&target, d.path().join("input.c.orig")).unwrap();
        let out = reduce(d.path(), &[]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("input.c.orig is a symbolic link"),
            "{}",
            stderr(&out)
        );
        match existing {
            true => assert_eq!(read(&target), "precious"),
            false => assert!(!target.exists(), "the link's target was created"),
        }
        assert!(is_link(d.path().join("input.c.orig")));
        assert_eq!(read(d.path().join("input.c")), PROGRAM);
    }
}

#[test]
fn a_planted_temporary_link_is_not_followed() {
    let d = setup();
    // The test is slow enough to plant links before the first save.
    support::write(
        d.path(),
        "check.sh",
        "#!/bin/sh\nsleep 0.3\ngrep -q 'marker = 42' input.c\n",
        true,
    );
    let victim = d.path().join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_whittle"))
        .args(["reduce", "--test", "./check.sh", "input.c", "-q", "-j", "1"])
        .current_dir(d.path())
        .env("TMPDIR", d.path().join("tmp"))
        .spawn()
        .unwrap();
    // The names an earlier whittle used (`.FILE.whittle-PID.tmp`), and the stem of today's.
    let pid = child.id();
    for name in [
        format!(".input.c.whittle-{pid}.tmp"),
        format!(".input.c.whittle-{pid}-0000000000000000.tmp"),
    ] {
        symlink(&victim, d.path().join(name)).unwrap();
    }
    let status = child.wait().unwrap();
    assert!(status.success());
    assert_eq!(read(&victim), "precious");
    assert!(read(d.path().join("input.c")).len() < PROGRAM.len());
    // Only the planted links are left: each temporary file was renamed into place.
    assert_eq!(named(d.path(), ".input.c.whittle-").len(), 2);
}

#[test]
fn the_files_keep_their_permission_bits() {
    for bits in [0o755, 0o444, 0o640] {
        let d = setup();
        let input = d.path().join("input.c");
        std::fs::set_permissions(&input, std::fs::Permissions::from_mode(bits)).unwrap();
        let out = reduce(d.path(), &[]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(read(&input).len() < PROGRAM.len(), "it was reduced");
        assert_eq!(mode(&input), bits, "FILE");
        assert_eq!(mode(d.path().join("input.c.orig")), bits, "FILE.orig");
        assert_eq!(read(d.path().join("input.c.orig")), PROGRAM);
    }
}

#[test]
fn a_symlinked_file_is_refused() {
    let d = setup();
    std::fs::rename(d.path().join("input.c"), d.path().join("real.c")).unwrap();
    symlink("real.c", d.path().join("input.c")).unwrap();
    let out = reduce(d.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("input.c is a symbolic link (to real.c)")
            && err.contains("pass the file itself"),
        "{err}"
    );
    assert_eq!(read(d.path().join("real.c")), PROGRAM);
    assert!(is_link(d.path().join("input.c")));
    assert!(!d.path().join("input.c.orig").exists());
}

#[test]
fn statistics_replace_a_link_instead_of_writing_through_it() {
    let d = setup();
    let victim = d.path().join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    symlink(&victim, d.path().join("stats.json")).unwrap();
    let out = reduce(d.path(), &["--stats-json", "stats.json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(read(&victim), "precious");
    assert!(!is_link(d.path().join("stats.json")));
    let stats: serde_json::Value =
        serde_json::from_str(&read(d.path().join("stats.json"))).unwrap();
    assert!(stats["queries"].as_u64().unwrap() > 0);
}

#[test]
fn a_symlinked_witness_folder_is_refused() {
    let d = setup();
    let elsewhere = d.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    symlink(&elsewhere, d.path().join("input.c.witnesses")).unwrap();
    support::write(
        d.path(),
        "fails.sh",
        "#!/bin/sh\ngrep -q 'marker = 42' input.c\n",
        true,
    );
    let out = whittle(
        d.path(),
        &[
            "witness",
            "input.c",
            "--test",
            "./fails.sh",
            "-q",
            "--budget",
            "20",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is a symbolic link"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn no_temporary_folder_outlives_a_run_and_stale_ones_are_swept() {
    let d = setup();
    let tmp = d.path().join("tmp");
    let folder = |name: &str, age: u64| {
        let path = tmp.join(name);
        std::fs::create_dir(&path).unwrap();
        let f = std::fs::File::open(&path).unwrap();
        f.set_modified(SystemTime::now() - Duration::from_secs(age))
            .unwrap();
        f
    };
    // A run killed outright left its folder a minute ago: no one holds its lock.
    folder("whittle-999999-stale", 60);
    // A live run's folder (maybe in another PID namespace: the PID says nothing) is locked.
    let held = folder("whittle-999999-held", 60);
    // SAFETY: flock on a descriptor we own.
    assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX) }, 0);
    // One just made (its owner may not have locked it yet), and someone else's.
    folder("whittle-999999-new", 0);
    folder("whittle-notes", 60);
    let out = reduce(d.path(), &["-j", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut left = named(&tmp, "whittle-");
    left.sort();
    assert_eq!(
        left,
        ["whittle-999999-held", "whittle-999999-new", "whittle-notes"]
    );
}
