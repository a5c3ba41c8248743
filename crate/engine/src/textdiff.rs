//! Token-level diffs of two texts for display (`similar`): words, runs of punctuation
//! and white space are the units, so a changed operator shows as just that operator.

use similar::{ChangeTag, TextDiff};

/// `(tag, text)` runs: tag is "equal", "delete" (only in `a`) or "insert" (only in `b`).
pub fn token_diff(a: &str, b: &str) -> Vec<(&'static str, String)> {
    let (ta, tb) = (lex(a), lex(b));
    let diff = TextDiff::from_slices(&ta, &tb);
    let mut out: Vec<(&'static str, String)> = Vec::new();
    for change in diff.iter_all_changes() {
        let tag = match change.tag() {
            ChangeTag::Equal => "equal",
            ChangeTag::Delete => "delete",
            ChangeTag::Insert => "insert",
        };
        match out.last_mut() {
            Some((t, text)) if *t == tag => text.push_str(change.value()),
            _ => out.push((tag, change.value().to_string())),
        }
    }
    out
}

/// Splits text into runs of word characters, runs of white space, and single other characters.
pub fn lex(text: &str) -> Vec<&str> {
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            0
        } else if c.is_whitespace() {
            1
        } else {
            2
        }
    };
    let mut out = Vec::new();
    let mut start = 0;
    let mut prev: Option<u8> = None;
    for (i, c) in text.char_indices() {
        let k = class(c);
        if prev.is_some_and(|p| p != k || k == 2) {
            out.push(&text[start..i]);
            start = i;
        }
        prev = Some(k);
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_operator_is_the_only_change() {
        let d = token_diff("int x = a + b;", "int x = a - b;");
        let changed: Vec<_> = d.iter().filter(|(t, _)| *t != "equal").collect();
        assert_eq!(
            changed,
            vec![&("delete", "+".to_string()), &("insert", "-".to_string())]
        );
        let rebuilt_a: String = d
            .iter()
            .filter(|(t, _)| *t != "insert")
            .map(|(_, s)| s.as_str())
            .collect();
        assert_eq!(rebuilt_a, "int x = a + b;");
    }
}
