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
    // Tokens past the last error do not matter (but the one after it, for an empty error).
    let until = errors.iter().map(|e| e.1).max().unwrap_or(0);
    let Some(spans) = token_spans(cand, text, until) else {
        return false; // the text is not the candidate's tokens: judge it broken
    };
    let in_error = |i: usize| marked[spans[i].2 as usize];
    errors.iter().all(|&(start, end)| {
        // Tokens that overlap the error node, or around a node with no text of its own.
        let first = spans.partition_point(|s| s.1 <= start);
        let last = spans.partition_point(|s| s.0 < end);
        if first < last {
            (first..last).all(in_error)
        } else {
            [first.checked_sub(1), (first < spans.len()).then_some(first)]
                .into_iter()
                .flatten()
                .all(in_error)
        }
    })
}

/// Byte span of each kept, non-blank token in `text`, with its id, in order, up to the
/// first that starts past byte `until`: each token's text follows the one before after
/// nothing but white space (tokens cover every other byte; a token may itself begin with
/// white space). `None` if `text` is not made of the candidate's tokens.
fn token_spans(cand: &Program, text: &str, until: usize) -> Option<Vec<(usize, usize, TokenId)>> {
    let tree = &cand.tree;
    let mut spans = Vec::new();
    let mut pos = 0;
    for t in (0..tree.tokens.len() as TokenId).filter(|&t| cand.kept(t)) {
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
        spans.push((at, at + token.len(), t));
        pos = at + token.len();
        if at > until {
            break;
        }
    }
    Some(spans)
}
