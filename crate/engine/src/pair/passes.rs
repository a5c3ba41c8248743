//! The pairwise passes: MinTDiff and MinLDiff (ddmin over pieces of the difference, each
//! piece unapplied makes the variant read as the seed there), MinCommonality (a
//! single-program pass over one side whose deletions apply to both programs), the seed
//! closing in on the variant ([`super::close`]), and the finale's layout (both programs laid out afresh, as a single program's result is).

use super::close::Close;
use super::groups::{hunk_groups, tree_groups};
use super::program::{PairEdit, PairProgram, Side};
use crate::reduce::ddmin::Chunks;
use crate::reduce::Pass;
use std::rc::Rc;

#[derive(Clone)]
pub enum PairPass {
    Diff {
        name: &'static str,
        groups: Rc<Vec<Vec<u32>>>,
        chunks: Chunks,
    },
    Common {
        side: Side,
        inner: Box<dyn Pass>,
    },
    /// The seed becomes the variant without a small piece of it: one candidate at a time,
    /// made by the subject from its texts.
    Close(Close),
    /// Both programs laid out afresh ([`crate::layout::format`]): one candidate, made by the
    /// subject from its texts.
    Layout {
        proposed: bool,
    },
}

impl PairPass {
    /// MinTDiff: ddmin over the tree edits from seed to variant.
    pub fn min_tdiff(prog: &PairProgram) -> PairPass {
        Self::diff("min-tdiff", tree_groups(prog))
    }

    /// MinLDiff: ddmin over the token hunks.
    pub fn min_ldiff(prog: &PairProgram) -> PairPass {
        Self::diff("min-ldiff", hunk_groups(prog))
    }

    fn diff(name: &'static str, groups: Vec<Vec<u32>>) -> PairPass {
        // Never all at once: a variant equal to its seed explains nothing.
        let chunks = Chunks::new((0..groups.len() as u32).collect(), false);
        PairPass::Diff {
            name,
            groups: Rc::new(groups),
            chunks,
        }
    }

    /// MinCommonality on one side, with one of a single-program strategy's passes.
    pub fn common(side: Side, inner: Box<dyn Pass>) -> PairPass {
        PairPass::Common { side, inner }
    }

    pub fn name(&self) -> &'static str {
        match self {
            PairPass::Diff { name, .. } => name,
            PairPass::Common {
                side: Side::Seed, ..
            } => "min-commonality (seed)",
            PairPass::Common {
                side: Side::Variant,
                ..
            } => "min-commonality (variant)",
            PairPass::Close(_) => "close-seed",
            PairPass::Layout { .. } => "format",
        }
    }

    pub fn deferred(&self) -> bool {
        match self {
            PairPass::Diff { .. } | PairPass::Close(_) | PairPass::Layout { .. } => false,
            PairPass::Common { inner, .. } => inner.deferred(),
        }
    }

    pub fn propose(&mut self, prog: &PairProgram) -> Option<PairEdit> {
        match self {
            PairPass::Diff { groups, chunks, .. } => {
                let set = chunks.propose()?;
                let unapply = set
                    .iter()
                    .flat_map(|&g| groups[g as usize].iter().copied())
                    .collect();
                Some(PairEdit::unapplying(unapply))
            }
            PairPass::Common { side, inner } => {
                let edit = inner.propose(prog.side(*side))?;
                Some(prog.edit_from(*side, &edit))
            }
            PairPass::Close(_) | PairPass::Layout { .. } => None,
        }
    }

    pub fn accepted(&mut self, prog: &PairProgram) {
        match self {
            PairPass::Diff { chunks, .. } => chunks.accepted(),
            PairPass::Common { side, inner } => inner.accepted(prog.side(*side)),
            // Its pieces were made against the seed it replaced.
            PairPass::Close(close) => close.done = true,
            PairPass::Layout { .. } => {}
        }
    }
}
