//! Witnesses (DiWi): programs near a failing one that the compiler accepts and that do not
//! fail, found by mutating the failing program; their coverage against the failing
//! program's ranks the compiler's files and functions by suspiciousness.

pub mod coverage;

pub use coverage::{rank, Coverage, Profile, Ranking, Suspect};
