//! The reduction engine: a program under reduction, the passes that propose smaller
//! versions of it, and the [`Session`] that hands candidates out and takes verdicts.
//!
//! Every pass works on one parse tree per round and proposes *token deletions* over a
//! keep-mask of that tree's tokens. Replacing a node by its descendant is a deletion too
//! (everything of the node but the descendant), so edits compose without re-parsing; the
//! session re-parses the best program between rounds.

mod bare_field;
mod chains;
mod chunks;
mod clauses;
pub(crate) mod ddmin;
mod definitions;
pub(crate) mod dependencies;
mod effects;
mod error_regions;
mod file_scope;
mod fold;
mod format;
mod hdd;
mod implicit_int;
mod inline;
mod join;
mod lists;
mod literals;
mod local;
mod lone_tokens;
mod merge;
mod passes;
mod perses;
mod rename;
mod roots;
mod session;
mod single;
mod sites;
mod spans;
mod stats;
mod strategy;
mod subject;
pub(crate) mod sweep;
pub(crate) mod symbols;
mod tag_into_use;
mod tolerance;
mod transform;
mod types;
mod unwrap;
mod update;

pub use passes::{PassInfo, PassKind, PASSES};
pub use session::Engine;
pub use single::{Session, Settings, Single, SingleChange, PARSE_LIMIT};
pub use stats::{HistoryStep, PassStats, Stats};
pub use strategy::{Round, Rounds, Step, Strategy};
pub use subject::{Proposal, Subject};

use crate::tree::{NodeId, TokenId, Tree};
use crate::unparse::Substitutions;
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
    /// Tokens rewritten by transformations, with their new text.
    pub subst: Rc<Substitutions>,
    /// How its text is laid out.
    pub layout: Layout,
}

/// How a program's text is laid out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// With the original's white space (see [`crate::unparse`]).
    #[default]
    Original,
    /// The original's, without blank lines or trailing spaces.
    Tidy,
    /// Afresh, as [`crate::layout::format`] lays it out.
    Fresh,
}

impl Program {
    pub fn new(tree: Tree) -> Program {
        let n = tree.tokens.len();
        Program {
            tree: Rc::new(tree),
            keep: Rc::new(vec![true; n]),
            subst: Rc::default(),
            layout: Layout::Original,
        }
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
        self.tree
            .node(n)
            .tokens()
            .filter(|&t| self.kept(t) && self.tree.is_counted(t))
            .count()
    }

    pub fn size(&self) -> usize {
        self.size_of(self.tree.root())
    }

    /// Whether `edit` deletes at least `least` kept tokens that count towards size: read
    /// over the edit's ranges only, up to `least` (a megabyte's mask is not copied to ask).
    pub fn deletes_at_least(&self, edit: &Edit, least: usize) -> bool {
        let mut ranges = edit.delete.clone();
        ranges.sort_unstable_by_key(|r| r.start);
        let (mut seen, mut from) = (0, 0);
        for r in ranges {
            for t in r.start.max(from)..r.end {
                if self.kept(t) && self.tree.is_counted(t) {
                    seen += 1;
                    if seen >= least {
                        return true;
                    }
                }
            }
            from = from.max(r.end);
        }
        seen >= least
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
        Program {
            tree: self.tree.clone(),
            keep: Rc::new(keep),
            subst: self.subst.clone(),
            layout: self.layout,
        }
    }

    /// The program after `edit`: its deletions and its rewrites.
    pub fn after(&self, edit: &Edit) -> Program {
        let mut next = self.with_mask(self.mask_after(edit));
        next.layout = edit.layout.unwrap_or(self.layout);
        if !edit.replace.is_empty() {
            let subst = Rc::make_mut(&mut next.subst);
            for (t, text) in &edit.replace {
                subst.insert(*t, text.clone());
            }
        }
        next
    }

    /// A token's current text (rewritten or original).
    pub fn text_of(&self, t: TokenId) -> &str {
        self.subst
            .get(&t)
            .map_or_else(|| self.tree.token_text(t), |s| s.as_str())
    }

    pub fn text(&self) -> String {
        let kept = || (0..self.tree.tokens.len() as TokenId).filter(|&t| self.kept(t));
        match self.layout {
            Layout::Fresh => crate::layout::format(&self.tree, kept(), |t| self.text_of(t)),
            Layout::Tidy => crate::layout::tidy(&crate::unparse::unparse_with(
                &self.tree,
                &self.keep,
                &self.subst,
            )),
            Layout::Original => crate::unparse::unparse_with(&self.tree, &self.keep, &self.subst),
        }
    }
}

/// A proposed change: token ranges to delete, and tokens to rewrite.
#[derive(Clone, Debug, Default)]
pub struct Edit {
    pub delete: Vec<Range<TokenId>>,
    pub replace: Vec<(TokenId, String)>,
    /// Lay the program out another way (see [`crate::layout`]).
    pub layout: Option<Layout>,
}

impl Edit {
    pub fn deleting(delete: Vec<Range<TokenId>>) -> Edit {
        Edit {
            delete,
            ..Edit::default()
        }
    }

    /// The first token the edit deletes or rewrites: the tokens before it are as they were.
    pub fn first_changed(&self) -> TokenId {
        let deleted = self.delete.iter().map(|r| r.start);
        let rewritten = self.replace.iter().map(|(t, _)| *t);
        deleted.chain(rewritten).min().unwrap_or(TokenId::MAX)
    }

    /// Whether the edit deletes or rewrites anything that is still kept.
    pub fn changes(&self, prog: &Program) -> bool {
        self.layout.is_some_and(|l| l != prog.layout)
            || self.delete.iter().any(|r| r.clone().any(|t| prog.kept(t)))
            || self
                .replace
                .iter()
                .any(|(t, s)| prog.kept(*t) && prog.text_of(*t) != s)
    }
}

/// A pass: a deterministic generator of edits over one round's tree.
///
/// `propose` is called repeatedly and must assume every edit it proposed since the last
/// `accepted` call failed. The session clones a pass's state after each proposal, so state
/// should be cheap to clone (share the big parts with `Rc`).
/// In a coarse round, an edit must remove at least 1/COARSE_SHARE of the program (as
/// Perses's coarse rounds): the passes of the fine rounds do the small ones.
const COARSE_SHARE: usize = 64;

pub trait Pass {
    /// The next edit to try, or `None` when this round of the pass is over.
    fn propose(&mut self, prog: &Program) -> Option<Edit>;
    /// The last proposed edit was accepted; `prog` is the program after it.
    fn accepted(&mut self, prog: &Program);
    fn box_clone(&self) -> Box<dyn Pass>;
    /// Whether this round skipped small edits (coarse mode) that a fine round should try.
    fn deferred(&self) -> bool {
        false
    }
    /// Whether its candidates go untested by the grammar: valid by a rule of the language
    /// the grammar lacks (C's implicit int). Such a pass runs only in the finale, after the
    /// fixpoint, since nothing may re-parse what it leaves.
    fn beyond_grammar(&self) -> bool {
        false
    }
    /// Whether its candidates skip the grammar's check in a program that already has errors,
    /// parsed only once the test accepts one: the grammar's recovery may find errors
    /// elsewhere in a candidate that it parses better as a whole (`extensions`).
    fn tested_only(&self) -> bool {
        false
    }
}

impl Clone for Box<dyn Pass> {
    fn clone(&self) -> Self {
        self.box_clone()
    }
}

#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
mod tolerance_tests;
