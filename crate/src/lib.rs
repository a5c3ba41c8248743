//! Whittle: a program reducer. The engine is sans-IO: a [`session::Session`] hands out
//! candidate programs and takes verdicts; the shells (the native CLI, the browser worker)
//! run the tests. See ../shared/DESIGN.md for the shape.

pub mod pair;
pub mod reduce;
pub mod textdiff;
pub mod tree;
pub mod unparse;

pub use whittle_grammars::{self as grammars, Lang};

#[cfg(not(target_arch = "wasm32"))]
pub mod serve;

#[cfg(target_arch = "wasm32")]
pub mod wasm;
#[cfg(target_arch = "wasm32")]
pub mod wasm_pair;
