//! Tolerant validity: a program the grammar cannot fully parse (preprocessed C++, compiler
//! extensions, a grammar's gaps) is reduced, not refused. Validity becomes relative to the
//! program the round started from: a candidate may keep or shrink its error regions but may
//! not add one. Each error node of the candidate's tree (ERROR, or MISSING) must lie on
//! tokens that were in an error region of the round's tree; so no candidate that broke
//! what parsed is ever queried, and an error region that vanishes is a win like any other.

use super::Program;
use crate::tree::TokenId;

/// Whether every error of `text` (the unparse of `cand`; `errors`, the byte ranges of its
/// outermost error nodes) lies on tokens `marked` as erroneous in the round's tree (see
/// [`crate::tree::Tree::error_tokens`]).
pub fn adds_no_error(
    cand: &Program,
    marked: &[bool],
    text: &str,
    errors: &[(usize, usize)],
) -> bool {
    // Not made of the candidate's tokens: judged broken.
    tokens_in_errors(cand, text, errors)
        .is_some_and(|tokens| tokens.iter().all(|&t| marked[t as usize]))
}

/// The byte spans in `text` (the unparse of `prog`) of its kept tokens `marked` as in an
/// error region, in order; `None` if `text` is not made of the program's tokens. Found once
/// for the best program, they tell at once whether a window of a candidate holds one.
pub fn marked_spans(prog: &Program, marked: &[bool], text: &str) -> Option<Vec<(usize, usize)>> {
    let spans = token_spans(prog, text, &[(0, usize::MAX)])?;
    let marked = spans.into_iter().filter(|s| marked[s.2 as usize]);
    Some(marked.map(|s| (s.0, s.1)).collect())
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
    for t in tokens_in_errors(prog, text, errors).unwrap_or_default() {
        marked[t as usize] = true;
    }
}

/// The tokens of `cand` (unparsed as `text`) under the error nodes `errors`: those that
/// overlap one, or those around one with no text of its own. `None` if `text` is not made
/// of the candidate's tokens.
fn tokens_in_errors(cand: &Program, text: &str, errors: &[(usize, usize)]) -> Option<Vec<TokenId>> {
    let mut errors = errors.to_vec();
    errors.sort_unstable();
    let spans = token_spans(cand, text, &errors)?;
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
/// the candidate's tokens.
fn token_spans(
    cand: &Program,
    text: &str,
    errors: &[(usize, usize)],
) -> Option<Vec<(usize, usize, TokenId)>> {
    let tree = &cand.tree;
    let mut spans = Vec::new();
    let (mut pos, mut next) = (0, 0);
    let mut before: Option<(usize, usize, TokenId)> = None;
    for t in (0..tree.tokens.len() as TokenId).filter(|&t| cand.kept(t)) {
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
