//! Language detection: from a file name's extension, else from what the text looks like.

use crate::Lang;

/// The language a file name's extension says, if it names one.
pub fn detect_from_name(name: &str) -> Option<Lang> {
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    Lang::ALL
        .into_iter()
        .find(|l| l.kinds().detect.extensions.contains(&ext.as_str()))
}

/// A guess from the text alone: each language scores the weights of its clues, constructs
/// only it has (its table's [`Detect`](crate::kinds::Detect)).
pub fn detect_from_content(text: &str) -> Lang {
    // Ties go to the earliest with the top score; C, last, is the fallback.
    const ORDER: [Lang; 5] = [Lang::Rust, Lang::Java, Lang::JavaScript, Lang::Cpp, Lang::C];
    let score = |lang: Lang| {
        let detect = &lang.kinds().detect;
        let clues = detect.clues.iter().filter(|(clue, _)| text.contains(clue));
        detect.base + clues.map(|(_, weight)| weight).sum::<i32>()
    };
    // (max_by_key keeps the last of equals: reversed, the earliest wins)
    ORDER
        .into_iter()
        .rev()
        .max_by_key(|&l| score(l))
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
