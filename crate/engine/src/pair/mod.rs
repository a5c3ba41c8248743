//! Pairwise program reduction (PPR, Zhang et al., ESEC/FSE 2023): a seed that does not
//! show a behaviour and a variant that does are reduced together, so that both get small
//! and the difference between them shrinks to what triggers the behaviour.
//!
//! A [`PairSession`] is the same sans-IO session as a single program's (speculation in
//! generation order, verdict cache, replay), over candidates of two parts: the shell runs
//! each query (one side's text) with that side's property and reports its verdict. The
//! variant is asked first and the seed only once the variant passed. A pair is accepted when
//! both hold. Each side's verdicts are cached by its text, so while only the variant changes
//! (MinTDiff, MinLDiff) the seed costs no test.
//!
//! Passes, repeated to a fixpoint: MinTDiff (ddmin over the tree edits from seed to
//! variant, see [`treediff`] and [`groups`]), MinLDiff (ddmin over token hunks, see
//! [`align`]), MinCommonality (the single-program passes on each side, deleting what both
//! share from both). See [`program`] for how a pair is represented and patched.

pub mod align;
pub mod close;
pub mod groups;
pub mod passes;
pub mod program;
pub mod subject;
pub mod treediff;

pub use program::{Side, Sizes};
pub use subject::Pair;

use crate::reduce::{Engine, Stats};
use crate::tree::Parser;
use crate::{InputError, Lang, Recording};
use program::PairProgram;
use serde::Serialize;

/// A session reducing a seed and a variant together.
pub type PairSession = Engine<Pair>;

/// A pair's settings: those of a single program, whose strategy's passes MinCommonality runs.
pub type PairSettings = crate::reduce::Settings;

#[derive(Clone, Debug, Serialize)]
pub struct PairStats {
    #[serde(flatten)]
    pub session: Stats,
    pub seed_tokens_before: usize,
    pub seed_tokens_after: usize,
    pub variant_tokens_before: usize,
    pub variant_tokens_after: usize,
    pub diff_tokens_before: usize,
    pub diff_tokens_after: usize,
    pub seed_queries: u64,
    pub variant_queries: u64,
}

impl PairStats {
    /// A session's figures, with the pair's sizes before and now and each side's queries.
    pub fn new(session: Stats, before: Sizes, now: Sizes, queries: &[u64]) -> PairStats {
        PairStats {
            session,
            seed_tokens_before: before.seed,
            seed_tokens_after: now.seed,
            variant_tokens_before: before.variant,
            variant_tokens_after: now.variant,
            diff_tokens_before: before.diff,
            diff_tokens_after: now.diff,
            seed_queries: queries[0],
            variant_queries: queries[1],
        }
    }
}

/// The minimized pair and its difference.
#[derive(Clone, Debug, Serialize)]
pub struct PairBest {
    pub seed: String,
    pub variant: String,
    /// A unified diff from seed to variant.
    pub diff: String,
    /// Tokens only one of them has (exact once the session is over; until then it may count
    /// a few more).
    pub diff_tokens: usize,
}

impl Pair {
    /// A seed and a variant ready to reduce. One the grammar cannot fully parse is reduced
    /// tolerantly (no candidate may add a syntax error to its side), or refused with
    /// `settings.strict`.
    pub fn open(
        lang: Lang,
        seed: &str,
        variant: &str,
        settings: PairSettings,
    ) -> Result<Pair, InputError> {
        let mut parser = Parser::new(lang);
        parser.set_cross_check(settings.cross_check);
        let mut parse = |side: Side, text: &str| {
            let (tree, raw) = parser.parse_with_raw(text);
            match tree.error.clone() {
                Some(error) if settings.strict => Err(InputError {
                    side: Some(side),
                    lang,
                    error,
                }),
                _ => Ok((tree, raw)),
            }
        };
        let (st, sr) = parse(Side::Seed, seed)?;
        let (vt, vr) = parse(Side::Variant, variant)?;
        let regions = [&sr, &vr].map(crate::tree::error_ranges);
        parser.set_tolerant(regions.iter().any(|r| !r.is_empty()));
        let prog = PairProgram::new(st, vt);
        let sizes = prog.sizes();
        Ok(Pair {
            parser,
            strategy: settings.strategy,
            skipped: settings.skipped,
            format: settings.format,
            prog,
            best: [seed.to_string(), variant.to_string()],
            raw: [sr, vr],
            regions,
            sizes,
            before: sizes,
            fresh: true,
            equal_ok: false,
        })
    }

    /// The best seed and variant.
    pub fn texts(&self) -> [&str; 2] {
        [&self.best[0], &self.best[1]]
    }

    /// Sizes of seed, variant and diff now.
    pub fn sizes(&self) -> Sizes {
        self.sizes
    }
}

impl Engine<Pair> {
    /// A session over a seed and a variant (see [`Pair::open`]).
    pub fn new(
        lang: Lang,
        seed: &str,
        variant: &str,
        settings: PairSettings,
    ) -> Result<PairSession, InputError> {
        let subject = Pair::open(lang, seed, variant, settings)?;
        Ok(Engine::start(
            subject,
            vec![seed.to_string(), variant.to_string()],
        ))
    }

    /// A session that replays a recording (see [`Engine::recording`]) with `step`.
    pub fn replay(
        lang: Lang,
        seed: &str,
        variant: &str,
        settings: PairSettings,
        recording: Recording,
    ) -> Result<PairSession, InputError> {
        Ok(PairSession::new(lang, seed, variant, settings)?.into_replay(recording))
    }

    /// How many syntax error regions the seed's and the variant's best texts hold (reduced
    /// tolerantly when any).
    pub fn error_regions(&self) -> [usize; 2] {
        self.subject().regions.each_ref().map(Vec::len)
    }

    pub fn best_seed(&self) -> &str {
        &self.subject().best[0]
    }

    pub fn best_variant(&self) -> &str {
        &self.subject().best[1]
    }

    pub fn best(&self) -> PairBest {
        let (seed, variant) = (self.best_seed(), self.best_variant());
        PairBest {
            seed: seed.to_string(),
            variant: variant.to_string(),
            diff: unified_diff(seed, variant, "seed", "variant"),
            diff_tokens: self.subject().sizes.diff,
        }
    }

    /// Sizes of seed, variant and diff now.
    pub fn sizes(&self) -> Sizes {
        self.subject().sizes
    }

    pub fn pair_stats(&self) -> PairStats {
        let subject = self.subject();
        PairStats::new(
            self.stats().clone(),
            subject.before,
            subject.sizes,
            self.part_queries(),
        )
    }

    pub fn lang(&self) -> Lang {
        self.subject().parser.lang()
    }
}

/// A unified diff (three lines of context) from `seed` to `variant`.
pub fn unified_diff(seed: &str, variant: &str, seed_name: &str, variant_name: &str) -> String {
    similar::TextDiff::from_lines(seed, variant)
        .unified_diff()
        .context_radius(3)
        .header(seed_name, variant_name)
        .to_string()
}

#[cfg(test)]
mod tests;
