//! One step of a job (a compile, a build, a run of the built program) in its folder: the
//! sandbox, the limits and the notes a kill leaves, and what a step's output may not show
//! (the job folder's random path; the source's name, which is `<source>`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::CompileJob;
use crate::process::{self, Confinement, Exit, Spec};

pub(in crate::server) struct Ctx<'a> {
    pub(super) job: &'a CompileJob,
    pub(super) dir: PathBuf,
    pub(super) deadline: Instant,
    /// The source's file name in the job folder.
    pub(super) source_name: String,
    /// No tmpfs caps the folder: each step is killed once the folder holds more than the cap.
    pub(super) watch_disk: bool,
}

impl Ctx<'_> {
    /// Writes the request's files and then its source, as `name`, into the job folder.
    pub(super) fn write_source(&mut self, name: &str) -> Result<(), String> {
        self.source_name = name.to_string();
        let files = self.job.files.iter().map(|(n, t)| (n.as_str(), t));
        for (name, text) in files.chain([(name, &self.job.source)]) {
            let path = self.dir.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("could not make {}: {e}", parent.display()))?;
            }
            std::fs::write(&path, text)
                .map_err(|e| format!("could not write {}: {e}", path.display()))?;
        }
        Ok(())
    }

    pub(super) fn step(
        &self,
        program: &Path,
        args: Vec<OsString>,
        stdin: Option<Vec<u8>>,
        address_space: Option<u64>,
    ) -> Exit {
        self.step_with_env(program, args, stdin, address_space, Vec::new(), false)
    }

    /// A step with these environment variables besides the sandbox's; `built`: it runs the
    /// job's built program, which may use ptrace (LeakSanitizer does), as compilers may not.
    pub(super) fn step_with_env(
        &self,
        program: &Path,
        args: Vec<OsString>,
        stdin: Option<Vec<u8>>,
        address_space: Option<u64>,
        mut env: Vec<(String, OsString)>,
        built: bool,
    ) -> Exit {
        let limits = &self.job.limits;
        let mut spec = Spec::new(program.to_path_buf(), args, self.dir.clone(), self.deadline);
        spec.stdin = stdin;
        spec.address_space = address_space;
        spec.output_cap = limits.output_bytes;
        spec.cancel = self.job.cancel.clone();
        spec.cpu_seconds = Some(limits.job_timeout.as_secs() + 1);
        spec.confinement = self.confinement();
        spec.data = self.data_limit(address_space);
        spec.disk = self.watch_disk.then_some(limits.job_disk);
        spec.ptrace = built;
        if limits.cgroups.is_none() && spec.data.is_none() {
            // A sanitizer build's program: its runtime enforces a resident-memory cap.
            let cap = format!("hard_rss_limit_mb={}", limits.memory_bytes >> 20);
            for var in [
                "ASAN_OPTIONS",
                "LSAN_OPTIONS",
                "MSAN_OPTIONS",
                "TSAN_OPTIONS",
            ] {
                env.push((var.into(), cap.clone().into()));
            }
        }
        if limits.sandbox.is_none() {
            env.push(("TMPDIR".into(), self.dir.clone().into_os_string()));
        }
        spec.env = env;
        let mut out = process::run(spec).unwrap_or_else(|e| Exit {
            code: -1,
            stderr: e.into_bytes(),
            ..Exit::default()
        });
        // The kernel's OOM count says something was killed; a step that still succeeded (a
        // killed helper it retried, or another process of the job) did not fail for it.
        if out.out_of_memory && out.code != 0 {
            let note = format!(
                "\nKilled - the job passed its memory limit of {} MiB\n",
                limits.memory_bytes >> 20
            );
            out.stderr.extend_from_slice(note.as_bytes());
        }
        if out.over_disk {
            let note = format!(
                "\nKilled - the job wrote more than its folder's cap of {} MiB\n",
                limits.job_disk >> 20
            );
            out.stderr.extend_from_slice(note.as_bytes());
        }
        out
    }

    /// The sandbox and control groups every step runs in (none with --unsafe-no-sandbox).
    pub(super) fn confinement(&self) -> Confinement {
        let limits = &self.job.limits;
        match &limits.sandbox {
            Some(sandbox) => Confinement::Jailed {
                sandbox: sandbox.clone(),
                cgroups: limits.cgroups.clone(),
                memory: limits.memory_bytes,
                processes: limits.processes,
            },
            None => Confinement::None,
        }
    }

    /// `RLIMIT_DATA` where no control group caps memory: the step's address-space limit, and
    /// the job's memory for node and the JVM (which get no address-space limit); none for a
    /// sanitizer build's program (its shadow memory is terabytes of private mappings; its
    /// runtime's hard_rss_limit_mb caps it instead).
    pub(super) fn data_limit(&self, address_space: Option<u64>) -> Option<u64> {
        let limits = &self.job.limits;
        if limits.cgroups.is_some() {
            return None;
        }
        address_space.or(self
            .job
            .compiler
            .driver
            .family()
            .virtual_machine()
            .then_some(limits.memory_bytes))
    }

    /// Runs a compiler (messages cleaned up, memory-limited unless `address_space` says not).
    pub(super) fn compile(
        &self,
        program: &Path,
        args: Vec<OsString>,
        address_space: Option<u64>,
    ) -> Exit {
        self.compile_with_env(program, args, address_space, Vec::new())
    }

    pub(super) fn compile_with_env(
        &self,
        program: &Path,
        args: Vec<OsString>,
        address_space: Option<u64>,
        env: Vec<(String, OsString)>,
    ) -> Exit {
        let mut out = self.step_with_env(program, args, None, address_space, env, false);
        out.stdout = self.clean(&out.stdout);
        out.stderr = self.clean(&out.stderr);
        out
    }

    /// A fresh folder `name` in the job folder.
    pub(super) fn subfolder(&self, name: &str) -> Result<PathBuf, String> {
        let dir = self.dir.join(name);
        std::fs::create_dir(&dir).map_err(|e| format!("could not make {}: {e}", dir.display()))?;
        crate::jail::give_to_job(&dir)?;
        Ok(dir)
    }

    /// Runs the built program with the request's arguments and stdin.
    pub(super) fn execute(
        &self,
        program: &Path,
        args: Vec<OsString>,
        address_space: Option<u64>,
    ) -> Exit {
        let mut all = args;
        all.extend(self.job.program_args.iter().map(OsString::from));
        let stdin = Some(self.job.stdin.clone().into_bytes());
        let mut out = self.step_with_env(program, all, stdin, address_space, Vec::new(), true);
        out.stdout = self.without_dir(&out.stdout);
        out.stderr = self.without_dir(&out.stderr);
        out
    }

    /// Compiler messages without the job folder, and with the source called `<source>`.
    pub(super) fn clean(&self, bytes: &[u8]) -> Vec<u8> {
        let mut text = String::from_utf8(self.without_dir(bytes))
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        if !self.source_name.is_empty() {
            text = text.replace(&self.source_name, "<source>");
        }
        text.into_bytes()
    }

    /// `bytes` with the job folder's random path taken out (`DIR/x` -> `x`, `DIR` -> `.`), so
    /// that answers do not differ from one job to the next: debug info puts it in the asm, and
    /// sanitizers print it when the program runs.
    pub(super) fn without_dir(&self, bytes: &[u8]) -> Vec<u8> {
        let dir = self.dir.to_string_lossy().into_owned();
        let real = self
            .dir
            .canonicalize()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| dir.clone());
        let needle = |d: &str| bytes.windows(d.len()).any(|w| w == d.as_bytes());
        if !needle(&dir) && !needle(&real) {
            return bytes.to_vec();
        }
        let mut text = String::from_utf8_lossy(bytes).into_owned();
        for d in [&real, &dir] {
            text = text.replace(&format!("{d}/"), "").replace(d.as_str(), ".");
        }
        text.into_bytes()
    }

    pub(super) fn memory(&self) -> u64 {
        self.job.limits.memory_bytes
    }

    pub(super) fn heap_mib(&self) -> u64 {
        ((self.memory() / 2) >> 20).max(64)
    }

    pub(super) fn wants_execute(&self) -> bool {
        self.job.filters.execute
    }

    pub(super) fn user_args(&self) -> impl Iterator<Item = OsString> + '_ {
        self.job.user_args.iter().map(OsString::from)
    }

    pub(super) fn has_user_arg(&self, prefix: &str) -> bool {
        self.job.user_args.iter().any(|a| a.starts_with(prefix))
    }

    pub(super) fn read_asm(&self, name: &str) -> (Vec<u8>, bool) {
        let (asm, truncated) = read_capped(&self.dir.join(name), self.job.limits.output_bytes);
        (self.without_dir(&asm), truncated)
    }
}

fn read_capped(path: &Path, cap: usize) -> (Vec<u8>, bool) {
    use std::io::Read;
    let Ok(file) = std::fs::File::open(path) else {
        return (Vec::new(), false);
    };
    let mut buf = Vec::new();
    let _ = file.take(cap as u64 + 1).read_to_end(&mut buf);
    let truncated = buf.len() > cap;
    buf.truncate(cap);
    (buf, truncated)
}

pub(super) fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}
