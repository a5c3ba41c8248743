//! Language detection: from a file name's extension, else from what the text looks like.

use crate::Lang;

/// The language a file name's extension says, if it names one.
pub fn detect_from_name(name: &str) -> Option<Lang> {
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    match ext.as_str() {
        "c" | "h" | "i" => Some(Lang::C),
        "cc" | "cpp" | "cxx" | "c++" | "hpp" | "hh" | "hxx" | "ii" => Some(Lang::Cpp),
        "rs" => Some(Lang::Rust),
        "js" | "mjs" | "cjs" | "jsx" => Some(Lang::JavaScript),
        "java" => Some(Lang::Java),
        _ => None,
    }
}

/// A guess from the text alone: each language scores points for constructs only it has.
pub fn detect_from_content(text: &str) -> Lang {
    let has = |needle: &str| text.contains(needle) as i32;
    let scores = [
        (
            Lang::Rust,
            3 * has("fn ")
                + 2 * has("let mut ")
                + 2 * has("impl ")
                + has("::")
                + 2 * has("pub fn")
                + has("-> ")
                + 2 * has("#["),
        ),
        (
            Lang::Java,
            3 * has("public class ")
                + 2 * has("System.out")
                + 2 * has("import java.")
                + has("package ")
                + 2 * has("public static void main"),
        ),
        (
            Lang::JavaScript,
            3 * has("function ")
                + 2 * has("const ")
                + 2 * has("=> ")
                + 2 * has("console.")
                + has("let ")
                + 2 * has("==="),
        ),
        (
            Lang::Cpp,
            3 * has("template <")
                + 3 * has("template<")
                + 2 * has("std::")
                + 2 * has("namespace ")
                + has("class ")
                + 2 * has("#include <iostream>"),
        ),
        (
            Lang::C,
            2 * has("#include")
                + has("int main")
                + has("typedef ")
                + has("struct ")
                + has("printf(")
                + 1,
        ),
    ];
    // Ties go to the earliest entry with the top score; C, last, is the fallback.
    let best = scores.iter().map(|(_, s)| *s).max().unwrap_or(0);
    scores
        .iter()
        .find(|(_, s)| *s == best)
        .map(|(l, _)| *l)
        .unwrap_or(Lang::C)
}

/// The language of a file: its name if that tells, else its content.
pub fn detect(name: Option<&str>, text: &str) -> Lang {
    name.and_then(detect_from_name)
        .unwrap_or_else(|| detect_from_content(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_name() {
        assert_eq!(detect_from_name("input.c"), Some(Lang::C));
        assert_eq!(detect_from_name("a/b.CPP"), Some(Lang::Cpp));
        assert_eq!(detect_from_name("main.rs"), Some(Lang::Rust));
        assert_eq!(detect_from_name("x.mjs"), Some(Lang::JavaScript));
        assert_eq!(detect_from_name("A.java"), Some(Lang::Java));
        assert_eq!(detect_from_name("README"), None);
    }

    #[test]
    fn by_content() {
        assert_eq!(
            detect_from_content("#include <stdio.h>\nint main(void) { printf(\"x\"); }"),
            Lang::C
        );
        assert_eq!(
            detect_from_content("#include <iostream>\nint main() { std::cout << 1; }"),
            Lang::Cpp
        );
        assert_eq!(
            detect_from_content("fn main() { let mut x = 1; }"),
            Lang::Rust
        );
        assert_eq!(
            detect_from_content("const f = (x) => x === 1;\nconsole.log(f(1));"),
            Lang::JavaScript
        );
        assert_eq!(
            detect_from_content(
                "public class A { public static void main(String[] a) { System.out.println(1); } }"
            ),
            Lang::Java
        );
        assert_eq!(detect(Some("x.rs"), "int main(){}"), Lang::Rust);
    }
}
