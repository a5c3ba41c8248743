//! The pair as a session [`Subject`]: passes in PPR's order (MinTDiff, MinLDiff, then
//! MinCommonality over the seed and the variant with each pass of a single-program
//! strategy), candidates of two parts (seed, variant), each side checked for validity.

use super::passes::PairPass;
use super::program::{PairProgram, Side, Sizes};
use super::PairCandidate;
use crate::reduce::{Proposal, Stats, Strategy, Subject};
use crate::tree::{Parser, Validity};

pub struct Pair {
    pub(super) parser: Parser,
    pub(super) strategy: Strategy,
    pub(super) prog: PairProgram,
    /// The best seed and variant texts, and their tree-sitter trees.
    pub(super) best: [String; 2],
    pub(super) raw: [tree_sitter::Tree; 2],
    pub(super) sizes: Sizes,
    pub(super) before: Sizes,
}

/// What accepting a pair candidate takes.
pub struct PairChange {
    prog: PairProgram,
    /// The new tree of each side that changed, where the validity check kept it.
    raw: [Option<tree_sitter::Tree>; 2],
    sizes: Sizes,
}

impl Subject for Pair {
    type Pass = PairPass;
    type Change = PairChange;
    type Candidate = PairCandidate;

    fn strategy_name(&self) -> &'static str {
        "pairwise"
    }

    fn pass_name(pass: &PairPass) -> &'static str {
        pass.name()
    }

    fn pass_deferred(pass: &PairPass) -> bool {
        pass.deferred()
    }

    fn pass(&mut self, i: usize, coarse: bool) -> Option<PairPass> {
        match i {
            0 => Some(PairPass::min_tdiff(&self.prog)),
            1 => Some(PairPass::min_ldiff(&self.prog)),
            _ => {
                // Each single-program pass over the seed, then over the variant (which
                // reaches what only the variant has).
                let (pass, side) = ((i - 2) / 2, Side::BOTH[(i - 2) % 2]);
                let inner = self.strategy.pass(pass, self.prog.side(side), coarse)?;
                Some(PairPass::common(side, inner))
            }
        }
    }

    fn refresh(&mut self) {
        let [s, v] = [0, 1].map(|i| self.parser.tree_from_raw(&self.best[i], &self.raw[i]));
        self.prog = PairProgram::new(s, v);
        self.sizes = self.prog.sizes();
    }

    fn propose(&mut self, pass: &mut PairPass, stats: &mut Stats) -> Proposal<PairChange> {
        let Some(edit) = pass.propose(&self.prog) else {
            return Proposal::Over;
        };
        if !self.prog.changes(&edit) {
            return Proposal::Skip;
        }
        let next = self.prog.after(&edit);
        let (seed, variant) = next.texts();
        // A variant equal to its seed explains nothing.
        if seed == variant {
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
                Validity::Invalid => {
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
                self.raw[i] = self
                    .parser
                    .tree_of_valid(raw, &self.raw[i], &self.best[i], &text);
                self.best[i] = text;
            }
        }
        self.sizes = change.sizes;
        pass.accepted(&self.prog);
    }

    fn candidate(id: u64, texts: &[String], untested: &[bool]) -> PairCandidate {
        PairCandidate {
            id,
            seed: texts[0].clone(),
            variant: texts[1].clone(),
            test_seed: untested[0],
            test_variant: untested[1],
        }
    }

    fn size(&self) -> usize {
        self.sizes.seed + self.sizes.variant
    }

    fn bytes(&self) -> usize {
        self.best[0].len() + self.best[1].len()
    }
}
