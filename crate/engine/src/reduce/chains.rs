//! The `chains` pass: a node nested in one of its own kind, again and again (`((((x))))`,
//! `- - - x`, `{{{ }}}`, `(int)(int)x`, a `{{{1}}}` initializer), loses levels by ddmin over
//! them, all at once first: a level goes when its own tokens go and its child takes its
//! place. Deep chains come from generators and fuzzers, and a compiler that crashes on deep
//! nesting keeps a chain down to its threshold; Perses takes one level a query.

use super::ddmin::Chunks;
use super::{Edit, Pass, Program};
use crate::tree::{NodeId, TokenId, Tree};
use std::collections::HashSet;
use std::ops::Range;
use std::rc::Rc;

/// Shorter chains are Perses's: a level a query costs them little.
const MIN_LEVELS: usize = 4;

/// A chain: each level's own tokens (before and after the level below), outermost first.
type Chain = Vec<[Range<TokenId>; 2]>;

#[derive(Clone)]
pub struct Chains {
    chains: Rc<Vec<Chain>>,
    /// Whether each chain's levels are all alike (`((((x))))`): then which levels go does not
    /// matter, only how many.
    alike: Rc<Vec<bool>>,
    /// The chain under ddmin, and its state.
    at: usize,
    chunks: Option<Chunks>,
    /// In a chain of alike levels, the numbers of levels tried away since the last step: the
    /// same number elsewhere in the chain is the same program.
    tried: HashSet<usize>,
}

pub fn pass(prog: &Program) -> Chains {
    let tree = &prog.tree;
    let mut chains: Vec<Chain> = (0..tree.nodes.len() as NodeId)
        .filter(|&n| is_head(tree, n) && prog.alive(n))
        .map(|n| chain_from(tree, n))
        .filter(|c| c.len() >= MIN_LEVELS)
        .collect();
    chains.sort_by_key(|c| std::cmp::Reverse(c.len()));
    let alike = chains.iter().map(|c| levels_alike(tree, c)).collect();
    Chains {
        chains: Rc::new(chains),
        alike: Rc::new(alike),
        at: 0,
        chunks: None,
        tried: HashSet::new(),
    }
}

/// Whether every level of `chain` has the same own tokens.
fn levels_alike(tree: &Tree, chain: &Chain) -> bool {
    let own = |[before, after]: &[Range<TokenId>; 2]| -> Vec<&str> {
        before
            .clone()
            .chain(after.clone())
            .map(|t| tree.token_text(t))
            .collect()
    };
    let first = own(&chain[0]);
    chain[1..].iter().all(|l| own(l) == first)
}

/// The one child of `n` of its own kind, when it has exactly one.
fn same_kind_child(tree: &Tree, n: NodeId) -> Option<NodeId> {
    let node = tree.node(n);
    let mut same = node
        .children
        .iter()
        .copied()
        .filter(|&c| tree.node(c).kind == node.kind);
    let first = same.next()?;
    same.next().is_none().then_some(first)
}

/// Whether `n` is a level of a chain below its first: its parent's one child of its kind.
/// (A rewrite of it is its parent's with more brackets around: other passes leave it be.)
pub(crate) fn is_inner(tree: &Tree, n: NodeId) -> bool {
    outer_level(tree, n).is_some()
}

/// The level above `n`, when `n` is a level of a chain below its first.
pub(crate) fn outer_level(tree: &Tree, n: NodeId) -> Option<NodeId> {
    let p = tree.node(n).parent?;
    (same_kind_child(tree, p) == Some(n)).then_some(p)
}

/// Whether `d` is a level of the chain below level `n`.
pub(crate) fn is_below(tree: &Tree, n: NodeId, d: NodeId) -> bool {
    let mut at = n;
    for _ in tree.node(n).depth..tree.node(d).depth {
        match same_kind_child(tree, at) {
            Some(c) if c == d => return true,
            Some(c) => at = c,
            None => return false,
        }
    }
    false
}

/// A level's own tokens as they stand (outside the level below it): what removing the level
/// takes away.
pub(crate) fn frame(prog: &Program, level: NodeId) -> Vec<&str> {
    let tree = &prog.tree;
    let outer = tree.node(level).tokens();
    let inner =
        same_kind_child(tree, level).map_or(outer.end..outer.end, |c| tree.node(c).tokens());
    (outer.start..inner.start)
        .chain(inner.end..outer.end)
        .filter(|&t| prog.kept(t))
        .map(|t| tree.token_text(t))
        .collect()
}

/// Whether a chain starts at `n`: a named node not itself a chain's level below its parent.
fn is_head(tree: &Tree, n: NodeId) -> bool {
    let node = tree.node(n);
    node.named
        && !node.extra
        && !node.error
        && same_kind_child(tree, n).is_some()
        && !is_inner(tree, n)
}

fn chain_from(tree: &Tree, head: NodeId) -> Chain {
    let mut chain = Vec::new();
    let mut at = head;
    while let Some(child) = same_kind_child(tree, at) {
        let (outer, inner) = (tree.node(at).tokens(), tree.node(child).tokens());
        chain.push([outer.start..inner.start, inner.end..outer.end]);
        at = child;
    }
    chain
}

impl Pass for Chains {
    fn propose(&mut self, prog: &Program) -> Option<Edit> {
        loop {
            let chain = self.chains.get(self.at)?;
            let chunks = self
                .chunks
                .get_or_insert_with(|| Chunks::new((0..chain.len() as u32).collect(), true));
            let Some(levels) = chunks.propose() else {
                self.at += 1;
                self.chunks = None;
                self.tried.clear();
                continue;
            };
            if self.alike[self.at] && !self.tried.insert(levels.len()) {
                continue; // the same program as a set of levels tried already
            }
            let ranges: Vec<Range<TokenId>> = levels
                .iter()
                .flat_map(|&l| chain[l as usize].iter().cloned())
                .filter(|r| r.clone().any(|t| prog.kept(t)))
                .collect();
            if !ranges.is_empty() {
                return Some(Edit::deleting(ranges));
            }
        }
    }

    fn accepted(&mut self, _prog: &Program) {
        if let Some(chunks) = &mut self.chunks {
            chunks.accepted();
        }
        self.tried.clear();
    }

    fn box_clone(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }
}
