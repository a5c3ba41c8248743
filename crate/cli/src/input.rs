//! Reading a program from the command line: its text and its language.

use whittle::Lang;

/// The language from `--lang`, else from the file name, else from the content.
pub fn pick_lang(flag: Option<&str>, path: &std::path::Path, text: &str) -> Result<Lang, String> {
    match flag {
        Some(name) => whittle::catalog::lang(name),
        None => Ok(whittle::grammars::detect(
            path.file_name().and_then(|n| n.to_str()),
            text,
        )),
    }
}

/// Reads a program file, with a message that names the file when it cannot.
pub fn read_program(path: &std::path::Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    utf8(path, bytes)
}

/// A program's bytes as text, or a message that says where they are not UTF-8.
pub fn utf8(path: &std::path::Path, bytes: Vec<u8>) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{} is not UTF-8 text (first bad byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

/// The message for a program that does not parse: the file, where, and what to do.
pub fn unparseable(path: &std::path::Path, e: &whittle::InputError) -> String {
    format!(
        "{}: {}: this does not parse as {}; fix the syntax there, or pass --lang if the language is not {}",
        path.display(),
        e.error,
        e.lang,
        e.lang
    )
}

/// How much of a program the grammar covers, from its counted tokens outside error regions
/// and all of them: what `parse` and `reduce` say of a program with syntax errors.
pub fn grammar_coverage(covered: usize, all: usize) -> String {
    format!(
        "the grammar covers {:.1}% of the tokens ({} of {} are in error regions)",
        100.0 * covered as f64 / all.max(1) as f64,
        all - covered,
        all
    )
}

/// The file name `path` ends in (what a test sees the candidate as); `what` names the option.
pub fn file_name(path: &std::path::Path, what: &str) -> Result<String, String> {
    path.file_name()
        .and_then(|n| n.to_str())
        .map(str::to_string)
        .ok_or_else(|| format!("{what} must name a file, not {}", path.display()))
}
