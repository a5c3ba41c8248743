//! The validity check of a big program, limited to its edit: the candidate's text with the
//! list items far from the edit left out (other functions, other members of a namespace,
//! other statements of a body), parsed afresh. Re-parsing a megabyte costs tens of
//! milliseconds even incrementally (tree-sitter walks every top-level item again); a window
//! costs what the edit's neighbourhood does.
//!
//! Items of a list (the top level, a `{...}` of declarations, members or statements) parse
//! alone as they parse among the others: the grammar repeats them, so leaving some out
//! leaves the rest as they were. Every ancestor of the edit is kept whole but for its list's
//! other items, so a member keeps its class and a statement its function. At the level where
//! the edit spans several items (or touches one's first or last byte), one item on each side
//! stays too, for its edge where it meets the edit: the lists inside it are emptied
//! (`namespace n { }`), so a neighbour costs its edges, not its size.

use crate::grammars::ChildSlot;
use crate::hunks::Hunk;
use crate::Lang;

/// A window over a candidate text: the pieces of it that were kept, joined in order.
pub struct Window {
    pub text: String,
    /// The byte ranges of the old text it kept (the edits' among them), in order.
    kept_old: Vec<(usize, usize)>,
    /// Where each kept piece of the candidate starts in the window and in the candidate,
    /// with its length, in order.
    pieces: Vec<(usize, usize, usize)>,
    /// The hunks the window was made for, slid to whole items.
    hunks: Vec<Hunk>,
}

/// A window pays only when it is much smaller than the text.
const MAX_SHARE: usize = 4;

impl Window {
    /// The window of `new_text`, which differs from the text whose tree is `old` in
    /// `hunks`; `None` when it would leave out less than three quarters of the text.
    pub(crate) fn around(
        lang: Lang,
        old: &tree_sitter::Tree,
        old_text: &str,
        new_text: &str,
        hunks: &[Hunk],
    ) -> Option<Window> {
        let hunks = &aligned(old, old_text.as_bytes(), hunks);
        let mut left_out: Vec<(usize, usize)> = Vec::new();
        let edits: Vec<(usize, usize)> = hunks.iter().map(|h| (h.old.start, h.old.end)).collect();
        visit(lang, old.root_node(), &edits, &mut left_out);
        let pieces = kept_pieces(&left_out, hunks, new_text.len());
        let kept: usize = pieces.iter().map(|p| p.1 - p.0).sum();
        if kept * MAX_SHARE > new_text.len() {
            return None;
        }
        let mut window = Window {
            text: String::with_capacity(kept + pieces.len()),
            kept_old: kept_pieces(&left_out, &[], usize::MAX),
            pieces: Vec::with_capacity(pieces.len()),
            hunks: hunks.clone(),
        };
        for (start, end) in pieces {
            let piece = &new_text[start..end];
            // Two words must not run together where an item was left out between them.
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            if word(window.text.chars().last()) && word(piece.chars().next()) {
                window.text.push(' ');
            }
            window.pieces.push((window.text.len(), start, end - start));
            window.text.push_str(piece);
        }
        Some(window)
    }

    /// The bytes of the old text that bytes `lo..hi` of the window are, if they lie in one
    /// kept piece and outside every hunk (text the edit left as it was).
    fn old_range(&self, lo: usize, hi: usize) -> Option<(usize, usize)> {
        let i = self.pieces.partition_point(|p| p.0 <= lo).checked_sub(1)?;
        let (at, start, len) = self.pieces[i];
        if hi > at + len {
            return None;
        }
        let (lo, hi) = (start + lo - at, start + hi - at);
        // The last hunk that ends before the range; the next must start after it.
        let h = self.hunks.partition_point(|h| h.new.end < lo);
        if self.hunks.get(h).is_some_and(|h| h.new.start <= hi) {
            return None;
        }
        let shift = |x: usize| match h.checked_sub(1) {
            Some(j) => x - self.hunks[j].new.end + self.hunks[j].old.end,
            None => x,
        };
        Some((shift(lo), shift(hi)))
    }

    /// Whether the window's `errors` (byte ranges of its text) all lie on the old text's
    /// error `regions` (sorted spans of its tokens in error regions), in text the edit left
    /// as it was, and no edit starts or ends on a region (where the whole text's recovery
    /// may differ): then the errors a parse of the whole finds are the old ones.
    pub(crate) fn errors_are_old(
        &self,
        errors: &[(usize, usize)],
        regions: &[(usize, usize)],
    ) -> bool {
        let on_a_region = |x: usize| {
            let i = regions.partition_point(|r| r.1 < x);
            regions.get(i).is_some_and(|r| r.0 <= x)
        };
        if self
            .hunks
            .iter()
            .any(|h| on_a_region(h.old.start) || on_a_region(h.old.end))
        {
            return false;
        }
        // `lo..hi` of the old text is `shift` bytes before the window's.
        let on_regions = |lo: usize, hi: usize, shift: usize| {
            if lo == hi {
                return on_a_region(lo);
            }
            let i = regions.partition_point(|r| r.1 < lo);
            // Every byte from lo to hi on a region but white space between two regions.
            let blank = |a: usize, b: usize| {
                let bytes = self.text.as_bytes();
                (a..b).all(|x| bytes[x.wrapping_add(shift)].is_ascii_whitespace())
            };
            let mut at = lo;
            for r in &regions[i..] {
                if r.0 > at && !blank(at, r.0.min(hi)) {
                    return false;
                }
                at = at.max(r.1);
                if at >= hi || r.0 >= hi {
                    return true;
                }
            }
            blank(at, hi)
        };
        errors.iter().all(|&(lo, hi)| {
            self.old_range(lo, hi)
                .is_some_and(|(olo, ohi)| on_regions(olo, ohi, lo.wrapping_sub(olo)))
        })
    }

    /// Whether the window kept a byte of one of `spans` of the old text (in order, apart).
    pub(crate) fn holds(&self, spans: &[(usize, usize)]) -> bool {
        spans.iter().any(|&(s, e)| {
            let i = self.kept_old.partition_point(|r| r.1 <= s);
            self.kept_old.get(i).is_some_and(|r| r.0 < e)
        })
    }
}

/// How far back a deletion is slid to find whole items (bytes).
const SLIDE: usize = 64;

/// The hunks, each deletion slid back to where it deletes whole items, if the deleted text
/// repeats before it: a diff takes the longest common prefix, so deleting `namespace n1
/// {...}` before `namespace n2` reads as deleting `1 {...} namespace n`, which touches the
/// next item (a window keeps it whole). Every place the deletion slides to is the same
/// change.
fn aligned(old: &tree_sitter::Tree, text: &[u8], hunks: &[Hunk]) -> Vec<Hunk> {
    let root = old.root_node();
    // No item starts or ends inside a word.
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let splits = |at: usize| at > 0 && word(text[at - 1]) && word(text[at]);
    let mut out: Vec<Hunk> = Vec::with_capacity(hunks.len());
    for h in hunks {
        let mut h = h.clone();
        if h.new.is_empty() && !whole_items(root, text, h.old.start, h.old.end) {
            let (floor, floor_new) = out.last().map_or((0, 0), |p| (p.old.end, p.new.end));
            for s in 1..=SLIDE.min(h.old.start - floor).min(h.new.start - floor_new) {
                let (lo, hi) = (h.old.start - s, h.old.end - s);
                // Sliding by one keeps the text only if the byte entering the deletion is
                // the one leaving it.
                if text[lo] != text[hi] {
                    break;
                }
                if !splits(lo) && !splits(hi) && whole_items(root, text, lo, hi) {
                    h = Hunk {
                        old: lo..hi,
                        new: h.new.start - s..h.new.end - s,
                    };
                    break;
                }
            }
        }
        out.push(h);
    }
    out
}

/// Whether bytes `lo..hi` of the old text are, but for white space at their ends, whole
/// children of one node (or one node).
fn whole_items(root: tree_sitter::Node, text: &[u8], lo: usize, hi: usize) -> bool {
    let blank = |b: &&u8| b.is_ascii_whitespace();
    let lead = text[lo..hi].iter().take_while(blank).count();
    let trail = text[lo..hi].iter().rev().take_while(blank).count();
    if lo + lead >= hi - trail {
        return false;
    }
    let (lo, hi) = (lo + lead, hi - trail);
    let Some(node) = root.descendant_for_byte_range(lo, hi) else {
        return false;
    };
    if (node.start_byte(), node.end_byte()) == (lo, hi) {
        return true;
    }
    let (kids, _) = children(node);
    kids.iter().any(|k| k.start_byte() == lo) && kids.iter().any(|k| k.end_byte() == hi)
}

/// Leaves out, under `node`, the list items no edit (old byte ranges, in order) touches;
/// descends into a child that holds an edit strictly inside it.
fn visit(
    lang: Lang,
    node: tree_sitter::Node,
    edits: &[(usize, usize)],
    left_out: &mut Vec<(usize, usize)>,
) {
    let (kids, fielded) = children(node);
    if kids.is_empty() {
        return;
    }
    // What becomes of each child: left out if a list item no edit touches, kept whole, or
    // kept with the edits inside it for its own children to judge.
    let mut whole = vec![false; kids.len()];
    let mut touched = vec![false; kids.len()];
    let mut inner: Vec<Vec<(usize, usize)>> = vec![Vec::new(); kids.len()];
    for &(lo, hi) in edits {
        // The children the edit touches (an edit at a child's edge touches it).
        let first = kids
            .partition_point(|c| c.end_byte() < lo)
            .min(kids.len() - 1);
        let last = kids
            .partition_point(|c| c.start_byte() <= hi)
            .saturating_sub(1);
        let (first, last) = (first.min(last), first.max(last));
        if first == last && kids[first].start_byte() < lo && hi < kids[first].end_byte() {
            inner[first].push((lo, hi));
            continue;
        }
        let mut from = first.saturating_sub(1);
        // A label's `:` (C++'s `public:`) goes with the word before it.
        if kids[from].kind() == ":" && from > 0 {
            from -= 1;
        }
        whole[from..=(last + 1).min(kids.len() - 1)].fill(true);
        // Only a child the edit overlaps is changed; one it ends at is a neighbour.
        for i in first..=last {
            touched[i] |= kids[i].start_byte() < hi && lo < kids[i].end_byte();
        }
    }
    if !fielded && is_list(lang, node, &kids) {
        let mut run: Option<(usize, usize)> = None;
        for (i, kid) in kids.iter().enumerate() {
            let out = !whole[i] && inner[i].is_empty() && droppable(*kid);
            match (out, &mut run) {
                (true, Some(r)) => r.1 = kid.end_byte(),
                // A `:` only with its label.
                (true, None) if kid.kind() != ":" => run = Some((kid.start_byte(), kid.end_byte())),
                (_, r) => left_out.extend(r.take()),
            }
        }
        left_out.extend(run);
    }
    for (i, edits) in inner.iter().enumerate() {
        if !edits.is_empty() && !whole[i] {
            visit(lang, kids[i], edits, left_out);
        } else if whole[i] && !touched[i] && edits.is_empty() {
            hollow(lang, kids[i], HOLLOW_DEPTH, left_out);
        }
    }
}

/// How deep [`hollow`] looks for lists: a neighbour's bodies are a few levels down.
const HOLLOW_DEPTH: usize = 8;

/// Leaves out the items of the lists inside a neighbour of an edit, which is kept only for
/// its edges, where it meets the edit (`class C { ... };` becomes `class C { };`): items
/// parse alone, so the rest parses as before. A list's first and last child stay (its
/// brackets, or the items at its edges), and so does a list that may not be empty.
fn hollow(lang: Lang, node: tree_sitter::Node, depth: usize, left_out: &mut Vec<(usize, usize)>) {
    let (kids, fielded) = children(node);
    if kids.len() < 3 || depth == 0 {
        return;
    }
    let emptiable = unnamed_slot(lang, node).is_some_and(|slot| !slot.required);
    if !fielded && emptiable && is_list(lang, node, &kids) {
        let inner = &kids[1..kids.len() - 1];
        if inner[0].kind() != ":" {
            left_out.push((inner[0].start_byte(), inner[inner.len() - 1].end_byte()));
        }
        return;
    }
    for kid in kids.iter().filter(|k| k.is_named()) {
        hollow(lang, *kid, depth - 1, left_out);
    }
}

/// A node's children, and whether any of them has a field name.
fn children(node: tree_sitter::Node) -> (Vec<tree_sitter::Node>, bool) {
    let mut cursor = node.walk();
    let (mut kids, mut fielded) = (Vec::new(), false);
    if cursor.goto_first_child() {
        loop {
            kids.push(cursor.node());
            fielded |= cursor.field_name().is_some();
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    (kids, fielded)
}

/// Whether `node`'s children (none of them in a field) are the items of a list, each of
/// which may be left out: every child but a first and last bracket is [`droppable`], and
/// the grammar repeats them.
fn is_list(lang: Lang, node: tree_sitter::Node, kids: &[tree_sitter::Node]) -> bool {
    let inner = kids
        .get(1..kids.len().saturating_sub(1))
        .unwrap_or_default();
    let repeated = unnamed_slot(lang, node).is_some_and(|slot| slot.multiple);
    repeated && inner.iter().all(|&k| droppable(k))
}

/// What the grammar says of the children of `node` that are in no field.
fn unnamed_slot(lang: Lang, node: tree_sitter::Node) -> Option<&'static ChildSlot> {
    lang.node_types().kind(node.kind())?.slot(None)
}

/// An item, a `;` between items (an empty declaration or statement), or a label's `:`.
fn droppable(node: tree_sitter::Node) -> bool {
    node.is_named() || matches!(node.kind(), ";" | ":")
}

/// The byte ranges of the candidate that are kept: all but the old text's `left_out` ranges
/// (none of which overlaps a hunk), moved by the hunks before them.
fn kept_pieces(left_out: &[(usize, usize)], hunks: &[Hunk], len: usize) -> Vec<(usize, usize)> {
    let shift = |x: usize| {
        // The last hunk that ends at or before x.
        let i = hunks.partition_point(|h| h.old.end <= x);
        match i.checked_sub(1) {
            Some(i) => x - hunks[i].old.end + hunks[i].new.end,
            None => x,
        }
    };
    let mut gaps: Vec<(usize, usize)> = left_out
        .iter()
        .map(|&(s, e)| (shift(s), shift(e)))
        .collect();
    gaps.sort_unstable();
    let mut pieces = Vec::new();
    let mut at = 0;
    for (s, e) in gaps {
        if s > at {
            pieces.push((at, s));
        }
        at = at.max(e);
    }
    if at < len {
        pieces.push((at, len));
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hunks;
    use crate::rng::Rng;
    use crate::tree::{Parser, Validity};

    /// A C++ program past the size where windows are used: namespaces, classes with access
    /// labels, templates, functions with statements, stray `;`s.
    fn big_program() -> String {
        let mut text = String::from("#include <vector>\n");
        for i in 0..260 {
            text += &format!(
                "namespace n{i} {{\n  template <typename T> class C{i} {{\n  public:\n    int x{i};\n    \
                 T get() const {{ return T(x{i}); }}\n  private:\n    enum E {{ A, B, C }};\n  }};\n  \
                 ;\n  int f{i}(int a, int b) {{\n    int s = 0;\n    for (int k = 0; k < a; k++) {{ s += k * b; }}\n    \
                 if (s > {i}) return s; else return -s;\n  }}\n}}\n"
            );
        }
        text
    }

    fn verdict(v: Validity) -> bool {
        matches!(v, Validity::Valid(_))
    }

    /// Where the tokens of `text` start, roughly: deletions run from one to another.
    fn token_starts(text: &str) -> Vec<usize> {
        text.char_indices()
            .filter(|&(i, c)| {
                !c.is_whitespace()
                    && (i == 0
                        || text.as_bytes()[i - 1].is_ascii_whitespace()
                        || !c.is_alphanumeric())
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// `text` without a few runs of tokens: one, or (every third round) up to four far
    /// apart at once. Also what was cut.
    fn cut(text: &str, starts: &[usize], rng: &mut Rng, round: usize) -> (String, Vec<String>) {
        let places = if round.is_multiple_of(3) {
            2 + rng.below(3)
        } else {
            1
        };
        let mut cuts: Vec<(usize, usize)> = (0..places)
            .map(|_| {
                let a = rng.below(starts.len() - 20);
                (a, a + 1 + rng.below(12))
            })
            .collect();
        cuts.sort_unstable();
        cuts.dedup_by(|b, a| b.0 <= a.1);
        let mut new = String::new();
        let mut at = 0;
        for &(a, b) in &cuts {
            new += &text[at..starts[a]];
            at = starts[b];
        }
        new += &text[at..];
        let gone = cuts
            .iter()
            .map(|&(a, b)| text[starts[a]..starts[b]].to_string());
        (new, gone.collect())
    }

    #[test]
    fn a_window_gives_the_full_parse_verdict_on_deletions() {
        let text = big_program();
        assert!(text.len() >= 64 * 1024, "{} bytes", text.len());
        let mut windowed = Parser::new(Lang::Cpp);
        windowed.set_cross_check(false);
        let mut full = Parser::new(Lang::Cpp);
        full.set_cross_check(false);
        let (_, raw) = windowed.parse_with_raw(&text);
        assert!(!raw.root_node().has_error());
        let starts = token_starts(&text);
        let mut rng = Rng::new(7);
        let (mut valid, mut windows) = (0, 0);
        for round in 0..300 {
            let (new, gone) = cut(&text, &starts, &mut rng, round);
            let hunks = hunks::between(text.as_bytes(), new.as_bytes());
            windows += Window::around(Lang::Cpp, &raw, &text, &new, &hunks).is_some() as usize;
            let by_window = verdict(windowed.check(&raw, &text, &new));
            let by_parse = full.is_valid(&new);
            assert_eq!(by_window, by_parse, "deleting {gone:?}");
            valid += by_parse as usize;
        }
        // Both kinds of verdict were put to the test, and nearly every one by a window.
        assert!(valid > 10 && valid < 270, "{valid} of 300 valid");
        assert!(windows > 290, "{windows} of 300 checked by a window");
    }

    #[test]
    fn a_tolerant_check_takes_errors_near_an_error_region_from_the_whole_text() {
        // Error regions in a few functions: a window's recovery from an error there is its
        // own; errors in a window clear of them are new.
        let mut text = big_program();
        for n in [3, 90, 200] {
            let at = text.find(&format!("if (s > {n})")).unwrap();
            text.insert_str(at, "@@ ");
        }
        let mut windowed = Parser::new(Lang::Cpp);
        windowed.set_cross_check(false);
        windowed.set_tolerant(true);
        let mut full = Parser::new(Lang::Cpp);
        let (_, raw) = windowed.parse_with_raw(&text);
        let regions = crate::tree::error_ranges(&raw);
        let only_marks = |new: &str, errors: &[(usize, usize)]| {
            errors.iter().all(|&(s, e)| new[s..e].trim() == "@@")
        };
        assert!(regions.len() == 3 && only_marks(&text, &regions));
        let starts = token_starts(&text);
        let mut rng = Rng::new(11);
        let (mut flawed, mut invalid, mut valid, mut judged) = (0, 0, 0, 0);
        for round in 0..120 {
            // Every other cut is beside an error region.
            let (new, gone) = match round % 2 {
                0 => cut(&text, &starts, &mut rng, round),
                _ => {
                    let at = starts.partition_point(|&s| s < regions[round % 3].0);
                    let a = at - 6 + rng.below(12);
                    let b = a + 1 + rng.below(4);
                    let new = format!("{}{}", &text[..starts[a]], &text[starts[b]..]);
                    (new, vec![text[starts[a]..starts[b]].to_string()])
                }
            };
            let (_, whole) = full.parse_with_raw(&new);
            match windowed.check_with(&raw, &text, &new, None, &regions) {
                Validity::Flawed { errors, tree } => {
                    // Found by a parse of the whole candidate, not of a window (or
                    // remembered from one, for a text cut before).
                    if let Some(tree) = tree {
                        assert_eq!(tree.root_node().end_byte(), new.len(), "deleting {gone:?}");
                        assert_eq!(errors, crate::tree::error_ranges(&tree));
                    }
                    // Checked again, the text keeps its errors, with no parse.
                    match windowed.check_with(&raw, &text, &new, None, &regions) {
                        Validity::Flawed {
                            errors: again,
                            tree,
                        } => {
                            assert!(tree.is_none() && again == errors, "deleting {gone:?}");
                        }
                        _ => panic!("deleting {gone:?}: judged otherwise the second time"),
                    }
                    assert!(whole.root_node().has_error(), "deleting {gone:?}");
                    flawed += 1;
                }
                Validity::Invalid => {
                    // The whole has an error beside the regions' own.
                    let errors = crate::tree::error_ranges(&whole);
                    assert!(!only_marks(&new, &errors), "deleting {gone:?}: {errors:?}");
                    invalid += 1;
                }
                Validity::Valid(_) => {
                    // Passed with errors only where a window found the old ones unchanged.
                    let errors = crate::tree::error_ranges(&whole);
                    assert!(only_marks(&new, &errors), "deleting {gone:?}: {errors:?}");
                    judged += whole.root_node().has_error() as usize;
                    valid += 1;
                }
            }
        }
        assert!(
            flawed > 5 && invalid > 10 && judged > 5,
            "{flawed} flawed, {invalid} invalid, {valid} valid ({judged} by the regions) of 120"
        );
    }

    #[test]
    fn an_edits_neighbours_keep_their_edges_and_lose_their_bodies() {
        let text = big_program();
        let mut parser = Parser::new(Lang::Cpp);
        let (_, raw) = parser.parse_with_raw(&text);
        // The whole of namespace n100 goes (the diff's hunk, by common prefix, would end
        // inside n101; slid back, it deletes the item and leaves n101 a neighbour).
        let at = text.find("namespace n100 ").unwrap();
        let end = text.find("namespace n101 ").unwrap();
        let new = format!("{}{}", &text[..at], &text[end..]);
        let hunks = hunks::between(text.as_bytes(), new.as_bytes());
        let window = Window::around(Lang::Cpp, &raw, &text, &new, &hunks).expect("a window");
        let squeezed: String = window.text.split_whitespace().collect();
        for (part, kept) in [
            ("namespacen99{}namespacen101{}namespacen102", true),
            ("classC101", false),
            ("namespacen102{}", true),
            ("C99", false),
            ("C102", false),
        ] {
            assert_eq!(squeezed.contains(part), kept, "{part}: {}", window.text);
        }
        assert!(verdict(parser.check(&raw, &text, &new)));
        // Its closing brace gone too: n99's edge meets a broken n101, and the window sees it.
        let broken = format!("{}{}", &text[..at], &text[end..].replacen('}', "", 1));
        assert!(!verdict(parser.check(&raw, &text, &broken)));
        assert!(!parser.is_valid(&broken));
    }

    #[test]
    fn a_program_of_one_item_is_checked_by_a_window_inside_it() {
        // The top level has one child: no list there, but its body is one.
        let text = format!("namespace outer {{\n{}}}\n", big_program());
        let mut parser = Parser::new(Lang::Cpp);
        let (_, raw) = parser.parse_with_raw(&text);
        let at = text.len() / 2 + text[text.len() / 2..].find("s += k * b;").unwrap();
        let new = format!("{}{}", &text[..at], &text[at + "s += k * b;".len()..]);
        let hunks = hunks::between(text.as_bytes(), new.as_bytes());
        let window = Window::around(Lang::Cpp, &raw, &text, &new, &hunks).expect("a window");
        assert!(
            window.text.starts_with("namespace outer"),
            "{}",
            window.text
        );
        assert!(verdict(parser.check(&raw, &text, &new)));
    }

    #[test]
    fn a_window_keeps_the_edit_with_its_ancestors() {
        let text = big_program();
        let mut parser = Parser::new(Lang::Cpp);
        let (_, raw) = parser.parse_with_raw(&text);
        let at = text.find("s += k * b;").unwrap() + text.len() / 2;
        let at = at - (at - text[..at].rfind("s += k * b;").unwrap());
        let new = format!("{}{}", &text[..at], &text[at + "s += k * b;".len()..]);
        let window = Window::around(
            Lang::Cpp,
            &raw,
            &text,
            &new,
            &hunks::between(text.as_bytes(), new.as_bytes()),
        )
        .expect("a window");
        assert!(window.text.len() < 2000, "{}", window.text);
        // Its namespace, class-free function, loop: all there, other namespaces gone.
        for part in ["namespace n", "int f", "for (int k = 0; k < a; k++) {  }"] {
            assert!(window.text.contains(part), "{part} in {}", window.text);
        }
        assert_eq!(
            window.text.matches("namespace").count(),
            1,
            "{}",
            window.text
        );
    }
}
