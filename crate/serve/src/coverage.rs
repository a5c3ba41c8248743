//! A compiler's coverage, one compile at a time: the compiler is built with gcc's `--coverage`
//! (`scripts/build-tcc.sh`), and each compile writes its counters into its own folder
//! (`GCOV_PREFIX`), so that compiles running in parallel never mix them. `gcov` then reads that
//! folder into a [`Coverage`]. `whittle coverage` and `whittle serve`'s tcc use this one
//! implementation.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Deserialize;
use whittle::witness::Coverage;

use crate::process::{self, Confinement, Spec};

/// gcov's JSON for tcc is about 1.6 MB whatever the program (every instrumented line, with its
/// count); this leaves room for far bigger compilers.
const GCOV_OUTPUT_CAP: usize = 256 << 20;

/// A compiler built with `--coverage`: the folder of its objects (the `.gcno` files) and the
/// gcov that reads its counters.
#[derive(Clone, Debug)]
pub struct Gcov {
    /// The build folder, canonical: the `.gcda` paths compiled into the compiler start with it.
    objects: PathBuf,
    /// Its `.gcno` files.
    notes: Vec<PathBuf>,
    gcov: PathBuf,
}

impl Gcov {
    /// The coverage build in `objects`; `Err` says what is missing and how to get it.
    pub fn new(objects: &Path) -> Result<Gcov, String> {
        let objects = objects.canonicalize().map_err(|e| {
            format!(
                "no coverage build at {}: {e}; run scripts/build-tcc.sh to build one",
                objects.display()
            )
        })?;
        let notes = files_ending(&objects, ".gcno")
            .map_err(|e| format!("cannot read {}: {e}", objects.display()))?;
        if notes.is_empty() {
            return Err(format!(
                "{} holds no .gcno files, so it is no build with --coverage; run scripts/build-tcc.sh to build one",
                objects.display()
            ));
        }
        let gcov = find_on_path("gcov")
            .ok_or("gcov is not on PATH: install gcc (apt-get install -y gcc), whose gcov reads the counters")?;
        Ok(Gcov {
            objects,
            notes,
            gcov,
        })
    }

    pub fn objects(&self) -> &Path {
        &self.objects
    }

    /// The environment that makes the compiler write its counters into `job` (the `.gcda`
    /// files land directly in it, not in the build folder).
    pub fn env(&self, job: &Path) -> Vec<(String, OsString)> {
        let strip = self.objects.components().count() - 1; // not counting the root
        vec![
            ("GCOV_PREFIX".into(), job.as_os_str().to_owned()),
            ("GCOV_PREFIX_STRIP".into(), strip.to_string().into()),
        ]
    }

    /// What the compiles run with [`Gcov::env`]`(job)` covered, together. No counters (the
    /// compiler was killed before it could write them, or never ran) is empty coverage. gcov
    /// runs in `job` (which gets links to the `.gcno` files) under `confinement`.
    pub fn collect(
        &self,
        job: &Path,
        deadline: Instant,
        confinement: Confinement,
    ) -> Result<Coverage, String> {
        let counters = files_ending(job, ".gcda")
            .map_err(|e| format!("cannot read {}: {e}", job.display()))?;
        if counters.is_empty() {
            return Ok(Coverage::default());
        }
        self.link_notes(job)?;
        let mut args: Vec<OsString> = vec!["--json-format".into(), "--stdout".into()];
        // Names relative to `job`: the same inside a sandbox.
        args.extend(
            counters
                .iter()
                .filter_map(|p| p.file_name())
                .map(Into::into),
        );
        let mut spec = Spec::new(self.gcov.clone(), args, job.to_path_buf(), deadline);
        spec.output_cap = GCOV_OUTPUT_CAP;
        spec.confinement = confinement;
        let out = process::run(spec)?;
        if out.code != 0 || out.timed_out || out.stdout_truncated {
            return Err(format!(
                "gcov failed (exit status {}{}): {}",
                out.code,
                if out.timed_out { ", out of time" } else { "" },
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        parse(&out.stdout)
    }

    /// Links each `.gcno` into `job`, next to its `.gcda` (where gcov looks for it).
    fn link_notes(&self, job: &Path) -> Result<(), String> {
        for note in &self.notes {
            let link = job.join(note.file_name().expect("a file"));
            // Whatever is there (a link from an earlier collect) is replaced.
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(note, &link)
                .map_err(|e| format!("cannot link {}: {e}", link.display()))?;
        }
        Ok(())
    }
}

/// One of gcov's JSON documents (one per `.gcda`), as far as coverage needs it.
#[derive(Deserialize)]
struct Document {
    #[serde(default)]
    current_working_directory: String,
    files: Vec<File>,
}

#[derive(Deserialize)]
struct File {
    file: String,
    lines: Vec<Line>,
}

#[derive(Deserialize)]
struct Line {
    line_number: u32,
    count: u64,
    #[serde(default)]
    function_name: String,
}

/// The covered lines (count > 0) of gcov's `--json-format --stdout` output, with how often
/// each ran: one document per `.gcda`. A header appears in the document of every object that
/// includes it: its lines are merged, their counts added.
pub fn parse(gcov_json: &[u8]) -> Result<Coverage, String> {
    let mut cov = Coverage::default();
    for doc in serde_json::Deserializer::from_slice(gcov_json).into_iter::<Document>() {
        let doc = doc.map_err(|e| format!("cannot read gcov's JSON: {e}"))?;
        let cwd = format!("{}/", doc.current_working_directory.trim_end_matches('/'));
        for file in doc.files {
            let name = file
                .file
                .strip_prefix(&cwd)
                .unwrap_or(&file.file)
                .to_string();
            for line in file.lines.into_iter().filter(|l| l.count > 0) {
                cov.add(&name, &line.function_name, line.line_number, line.count);
            }
        }
    }
    Ok(cov)
}

/// The files directly in `dir` whose names end with `suffix`, sorted.
fn files_ending(dir: &Path, suffix: &str) -> std::io::Result<Vec<PathBuf>> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_str().is_some_and(|s| s.ends_with(suffix)) && p.is_file())
        .collect();
    v.sort();
    Ok(v)
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Two objects that both include `tcc.h`, as gcov prints them: one document per line.
    const TWO_DOCUMENTS: &str = concat!(
        r#"{"format_version": "1", "current_working_directory": "/b", "data_file": "x.gcda", "files": ["#,
        r#"{"file": "x.c", "lines": [{"line_number": 3, "count": 2, "function_name": "f"}, {"line_number": 4, "count": 0, "function_name": "f"}]},"#,
        r#"{"file": "tcc.h", "lines": [{"line_number": 9, "count": 1, "function_name": "inl"}]}]}"#,
        "\n",
        r#"{"format_version": "1", "current_working_directory": "/b", "data_file": "y.gcda", "files": ["#,
        r#"{"file": "/b/y.c", "lines": [{"line_number": 1, "count": 5, "function_name": "g"}]},"#,
        r#"{"file": "tcc.h", "lines": [{"line_number": 9, "count": 3, "function_name": "inl"}, {"line_number": 8, "count": 1, "function_name": "inl"}]}]}"#,
        "\n"
    );

    #[test]
    fn parses_covered_lines_and_merges_headers() {
        let cov = parse(TWO_DOCUMENTS.as_bytes()).unwrap();
        let want: Coverage = serde_json::from_str(
            r#"{"x.c": {"f": [[3, 2]]}, "tcc.h": {"inl": [[8, 1], [9, 4]]}, "y.c": {"g": [[1, 5]]}}"#,
        )
        .unwrap();
        assert_eq!(cov, want);
        assert!(parse(b"").unwrap().is_empty());
        assert!(parse(b"{\"files\": [").unwrap_err().contains("gcov"));
    }

    #[test]
    fn env_strips_the_build_folder() {
        let g = Gcov {
            objects: "/work/tcc/build".into(),
            notes: vec![],
            gcov: "gcov".into(),
        };
        let env = g.env(Path::new("/job"));
        assert_eq!(env[0], ("GCOV_PREFIX".into(), "/job".into()));
        assert_eq!(env[1], ("GCOV_PREFIX_STRIP".into(), "3".into()));
    }

    #[test]
    fn says_how_to_build_when_there_is_no_coverage_build() {
        let dir = tempfile::tempdir().unwrap();
        let e = Gcov::new(dir.path()).unwrap_err();
        assert!(
            e.contains("no .gcno") && e.contains("scripts/build-tcc.sh"),
            "{e}"
        );
        let e = Gcov::new(&dir.path().join("nope")).unwrap_err();
        assert!(e.contains("scripts/build-tcc.sh"), "{e}");
    }

    #[test]
    fn no_counters_is_empty_coverage() {
        let objects = tempfile::tempdir().unwrap();
        let job = tempfile::tempdir().unwrap();
        let g = Gcov {
            objects: objects.path().to_path_buf(),
            notes: vec![],
            gcov: "/nonexistent/gcov".into(),
        };
        let deadline = Instant::now() + Duration::from_secs(5);
        let cov = g.collect(job.path(), deadline, Confinement::None).unwrap();
        assert!(cov.is_empty());
    }
}
