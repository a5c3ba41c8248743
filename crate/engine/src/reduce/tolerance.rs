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
    // Tokens past the last error do not matter (but the one after it, for an empty error).
    let until = errors.iter().map(|e| e.1).max().unwrap_or(0);
    let spans = token_spans(cand, text, until)?;
    let mut tokens = Vec::new();
    for &(start, end) in errors {
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
