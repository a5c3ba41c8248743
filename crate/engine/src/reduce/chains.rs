//! The `chains` pass: a node nested in one of its own kind, again and again (`((((x))))`,
//! `- - - x`, `{{{ }}}`, `(int)(int)x`, a `{{{1}}}` initializer), loses levels by ddmin over
//! them, all at once first: a level goes when its own tokens go and its child takes its
//! place. Deep chains come from generators and fuzzers, and a compiler that crashes on deep
//! nesting keeps a chain down to its threshold; Perses takes one level a query.

use super::ddmin::Chunks;
use super::{Edit, Pass, Program};
use crate::tree::{NodeId, TokenId, Tree};
use std::ops::Range;
use std::rc::Rc;

/// Shorter chains are Perses's: a level a query costs them little.
const MIN_LEVELS: usize = 4;

/// A chain: each level's own tokens (before and after the level below), outermost first.
type Chain = Vec<[Range<TokenId>; 2]>;

#[derive(Clone)]
pub struct Chains {
    chains: Rc<Vec<Chain>>,
    /// The chain under ddmin, and its state.
    at: usize,
    chunks: Option<Chunks>,
}

pub fn pass(prog: &Program) -> Chains {
    let tree = &prog.tree;
    let mut chains: Vec<Chain> = (0..tree.nodes.len() as NodeId)
        .filter(|&n| is_head(tree, n) && prog.alive(n))
        .map(|n| chain_from(tree, n))
        .filter(|c| c.len() >= MIN_LEVELS)
        .collect();
    chains.sort_by_key(|c| std::cmp::Reverse(c.len()));
    Chains {
        chains: Rc::new(chains),
        at: 0,
        chunks: None,
    }
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
    tree.node(n)
        .parent
        .is_some_and(|p| same_kind_child(tree, p) == Some(n))
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
                continue;
            };
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
    }

    fn box_clone(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }
}
