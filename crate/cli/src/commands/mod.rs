//! One module a subcommand.

pub mod args;
pub mod coverage;
pub mod generate;
pub mod pair;
pub mod parse;
pub mod reduce;
pub mod serve;
pub mod witness;
