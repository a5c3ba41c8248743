//! Witnesses (DiWi): programs near a failing one that the compiler accepts and that do not
//! fail, found by mutating the failing program ([`rules`], [`mutant`]) in a search guided by
//! how much each rule's witnesses add to the diversity of the compiler's runs
//! ([`search`]). Their coverage against the failing program's ranks the compiler's files
//! and functions by suspiciousness ([`coverage`]). A witness is also the seed pairwise
//! reduction needs when a user has only the failing program.

pub mod coverage;
pub mod mutant;
pub mod pointed;
pub mod rules;
mod scopes;
pub mod search;

pub use coverage::{rank, Coverage, Profile, Ranking, Suspect};
pub use mutant::{Change, Mutant, Mutation};
pub use pointed::{messages_about, pointed_lines, pointed_lines_of};
pub use rules::{Rule, RuleSites, Site};
pub use search::{
    Keep, MutantOutcome, Observation, OriginalState, RuleStats, Selection, Witness, WitnessSearch,
    WitnessSettings, WitnessStats,
};
