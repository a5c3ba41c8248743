//! The `parse` command on a good and a bad file.

use std::path::PathBuf;
use std::process::Command;
use whittle::tree::Parser;
use whittle::Lang;

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/parse")
}

#[test]
fn cli_parse_json_reports_the_fixture() {
    let file = fixtures_dir().join("sample.c");
    let out = Command::new(env!("CARGO_BIN_EXE_whittle"))
        .arg("parse")
        .arg(&file)
        .arg("--json")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "whittle parse {} failed: {stderr}",
        file.display()
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });

    let text = std::fs::read_to_string(&file).unwrap();
    let tokens = Parser::new(Lang::C).parse(&text).size();
    assert_eq!(json["lang"], "c", "{json}");
    assert_eq!(json["tokens"], tokens as u64, "{json}");
    assert_eq!(json["ok"], true, "{json}");
    assert_eq!(json["round_trip"], true, "{json}");
}

#[test]
fn cli_parse_unparseable_exits_2_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.c");
    std::fs::write(&file, "int main( {\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_whittle"))
        .arg("parse")
        .arg(&file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(
        stderr.contains("line 1"),
        "stderr should name line 1: {stderr}"
    );
}
