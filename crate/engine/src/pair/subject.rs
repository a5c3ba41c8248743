//! The pair as a session [`Subject`]: passes in PPR's order (MinTDiff, MinLDiff, then
//! MinCommonality over the seed and the variant with each pass of a single-program
//! strategy), candidates of two parts (seed, variant), each side checked for validity.

use super::passes::PairPass;
use super::program::{PairProgram, Side, Sizes};
use crate::reduce::{PassKind, Proposal, Round, Stats, Strategy, Subject};
use crate::tree::{Parser, Validity};

/// One step of a pair's round.
#[derive(Clone, Copy, Debug)]
enum PairStep {
    MinTDiff,
    MinLDiff,
    /// MinCommonality: a single-program pass over one side.
    Common(PassKind, Side),
}

/// A round's steps, in PPR's order: the differences first, then each single-program pass
/// over the seed and then over the variant (which reaches what only the variant has).
fn steps(
    strategy: Strategy,
    round: Round,
    skipped: &[PassKind],
) -> impl Iterator<Item = PairStep> + '_ {
    let common = strategy
        .steps(round, skipped)
        .flat_map(|pass| [Side::Seed, Side::Variant].map(|side| PairStep::Common(pass, side)));
    [PairStep::MinTDiff, PairStep::MinLDiff]
        .into_iter()
        .chain(common)
}

pub struct Pair {
    pub(super) parser: Parser,
    pub(super) strategy: Strategy,
    /// Passes MinCommonality leaves out.
    pub(super) skipped: Vec<PassKind>,
    /// Whether the finale lays both programs out afresh (not with `--keep-layout`).
    pub(super) format: bool,
    pub(super) prog: PairProgram,
    /// The best seed and variant texts, and their tree-sitter trees.
    pub(super) best: [String; 2],
    pub(super) raw: [tree_sitter::Tree; 2],
    pub(super) sizes: Sizes,
    pub(super) before: Sizes,
    /// Whether `prog` was built from fresh parses of `best`: then `sizes` is exact (after an
    /// accept, the diff's size is an upper bound until the next re-parse).
    pub(super) fresh: bool,
    /// One file of a folder pair: its two sides may become equal (the trees still differ
    /// elsewhere, which the folder checks).
    pub(crate) equal_ok: bool,
}

/// What accepting a pair candidate takes.
pub struct PairChange {
    prog: PairProgram,
    /// The new tree of each side that changed, where the validity check kept it.
    raw: [Option<tree_sitter::Tree>; 2],
    sizes: Sizes,
}

impl Pair {
    /// Both programs laid out afresh, as a candidate (skipped when that changes nothing).
    fn laid_out(&mut self, stats: &mut Stats) -> Proposal<PairChange> {
        let texts = [0, 1].map(|i| {
            crate::layout::format_all(&self.parser.tree_from_raw(&self.best[i], &self.raw[i]))
        });
        if texts == self.best {
            return Proposal::Skip;
        }
        let [(st, sr), (vt, vr)] = [0, 1].map(|i| self.parser.parse_with_raw(&texts[i]));
        if st.error.is_some() || vt.error.is_some() {
            stats.invalid_skipped += 1;
            return Proposal::Skip;
        }
        let prog = PairProgram::new(st, vt);
        let sizes = prog.sizes();
        Proposal::Candidate {
            texts: texts.into(),
            change: PairChange {
                prog,
                raw: [Some(sr), Some(vr)],
                sizes,
            },
        }
    }
}

impl Subject for Pair {
    type Pass = PairPass;
    type Change = PairChange;
    const SIDES: &'static [Side] = &[Side::Seed, Side::Variant];
    /// The variant's test is the pickier one: a seed is tested only with a passing variant.
    const TEST_ORDER: &'static [usize] = &[1, 0];

    fn strategy_name(&self) -> &'static str {
        "pairwise"
    }

    fn pass_name(pass: &PairPass) -> &'static str {
        pass.name()
    }

    fn pass_deferred(pass: &PairPass) -> bool {
        pass.deferred()
    }

    fn pass(&mut self, i: usize, round: Round) -> Option<PairPass> {
        let coarse = round == Round::Coarse;
        Some(match steps(self.strategy, round, &self.skipped).nth(i)? {
            PairStep::MinTDiff => PairPass::min_tdiff(&self.prog),
            PairStep::MinLDiff => PairPass::min_ldiff(&self.prog),
            PairStep::Common(pass, side) => {
                PairPass::common(side, pass.start(self.prog.side(side), coarse))
            }
        })
    }

    fn final_pass(&mut self, i: usize) -> Option<PairPass> {
        (i == 0 && self.format && !self.skipped.contains(&PassKind::Format))
            .then_some(PairPass::Layout { proposed: false })
    }

    fn refresh(&mut self) {
        let [s, v] = [0, 1].map(|i| self.parser.tree_from_raw(&self.best[i], &self.raw[i]));
        self.prog = PairProgram::new(s, v);
        self.sizes = self.prog.sizes();
        self.fresh = true;
    }

    fn finish(&mut self) {
        if !self.fresh {
            self.refresh();
        }
    }

    fn propose(&mut self, pass: &mut PairPass, stats: &mut Stats) -> Proposal<PairChange> {
        if let PairPass::Layout { proposed } = pass {
            return match std::mem::replace(proposed, true) {
                true => Proposal::Over,
                false => self.laid_out(stats),
            };
        }
        let Some(edit) = pass.propose(&self.prog) else {
            return Proposal::Over;
        };
        if !self.prog.changes(&edit) {
            return Proposal::Skip;
        }
        let next = self.prog.after(&edit);
        let (seed, variant) = next.texts();
        // A variant equal to its seed explains nothing.
        if seed == variant && !self.equal_ok {
            return Proposal::Skip;
        }
        let texts = [seed, variant];
        if texts == self.best {
            return Proposal::Skip;
        }
        let mut raw = [None, None];
        for i in [1, 0] {
            if texts[i] == self.best[i] {
                continue;
            }
            match self.parser.check(&self.raw[i], &self.best[i], &texts[i]) {
                Validity::Valid(tree) => raw[i] = tree,
                // The pair's parser is strict: both sides parse whole.
                Validity::Invalid | Validity::Flawed { .. } => {
                    stats.invalid_skipped += 1;
                    return Proposal::Skip;
                }
            }
        }
        let sizes = next.sizes();
        Proposal::Candidate {
            texts: texts.into(),
            change: PairChange {
                prog: next,
                raw,
                sizes,
            },
        }
    }

    fn accept(&mut self, texts: Vec<String>, change: PairChange, pass: &mut PairPass) {
        self.prog = change.prog;
        for (i, (text, raw)) in texts.into_iter().zip(change.raw).enumerate() {
            if text != self.best[i] {
                self.raw[i] =
                    self.parser
                        .tree_of_valid(raw, &self.raw[i], &self.best[i], &text, None);
                self.best[i] = text;
            }
        }
        self.sizes = change.sizes;
        self.fresh = false;
        pass.accepted(&self.prog);
    }

    fn size(&self) -> usize {
        self.sizes.seed + self.sizes.variant
    }

    fn bytes(&self) -> usize {
        self.best[0].len() + self.best[1].len()
    }
}
