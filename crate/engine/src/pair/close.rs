//! Closing a pair from the seed's side. MinTDiff makes the variant read as the seed where the
//! variant still passes; what is left is what the variant needs. The seed may still lack more
//! than the bug: a seed of `f();` against a variant's `f(b[0][-1L]);` differs by eight tokens,
//! where the seed `f(b[0][1L]);` would pass its test and differ by one. So the seed is offered
//! the variant with one small piece left out (a node deleted, or a node replaced by one of its
//! children), the smallest pieces first, each a piece of the variant's difference and smaller
//! than the difference now; the first the seed's test accepts is the new seed.

use crate::tree::{NodeId, Tree};
use std::collections::HashSet;
use std::rc::Rc;

/// How many valid seeds one run of the pass may have tested.
const TRIES: usize = 48;
/// How many pieces it considers at most, the cheapest (each costs a validity check).
const MOST: usize = 1024;

/// The variant's bytes `start..end` replaced by its bytes `keep` (empty: deleted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// Counted tokens the seed leaves out: the difference it would have.
    pub cost: usize,
    pub start: u32,
    pub end: u32,
    pub keep: (u32, u32),
}

impl Piece {
    /// The variant's text without the piece.
    pub fn seed_from(&self, variant: &str) -> String {
        let mut out = String::with_capacity(variant.len());
        out.push_str(&variant[..self.start as usize]);
        glue(
            &mut out,
            &variant[self.keep.0 as usize..self.keep.1 as usize],
        );
        glue(&mut out, &variant[self.end as usize..]);
        out
    }
}

/// `next` after `out`, a space between where two words would run together.
fn glue(out: &mut String, next: &str) {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    if out.ends_with(word) && next.starts_with(word) {
        out.push(' ');
    }
    out.push_str(next);
}

/// The pieces of `variant` that hold a token `differs` marks (by variant token), cheapest
/// first, each leaving out fewer counted tokens than `diff`.
pub fn pieces(variant: &Tree, differs: &[bool], diff: usize) -> Vec<Piece> {
    // Prefix sums over tokens: counted ones, and differing ones.
    let mut counted = vec![0usize; variant.tokens.len() + 1];
    let mut differing = vec![0usize; variant.tokens.len() + 1];
    for t in 0..variant.tokens.len() {
        counted[t + 1] = counted[t] + variant.is_counted(t as u32) as usize;
        differing[t + 1] = differing[t] + differs[t] as usize;
    }
    let count = |n: NodeId| {
        let r = variant.node(n).tokens();
        counted[r.end as usize] - counted[r.start as usize]
    };
    let mut out = Vec::new();
    for n in 0..variant.nodes.len() as NodeId {
        let node = variant.node(n);
        let r = node.tokens();
        if node.parent.is_none() || differing[r.end as usize] == differing[r.start as usize] {
            continue;
        }
        let size = count(n);
        let mut add = |cost: usize, keep: (u32, u32)| {
            if cost >= 1 && cost < diff {
                out.push(Piece {
                    cost,
                    start: node.start,
                    end: node.end,
                    keep,
                });
            }
        };
        add(size, (node.start, node.start));
        for &c in &node.children {
            let child = variant.node(c);
            if child.named && count(c) > 0 {
                add(size - count(c), (child.start, child.end));
            }
        }
    }
    out.sort_by_key(|p| (p.cost, p.start, p.end, p.keep));
    out.dedup();
    out.truncate(MOST);
    out
}

/// The pass's state: the pieces, the next one, how many seeds were offered, and the seeds
/// made so far (two pieces may make one text: `-` deleted, or `-n` by its child `n`).
#[derive(Clone, Debug, Default)]
pub struct Close {
    pub pieces: Rc<Vec<Piece>>,
    pub next: usize,
    pub tried: usize,
    pub done: bool,
    made: HashSet<u64>,
}

impl Close {
    pub fn new(pieces: Vec<Piece>) -> Close {
        Close {
            pieces: Rc::new(pieces),
            ..Close::default()
        }
    }

    /// Whether `seed` is made for the first time.
    pub fn first(&mut self, seed: &str) -> bool {
        self.made.insert(crate::digest::text(seed))
    }

    /// The next piece to offer, or None when the pass is over.
    pub fn take(&mut self) -> Option<Piece> {
        if self.done || self.tried >= TRIES {
            return None;
        }
        let p = *self.pieces.get(self.next)?;
        self.next += 1;
        Some(p)
    }
}
