//! Every benchmark program and every fixture parses with no ERROR or MISSING node and
//! unparses, with all tokens kept, to exactly its own bytes.
//!
//! Benchmark programs come from `../shared/bench` beside the repository; fixtures from
//! `tests/fixtures/parse`, one program per language.

use std::path::{Path, PathBuf};
use whittle::grammars::detect_from_name;
use whittle::tree::Parser;
use whittle::unparse::unparse;
use whittle::Lang;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures_dir() -> PathBuf {
    manifest_dir().join("../../tests/fixtures/parse")
}

fn bench_dir() -> PathBuf {
    let dir = manifest_dir().join("../../../shared/bench");
    assert!(
        dir.join("cases").is_dir() && dir.join("pairs").is_dir(),
        "benchmark folder {} (with cases/ and pairs/) is missing: the repository must be checked \
         out with ../shared beside it",
        dir.display()
    );
    dir
}

/// The sub-folders of `dir`, sorted.
fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

fn bench_files() -> Vec<PathBuf> {
    let bench = bench_dir();
    let mut files = Vec::new();
    for case in subdirs(&bench.join("cases")) {
        files.push(case.join("input.c"));
    }
    for pair in subdirs(&bench.join("pairs")) {
        files.push(pair.join("seed.c"));
        files.push(pair.join("variant.c"));
    }
    for f in &files {
        assert!(
            f.is_file(),
            "expected benchmark file {} is missing",
            f.display()
        );
    }
    assert!(
        !files.is_empty(),
        "no benchmark programs under {}",
        bench.display()
    );
    files
}

fn fixture_files() -> Vec<PathBuf> {
    let dir = fixtures_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Parses `path`, and returns what is wrong with it, if anything.
fn check_round_trip(path: &Path) -> Option<String> {
    let name = path.file_name().unwrap().to_str().unwrap();
    let Some(lang) = detect_from_name(name) else {
        return Some(format!(
            "{}: no language for this file name",
            path.display()
        ));
    };
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let tree = Parser::new(lang).parse(&text);
    if tree.has_error() {
        let err = tree
            .error
            .as_ref()
            .map_or_else(|| "an error node".to_string(), |e| e.to_string());
        return Some(format!(
            "{} ({lang:?}) does not parse: {err}",
            path.display()
        ));
    }
    if tree.size() == 0 {
        return Some(format!("{} ({lang:?}) has no tokens", path.display()));
    }
    let back = unparse(&tree, &vec![true; tree.tokens.len()]);
    if back != text {
        let mut at = back
            .bytes()
            .zip(text.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let (line, col) = tree.line_col(at);
        let show = |s: &str| {
            s.get(at.saturating_sub(20)..(at + 40).min(s.len()))
                .unwrap_or("")
                .to_string()
        };
        return Some(format!(
            "{} ({lang:?}) does not round-trip: first difference at byte {at} (line {line}, column {col}); \
             original {:?}, unparsed {:?}",
            path.display(),
            show(&text),
            show(&back)
        ));
    }
    None
}

fn assert_all_round_trip(files: &[PathBuf]) {
    let failures: Vec<String> = files.iter().filter_map(|f| check_round_trip(f)).collect();
    assert!(
        failures.is_empty(),
        "{} of {} files failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn bench_programs_parse_and_round_trip() {
    assert_all_round_trip(&bench_files());
}

#[test]
fn fixtures_parse_and_round_trip() {
    let files = fixture_files();
    let langs: std::collections::BTreeSet<Lang> = files
        .iter()
        .filter_map(|f| detect_from_name(f.to_str().unwrap()))
        .collect();
    assert_eq!(
        langs.len(),
        Lang::ALL.len(),
        "want one fixture per language in {}",
        fixtures_dir().display()
    );
    assert_all_round_trip(&files);
}
