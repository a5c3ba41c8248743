//! Generator-based reduction (GReduce, Ren et al., ISSTA 2024): instead of deleting parts of a
//! generated program, which breaks whatever its generator guaranteed (variables declared
//! before use, two equal lines, a checksum), re-run the generator with fewer loop iterations
//! and fewer optional parts, so that every candidate is a valid output.
//!
//! A generator makes its random choices through a [`Source`]: integers, picks, reducible
//! loops ([`Source::repeat`]) and reducible selections ([`Source::maybe_do`]), each with a
//! label naming its call site. A free run draws them from a seeded pseudo-random sequence and
//! is recorded as a [`Trace`]: a tree whose units are loop iterations and taken selections.
//! The session reduces that tree with HDD (ddmin over the units of each level, the outermost
//! first), or, as the baseline, ddmin over the flat sequence of decisions (what
//! choice-sequence shrinkers such as Hypothesis do); each candidate is a re-run of the
//! generator with the reduced trace, aligned to the new run by an [`Align`] strategy, and
//! what is tested is its output. The generator itself runs in the shell: a Rust
//! [`Generator`], a JavaScript function in the page's worker, or a process speaking the line
//! protocol of `whittle generate`.

mod source;
mod subject;
mod trace;

#[cfg(test)]
mod tests;

pub use source::{Align, Halt, Source};
pub use subject::Generated;
pub use trace::{Node, Trace, TraceUnit};

use crate::reduce::Engine;
use crate::Recording;
use std::rc::Rc;

/// A program that makes its output from the decisions of a [`Source`]. It must decide only
/// through the source, so that the same decisions always give the same output.
pub trait Generator {
    fn run(&mut self, source: &mut Source) -> Result<String, Halt>;
}

impl<F: FnMut(&mut Source) -> Result<String, Halt>> Generator for F {
    fn run(&mut self, source: &mut Source) -> Result<String, Halt> {
        self(source)
    }
}

/// How the trace is reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceStrategy {
    /// HDD over the trace tree (GReduce's choice).
    Hdd,
    /// ddmin over the flat sequence of decisions (the baseline).
    Ddmin,
}

whittle_grammars::names!(TraceStrategy {
    Hdd => "hdd",
    Ddmin => "ddmin",
});

#[derive(Clone, Copy, Debug)]
pub struct GeneratorSettings {
    /// The random seed of the free run.
    pub rng_seed: u64,
    pub align: Align,
    pub trace: TraceStrategy,
}

impl Default for GeneratorSettings {
    fn default() -> Self {
        GeneratorSettings {
            rng_seed: 0,
            align: Align::Realign,
            trace: TraceStrategy::Hdd,
        }
    }
}

/// A session reducing a generator's run.
pub type GeneratorSession<G> = Engine<Generated<G>>;

impl<G: Generator> Engine<Generated<G>> {
    /// A session over `generator`'s free run from `settings.rng_seed`: that run's output is the
    /// original. `Err` when the generator fails on it.
    pub fn new(mut generator: G, settings: GeneratorSettings) -> Result<Self, Halt> {
        let mut source = Source::free(settings.rng_seed);
        let output = generator.run(&mut source)?;
        let trace = Rc::new(source.finish()?);
        // Replays are only as good as the generator is deterministic: check it once.
        let mut again = Source::replay(&trace, Align::Halt);
        if generator.run(&mut again).as_ref() != Ok(&output) {
            return Err(Halt(
                "the generator is not deterministic: two runs from the same seed made different outputs (make every choice through g)".into(),
            ));
        }
        let units = subject::units_of(settings.trace, &trace).len();
        let subject = Generated {
            generator,
            align: settings.align,
            strategy: settings.trace,
            base: trace.clone(),
            deleted: Rc::new(vec![false; units]),
            best: output.clone(),
            best_trace: trace.clone(),
            original: output.clone(),
            original_trace: trace,
            failed_runs: 0,
        };
        Ok(Engine::start(subject, vec![output]))
    }

    /// A session that takes its verdicts from a recording; `step` runs it (the generator
    /// runs again, the tests do not).
    pub fn replay(
        generator: G,
        settings: GeneratorSettings,
        recording: Recording,
    ) -> Result<Self, Halt> {
        Ok(Self::new(generator, settings)?.into_replay(recording))
    }

    /// The smallest interesting output so far.
    pub fn best(&self) -> &str {
        &self.subject().best
    }

    /// The trace the best output's run recorded.
    pub fn trace(&self) -> &Trace {
        &self.subject().best_trace
    }

    /// The free run's output and trace: the original.
    pub fn original(&self) -> (&str, &Trace) {
        let s = self.subject();
        (&s.original, &s.original_trace)
    }

    /// Generator runs that halted or failed (not tested).
    pub fn failed_runs(&self) -> u64 {
        self.subject().failed_runs
    }
}
