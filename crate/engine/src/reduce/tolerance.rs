//! Tolerant validity: a program the grammar cannot fully parse (preprocessed C++, compiler
//! extensions, a grammar's gaps) is reduced, not refused. Validity becomes relative to the
//! program the round started from: a candidate may keep or shrink its error regions but may
//! not add one. Each error node of the candidate's tree (ERROR, or MISSING) must lie on
//! tokens that were in an error region of the round's tree; so no candidate that broke
//! what parsed is ever queried, and an error region that vanishes is a win like any other.

use super::Program;
use crate::hunks;
use crate::tree::TokenId;

/// Whether every error of `text` (the unparse of `cand`; `errors`, the byte ranges of its
/// outermost error nodes) lies on tokens `marked` as erroneous in the round's tree (see
/// [`crate::tree::Tree::error_tokens`]). `best` is what the candidate was made from, with
/// its first token the edit changed: where the two agree, its spans are the candidate's.
pub fn adds_no_error(
    cand: &Program,
    marked: &[bool],
    text: &str,
    errors: &[(usize, usize)],
    best: Option<(&Spans, TokenId)>,
) -> bool {
    // Not made of the candidate's tokens: judged broken.
    tokens_in_errors(cand, text, errors, best)
        .is_some_and(|tokens| tokens.iter().all(|&t| marked[t as usize]))
}

/// The byte spans of a program's kept, non-blank tokens in its text (`text`), in order, and
/// of those `marked` as in an error region. Found once for the best program, they tell at
/// once whether a window of a candidate holds an error region, and where a walk over a
/// candidate's tokens may start (a megabyte has a few hundred thousand).
pub struct Spans {
    all: Vec<(usize, usize, TokenId)>,
    marked: Vec<(usize, usize)>,
    text: String,
}

impl Spans {
    /// If `text` is not made of the program's tokens, an error region may be anywhere, and
    /// no walk starts late.
    pub fn of(prog: &Program, marked: &[bool], text: &str) -> Spans {
        let Some(all) = token_spans(prog, text, &[(0, usize::MAX)], None) else {
            return Spans {
                all: Vec::new(),
                marked: vec![(0, usize::MAX)],
                text: String::new(),
            };
        };
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

    /// The span of the last token of this program a candidate has where this program has it:
    /// before `changed` (the first token the candidate's edit changed), within the text the
    /// two share at their start, and before the candidate's first error (`errors` in order).
    /// A walk over the candidate's tokens up to it finds these same spans.
    fn before(
        &self,
        changed: TokenId,
        cand_text: &str,
        errors: &[(usize, usize)],
    ) -> Option<(usize, usize, TokenId)> {
        let shared = hunks::common_prefix(self.text.as_bytes(), cand_text.as_bytes());
        let limit = shared.min(errors.first().map_or(usize::MAX, |e| e.0));
        let n = self
            .all
            .partition_point(|s| s.2 < changed)
            .min(self.all.partition_point(|s| s.1 <= limit));
        n.checked_sub(1).map(|i| self.all[i])
    }
}

/// Whether one of `spans` overlaps one of `ranges` (both in order, apart).
pub fn overlaps(spans: &[(usize, usize)], ranges: &[(usize, usize)]) -> bool {
    spans.iter().any(|&span| spans_overlap(ranges, span))
}

/// Whether `span` overlaps one of `spans` (in order, apart).
fn spans_overlap(spans: &[(usize, usize)], (s, e): (usize, usize)) -> bool {
    let i = spans.partition_point(|r| r.1 <= s);
    spans.get(i).is_some_and(|r| r.0 < e)
}

/// Marks the tokens `errors` lie on in an accepted program: the test took it, so what the
/// grammar cannot parse there is an error region from now on (a window may pass what a
/// parse of the whole finds an error in), and candidates that keep it are not refused.
pub fn mark_errors(prog: &Program, marked: &mut [bool], text: &str, errors: &[(usize, usize)]) {
    for t in tokens_in_errors(prog, text, errors, None).unwrap_or_default() {
        marked[t as usize] = true;
    }
}

/// The tokens of `cand` (unparsed as `text`) under the error nodes `errors`: those that
/// overlap one, or those around one with no text of its own. `None` if `text` is not made
/// of the candidate's tokens. `best`: see [`adds_no_error`].
fn tokens_in_errors(
    cand: &Program,
    text: &str,
    errors: &[(usize, usize)],
    best: Option<(&Spans, TokenId)>,
) -> Option<Vec<TokenId>> {
    let mut errors = errors.to_vec();
    errors.sort_unstable();
    let from = best.and_then(|(spans, changed)| spans.before(changed, text, &errors));
    let spans = token_spans(cand, text, &errors, from)?;
    let mut tokens = Vec::new();
    for &(start, end) in &errors {
        let first = spans.partition_point(|s| s.1 <= start);
        let last = spans.partition_point(|s| s.0 < end);
        if first < last {
            tokens.extend(spans[first..last].iter().map(|s| s.2));
        } else {
            let around = [first.checked_sub(1), (first < spans.len()).then_some(first)];
            tokens.extend(around.into_iter().flatten().map(|i| spans[i].2));
        }
    }
    Some(tokens)
}

/// Byte span of each kept, non-blank token in `text` that `errors` (in order) need, with its
/// id, in order: those that reach into an error or past it, and the one before each such
/// run (what lies between is not kept: a megabyte has a few hundred thousand tokens). Each
/// token's text follows the one before after nothing but white space (tokens cover every
/// other byte; a token may itself begin with white space). `None` if `text` is not made of
/// the candidate's tokens. `from`: a token whose span the walk would find, before every
/// error, to start after.
fn token_spans(
    cand: &Program,
    text: &str,
    errors: &[(usize, usize)],
    from: Option<(usize, usize, TokenId)>,
) -> Option<Vec<(usize, usize, TokenId)>> {
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
