//! The attacks of the security review, replayed against a fresh `whittle serve`: each must be
//! refused, or contained in the job's sandbox. Nothing may appear outside the job folder, no
//! process may outlive its job, no network may be reached, nothing of the server's
//! environment may leak. (Needs gcc and bubblewrap, which scripts/setup.sh installs.)

mod support;

use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};
use support::{adopt_orphans, own_processes, require_gcc, stream, Server};

/// A folder outside any job, where an escaping attack would leave its mark.
fn outside() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("whittle-attack-")
        .tempdir()
        .unwrap()
}

fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// Flags that ran commands or wrote outside the job before the allowlist: every one is
/// refused with 400 naming the flag, with and without `--no-execute`, and leaves no file.
#[test]
fn flags_that_run_commands_or_write_elsewhere_are_refused() {
    let out = outside();
    let o = out.path().display().to_string();
    let attacks: Vec<(&str, String)> = vec![
        ("gcc", format!("-wrapper /bin/sh,-c,touch\\ {o}/wrapper")),
        ("gcc", format!("-fdump-tree-original={o}/dump")),
        ("gcc", format!("-fdump-final-insns={o}/insns")),
        ("gcc", format!("-fopt-info-all={o}/info")),
        ("gcc", format!("-aux-info {o}/aux")),
        ("gcc", format!("-Wp,-MD,{o}/md")),
        (
            "gcc",
            format!("-Xpreprocessor -MD -Xpreprocessor -MF -Xpreprocessor {o}/xp"),
        ),
        ("gcc", format!("-Wa,-adhln={o}/adhln")),
        ("gcc", format!("-Wa,--MD,{o}/wamd")),
        ("gcc", format!("-fuse-ld={o}/ld")),
        ("gcc", "-Wl,-plugin,/tmp/p.so".into()),
        ("gcc", format!("--sysroot={o}")),
        ("gcc", "-include /etc/passwd".into()),
        ("clang", format!("-MJ {o}/mj")),
        ("clang", format!("-foptimization-record-file={o}/rec")),
        ("clang", format!("-Xclang -dependency-file -Xclang {o}/dep")),
        ("rustc", format!("--print=cfg={o}/cfg")),
        ("rustc", "--extern evil=/tmp/libevil.rlib".into()),
        ("rustc", "-C llvm-args=-help".into()),
        ("javac", format!("-J-XX:OnOutOfMemoryError=touch\\ {o}/oom")),
        ("javac", format!("-Xstdout {o}/stdout")),
        ("javac", "-cp /tmp".into()),
        ("javac", "-processor Evil".into()),
        ("node", format!("{o}/x.js")),
        ("node", "-r ./x.js".into()),
        (
            "node",
            "--import=data:text/javascript,process.exit(3)".into(),
        ),
        ("node", "--inspect=127.0.0.1:9229".into()),
        ("node", "--env-file=/etc/passwd".into()),
        ("node", "--max-old-space-size=100000".into()),
    ];
    for extra in [&[][..], &["--no-execute"][..]] {
        let s = Server::start(extra);
        let known = s.get("/api/compilers").json();
        for (compiler, flags) in &attacks {
            let offered = known
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["id"] == *compiler);
            if !offered {
                continue; // not on this machine: nothing to attack
            }
            let r = s.compile(
                compiler,
                &json!({"source": "int main(void) { return 0; }", "options": {"userArguments": flags}}),
            );
            assert_eq!(r.status, 400, "{compiler} {flags} {extra:?}: {}", r.text());
            let err = r.json()["error"].as_str().unwrap_or("").to_string();
            assert!(
                err.contains("not allowed") && err.contains("accepts only"),
                "{err}"
            );
        }
    }
    assert_eq!(
        entries(out.path()),
        Vec::<String>::new(),
        "files appeared outside"
    );
}

/// A program that tries everything at once: write outside its folder, write /tmp, reach the
/// server, read the server's environment, leave a daemon behind.
const ESCAPE: &str = r#"
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>
extern char **environ;
int main(int argc, char **argv) {
  FILE *f = fopen(argv[1], "w");
  printf("outside: %s\n", f ? "written" : "refused");
  if (f) fclose(f);
  FILE *t = fopen("/tmp/whittle-attack-tmp", "w");
  printf("tmp: %s\n", t ? "written" : "refused");
  if (t) fclose(t);
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_port = htons(atoi(argv[2]));
  a.sin_addr.s_addr = htonl(0x7f000001);
  printf("network: %s\n", connect(s, (struct sockaddr *)&a, sizeof a) == 0 ? "reached" : "unreachable");
  for (char **e = environ; *e; e++) printf("env %s\n", *e);
  if (fork() == 0) {
    setsid();
    if (fork() == 0) {
      prctl(PR_SET_NAME, argv[4]);
      sleep(30);
      FILE *late = fopen(argv[3], "w");
      if (late) fclose(late);
      return 0;
    }
    return 0;
  }
  return 0;
}
"#;

/// This test's daemon's name: its own, so other programs on the machine never count.
fn daemon_name() -> String {
    format!("wd-{}", std::process::id())
}

/// This test's own processes with its daemon's name (orphans included: see `adopt_orphans`).
fn daemons() -> usize {
    let name = daemon_name();
    own_processes(|dir| std::fs::read_to_string(dir.join("comm")).is_ok_and(|c| c.trim() == name))
}

#[test]
fn a_program_is_contained_in_its_sandbox() {
    require_gcc();
    adopt_orphans();
    let out = outside();
    let s = Server::start_with_env(&[], &[("WHITTLE_TEST_SECRET", "hunter2")]);
    let _ = std::fs::remove_file("/tmp/whittle-attack-tmp");
    let args = [
        out.path().join("pwned").display().to_string(),
        s.port.to_string(),
        out.path().join("late").display().to_string(),
        daemon_name(),
    ];
    let v = s
        .compile(
            "gcc",
            &json!({
                "source": ESCAPE,
                "options": {"filters": {"execute": true}, "executeParameters": {"args": args}},
            }),
        )
        .json();
    let e = &v["execResult"];
    assert_eq!(e["code"], 0, "{v}");
    let stdout = stream(&e["stdout"]);
    assert!(stdout.contains("outside: refused"), "{stdout}");
    assert!(stdout.contains("network: unreachable"), "{stdout}");
    // /tmp is the job's own: what it writes there is not the machine's /tmp.
    assert!(!Path::new("/tmp/whittle-attack-tmp").exists());
    assert!(
        !stdout.contains("hunter2"),
        "the server's environment leaked: {stdout}"
    );
    let env: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("env "))
        .filter_map(|l| l.split('=').next())
        .collect();
    for name in &env {
        assert!(
            [
                "PATH",
                "HOME",
                "TMPDIR",
                "LANG",
                "RUSTUP_HOME",
                "CARGO_HOME",
                "PWD"
            ]
            .contains(name),
            "unexpected variable {name} in {env:?}"
        );
    }
    // The daemon it left went with its job.
    let deadline = Instant::now() + Duration::from_secs(3);
    while daemons() > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(daemons(), 0, "a process outlived its job");
    assert_eq!(
        entries(out.path()),
        Vec::<String>::new(),
        "files appeared outside"
    );
}

#[test]
fn memory_and_processes_are_capped_for_sanitizer_builds_too() {
    require_gcc();
    let s = Server::start(&[
        "--max-memory",
        "256",
        "--max-processes",
        "64",
        "--job-timeout",
        "20",
    ]);
    let hog = "#include <stdlib.h>\n#include <string.h>\nint main(void) { for (int i = 0; i < 64; i++) { char *p = malloc(64 << 20); if (!p) return 3; memset(p, 1, 64 << 20); } return 0; }\n";
    // AddressSanitizer needs terabytes of address space, so an address-space limit cannot
    // hold it; the control group's cap can.
    let v = s
        .compile("gcc", &json!({"source": hog, "options": {"userArguments": "-fsanitize=address", "filters": {"execute": true}}}))
        .json();
    let e = &v["execResult"];
    assert_eq!(e["didExecute"], true, "{v}");
    assert_ne!(e["code"], 0, "4 GiB fit in a 256 MiB job: {v}");
    let bomb = "#include <unistd.h>\nint main(void) { int n = 0; for (int i = 0; i < 500; i++) { pid_t p = fork(); if (p == 0) { sleep(5); _exit(0); } if (p > 0) n++; } return n >= 500; }\n";
    let v = s
        .compile(
            "gcc",
            &json!({"source": bomb, "options": {"filters": {"execute": true}}}),
        )
        .json();
    assert_eq!(
        v["execResult"]["code"], 0,
        "500 processes started in a 64-process job: {v}"
    );
}

#[test]
fn job_folders_are_private_and_removed() {
    require_gcc();
    let s = Server::start(&[]);
    let pid = s.child.id();
    let parent = std::env::temp_dir().join(format!("whittle-serve-{pid}"));
    let mode = "#include <stdio.h>\n#include <sys/stat.h>\nint main(void) { struct stat st; stat(\".\", &st); printf(\"%o\", st.st_mode & 0777); return 0; }\n";
    let v = s
        .compile(
            "gcc",
            &json!({"source": mode, "options": {"filters": {"execute": true}}}),
        )
        .json();
    assert_eq!(stream(&v["execResult"]["stdout"]), "700", "{v}");
    drop(s); // SIGINT
    assert!(
        !parent.exists(),
        "{} is left after SIGINT",
        parent.display()
    );
}
