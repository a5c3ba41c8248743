//! Integer literals, read one way wherever the engine reads them (constant folding, a
//! number's shorter spellings, the witness rules' constants): the radix its prefix gives, its
//! digits, and the type suffix after them, as C, C++, Java, JavaScript and Rust spell them.

/// An integer literal's parts: `0x1F_u8` has radix 16, digits `1F_` and suffix `u8`.
#[derive(Debug, PartialEq, Eq)]
pub struct Integer<'a> {
    pub radix: u32,
    /// The digits, with any separators (`_`, `'`) among them.
    pub digits: &'a str,
    pub suffix: &'a str,
}

/// Rust's integer types, which a Rust literal may carry as its suffix (`5i32`).
const RUST_TYPES: [&str; 12] = [
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
];

impl<'a> Integer<'a> {
    /// The parts of `text` if it is an integer literal: a radix prefix (`0x`, `0b`, `0o`, or
    /// C's octal `0` before more digits), digits, then a suffix of C's `u` and `l` letters,
    /// JavaScript's `n` or a Rust integer type. `None` for floats, characters and names.
    pub fn read(text: &'a str) -> Option<Integer<'a>> {
        let (radix, rest) = match text.as_bytes() {
            [b'0', b'x' | b'X', ..] => (16, &text[2..]),
            [b'0', b'b' | b'B', ..] => (2, &text[2..]),
            [b'0', b'o' | b'O', ..] => (8, &text[2..]),
            [b'0', c, ..] if c.is_ascii_digit() => (8, &text[1..]),
            _ => (10, text),
        };
        let end = rest
            .find(|c: char| !(c.is_digit(radix) || c == '_' || c == '\''))
            .unwrap_or(rest.len());
        let (digits, suffix) = rest.split_at(end);
        let lower = suffix.to_ascii_lowercase();
        let typed = lower.chars().all(|c| matches!(c, 'u' | 'l' | 'n'))
            || RUST_TYPES.contains(&lower.as_str());
        let starts = digits.starts_with(|c: char| c.is_digit(radix));
        (starts && typed).then_some(Integer {
            radix,
            digits,
            suffix,
        })
    }

    /// Whether separators (`1_000`, `1'000`) sit among the digits.
    pub fn separated(&self) -> bool {
        self.digits.contains(['_', '\''])
    }

    /// Its value; `None` past 128 bits.
    pub fn value(&self) -> Option<u128> {
        let digits: String = self
            .digits
            .chars()
            .filter(|&c| c != '_' && c != '\'')
            .collect();
        u128::from_str_radix(&digits, self.radix).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::Integer;

    fn value(text: &str) -> Option<u128> {
        Integer::read(text)?.value()
    }

    #[test]
    fn every_spelling_is_read() {
        assert_eq!(value("0x7EBAL"), Some(32442));
        assert_eq!(value("65532UL"), Some(65532));
        assert_eq!(value("017"), Some(15));
        assert_eq!(value("017u"), Some(15), "octal with a suffix");
        assert_eq!(value("0b101"), Some(5));
        assert_eq!(value("0o17"), Some(15));
        assert_eq!(value("1_000u32"), Some(1000));
        assert_eq!(value("1'000"), Some(1000));
        assert_eq!(value("10n"), Some(10));
        assert_eq!(value("0xffu8"), Some(255));
        assert_eq!(value("0"), Some(0));
        let parts = Integer::read("0x1F_u8").unwrap();
        assert_eq!((parts.radix, parts.digits, parts.suffix), (16, "1F_", "u8"));
        assert!(parts.separated());
    }

    #[test]
    fn what_is_no_integer_is_refused() {
        for text in [
            "1.5", "1e5", "1f", "08", "0b12", "_1", "x1", "'a'", "10abc", "",
        ] {
            assert_eq!(Integer::read(text), None, "{text}");
        }
    }
}
