//! Where two texts differ, as a list of hunks: what an incremental parse needs to reuse the
//! tree between scattered edits. A pass that deletes many definitions at once changes a text
//! in many places, and one span from the first change to the last covers nearly all of it.

use std::ops::Range;

use memchr::memmem;

/// One changed stretch: bytes `old` of the old text became bytes `new` of the new one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Hunk {
    pub old: Range<usize>,
    pub new: Range<usize>,
}

/// Bytes the texts must agree on for a place to count as where they agree again: enough
/// that a match by chance is rare, few enough to fit between two nearby edits.
const PROBE: usize = 32;
/// Most hunks listed: past them, the rest of the change is one hunk.
const MOST: usize = 4096;
/// How far into the old text the first search for a probe reaches; each next search reaches
/// 16 times further (most edits are small, a few delete half the text).
const REACH: usize = 1024;
/// The new text's bytes skipped before a probe: 0 finds a deletion, more a rewrite.
const SKIPS: [usize; 9] = [0, 1, 2, 4, 8, 16, 32, 64, 128];

/// The hunks that turn `a` into `b`, in order. Any list that leaves the bytes between hunks
/// equal describes the change correctly; this one is found greedily, and a shorter one lets
/// a parse reuse more.
pub(crate) fn between(a: &[u8], b: &[u8]) -> Vec<Hunk> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    loop {
        let n = common_prefix(&a[i..], &b[j..]);
        (i, j) = (i + n, j + n);
        if i == a.len() && j == b.len() {
            return out;
        }
        match (out.len() + 1 < MOST).then(|| resync(a, b, i, j)).flatten() {
            Some((i2, j2)) => {
                out.push(Hunk {
                    old: i..i2,
                    new: j..j2,
                });
                (i, j) = (i2, j2);
            }
            None => {
                let s = common_suffix(&a[i..], &b[j..]);
                out.push(Hunk {
                    old: i..a.len() - s,
                    new: j..b.len() - s,
                });
                return out;
            }
        }
    }
}

/// A change whose place in the old text is known: bytes `old` became white space and
/// `texts`, in order, each after white space (an edit's stretch of deleted and rewritten
/// tokens, between two unchanged ones).
pub(crate) struct Change<'a> {
    pub old: Range<usize>,
    pub texts: Vec<&'a str>,
}

/// The hunks that turn `a` into `b` by `changes` (in order, apart): each change's end in `b`
/// is found past the white space and texts it became, and every byte between changes is
/// checked equal. `None` if they are not: `b` is not `a` with these changes.
pub(crate) fn of_changes(a: &[u8], b: &[u8], changes: &[Change]) -> Option<Vec<Hunk>> {
    let blank_from = |at: usize| {
        at + b[at..]
            .iter()
            .take_while(|c| c.is_ascii_whitespace())
            .count()
    };
    let mut out = Vec::with_capacity(changes.len());
    // Where the last hunk ended in `a` and in `b`.
    let (mut i, mut j) = (0, 0);
    for change in changes {
        let old = change.old.clone();
        let start = j + old.start.checked_sub(i)?;
        if old.end > a.len() || b.get(j..start)? != &a[i..old.start] {
            return None;
        }
        let mut end = start;
        for text in &change.texts {
            end = blank_from(end);
            if !b[end..].starts_with(text.as_bytes()) {
                return None;
            }
            end += text.len();
        }
        let end = match old.end == a.len() {
            true => b.len(),
            false => blank_from(end),
        };
        out.push(Hunk {
            old: old.clone(),
            new: start..end,
        });
        (i, j) = (old.end, end);
    }
    (a[i..] == b[j..]).then_some(out)
}

/// Roughly what re-parsing across these hunks costs, in bytes parsed: walking a node of the
/// old tree costs about a third of parsing it (measured on the bench cases).
pub(crate) fn cost(hunks: &[Hunk]) -> usize {
    hunks.iter().map(|h| h.old.len() / 3 + h.new.len()).sum()
}

/// The edits that tell a tree of `a` about the hunks, last first: applied in that order,
/// each one's positions are still those of `a`.
pub(crate) fn input_edits(hunks: &[Hunk], a: &[u8], b: &[u8]) -> Vec<tree_sitter::InputEdit> {
    let mut edits = Vec::with_capacity(hunks.len());
    let (mut at, mut point) = (0, tree_sitter::Point { row: 0, column: 0 });
    for h in hunks {
        let start = point_after(point, &a[at..h.old.start]);
        let old_end = point_after(start, &a[h.old.clone()]);
        edits.push(tree_sitter::InputEdit {
            start_byte: h.old.start,
            old_end_byte: h.old.end,
            new_end_byte: h.old.start + h.new.len(),
            start_position: start,
            old_end_position: old_end,
            new_end_position: point_after(start, &b[h.new.clone()]),
        });
        (at, point) = (h.old.end, old_end);
    }
    edits.reverse();
    edits
}

/// Where past `a[i]` and `b[j]` (which differ) the texts agree again for [`PROBE`] bytes;
/// `None` when nowhere, or when `b` ends too soon to tell.
fn resync(a: &[u8], b: &[u8], i: usize, j: usize) -> Option<(usize, usize)> {
    let mut reach = REACH;
    loop {
        let end = i.saturating_add(reach).min(a.len());
        for skip in SKIPS {
            let from = j + skip;
            // Near the end of `b` no probe fits: the rest is one hunk.
            let probe = b.get(from..from + PROBE)?;
            // A deletion must delete something; a rewrite may only insert.
            let start = i + usize::from(skip == 0);
            if let Some(q) = a.get(start..end).and_then(|w| memmem::find(w, probe)) {
                return Some((start + q, from));
            }
        }
        if end == a.len() {
            return None;
        }
        reach = reach.saturating_mul(16);
    }
}

/// Bytes compared at memcmp's speed before the last block is compared byte by byte.
const BLOCK: usize = 4096;

/// How many bytes `a` and `b` share at their start.
pub(crate) fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let shortest = a.len().min(b.len());
    let mut n = 0;
    while n + BLOCK <= shortest && a[n..n + BLOCK] == b[n..n + BLOCK] {
        n += BLOCK;
    }
    n + a[n..shortest]
        .iter()
        .zip(&b[n..shortest])
        .take_while(|(x, y)| x == y)
        .count()
}

/// How many bytes `a` and `b` share at their end.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let shortest = a.len().min(b.len());
    let (ea, eb) = (a.len(), b.len());
    let mut n = 0;
    while n + BLOCK <= shortest && a[ea - n - BLOCK..ea - n] == b[eb - n - BLOCK..eb - n] {
        n += BLOCK;
    }
    n + a[..ea - n]
        .iter()
        .rev()
        .zip(b[..eb - n].iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// The position after `bytes`, which start at `from`.
pub(crate) fn point_after(from: tree_sitter::Point, bytes: &[u8]) -> tree_sitter::Point {
    match memchr::memrchr(b'\n', bytes) {
        Some(last) => tree_sitter::Point {
            row: from.row + memchr::memchr_iter(b'\n', bytes).count(),
            column: bytes.len() - last - 1,
        },
        None => tree_sitter::Point {
            row: from.row,
            column: from.column + bytes.len(),
        },
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Applies hunks to `a`: what they describe.
    pub(crate) fn apply(a: &[u8], b: &[u8], hunks: &[Hunk]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut at = 0;
        for h in hunks {
            assert!(h.old.start >= at, "hunks in order");
            out.extend_from_slice(&a[at..h.old.start]);
            out.extend_from_slice(&b[h.new.clone()]);
            at = h.old.end;
        }
        out.extend_from_slice(&a[at..]);
        out
    }

    fn line(n: usize) -> String {
        format!(
            "int function_number_{n}(int x) {{ return x * {n} + {}; }}\n",
            n % 7
        )
    }

    #[test]
    fn scattered_deletions_are_one_hunk_each() {
        let lines: Vec<String> = (0..200).map(line).collect();
        let a = lines.concat();
        let b: String = lines
            .iter()
            .enumerate()
            .filter(|(n, _)| n % 10 != 3)
            .map(|(_, l)| l.as_str())
            .collect();
        let hunks = between(a.as_bytes(), b.as_bytes());
        assert_eq!(apply(a.as_bytes(), b.as_bytes(), &hunks), b.as_bytes());
        assert_eq!(hunks.len(), 20);
        for (h, n) in hunks.iter().zip((3..200).step_by(10)) {
            assert!(h.new.is_empty() && h.old.len() == line(n).len(), "{h:?}");
        }
    }

    #[test]
    fn rewrites_and_insertions_and_the_ends_are_described_exactly() {
        let a: String = (0..50).map(line).collect();
        let cases = [
            a.replace("function_number_1", "f"),
            a.replace("return", "return -"),
            format!("// head\n{}", &a[100..a.len() - 80]),
            String::new(),
            a.replace('\n', ""),
            a.chars().rev().collect(),
        ];
        for b in cases {
            let hunks = between(a.as_bytes(), b.as_bytes());
            assert_eq!(apply(a.as_bytes(), b.as_bytes(), &hunks), b.as_bytes());
        }
        assert!(between(a.as_bytes(), a.as_bytes()).is_empty());
    }

    #[test]
    fn bodies_made_declarations_in_two_places_are_two_hunks() {
        let body = "{\n  return a * b + c - d;\n}\n";
        let head =
            |name: &str| format!("static inline long long {name}(int a, int b, int c, int d) ");
        let one = format!(
            "{}{body}\n{}{body}\n{}{body}",
            head("f"),
            head("g"),
            head("h")
        );
        // f's and h's bodies become `;`, g keeps its own.
        let two = format!("{};\n\n{}{body}\n{};\n", head("f"), head("g"), head("h"));
        let found = between(one.as_bytes(), two.as_bytes());
        assert_eq!(found.len(), 2, "{found:?}");
        for h in &found {
            assert!(
                one[h.old.clone()].contains("return"),
                "{:?}",
                &one[h.old.clone()]
            );
            assert!(two[h.new.clone()].len() <= 4, "{:?}", &two[h.new.clone()]);
        }
        assert_eq!(
            apply(one.as_bytes(), two.as_bytes(), &found),
            two.as_bytes()
        );
    }

    #[test]
    fn edits_in_reverse_keep_positions_of_the_old_text() {
        let a = b"one\ntwo\nthree\nfour\n";
        let b = b"one\nthree\nfour!\n";
        let hunks = between(a, b);
        let edits = input_edits(&hunks, a, b);
        assert!(edits
            .windows(2)
            .all(|w| w[0].start_byte >= w[1].old_end_byte));
        let last = edits.last().unwrap();
        assert_eq!(last.start_position.row, 1);
    }
}
