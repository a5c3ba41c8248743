//! The compilers found on this machine at start, described as Compiler Explorer describes its
//! own (`/api/compilers`, `/api/languages`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::family::Tools;
use crate::coverage::Gcov;
use crate::process;

/// How a compiler is driven: its family (what the server knows of each is `family.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Driver {
    Gcc,
    Clang,
    Rustc,
    Node,
    Javac,
    /// tcc from its coverage build: every answer carries the compile's coverage.
    Tcc,
}

/// A compiler offered by the API.
#[derive(Clone, Debug)]
pub struct Compiler {
    /// Compiler Explorer-style id: `gcc`, `gpp`, `clang`, `clangpp`, `rustc`, `node`, `javac`.
    pub id: &'static str,
    pub name: String,
    /// Language id as Compiler Explorer spells it: `c`, `c++`, `rust`, `javascript`, `java`.
    pub lang: &'static str,
    pub driver: Driver,
    pub semver: String,
    pub exe: PathBuf,
    /// `java` for javac (runs the classes); `None` for the others.
    pub runner: Option<PathBuf>,
    /// `javap` for javac, `objdump` for C and C++ (the `binary` filter, and tcc's asm), when
    /// found.
    pub disassembler: Option<PathBuf>,
    /// tcc's coverage build.
    pub gcov: Option<Gcov>,
}

impl Compiler {
    pub fn to_json(&self) -> Value {
        let family = self.driver.family();
        json!({
            "id": self.id,
            "name": self.name,
            "lang": self.lang,
            "compilerType": family.compiler_type(),
            "semver": self.semver,
            "instructionSet": family.instruction_set(),
            "supportsExecute": true,
            "supportsBinary": family.binary(self.disassembler.is_some()),
        })
    }

    /// One line of the plain-text listing.
    pub fn to_text(&self) -> String {
        format!("{:<12} | {} [{}]", self.id, self.name, self.lang)
    }
}

pub(super) fn native_instruction_set() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "x86" => "x86",
        "aarch64" => "aarch64",
        "arm" => "arm32",
        "riscv64" => "riscv64",
        other => other,
    }
}

/// Compiler Explorer's machine name for `x86_64` and friends, for display.
pub(super) fn native_arch_label() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "x86-64",
        other => other,
    }
}

/// A language with at least one compiler here.
pub struct Language {
    pub id: &'static str,
    pub name: &'static str,
    pub extensions: &'static [&'static str],
    pub monaco: &'static str,
}

pub const LANGUAGES: &[Language] = &[
    Language {
        id: "c",
        name: "C",
        extensions: &[".c", ".h"],
        monaco: "nc",
    },
    Language {
        id: "c++",
        name: "C++",
        extensions: &[".cpp", ".cxx", ".cc", ".hpp", ".h"],
        monaco: "cppp",
    },
    Language {
        id: "rust",
        name: "Rust",
        extensions: &[".rs"],
        monaco: "rust",
    },
    Language {
        id: "javascript",
        name: "JavaScript",
        extensions: &[".js", ".mjs"],
        monaco: "javascript",
    },
    Language {
        id: "java",
        name: "Java",
        extensions: &[".java"],
        monaco: "java",
    },
];

/// `(id, executable, lang, driver, display name)` in the order they are listed.
const CANDIDATES: &[(&str, &str, &str, Driver, &str)] = &[
    ("gcc", "gcc", "c", Driver::Gcc, "gcc"),
    ("gpp", "g++", "c++", Driver::Gcc, "gcc"),
    ("clang", "clang", "c", Driver::Clang, "clang"),
    ("clangpp", "clang++", "c++", Driver::Clang, "clang"),
    ("rustc", "rustc", "rust", Driver::Rustc, "rustc"),
    ("node", "node", "javascript", Driver::Node, "node"),
    ("javac", "javac", "java", Driver::Javac, "javac"),
];

/// What probing found: the compilers, the executables looked for but missing, and why tcc
/// is not offered (when it is not).
pub struct Found {
    pub compilers: Vec<Compiler>,
    pub missing: Vec<&'static str>,
    pub tcc_problem: Option<String>,
}

/// Looks for each known compiler on PATH and asks it for its version (all at once: a JVM
/// takes a while to say its version); and for tcc's coverage build in `tcc`, if given.
pub fn probe(tcc: Option<&Path>) -> Found {
    let (results, tcc): (Vec<Result<Compiler, &'static str>>, _) = std::thread::scope(|scope| {
        let handles: Vec<_> = CANDIDATES
            .iter()
            .map(|c| scope.spawn(move || probe_one(c)))
            .collect();
        let tcc = tcc.map(|dir| scope.spawn(move || probe_tcc(dir)));
        let results = handles
            .into_iter()
            .map(|h| h.join().unwrap_or(Err("?")))
            .collect();
        let tcc = tcc.map(|h| h.join().unwrap_or(Err("the tcc probe panicked".into())));
        (results, tcc)
    });
    let mut found = Found {
        compilers: Vec::new(),
        missing: Vec::new(),
        tcc_problem: None,
    };
    for r in results {
        match r {
            Ok(c) => found.compilers.push(c),
            Err(name) => found.missing.push(name),
        }
    }
    match tcc {
        Some(Ok(c)) => found.compilers.push(c),
        Some(Err(why)) => found.tcc_problem = Some(why),
        None => {}
    }
    found
}

/// The flags tcc needs to find its own headers and `libtcc1.a` in its build folder.
pub fn tcc_base_args(objects: &Path) -> Vec<std::ffi::OsString> {
    let mut b = std::ffi::OsString::from("-B");
    b.push(objects);
    let mut i = std::ffi::OsString::from("-I");
    i.push(objects.join("include"));
    vec![b, i]
}

/// tcc from its coverage build in `dir` (scripts/build-tcc.sh), checked end to end: a probe
/// compile must work and give coverage. Its `-v` says the version.
fn probe_tcc(dir: &Path) -> Result<Compiler, String> {
    let gcov = Gcov::new(dir)?;
    let exe = gcov.objects().join("tcc");
    if !is_executable(&exe) {
        return Err(format!(
            "{} is missing; run scripts/build-tcc.sh",
            exe.display()
        ));
    }
    let scratch = tempfile::Builder::new()
        .prefix("whittle-tcc-probe-")
        .tempdir()
        .map_err(|e| format!("cannot make a temporary folder: {e}"))?;
    let src = scratch.path().join("probe.c");
    std::fs::write(&src, "int main(void) { return 0; }\n")
        .map_err(|e| format!("cannot write {}: {e}", src.display()))?;
    let mut args = tcc_base_args(gcov.objects());
    args.extend(["-v", "-c", "-o", "probe.o", "probe.c"].map(Into::into));
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut spec = process::Spec::new(exe.clone(), args, scratch.path().into(), deadline);
    spec.env = gcov.env(scratch.path());
    let out = process::run(spec)?;
    if out.code != 0 {
        return Err(format!(
            "{} failed on a probe compile (exit status {}): {}",
            exe.display(),
            out.code,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let coverage = gcov.collect(scratch.path(), deadline, process::Confinement::None)?;
    if coverage.is_empty() {
        return Err(format!(
            "a probe compile of {} left no coverage: is it built with --coverage? Run scripts/build-tcc.sh",
            exe.display()
        ));
    }
    let first = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    let semver = parse_semver(&first).unwrap_or_else(|| "?".into());
    Ok(Compiler {
        id: "tcc",
        name: format!("{} tcc {semver} (coverage)", native_arch_label()),
        lang: "c",
        driver: Driver::Tcc,
        semver,
        exe,
        runner: None,
        disassembler: find_in_path("objdump"),
        gcov: Some(gcov),
    })
}

/// The compiler, or the name of the executable that is missing (or did not answer).
fn probe_one(
    &(id, exe_name, lang, driver, label): &(
        &'static str,
        &'static str,
        &'static str,
        Driver,
        &'static str,
    ),
) -> Result<Compiler, &'static str> {
    let exe = find_in_path(exe_name).ok_or(exe_name)?;
    let family = driver.family();
    let Tools {
        runner,
        disassembler,
    } = family.tools()?;
    let semver = version(&exe).ok_or(exe_name)?;
    let name = family.display_name(label, &semver);
    Ok(Compiler {
        id,
        name,
        lang,
        driver,
        semver,
        exe,
        runner,
        disassembler,
        gcov: None,
    })
}

pub fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// The first `N.N[.N]` in the first line of `exe --version` (stdout, else stderr).
fn version(exe: &Path) -> Option<String> {
    let out = process::run(process::Spec::new(
        exe.to_path_buf(),
        vec!["--version".into()],
        std::env::temp_dir(),
        Instant::now() + Duration::from_secs(15),
    ))
    .ok()?;
    if out.code != 0 {
        return None;
    }
    let text = if out.stdout.is_empty() {
        out.stderr
    } else {
        out.stdout
    };
    let text = String::from_utf8_lossy(&text);
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    Some(parse_semver(first).unwrap_or_else(|| first.trim().to_string()))
}

fn parse_semver(line: &str) -> Option<String> {
    let re = regex::Regex::new(r"\d+\.\d+(?:\.\d+)?").expect("valid regex");
    re.find(line).map(|m| m.as_str().to_string())
}

/// The ids of `compilers`, for error messages.
pub fn ids(compilers: &[Compiler]) -> String {
    compilers
        .iter()
        .map(|c| c.id)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `/api/languages`: the languages that have a compiler here.
pub fn languages_json(compilers: &[Compiler]) -> Value {
    let list: Vec<Value> = LANGUAGES
        .iter()
        .filter_map(|l| {
            let default = compilers.iter().find(|c| c.lang == l.id)?;
            Some(json!({
                "id": l.id,
                "name": l.name,
                "extensions": l.extensions,
                "monaco": l.monaco,
                "defaultCompiler": default.id,
            }))
        })
        .collect();
    Value::Array(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_from_first_lines() {
        assert_eq!(
            parse_semver("gcc (Debian 12.2.0-14+deb12u1) 12.2.0").as_deref(),
            Some("12.2.0")
        );
        assert_eq!(
            parse_semver("Debian clang version 14.0.6").as_deref(),
            Some("14.0.6")
        );
        assert_eq!(
            parse_semver("rustc 1.95.0 (59807616e 2026-04-14)").as_deref(),
            Some("1.95.0")
        );
        assert_eq!(parse_semver("v20.20.2").as_deref(), Some("20.20.2"));
        assert_eq!(parse_semver("javac 17.0.15").as_deref(), Some("17.0.15"));
    }
}
