//! Tolerant validity: a program the grammar cannot fully parse (preprocessed C++, compiler
//! extensions, a grammar's gaps) is reduced, not refused. Validity becomes relative to the
//! program the round started from: a candidate may keep or shrink its error regions but may
//! not add one. Each error node of the candidate's tree (ERROR, or MISSING) must lie on
//! tokens that were in an error region of the round's tree; so no candidate that broke
//! what parsed is ever queried, and an error region that vanishes is a win like any other.

use super::spans::{token_spans, Agreement, Spans};
use super::Program;
use crate::tree::TokenId;

/// Whether every error of `text` (the unparse of `cand`; `errors`, the byte ranges of its
/// outermost error nodes) lies on tokens `marked` as erroneous in the round's tree (see
/// [`crate::tree::Tree::error_tokens`]). `best` is what the candidate was made from, with
/// where the two agree: there its spans are the candidate's.
pub fn adds_no_error(
    cand: &Program,
    marked: &[bool],
    text: &str,
    errors: &[(usize, usize)],
    best: Option<(&Spans, Agreement)>,
) -> bool {
    // Not made of the candidate's tokens: judged broken.
    tokens_in_errors(cand, text, errors, best)
        .is_some_and(|tokens| tokens.iter().all(|&t| marked[t as usize]))
}

/// Marks the tokens `errors` lie on in an accepted program: the test took it, so what the
/// grammar cannot parse there is an error region from now on (a window may pass what a
/// parse of the whole finds an error in), and candidates that keep it are not refused.
/// `best`: see [`adds_no_error`].
pub fn mark_errors(
    prog: &Program,
    marked: &mut [bool],
    text: &str,
    errors: &[(usize, usize)],
    best: Option<(&Spans, Agreement)>,
) {
    for t in tokens_in_errors(prog, text, errors, best).unwrap_or_default() {
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
    best: Option<(&Spans, Agreement)>,
) -> Option<Vec<TokenId>> {
    let mut errors = errors.to_vec();
    errors.sort_unstable();
    // Before the edit's first change and past its last, the tokens are the best's (moved):
    // only the errors between need a walk over the candidate's tokens.
    let (walked, mut spans) = match best {
        Some((spans, agreed)) => spans.agreed(agreed, &errors),
        None => (0..errors.len(), Vec::new()),
    };
    let between = &errors[walked];
    let from = best.and_then(|(spans, agreed)| spans.before(agreed, text, between));
    spans.extend(token_spans(cand, text, between, from)?);
    spans.sort_unstable();
    spans.dedup();
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
