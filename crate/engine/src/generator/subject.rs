//! A generator's run as the [`Subject`] of a session: candidates are re-runs of the generator
//! with a reduced trace, and what is tested is their output.

use super::source::{Align, Halt, Source};
use super::trace::{Trace, TraceUnit};
use super::{Generator, TraceStrategy};
use crate::reduce::ddmin::Chunks;
use crate::reduce::{Proposal, Round, Stats, Subject};
use crate::Side;
use std::rc::Rc;

/// The generator's run under reduction.
pub struct Generated<G: Generator> {
    pub(super) generator: G,
    pub(super) align: Align,
    pub(super) strategy: TraceStrategy,
    /// The trace of the best output's last exact run, and the units deleted from it since.
    pub(super) base: Rc<Trace>,
    pub(super) deleted: Rc<Vec<bool>>,
    pub(super) best: String,
    /// The free run's output and trace.
    pub(super) original: String,
    pub(super) original_trace: Rc<Trace>,
    /// The trace the best's run recorded (what the next pass starts from).
    pub(super) best_trace: Rc<Trace>,
    /// Runs of the generator that halted or failed.
    pub(super) failed_runs: u64,
}

/// A pass over the trace.
#[derive(Clone)]
pub enum TracePass {
    Delete(DeletePass),
    Hoist(HoistPass),
    Choose(ChoosePass),
}

/// ddmin over the units of each level in turn (HDD), or over the decisions of the flat
/// sequence.
#[derive(Clone)]
pub struct DeletePass {
    /// Unit numbers by level (one level for the flat sequence).
    levels: Rc<Vec<Vec<u32>>>,
    /// Each unit's enclosing unit (none for the flat sequence).
    parents: Rc<Vec<Option<u32>>>,
    level: usize,
    dd: Option<Chunks>,
}

/// Each unit replaced by one inside it of its own label and kind (a statement by a statement
/// nested in it, an operation by one nested in its operand), units in preorder and for each the
/// replacements in preorder: a nested part hoisted, which deleting units cannot do. HDD
/// only; the flat baseline stays plain ddmin.
#[derive(Clone)]
pub struct HoistPass {
    /// [`Trace::same_kind_descendants`] of the best's trace.
    hoists: Rc<Vec<(u32, Vec<u32>)>>,
    /// The unit being replaced (preorder number in the best's trace; units before it are
    /// done), and which of its replacements is next.
    unit: u32,
    replacement: usize,
}

impl HoistPass {
    fn new(trace: &Trace) -> HoistPass {
        HoistPass {
            hoists: Rc::new(trace.same_kind_descendants()),
            unit: 0,
            replacement: 0,
        }
    }
}

/// Each plain decision (a pick, an integer) given the other values of its range, as
/// choice-sequence shrinkers do with each choice, but on the tree and kept only where the output
/// is shorter: of the re-runs whose output is shorter, the shortest is tested (one test per
/// decision: each is a compile and run, and testing a second gained nothing measured). What no
/// deletion or hoist can reach: an operand's kind, a constant, a type, a callee. Every re-run is
/// still the generator's own output. HDD only.
#[derive(Clone)]
pub struct ChoosePass {
    /// The next plain decision to change (in the order of [`Trace::ints`] of the best's trace).
    at: usize,
}

/// The values tried for a decision of `value` in `lo..=hi`: all of a small range (picks are
/// lists of a few choices); of a wide one, those toward its smallest (each a generator run).
fn alternatives(value: i64, lo: i64, hi: i64) -> Vec<i64> {
    const ALL: i64 = 32;
    let mut out: Vec<i64> = if hi.saturating_sub(lo) < ALL {
        (lo..=hi).collect()
    } else {
        let mid = lo + (value - lo) / 2;
        vec![lo, lo + 1, lo + 2, mid, value.saturating_sub(1).max(lo)]
    };
    out.retain(|&v| v != value);
    out.dedup();
    out
}

pub struct GeneratedChange {
    /// The units deleted from the base, or `None` for a hoist: the new trace is the base.
    deleted: Option<Vec<bool>>,
    trace: Trace,
}

/// The units a strategy reduces over in `trace`: those of the tree, or one per decision of
/// the flat sequence.
pub(super) fn units_of(strategy: TraceStrategy, trace: &Trace) -> Vec<TraceUnit> {
    match strategy {
        TraceStrategy::Hdd => trace.units(),
        TraceStrategy::Ddmin => vec![
            TraceUnit {
                depth: 0,
                parent: None,
            };
            trace.flat().len()
        ],
    }
}

impl<G: Generator> Generated<G> {
    /// The source that replays the base without `deleted`.
    fn source(&self, deleted: &[bool]) -> Source {
        match self.strategy {
            TraceStrategy::Hdd => Source::replay(&self.base.without(deleted), self.align),
            TraceStrategy::Ddmin => Source::flat(
                self.base
                    .flat()
                    .into_iter()
                    .zip(deleted)
                    .filter(|(_, &d)| !d)
                    .map(|(v, _)| v)
                    .collect(),
            ),
        }
    }

    /// Runs the generator on a replay of the base without `deleted`.
    pub(super) fn run(&mut self, deleted: &[bool]) -> Result<(String, Trace), Halt> {
        let source = self.source(deleted);
        self.run_on(source)
    }

    fn run_on(&mut self, mut source: Source) -> Result<(String, Trace), Halt> {
        let output = self.generator.run(&mut source)?;
        Ok((output, source.finish()?))
    }

    /// A candidate from a re-run, if it made a shorter output. Only a shorter output is
    /// progress: a re-run may make a different output of the same size or larger (GReduce's
    /// monotonicity caveat), and accepting those could cycle for ever.
    fn candidate(
        &mut self,
        run: Result<(String, Trace), Halt>,
        deleted: Option<Vec<bool>>,
        stats: &mut Stats,
    ) -> Proposal<GeneratedChange> {
        match self.shorter(run, stats) {
            Some((output, trace)) => Proposal::Candidate {
                texts: vec![output],
                change: GeneratedChange { deleted, trace },
            },
            None => Proposal::Skip,
        }
    }

    /// A re-run's output and trace if it made a shorter output; a run that failed is counted.
    fn shorter(
        &mut self,
        run: Result<(String, Trace), Halt>,
        stats: &mut Stats,
    ) -> Option<(String, Trace)> {
        match run {
            Ok((output, trace)) if output.len() < self.best.len() => Some((output, trace)),
            Ok(_) => None,
            Err(_) => {
                self.failed_runs += 1;
                stats.invalid_skipped += 1;
                None
            }
        }
    }

    /// HDD's pass over the base's units, level by level (one level for the flat sequence).
    fn delete_pass(&self) -> DeletePass {
        let units = units_of(self.strategy, &self.base);
        let mut levels: Vec<Vec<u32>> = Vec::new();
        for (id, u) in units.iter().enumerate() {
            if levels.len() <= u.depth {
                levels.resize(u.depth + 1, Vec::new());
            }
            levels[u.depth].push(id as u32);
        }
        DeletePass {
            levels: Rc::new(levels),
            parents: Rc::new(units.iter().map(|u| u.parent).collect()),
            level: 0,
            dd: None,
        }
    }

    fn propose_deletion(
        &mut self,
        pass: &mut DeletePass,
        stats: &mut Stats,
    ) -> Proposal<GeneratedChange> {
        loop {
            if pass.dd.is_none() {
                let Some(units) = pass.levels.get(pass.level) else {
                    return Proposal::Over;
                };
                let alive: Vec<u32> = units
                    .iter()
                    .copied()
                    .filter(|&u| !Self::dead(&self.deleted, &pass.parents, u))
                    .collect();
                pass.dd = Some(Chunks::new(alive, true));
            }
            let Some(set) = pass.dd.as_mut().unwrap().propose() else {
                pass.level += 1;
                pass.dd = None;
                continue;
            };
            let mut deleted = self.deleted.as_ref().clone();
            for u in set {
                deleted[u as usize] = true;
            }
            let run = self.run(&deleted);
            return self.candidate(run, Some(deleted), stats);
        }
    }

    fn propose_hoist(
        &mut self,
        pass: &mut HoistPass,
        stats: &mut Stats,
    ) -> Proposal<GeneratedChange> {
        loop {
            let Some((unit, inside)) = pass.hoists.iter().find(|(u, _)| *u >= pass.unit) else {
                return Proposal::Over;
            };
            if *unit > pass.unit {
                pass.unit = *unit;
                pass.replacement = 0;
            }
            let Some(&replacement) = inside.get(pass.replacement) else {
                pass.unit += 1;
                pass.replacement = 0;
                continue;
            };
            pass.replacement += 1;
            let trace = self.best_trace.replaced(*unit, replacement);
            let run = self.run_on(Source::replay(&trace, self.align));
            return self.candidate(run, None, stats);
        }
    }

    fn propose_choice(
        &mut self,
        pass: &mut ChoosePass,
        stats: &mut Stats,
    ) -> Proposal<GeneratedChange> {
        loop {
            let ints = self.best_trace.ints();
            let Some(&(value, lo, hi)) = ints.get(pass.at) else {
                return Proposal::Over;
            };
            let k = pass.at;
            pass.at += 1;
            // The shortest output (the last found of equal lengths, each text's first run).
            let mut shortest: Option<(String, Trace)> = None;
            let mut seen = std::collections::HashSet::new();
            for v in alternatives(value, lo, hi) {
                let run = self.run_on(Source::replay(&self.best_trace.with_int(k, v), self.align));
                if let Some((output, trace)) = self.shorter(run, stats) {
                    let first = seen.insert(output.clone());
                    if first
                        && shortest
                            .as_ref()
                            .is_none_or(|(o, _)| output.len() <= o.len())
                    {
                        shortest = Some((output, trace));
                    }
                }
            }
            if let Some(run) = shortest {
                return self.candidate(Ok(run), None, stats);
            }
        }
    }

    /// Whether unit `u` or one enclosing it is deleted.
    fn dead(deleted: &[bool], parents: &[Option<u32>], mut u: u32) -> bool {
        loop {
            if deleted[u as usize] {
                return true;
            }
            match parents[u as usize] {
                Some(p) => u = p,
                None => return false,
            }
        }
    }
}

impl<G: Generator> Subject for Generated<G> {
    type Pass = TracePass;
    type Change = GeneratedChange;
    const SIDES: &'static [Side] = &[Side::Variant];
    const TEST_ORDER: &'static [usize] = &[0];

    fn strategy_name(&self) -> &'static str {
        "generator"
    }

    fn pass_name(pass: &TracePass) -> &'static str {
        match pass {
            TracePass::Delete(_) => "trace",
            TracePass::Hoist(_) => "hoist",
            TracePass::Choose(_) => "choose",
        }
    }

    fn pass_deferred(_pass: &TracePass) -> bool {
        false
    }

    fn pass(&mut self, i: usize, _round: Round) -> Option<TracePass> {
        match (i, self.strategy) {
            (0, _) => Some(TracePass::Delete(self.delete_pass())),
            (1, TraceStrategy::Hdd) => Some(TracePass::Hoist(HoistPass::new(&self.best_trace))),
            (2, TraceStrategy::Hdd) => Some(TracePass::Choose(ChoosePass { at: 0 })),
            _ => None,
        }
    }

    fn refresh(&mut self) {
        // The next pass works on the trace the best's run recorded.
        self.base = self.best_trace.clone();
        self.deleted = Rc::new(vec![false; units_of(self.strategy, &self.base).len()]);
    }

    fn propose(&mut self, pass: &mut TracePass, stats: &mut Stats) -> Proposal<GeneratedChange> {
        match pass {
            TracePass::Delete(pass) => self.propose_deletion(pass, stats),
            TracePass::Hoist(pass) => self.propose_hoist(pass, stats),
            TracePass::Choose(pass) => self.propose_choice(pass, stats),
        }
    }

    fn accept(&mut self, mut texts: Vec<String>, change: GeneratedChange, pass: &mut TracePass) {
        self.best = texts.swap_remove(0);
        self.best_trace = Rc::new(change.trace);
        match (change.deleted, pass) {
            (Some(deleted), TracePass::Delete(pass)) => {
                self.deleted = Rc::new(deleted);
                if let Some(dd) = &mut pass.dd {
                    dd.accepted();
                }
            }
            (_, pass) => {
                // Hoists work on the best's own trace; the unit now holds what replaced it,
                // which may hold more of its kind: try it again from its first replacement.
                self.refresh();
                match pass {
                    TracePass::Hoist(h) => {
                        *h = HoistPass {
                            unit: h.unit,
                            ..HoistPass::new(&self.best_trace)
                        }
                    }
                    TracePass::Choose(_) | TracePass::Delete(_) => {}
                }
            }
        }
    }

    fn size(&self) -> usize {
        self.best.len()
    }

    fn bytes(&self) -> usize {
        self.best.len()
    }
}
