//! Pragmas through which a C source hands its compiler options or file names, refused before
//! the job runs: the flags a request sends are vetted (`user_args`), and a source must not be
//! a way around that.
//!
//! - `#pragma comment(option, "...")`: tcc obeys it like command-line flags (`-MD -MF /path`
//!   writes that file); `#pragma comment(lib, "...")` adds a library to tcc's link, and
//!   clang's ELF targets record it for the linker.
//! - `#pragma GCC pch_preprocess "file"`: gcc loads that precompiled header.
//!
//! The check is on the text, so that no spelling slips through: line continuations are
//! joined first, and any whitespace or comments may stand between the words; the words may
//! stand anywhere (a mention in a string is refused too, which costs nothing real). Macros
//! cannot build these: a directive is never the result of macro expansion, tcc reads the
//! pragma's name unexpanded, and this tcc has no `_Pragma` (a test checks that).

use std::sync::LazyLock;

use regex::Regex;

use super::compilers::Driver;

/// Whitespace (tcc also skips `\r`, `\f`, `\v`) and comments between two words.
const GAP: &str = r"(?:[\s\x00]|/\*(?s:.*?)\*/|//[^\n]*)*";

static REFUSED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"pragma{GAP}(comment|GCC{GAP}pch_preprocess)")).expect("a valid pattern")
});

/// A backslash that continues a line (with blanks before the newline, which gcc accepts too).
static CONTINUATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\\[ \t\r\x0b\x0c]*\n").expect("a valid pattern"));

/// `Err(message)` when a C source for `kind` carries a pragma that passes options or names
/// files; other languages and pragmas pass.
pub fn check(kind: Driver, source: &str) -> Result<(), String> {
    if !kind.family().reads_c() {
        return Ok(());
    }
    let joined = CONTINUATION.replace_all(source, "");
    let Some(found) = REFUSED.captures(&joined) else {
        return Ok(());
    };
    let what = if found[1].starts_with("comment") {
        "#pragma comment (tcc reads compiler options and libraries from it: comment(option, ...), comment(lib, ...))"
    } else {
        "#pragma GCC pch_preprocess (gcc loads the file it names)"
    };
    Err(format!(
        "the source has {what}, which whittle serve refuses, as it could name files or load code outside the job: remove it, and pass flags in options.userArguments (they are checked). \
         (The words `pragma` followed by `comment` are refused anywhere in a C source, even in a string or a comment.)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_pragmas_that_pass_options_or_files() {
        for bad in [
            "#pragma comment(option, \"-MD -MF /proc/sys/kernel/hostname\")\nint x;",
            "#pragma comment(lib, \"m\")",
            "  #  pragma   comment ( option , \"-run\" )",
            "/*x\n*/ # /**/ pragma /* a */ comment(option, \"-MD\")",
            "#pragma co\\\nmment(option, \"-MD\")",
            "#pra\\  \r\ngma comment(option, \"-MD\")",
            "#pragma\rcomment(option, \"-MD\")",
            "#pragma\tcomment\n",
            "#pragma // x\ncomment(option, \"-MD\")",
            "#define O \"-MD -MF x\"\n#pragma comment(option, O)",
            "#pragma GCC pch_preprocess \"/tmp/x.gch\"",
            "#pragma GCC /* */ pch_preprocess \"x\"",
        ] {
            for kind in [Driver::Tcc, Driver::Gcc, Driver::Clang] {
                let err = check(kind, bad).expect_err(bad);
                assert!(err.contains("#pragma"), "{err}");
            }
        }
    }

    #[test]
    fn other_pragmas_and_languages_pass() {
        for good in [
            "#pragma once\n#pragma pack(push, 1)\n#pragma pack(pop)\nint x;",
            "#pragma GCC optimize(\"O3\")\n#pragma GCC target(\"avx2\")\n#pragma GCC diagnostic ignored \"-Wall\"",
            "#pragma push_macro(\"X\")\n#pragma pop_macro(\"X\")",
            "// a comment about pragmas\nint comment;",
        ] {
            assert_eq!(check(Driver::Tcc, good), Ok(()), "{good}");
        }
        assert_eq!(check(Driver::Rustc, "// pragma comment"), Ok(()));
    }
}
