//! The reduction engine: a program under reduction, the passes that propose smaller
//! versions of it, and the [`Session`] that hands candidates out and takes verdicts.
//!
//! Every pass works on one parse tree per round and proposes *token deletions* over a
//! keep-mask of that tree's tokens. Replacing a node by its descendant is a deletion too
//! (everything of the node but the descendant), so edits compose without re-parsing; the
//! session re-parses the best program between rounds.

mod comments;
pub(crate) mod ddmin;
mod hdd;
mod lists;
mod perses;
mod session;

pub use session::{Candidate, Engine, HistoryStep, Proposal, Session, Settings, Single, SingleChange, Stats, Subject};

use crate::tree::{NodeId, TokenId, Tree};
use std::ops::Range;
use std::rc::Rc;

/// What a test said of a candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Interesting,
    Boring,
    /// The test could not run (timeout, crash, endpoint failure): treated as boring, not cached.
    Error(String),
}

impl Verdict {
    pub fn parse(s: &str) -> Option<Verdict> {
        match s {
            "interesting" | "1" | "true" => Some(Verdict::Interesting),
            "boring" | "0" | "false" => Some(Verdict::Boring),
            s if s.starts_with("error") => Some(Verdict::Error(s.to_string())),
            _ => None,
        }
    }
}

/// The program as a tree from the last re-parse plus which of its tokens are still kept.
#[derive(Clone)]
pub struct Program {
    pub tree: Rc<Tree>,
    pub keep: Rc<Vec<bool>>,
}

impl Program {
    pub fn new(tree: Tree) -> Program {
        let n = tree.tokens.len();
        Program { tree: Rc::new(tree), keep: Rc::new(vec![true; n]) }
    }

    pub fn kept(&self, t: TokenId) -> bool {
        self.keep[t as usize]
    }

    /// Whether any token of node `n` is still kept.
    pub fn alive(&self, n: NodeId) -> bool {
        self.tree.node(n).tokens().any(|t| self.kept(t))
    }

    /// Kept tokens of node `n` that count towards size.
    pub fn size_of(&self, n: NodeId) -> usize {
        self.tree.node(n).tokens().filter(|&t| self.kept(t) && self.tree.is_counted(t)).count()
    }

    pub fn size(&self) -> usize {
        self.size_of(self.tree.root())
    }

    /// The keep-mask after deleting `edit`'s token ranges.
    pub fn mask_after(&self, edit: &Edit) -> Vec<bool> {
        let mut keep = self.keep.as_ref().clone();
        for r in &edit.delete {
            keep[r.start as usize..r.end as usize].fill(false);
        }
        keep
    }

    pub fn with_mask(&self, keep: Vec<bool>) -> Program {
        Program { tree: self.tree.clone(), keep: Rc::new(keep) }
    }

    pub fn text(&self) -> String {
        crate::unparse::unparse(&self.tree, &self.keep)
    }
}

/// A proposed change: token ranges to delete.
#[derive(Clone, Debug, Default)]
pub struct Edit {
    pub delete: Vec<Range<TokenId>>,
}

impl Edit {
    /// Whether the edit deletes anything that is still kept.
    pub fn changes(&self, prog: &Program) -> bool {
        self.delete.iter().any(|r| r.clone().any(|t| prog.kept(t)))
    }
}

/// A pass: a deterministic generator of edits over one round's tree.
///
/// `propose` is called repeatedly and must assume every edit it proposed since the last
/// `accepted` call failed. The session clones a pass's state after each proposal, so state
/// should be cheap to clone (share the big parts with `Rc`).
pub trait Pass {
    fn name(&self) -> &'static str;
    /// The next edit to try, or `None` when this round of the pass is over.
    fn propose(&mut self, prog: &Program) -> Option<Edit>;
    /// The last proposed edit was accepted; `prog` is the program after it.
    fn accepted(&mut self, prog: &Program);
    fn box_clone(&self) -> Box<dyn Pass>;
    /// Whether this round skipped small edits (coarse mode) that a fine round should try.
    fn deferred(&self) -> bool {
        false
    }
}

impl Clone for Box<dyn Pass> {
    fn clone(&self) -> Self {
        self.box_clone()
    }
}

/// A strategy: which passes run, in order, repeated until none makes progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    Perses,
    Hdd,
    DdminLines,
    DdminTokens,
}

impl Strategy {
    pub fn from_name(name: &str) -> Option<Strategy> {
        match name {
            "perses" => Some(Strategy::Perses),
            "hdd" => Some(Strategy::Hdd),
            "ddmin-lines" | "lines" => Some(Strategy::DdminLines),
            "ddmin-tokens" | "tokens" | "ddmin" => Some(Strategy::DdminTokens),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Perses => "perses",
            Strategy::Hdd => "hdd",
            Strategy::DdminLines => "ddmin-lines",
            Strategy::DdminTokens => "ddmin-tokens",
        }
    }

    /// The `i`th pass of a round, fresh over `prog`; `None` past the last. A `coarse` round
    /// tries only edits that remove a sizeable share of the program.
    pub(crate) fn pass(self, i: usize, prog: &Program, coarse: bool) -> Option<Box<dyn Pass>> {
        Some(match (i, self) {
            (0, _) => Box::new(comments::Comments::new(prog)),
            (1, Strategy::Perses) => Box::new(perses::Perses::new(prog, coarse)),
            (1, Strategy::Hdd) => Box::new(hdd::Hdd::new(prog)),
            (1, Strategy::DdminLines) => Box::new(ddmin::DdminUnits::lines(prog)),
            (1, Strategy::DdminTokens) => Box::new(ddmin::DdminUnits::tokens(prog)),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests;
