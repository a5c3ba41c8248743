//! What a session reduces ([`Subject`]) and what its passes' proposals come to.

use super::{Round, Stats};
use crate::Side;

/// What a pass's proposal came to.
pub enum Proposal<C> {
    /// The pass has nothing more to propose this round.
    Over,
    /// Nothing to test (no change, or a part does not parse): ask the pass again.
    Skip,
    /// A candidate: the text of each part, and what accepting it takes.
    Candidate { texts: Vec<String>, change: C },
}

/// What a session reduces. The engine owns the order of things (speculation, cache,
/// rounds); the subject owns the program(s), the passes and the validity check.
pub trait Subject {
    /// A pass's state, cloned after each proposal (share the big parts with `Rc`).
    type Pass: Clone;
    /// What a candidate carries until it is resolved, to be accepted (masks, trees).
    type Change;
    /// The side of each part, by part index.
    const SIDES: &'static [Side];
    /// The order in which a candidate's parts are tested (the pickier test first).
    const TEST_ORDER: &'static [usize];

    fn strategy_name(&self) -> &'static str;
    fn pass_name(pass: &Self::Pass) -> &'static str;
    /// Whether the pass skipped small edits that a fine round should try.
    fn pass_deferred(pass: &Self::Pass) -> bool;
    /// Whether the pass's candidates are not parsed (see `Pass::beyond_grammar`).
    fn pass_beyond_grammar(_pass: &Self::Pass) -> bool {
        false
    }
    /// The `i`th pass of a round over the current best, fresh; `None` past the last.
    fn pass(&mut self, i: usize, round: Round) -> Option<Self::Pass>;
    /// The `i`th pass of the finale, run once after the fixpoint; `None` past the last.
    fn final_pass(&mut self, _i: usize) -> Option<Self::Pass> {
        None
    }
    /// The pass that just ended changed the best: re-parse it for the next pass.
    fn refresh(&mut self);
    fn propose(&mut self, pass: &mut Self::Pass, stats: &mut Stats) -> Proposal<Self::Change>;
    /// The candidate with these texts and this change is the new best; `pass` proposed it.
    fn accept(&mut self, texts: Vec<String>, change: Self::Change, pass: &mut Self::Pass);
    /// The session is over (done or stopped): make every figure exact.
    fn finish(&mut self) {}
    /// Size of the best, in counted tokens (all parts).
    fn size(&self) -> usize;
    fn bytes(&self) -> usize;
}
