//! The native shells around the engine, one module a subcommand.

pub mod drive;
pub mod pair;
pub mod parse;
pub mod progress;
pub mod reduce;
pub mod runner;
pub mod serve;

use whittle::Lang;

/// The language from `--lang`, else from the file name, else from the content.
pub fn pick_lang(flag: Option<&str>, path: &std::path::Path, text: &str) -> Result<Lang, String> {
    match flag {
        Some(name) => Lang::from_name(name).ok_or_else(|| {
            format!("unknown language `{name}`: use one of c, cpp, rust, javascript, java")
        }),
        None => Ok(whittle::grammars::detect(
            path.file_name().and_then(|n| n.to_str()),
            text,
        )),
    }
}

/// Reads a program file, with a message that names the file when it cannot.
pub fn read_program(path: &std::path::Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{} is not UTF-8 text (first bad byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })
}
