//! The pair as a session [`Subject`]: passes in PPR's order (MinTDiff, MinLDiff, then
//! MinCommonality over the seed and the variant with each pass of a single-program
//! strategy), then the seed closing in on the variant ([`super::close`]) and the layout;
//! candidates of two parts (seed, variant), each side checked for
//! validity.

use super::close::{pieces, Close};
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
    /// The byte spans of each best text's syntax errors: a candidate may keep them, never
    /// add one (tolerant reduction; none in a program the grammar parses whole).
    pub(super) regions: [Vec<(usize, usize)>; 2],
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
    /// The close-seed pass over the pair as it now is (fresh: the rounds ended with a refresh
    /// or changed nothing since).
    fn close(&self) -> PairPass {
        let prog = &self.prog;
        PairPass::Close(Close::new(pieces(
            &prog.variant.tree,
            &prog.variant_differs(),
            self.sizes.diff,
        )))
    }

    /// Whether `text`, an edit of side `i`'s best, is valid: it parses, or its syntax errors
    /// are ones the best has, outside what the edit changed. `Some` with its tree if kept.
    fn check(&mut self, i: usize, text: &str) -> Option<Option<tree_sitter::Tree>> {
        let (old, regions) = (&self.best[i], &self.regions[i]);
        match self
            .parser
            .check_with(&self.raw[i], old, text, None, regions)
        {
            Validity::Valid(tree) => Some(tree),
            Validity::Invalid => None,
            Validity::Flawed { errors, tree } => {
                kept_errors(old, text, regions, &errors).then_some(tree)
            }
        }
    }

    /// The seed as the variant without the next piece: a candidate where that parses (with
    /// none but the variant's errors, and none where the seed had none) and leaves a smaller
    /// difference. One piece a call, so the session's budget bounds the work.
    fn closed(&mut self, close: &mut Close, stats: &mut Stats) -> Proposal<PairChange> {
        let Some(piece) = close.take() else {
            return Proposal::Over;
        };
        let seed = piece.seed_from(&self.best[1]);
        if seed == self.best[0] || !close.first(&seed) {
            return Proposal::Skip;
        }
        if self.check(1, &seed).is_none() {
            stats.invalid_skipped += 1;
            return Proposal::Skip;
        }
        let (st, sr) = self.parser.parse_with_raw(&seed);
        if st.error.is_some() && self.regions[0].is_empty() {
            stats.invalid_skipped += 1;
            return Proposal::Skip;
        }
        let variant = self.parser.tree_from_raw(&self.best[1], &self.raw[1]);
        let prog = PairProgram::new(st, variant);
        let sizes = prog.sizes();
        // The alignment, not the piece, says what the difference is.
        if sizes.diff >= self.sizes.diff {
            return Proposal::Skip;
        }
        close.tried += 1;
        Proposal::Candidate {
            texts: vec![seed, self.best[1].clone()],
            change: PairChange {
                prog,
                raw: [Some(sr), None],
                sizes,
            },
        }
    }

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

    /// Once rounds change nothing: the seed closes in on the variant, then both are laid out.
    /// Not in the rounds: a seed that took the variant's shape early (`l[0][5]` of the
    /// variant's `l[0][1][5]`) keeps what MinCommonality would have taken from both.
    fn final_pass(&mut self, i: usize) -> Option<PairPass> {
        let layout = self.format && !self.skipped.contains(&PassKind::Format);
        match i {
            0 => Some(self.close()),
            1 if layout => Some(PairPass::Layout { proposed: false }),
            _ => None,
        }
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
        if let PairPass::Close(close) = pass {
            return self.closed(close, stats);
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
            match self.check(i, &texts[i]) {
                Some(tree) => raw[i] = tree,
                None => {
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
                self.regions[i] = crate::tree::error_ranges(&self.raw[i]);
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

/// Whether every one of `errors` (byte spans of `new`) is one of `old`'s error `regions`,
/// moved but not touched by the change from `old` to `new`.
fn kept_errors(
    old: &str,
    new: &str,
    regions: &[(usize, usize)],
    errors: &[(usize, usize)],
) -> bool {
    let hunks = crate::hunks::between(old.as_bytes(), new.as_bytes());
    errors.iter().all(|&(s, e)| {
        // Where the error starts in the old text: past the hunks before it.
        let mut shift = 0isize;
        for h in &hunks {
            if h.new.start > e || (h.new.start == e && h.new.end > e) {
                break;
            }
            if h.new.end >= s {
                return false;
            }
            shift += h.old.len() as isize - h.new.len() as isize;
        }
        let (s, e) = ((s as isize + shift) as usize, (e as isize + shift) as usize);
        regions.iter().any(|&(a, b)| a <= s && e <= b)
    })
}
