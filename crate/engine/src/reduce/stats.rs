//! The figures of a session: what it did overall, what each pass did, and the history of
//! accepted steps.

use serde::Serialize;

#[derive(Clone, Debug, Default, Serialize)]
pub struct Stats {
    /// Tests run: verdicts received for candidates (for pairs, for each side tested).
    pub queries: u64,
    /// Candidates answered from the verdict cache instead.
    pub cache_hits: u64,
    /// Candidates dropped before querying because they did not parse.
    pub invalid_skipped: u64,
    /// Candidates sent to a test that did not parse: always 0, by construction.
    pub invalid_queries: u64,
    /// Queries of candidates the grammar cannot parse but the language allows, asked only
    /// when the settings say so (C's implicit int, in the finale; see `Pass::beyond_grammar`).
    pub unparsed_queries: u64,
    /// Verdicts that came back for candidates made obsolete by an earlier success.
    pub stale_verdicts: u64,
    pub errors: u64,
    pub accepted: u64,
    pub tokens_before: usize,
    pub tokens_now: usize,
    pub bytes_before: usize,
    pub bytes_now: usize,
    pub pass: String,
    pub round: usize,
    pub in_flight: usize,
    /// `None` until the original program's verdict is in.
    pub original_interesting: Option<bool>,
    pub done: bool,
    /// What each pass did, in the order the passes first ran.
    pub passes: Vec<PassStats>,
}

/// What one pass did over the whole session, all rounds together.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PassStats {
    pub pass: &'static str,
    /// Tests run for its candidates (stale ones included).
    pub queries: u64,
    pub cache_hits: u64,
    pub invalid_skipped: u64,
    /// Its candidates that became the best.
    pub accepted: u64,
    /// Tokens and bytes its accepted candidates removed (negative when they added some).
    pub tokens_removed: i64,
    pub bytes_removed: i64,
}

impl Stats {
    /// The figures of pass `name`, made on first use.
    pub(super) fn pass_mut(&mut self, name: &'static str) -> &mut PassStats {
        let i = match self.passes.iter().position(|p| p.pass == name) {
            Some(i) => i,
            None => {
                self.passes.push(PassStats {
                    pass: name,
                    ..PassStats::default()
                });
                self.passes.len() - 1
            }
        };
        &mut self.passes[i]
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct HistoryStep {
    pub strategy: &'static str,
    pub pass: &'static str,
    pub round: usize,
    pub tokens_before: usize,
    pub tokens_after: usize,
    pub queries: u64,
}
