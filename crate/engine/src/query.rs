//! What the engine asks a shell to test: one program text for one side.

use serde::Serialize;

/// The two sides of a reduction. A single program is the variant: the side that shows the
/// behaviour; a pair adds the seed, which must not show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Seed,
    Variant,
}

whittle_grammars::names!(Side {
    Seed => "seed",
    Variant => "variant",
});

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One test to run: `text` under `side`'s property. The shell reports its verdict by `id`
/// ([`crate::reduce::Engine::report`]) and may drop it once
/// [`crate::reduce::Engine::wants`] says no.
#[derive(Clone, Debug, Serialize)]
pub struct Query {
    pub id: u64,
    /// The candidate this query tests a side of.
    pub candidate: u64,
    pub side: Side,
    pub text: String,
    /// Whether this tests the original input: if it fails there is nothing to reduce.
    pub original: bool,
}

/// A run that hands out queries and takes back what their tests said: a reduction
/// ([`crate::reduce::Engine`], answered by verdicts) or a witness search
/// ([`crate::witness::WitnessSearch`], answered by observations). A shell drives every one
/// with the same loop.
pub trait Queries {
    /// What a test says of a query.
    type Answer;
    /// Up to `k` queries to run now (maybe none while answers are awaited).
    fn next(&mut self, k: usize) -> Vec<Query>;
    /// The answer to query `id`.
    fn report(&mut self, id: u64, answer: Self::Answer);
    /// Whether query `id`'s answer is still wanted (a test not wanted may be killed).
    fn wants(&self, id: u64) -> bool;
    /// Whether the run is over.
    fn done(&self) -> bool;
    /// Whether the last `next` stopped for its bounded work, not to await answers: calling
    /// again at once may give more.
    fn more(&self) -> bool {
        false
    }
}
