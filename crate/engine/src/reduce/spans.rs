//! The byte spans of the best program's tokens in its text, found once per best program: where
//! a candidate's errors lie (see `tolerance`), and where an edit's changes are in the text,
//! which an incremental parse needs (a diff of two megabytes finds them only roughly).

use std::ops::Range;

use super::{Edit, Layout, Program};
use crate::hunks::{self, Change, Hunk};
use crate::tree::TokenId;
use crate::unparse;

/// Where a candidate agrees with the best program it was made from: before `changed`, the
/// first token its edit changed, and, when the edit's hunks are known, before the first
/// (`head`: its start) and past the end of the last (`tail`: that end in the best's text and
/// in the candidate's), where its tokens are the best's, moved by the hunks between.
#[derive(Clone, Copy, Debug)]
pub struct Agreement {
    pub changed: TokenId,
    pub head: Option<usize>,
    pub tail: Option<(usize, usize)>,
}

/// The byte spans of a program's kept, non-blank tokens in its text (`text`), in order, and
/// of those `marked` as in an error region. Found once for the best program, they tell
/// whether a window of a candidate holds an error region, where a walk over a candidate's
/// tokens may start and where an edit changed the text (a megabyte has a few hundred
/// thousand tokens).
#[derive(Debug, PartialEq)]
pub struct Spans {
    all: Vec<Span>,
    marked: Vec<(usize, usize)>,
    text: String,
}

/// A stretch of changed tokens: the indices in `Spans::all` of the unchanged tokens around
/// it (`None`: the text's start; `all.len()`: its end), and its rewritten tokens' texts.
type Stretch<'a> = (Option<usize>, usize, Vec<&'a str>);

/// The byte span of a token in a text, and its id.
pub type Span = (usize, usize, TokenId);

/// What [`Spans::splice`] makes: the candidate's text, the hunks that make it from the best's
/// and the spans of the tokens in them (in order).
pub struct Spliced {
    pub text: String,
    pub hunks: Vec<Hunk>,
    pub fresh: Vec<Span>,
}

impl Spans {
    /// If `text` is not made of the program's tokens, there are none: an error region may
    /// be anywhere, every walk starts at the start, and changes are found by a diff.
    pub fn of(prog: &Program, marked: &[bool], text: &str) -> Spans {
        let Some(all) = token_spans(prog, text, &[(0, usize::MAX)], None) else {
            return Spans {
                all: Vec::new(),
                marked: vec![(0, usize::MAX)],
                text: String::new(),
            };
        };
        Spans::new(all, marked, text)
    }

    /// The spans `all` of `text`'s tokens, those `marked` (by token) apart too.
    fn new(all: Vec<Span>, marked: &[bool], text: &str) -> Spans {
        let marked = all.iter().filter(|s| marked[s.2 as usize]);
        Spans {
            marked: marked.map(|s| (s.0, s.1)).collect(),
            all,
            text: text.to_string(),
        }
    }

    /// The spans of the tokens marked as in an error region.
    pub fn marked(&self) -> &[(usize, usize)] {
        &self.marked
    }

    /// Where `edit` changes this program's text, as the bytes between the unchanged tokens
    /// around each stretch of changed ones (white space included), with the texts the
    /// stretch's rewritten tokens now have. `next` is the program after the edit. `None`
    /// if the spans are unknown or the edit lays the text out anew.
    pub fn changes<'a>(
        &self,
        prog: &Program,
        next: &'a Program,
        edit: &Edit,
    ) -> Option<Vec<Change<'a>>> {
        let changes = self.stretches(prog, next, edit)?.into_iter();
        let changes = changes.map(|(before, after, texts)| Change {
            old: self.between(before, after),
            texts,
        });
        Some(changes.collect())
    }

    /// The text of `next` (this program after `edit`, laid out as it was) and the hunks that
    /// make it from this program's: the text between the unchanged tokens around each stretch
    /// of changed ones is unparsed anew, the rest copied (a whole unparse of a megabyte costs
    /// more than the candidate's check). `None` where [`Spans::changes`] is, or for another
    /// layout.
    pub fn splice(&self, prog: &Program, next: &Program, edit: &Edit) -> Option<Spliced> {
        if next.layout != Layout::Original {
            return None;
        }
        let mut out = Spliced {
            text: String::with_capacity(self.text.len()),
            hunks: Vec::new(),
            fresh: Vec::new(),
        };
        let text = &mut out.text;
        let mut copied = 0;
        for (before, after, _) in self.stretches(prog, next, edit)? {
            let old = self.between(before, after);
            text.push_str(&self.text[copied..old.start]);
            let (from, to) = (
                before.map(|i| self.all[i].2),
                self.all.get(after).map(|s| s.2),
            );
            let ids = from.map_or(0, |t| t + 1)..to.unwrap_or(next.tree.tokens.len() as TokenId);
            let kept = ids.filter(|&t| next.kept(t));
            let start = text.len();
            unparse::part(
                text,
                &mut out.fresh,
                &next.tree,
                &next.subst,
                (from, to),
                kept,
            );
            out.hunks.push(Hunk {
                old: old.clone(),
                new: start..text.len(),
            });
            copied = old.end;
        }
        text.push_str(&self.text[copied..]);
        Some(out)
    }

    /// The spans of a program [`Spans::splice`] made (`text`, by `hunks`, with the `fresh`
    /// spans in them), whose tokens `marked` are in an error region: this program's, moved by
    /// the hunks, with the fresh ones in them.
    pub fn after(&self, text: &str, hunks: &[Hunk], fresh: &[Span], marked: &[bool]) -> Spans {
        let mut all = Vec::with_capacity(self.all.len());
        let (mut i, mut fresh) = (0, fresh.iter().copied().peekable());
        let moved = |all: &mut Vec<_>, i: &mut usize, upto: usize, h: Option<&Hunk>| {
            while *i < self.all.len() && self.all[*i].1 <= upto {
                let (s, e, t) = self.all[*i];
                // Past a hunk, by the difference of its ends.
                let m = |x: usize| h.map_or(x, |h| x - h.old.end + h.new.end);
                all.push((m(s), m(e), t));
                *i += 1;
            }
        };
        let mut last: Option<&Hunk> = None;
        for h in hunks {
            moved(&mut all, &mut i, h.old.start, last);
            // The stretch's tokens start before the unchanged token after it.
            while i < self.all.len() && self.all[i].0 < h.old.end {
                i += 1;
            }
            while let Some(f) = fresh.next_if(|f| f.0 < h.new.end) {
                all.push(f);
            }
            last = Some(h);
        }
        moved(&mut all, &mut i, usize::MAX, last);
        Spans::new(all, marked, text)
    }

    /// The bytes between the tokens at indices `before` (`None`: the start) and `after`
    /// (`all.len()`: the end) of `all`.
    fn between(&self, before: Option<usize>, after: usize) -> Range<usize> {
        before.map_or(0, |i| self.all[i].1)..self.all.get(after).map_or(self.text.len(), |s| s.0)
    }

    /// Each stretch of tokens `edit` changes, in order.
    fn stretches<'a>(
        &self,
        prog: &Program,
        next: &'a Program,
        edit: &Edit,
    ) -> Option<Vec<Stretch<'a>>> {
        if self.all.is_empty() || next.layout != prog.layout {
            return None;
        }
        let deleted = edit.delete.iter().flat_map(|r| r.clone());
        let rewritten = edit.replace.iter().map(|(t, _)| *t);
        let mut changed: Vec<TokenId> = deleted
            .chain(rewritten)
            .filter(|&t| prog.kept(t) && (!next.kept(t) || next.text_of(t) != prog.text_of(t)))
            .collect();
        changed.sort_unstable();
        changed.dedup();
        let mut stretches: Vec<Stretch<'a>> = Vec::new();
        for t in changed {
            let at = self.all.partition_point(|s| s.2 < t);
            let after = at + usize::from(self.all.get(at).is_some_and(|s| s.2 == t));
            match stretches.last_mut() {
                // The token after the stretch so far is this one, or comes after it.
                Some(last) if last.1 == at => last.1 = after,
                _ => stretches.push((at.checked_sub(1), after, Vec::new())),
            }
            let text = next.text_of(t);
            if next.kept(t) && !text.trim().is_empty() {
                stretches.last_mut().expect("pushed").2.push(text);
            }
        }
        Some(stretches)
    }

    /// The spans, in the candidate's text, of the tokens that `errors` (in order) lie on or
    /// between where the candidate agrees with this program (before its first hunk and past
    /// its last): those overlapping each, and the one before and after. Also the errors
    /// between, which need a walk over the candidate's tokens.
    pub(super) fn agreed(
        &self,
        agreed: Agreement,
        errors: &[(usize, usize)],
    ) -> (Range<usize>, Vec<Span>) {
        let mut out = Vec::new();
        let mut near = |lo: usize, hi: usize, to_new: &dyn Fn(usize) -> usize| {
            out.extend(
                self.all[lo..hi]
                    .iter()
                    .map(|&(s, e, t)| (to_new(s), to_new(e), t)),
            );
        };
        // Before the first hunk, up to the start of the last token there: the same bytes.
        let mut head = 0;
        if let Some(start) = agreed.head {
            let last = self.all.partition_point(|s| s.1 <= start);
            if let Some(&(s0, _, _)) = last.checked_sub(1).map(|i| &self.all[i]) {
                head = errors.iter().take_while(|e| e.1 <= s0).count();
                for &(s, e) in &errors[..head] {
                    let lo = self.all.partition_point(|x| x.1 <= s).saturating_sub(1);
                    let hi = (self.all.partition_point(|x| x.0 < e) + 1).min(last);
                    near(lo, hi, &|x| x);
                }
            }
        }
        // Past the end of the first token after the last hunk: the same bytes, moved.
        let mut tail = errors.len();
        if let Some((old_end, new_end)) = agreed.tail {
            let first = self.all.partition_point(|s| s.0 < old_end);
            if let Some(&(_, first_end, _)) = self.all.get(first) {
                let to_new = |x: usize| x - old_end + new_end;
                let to_old = |x: usize| x - new_end + old_end;
                tail = head.max(errors.partition_point(|e| e.0 < to_new(first_end)));
                for &(s, e) in &errors[tail..] {
                    let lo = self.all.partition_point(|x| x.1 <= to_old(s)) - 1;
                    let hi =
                        (self.all.partition_point(|x| x.0 < to_old(e)) + 1).min(self.all.len());
                    near(lo, hi, &to_new);
                }
            }
        }
        (head..tail, out)
    }

    /// The span of the last token of this program a candidate has where this program has it:
    /// before the first token the candidate's edit changed, within the text the two share at
    /// their start (up to the first hunk when known) and before the candidate's first error
    /// (`errors` in order). A walk over the candidate's tokens up to it finds these same spans.
    pub(super) fn before(
        &self,
        agreed: Agreement,
        cand_text: &str,
        errors: &[(usize, usize)],
    ) -> Option<Span> {
        let shared = agreed
            .head
            .unwrap_or_else(|| hunks::common_prefix(self.text.as_bytes(), cand_text.as_bytes()));
        let limit = shared.min(errors.first().map_or(usize::MAX, |e| e.0));
        let n = self
            .all
            .partition_point(|s| s.2 < agreed.changed)
            .min(self.all.partition_point(|s| s.1 <= limit));
        n.checked_sub(1).map(|i| self.all[i])
    }
}

/// Byte span of each kept, non-blank token in `text` that `errors` (in order) need, with its
/// id, in order: those that reach into an error or past it, and the one before each such
/// run (what lies between is not kept: a megabyte has a few hundred thousand tokens). Each
/// token's text follows the one before after nothing but white space (tokens cover every
/// other byte; a token may itself begin with white space). `None` if `text` is not made of
/// the candidate's tokens. `from`: a token whose span the walk would find, before every
/// error, to start after.
pub(super) fn token_spans(
    cand: &Program,
    text: &str,
    errors: &[(usize, usize)],
    from: Option<Span>,
) -> Option<Vec<Span>> {
    let tree = &cand.tree;
    let mut spans = Vec::new();
    let (mut pos, mut next) = (from.map_or(0, |s| s.1), 0);
    let mut before = from;
    let first = from.map_or(0, |s| s.2 + 1);
    for t in (first..tree.tokens.len() as TokenId).filter(|&t| cand.kept(t)) {
        if next == errors.len() {
            break; // every error has the token after it
        }
        let token = cand.text_of(t);
        if token.trim().is_empty() {
            continue; // a preprocessor line's newline: white space like any other
        }
        // White space may separate tokens, but a token may begin with it too (a string's
        // contents, ` if x`): the token starts at the latest place in the run where it fits.
        let blank = text[pos..].len() - text[pos..].trim_start().len();
        let at = (pos..=pos + blank)
            .rev()
            .find(|&p| text.is_char_boundary(p) && text[p..].starts_with(token))?;
        let span = (at, at + token.len(), t);
        pos = span.1;
        if span.1 > errors[next].0 {
            // Reaches into the next error or past it: kept, with the token before it.
            spans.extend(before.take());
            spans.push(span);
            while next < errors.len() && span.0 >= errors[next].1 {
                next += 1;
            }
        } else {
            before = Some(span);
        }
    }
    // Errors at the end have no token after them: the last one is theirs.
    spans.extend(before);
    Some(spans)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hunks::tests::apply;
    use crate::hunks::{of_changes, Hunk};
    use crate::reduce::tests::program;
    use crate::rng::Rng;
    use crate::Lang;

    /// One to four deleted ranges of `tokens`, and up to two tokens rewritten to one of
    /// `texts`.
    fn random_edit(rng: &mut Rng, tokens: TokenId, texts: &[&str]) -> Edit {
        let mut edit = Edit::default();
        for _ in 0..1 + rng.below(4) {
            let start = rng.below(tokens as usize) as TokenId;
            let len = rng.below(6) as TokenId;
            edit.delete.push(start..(start + len).min(tokens));
        }
        for _ in 0..rng.below(3) {
            let t = rng.below(tokens as usize) as TokenId;
            edit.replace
                .push((t, texts[rng.below(texts.len())].to_string()));
        }
        edit
    }

    #[test]
    fn an_edits_changes_are_the_hunks_between_the_texts() {
        // Comments, a string with spaces, a preprocessor line, blank lines, an error region.
        let text = "#include <stdio.h>\n\n/* one */ int a = 1;   // two\n\
                    static const char *s = \"  x  y\";\n\n\n\
                    int f(int x) {\n  if (x) { return x + 1; }\n  return @@ 2;\n}\n\
                    struct t { int u, v; } w;\nint g(void) { return f(a) * w.u; }\n";
        let prog = program(Lang::C, text);
        let best = prog.text();
        let spans = Spans::of(&prog, &prog.tree.error_tokens(), &best);
        let tokens = prog.tree.tokens.len() as TokenId;
        let mut rng = Rng::new(7);
        let (mut found, mut tried) = (0, 0);
        for _ in 0..2000 {
            let edit = random_edit(&mut rng, tokens, &["0", "x", "long long"]);
            let next = prog.after(&edit);
            let cand = next.text();
            if cand == best {
                continue;
            }
            tried += 1;
            let changes = spans.changes(&prog, &next, &edit).expect("known spans");
            let Some(hunks) = of_changes(best.as_bytes(), cand.as_bytes(), &changes) else {
                continue;
            };
            found += 1;
            assert_eq!(
                apply(best.as_bytes(), cand.as_bytes(), &hunks),
                cand.as_bytes(),
                "{edit:?}"
            );
            assert_eq!(
                hunks.len(),
                changes.len(),
                "one per stretch of changed tokens"
            );
        }
        // Only a rewrite the unparse glues to a neighbour is not found from the tokens.
        assert!(found * 10 >= tried * 9, "{found} of {tried}");
    }

    #[test]
    fn a_spliced_text_is_the_programs_and_its_hunks_and_spans_are_found_with_it() {
        // As above, with rewrites that fuse with a neighbour or leave nothing, in C and in a
        // program whose first and last tokens go too.
        for (lang, text) in [
            (
                Lang::C,
                "#define N 2\n/* one */ int a = 1;   // two\nstatic const char *s = \"  x  y\";\n\
                 int f(int x) {\n  if (x) { return x+ +1; }\n  return @@ 2;\n}\n\n",
            ),
            (
                Lang::Rust,
                "fn main() {\n    let v = vec![1, 2];\n    v.len() as u8\n}",
            ),
        ] {
            let prog = program(lang, text);
            let best = prog.text();
            let marked = prog.tree.error_tokens();
            let spans = Spans::of(&prog, &marked, &best);
            let tokens = prog.tree.tokens.len() as TokenId;
            let mut rng = Rng::new(11);
            for _ in 0..2000 {
                let texts = ["0", "x", "long long", "", "+", "\"s\""];
                let edit = random_edit(&mut rng, tokens, &texts);
                let next = prog.after(&edit);
                let s = spans.splice(&prog, &next, &edit).expect("known spans");
                assert_eq!(s.text, next.text(), "{edit:?}");
                let cand = s.text.as_bytes();
                assert_eq!(apply(best.as_bytes(), cand, &s.hunks), cand);
                // Its spans, from the best's and its own in the hunks, are found anew.
                let after = spans.after(&s.text, &s.hunks, &s.fresh, &marked);
                assert_eq!(after, Spans::of(&next, &marked, &s.text), "{edit:?}");
            }
        }
    }

    #[test]
    fn changes_that_do_not_describe_the_texts_are_refused() {
        let a = b"int a = 1;\nint b = 2;\nint c = 3;\n";
        let b = b"int a = 1;\nint c = 3;\n";
        let change = |old: std::ops::Range<usize>, texts: Vec<&'static str>| Change { old, texts };
        // From the end of `1;` to the start of `int c`: the line and the white space around.
        let right = [change(10..22, vec![])];
        let hunks = of_changes(a, b, &right).expect("the deleted line");
        assert_eq!(
            hunks,
            [Hunk {
                old: 10..22,
                new: 10..11
            }]
        );
        for wrong in [
            vec![change(0..5, vec![])],
            vec![change(10..21, vec![])],
            vec![change(10..22, vec!["int"])],
            vec![change(10..22, vec![]), change(23..24, vec![])],
        ] {
            assert_eq!(of_changes(a, b, &wrong), None);
        }
    }
}
