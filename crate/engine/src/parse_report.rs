//! What `whittle parse` and the page's parse panel show about a program. The time the parse
//! took is the shell's to measure (the engine has no clock) and to fill in.

use crate::tree::{Node, SyntaxError, Tree};
use crate::unparse::unparse;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct ParseReport {
    pub lang: &'static str,
    pub tokens: usize,
    pub bytes: usize,
    /// Whether the tree has no ERROR or MISSING node.
    pub ok: bool,
    /// The first error, if any.
    pub error: Option<SyntaxError>,
    /// Counted tokens in error regions (under ERROR nodes, or beside MISSING ones): the
    /// grammar covers `tokens - error_tokens` of them.
    pub error_tokens: usize,
    /// Whether unparsing the tree with every token kept gives back the text byte for byte.
    pub round_trip: bool,
    /// Milliseconds the parse took, as the shell measured it.
    pub parse_ms: f64,
    /// The nodes, when asked for (byte offsets into the UTF-8 text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree: Option<Vec<Node>>,
}

impl ParseReport {
    /// The report on `tree`, the parse of `text`; with `want_tree`, the nodes too.
    pub fn of(tree: &Tree, text: &str, parse_ms: f64, want_tree: bool) -> ParseReport {
        ParseReport {
            lang: tree.lang.name(),
            tokens: tree.size(),
            bytes: text.len(),
            ok: !tree.has_error(),
            error: tree.error.clone(),
            error_tokens: {
                let (covered, all) = tree.grammar_coverage(&vec![true; tree.tokens.len()]);
                all - covered
            },
            round_trip: unparse(tree, &vec![true; tree.tokens.len()]) == text,
            parse_ms,
            tree: want_tree.then(|| tree.nodes.clone()),
        }
    }
}
