//! The files a compile request sends beside its source (`files`: headers, modules), checked
//! before the job runs: each is written into the job folder under its name, so a name must
//! stay inside the folder and be plain.

use super::request::ExtraFile;

/// At most this many files a request.
const MAX_FILES: usize = 64;
/// At most this many folders deep (`a/b/c.h`).
const MAX_DEPTH: usize = 4;
/// At most this many bytes a name.
const MAX_NAME: usize = 200;

/// The files as `(name, contents)`, or a message saying which name is refused and why.
pub fn check(files: Vec<ExtraFile>) -> Result<Vec<(String, String)>, String> {
    if files.len() > MAX_FILES {
        return Err(format!(
            "the request has {} files; whittle serve takes at most {MAX_FILES}",
            files.len()
        ));
    }
    let mut out: Vec<(String, String)> = Vec::new();
    for f in files {
        plain(&f.filename).map_err(|why| {
            format!(
                "files: the name {:?} is refused: {why}. Name each file by a relative path of letters, digits, `_`, `-`, `+` and `.` (not starting with `.`), e.g. \"util.h\" or \"src/lib.rs\"",
                f.filename
            )
        })?;
        if out.iter().any(|(n, _)| *n == f.filename) {
            return Err(format!("files: {:?} is sent twice", f.filename));
        }
        out.push((f.filename, f.contents));
    }
    Ok(out)
}

/// Why `name` is not a plain relative path in the job folder, if it is not.
fn plain(name: &str) -> Result<(), &'static str> {
    if name.is_empty() || name.len() > MAX_NAME {
        return Err("it is empty or too long");
    }
    let segments: Vec<&str> = name.split('/').collect();
    if segments.len() > MAX_DEPTH {
        return Err("it is too many folders deep");
    }
    for s in &segments {
        let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '.');
        if s.is_empty() || s.starts_with('.') || !s.chars().all(ok) {
            return Err("a part of it is empty, starts with `.` or has another character");
        }
    }
    // The source's own name in every family is `example.*`: a file may not take its place.
    if segments.len() == 1 && name.starts_with("example.") {
        return Err("`example.*` is the source's own name");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str) -> ExtraFile {
        ExtraFile {
            filename: name.into(),
            contents: String::new(),
        }
    }

    #[test]
    fn plain_relative_names_pass_and_others_are_refused() {
        for ok in ["util.h", "src/lib.rs", "a/b/c/d.js", "x+y-z_1.hpp"] {
            assert!(check(vec![file(ok)]).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "../up.h",
            "/etc/passwd",
            "a/../../b.h",
            ".hidden",
            "a/.git/config",
            "a//b.h",
            "a/b/c/d/e.h",
            "sp ace.h",
            "back\\slash.h",
            "nul\0.h",
            "example.c",
        ] {
            let e = check(vec![file(bad)]).unwrap_err();
            assert!(e.contains("is refused"), "{bad:?}: {e}");
        }
        let twice = check(vec![file("a.h"), file("a.h")]).unwrap_err();
        assert!(twice.contains("sent twice"), "{twice}");
        let many = (0..65).map(|i| file(&format!("f{i}.h"))).collect();
        assert!(check(many).unwrap_err().contains("at most 64"));
    }
}
