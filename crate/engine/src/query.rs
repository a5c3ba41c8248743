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
