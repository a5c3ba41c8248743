//! Whittle's engine: a program reducer with no I/O. A [`reduce::Session`] (one program) or a
//! [`pair::PairSession`] (a seed and a variant) hands out [`query::Query`]s (one program
//! text for one side) and takes verdicts; the shells (the `whittle` CLI, the browser worker
//! through `whittle-wasm`) run the tests. No clock, no environment, no target-specific code:
//! the same verdicts give the same result everywhere. See `docs/architecture.md`.

pub mod catalog;
pub mod digest;
pub mod folder;
pub mod generator;
mod hunks;
pub mod input_error;
pub mod layout;
pub mod literal;
pub mod pair;
pub mod parse_report;
pub mod query;
pub mod recipe;
pub mod recording;
pub mod reduce;
pub mod rng;
mod sorted;
pub mod textdiff;
pub mod tree;
pub mod unparse;
pub mod window;
pub mod witness;

pub use input_error::InputError;
pub use query::{Queries, Query, Side};
pub use recording::Recording;
pub use whittle_grammars::{self as grammars, Lang};
