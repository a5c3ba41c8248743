//! Literals made shorter inside their token, as T-Rec does. A number becomes `0`, then its
//! leading digits with its suffix kept (`32443` → `3`, `32`, ...; `65532UL` → `6UL`, ...),
//! or its digits without the suffix (`6L` → `6`), shortest first: a subscript that must stay
//! out of bounds, or a constant that must overflow its type, keeps as few digits as still
//! do. A string's text loses a run of characters at either end, half of it first, so
//! round after round it narrows to the part a message quotes (`"a needle here"` →
//! `"needle"`); Perses empties it when no part is needed.

use super::Program;
use crate::literal::Integer;
use crate::tree::TokenId;

/// Numbers longer than this many digits are left alone: one candidate a digit, and no
/// integer type of any language holds more (2^128 has 39).
const MAX_DIGITS: usize = 39;

/// Whether token `t` is a decimal number literal (any language: `number_literal`,
/// `integer_literal`, `number`, `decimal_integer_literal`, ...).
pub fn is_number(prog: &Program, t: TokenId) -> bool {
    let tree = &prog.tree;
    let node = tree.node(tree.tokens[t as usize].node);
    let kind = node.kind;
    node.named
        && node.children.is_empty()
        && (kind.contains("literal") || kind == "number")
        && prog.text_of(t).starts_with(|c: char| c.is_ascii_digit())
}

/// Shorter spellings of number `text`, shortest first; none for octal, binary or floating
/// numbers, whose prefixes mean something else, nor for numbers with digit separators. A
/// hex number gets the prefixes of its decimal value (`0x597618DEL` to `1L`, `15L`, ...): a
/// diagnostic about a value's bits or range often holds for a short one.
pub fn shorter_spellings(text: &str) -> Vec<String> {
    let Some(int) = Integer::read(text).filter(|i| !i.separated()) else {
        return Vec::new();
    };
    let suffix = int.suffix;
    match int.radix {
        // Only C's suffixes: a Rust type after hex digits reads as more digits in decimal.
        16 if suffix.chars().all(|c| matches!(c, 'u' | 'U' | 'l' | 'L')) => {
            let Some(value) = int.value() else {
                return Vec::new();
            };
            let decimal = format!("{value}{suffix}");
            let mut out: Vec<String> = shorter_spellings(&decimal)
                .into_iter()
                .chain([decimal])
                .filter(|s| s.len() < text.len())
                .collect();
            out.sort_by_key(String::len);
            out
        }
        10 if int.digits.len() <= MAX_DIGITS && int.digits != "0" => {
            let mut out = vec!["0".to_string()];
            let number = int.digits;
            out.extend((1..number.len()).map(|n| format!("{}{suffix}", &number[..n])));
            if !suffix.is_empty() {
                out.push(number.to_string());
            }
            out.retain(|s| s.len() < text.len());
            // Shortest first; the sort is stable, so a prefix goes before the whole digits.
            out.sort_by_key(String::len);
            out
        }
        _ => Vec::new(),
    }
}

/// Whether token `t` is the text of a string literal (the language's `string_text`),
/// without escapes, which are tokens of their own.
pub fn is_string_text(prog: &Program, t: TokenId) -> bool {
    let tree = &prog.tree;
    let node = tree.node(tree.tokens[t as usize].node);
    node.children.is_empty()
        && tree.lang.kinds().string_text.contains(&node.kind)
        && !prog.text_of(t).contains('\\')
}

/// Shorter texts for a string's `text`, shortest first: a run of half the characters, a
/// quarter, ..., one, dropped at the start, then at the end.
pub fn shorter_strings(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut drop = chars.len() / 2;
    while drop > 0 {
        out.push(chars[drop..].iter().collect());
        out.push(chars[..chars.len() - drop].iter().collect());
        drop /= 2;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_lose_characters_at_either_end() {
        assert_eq!(
            shorter_strings("hello world"),
            [
                " world",
                "hello ",
                "llo world",
                "hello wor",
                "ello world",
                "hello worl"
            ]
        );
        assert!(shorter_strings("a").is_empty());
    }

    #[test]
    fn shorter_spellings_keep_the_suffix() {
        assert_eq!(shorter_spellings("32443"), ["0", "3", "32", "324", "3244"]);
        assert_eq!(
            shorter_spellings("65532UL"),
            ["0", "6UL", "65UL", "655UL", "65532", "6553UL"]
        );
        assert_eq!(shorter_spellings("10u8"), ["0", "10", "1u8"]);
        assert_eq!(shorter_spellings("6L"), ["0", "6"]);
        // A constant past 64 bits keeps as few digits as still overflow (2^64 - 1 here).
        let long = shorter_spellings("18446744073709551615UL");
        assert_eq!(long.len(), 21);
        assert!(long.contains(&"18446744073UL".to_string()));
        // A hex number: its decimal value's prefixes, the suffix kept.
        assert_eq!(
            shorter_spellings("0x597618DEL"),
            [
                "0",
                "1L",
                "15L",
                "150L",
                "1500L",
                "15009L",
                "150091L",
                "1500911L",
                "15009118L",
                "150091183L",
                "1500911838"
            ]
        );
        assert_eq!(
            shorter_spellings("0x7EBA"),
            ["0", "3", "32", "324", "3244", "32442"]
        );
        // `0` is as short as it gets; octal, floats and odd hex are left alone.
        for text in ["7", "0xFFu32", "0777", "1.5", "1e9", "0"] {
            assert!(shorter_spellings(text).is_empty(), "{text}");
        }
    }
}
