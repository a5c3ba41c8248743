//! Delta debugging over a list of units, and the `ddmin-lines`/`ddmin-tokens` baselines.
//!
//! [`Chunks`] is the complement-deletion core of ddmin as C-Vise's line passes run it: try
//! deleting chunks of size n/2, n/4, ... 1, walking from the end of the list to its start
//! (later code uses earlier declarations, so deleting from the end first frees more).

use super::{Edit, Pass, Program};
use crate::tree::TokenId;
use std::ops::Range;
use std::rc::Rc;

/// Chunk-deletion state over `len` units (indices into the caller's list).
#[derive(Clone, Debug)]
pub struct Chunks {
    /// Indices of units still kept, in order.
    pub alive: Vec<u32>,
    chunk: usize,
    /// Which chunk, counted from the end, is next.
    from_end: usize,
    /// Whether deleting every unit at once is allowed and not yet tried.
    try_all: bool,
    last: Option<Range<usize>>,
}

impl Chunks {
    pub fn new(alive: Vec<u32>, may_empty: bool) -> Chunks {
        let chunk = alive.len().div_ceil(2).max(1);
        Chunks {
            try_all: may_empty && alive.len() > 1,
            alive,
            chunk,
            from_end: 0,
            last: None,
        }
    }

    /// The next set of units to try deleting, or `None` when 1-minimal for this round.
    pub fn propose(&mut self) -> Option<Vec<u32>> {
        let n = self.alive.len();
        if n == 0 {
            return None;
        }
        if self.try_all {
            self.try_all = false;
            self.last = Some(0..n);
            return Some(self.alive.clone());
        }
        loop {
            let end = n.checked_sub(self.from_end * self.chunk).filter(|&e| e > 0);
            match end {
                Some(end) => {
                    let start = end.saturating_sub(self.chunk);
                    self.from_end += 1;
                    self.last = Some(start..end);
                    return Some(self.alive[start..end].to_vec());
                }
                None if self.chunk > 1 => {
                    self.chunk = self.chunk.div_ceil(2).min(self.chunk - 1).max(1);
                    self.from_end = 0;
                }
                None => return None,
            }
        }
    }

    /// How many units the current level's sets hold (the last one of a level may hold fewer).
    pub fn chunk_size(&self) -> usize {
        self.chunk
    }

    /// The last proposed set was deleted.
    pub fn accepted(&mut self) {
        if let Some(r) = self.last.take() {
            self.alive.drain(r);
            // The chunk counted from the end that was just removed is now filled by the
            // chunk before it: try the same position again.
            self.from_end = self.from_end.saturating_sub(1);
            if self.chunk > self.alive.len() {
                self.chunk = self.alive.len().max(1);
            }
        }
    }
}

/// Plain ddmin over lines or tokens of the program, the baselines.
#[derive(Clone)]
pub struct DdminUnits {
    units: Rc<Vec<Range<TokenId>>>,
    chunks: Chunks,
}

impl DdminUnits {
    /// Units are the counted tokens that start on each line.
    pub fn lines(prog: &Program) -> DdminUnits {
        let tree = &prog.tree;
        let mut units: Vec<Range<TokenId>> = Vec::new();
        let mut line_of_prev: Option<usize> = None;
        let mut line = 1usize;
        let mut pos = 0usize;
        for t in 0..tree.tokens.len() as TokenId {
            if !prog.kept(t) {
                continue;
            }
            let start = tree.tokens[t as usize].start as usize;
            line += tree.text[pos..start].matches('\n').count();
            pos = start;
            match (line_of_prev, units.last_mut()) {
                (Some(l), Some(u)) if l == line => u.end = t + 1,
                _ => units.push(t..t + 1),
            }
            line_of_prev = Some(line);
        }
        Self::over(units, false)
    }

    pub fn tokens(prog: &Program) -> DdminUnits {
        let units = (0..prog.tree.tokens.len() as TokenId)
            .filter(|&t| prog.kept(t) && prog.tree.is_counted(t))
            .map(|t| t..t + 1)
            .collect();
        Self::over(units, false)
    }

    /// Units are the preprocessor's line markers (`# 12 "file.h" 3`), every one tried
    /// at once first: a compiler reads them only to name files and lines in its messages.
    pub fn line_markers(prog: &Program) -> DdminUnits {
        let tree = &prog.tree;
        let is_marker = |t: TokenId| {
            let text = tree.token_text(t);
            text.strip_prefix('#')
                .is_some_and(|rest| rest.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        };
        let mut units: Vec<Range<TokenId>> = Vec::new();
        let mut t = 0;
        while t < tree.tokens.len() as TokenId {
            if !(prog.kept(t) && is_marker(t)) {
                t += 1;
                continue;
            }
            // The marker runs to the end of its line.
            let start = t;
            t += 1;
            while t < tree.tokens.len() as TokenId {
                if tree.newline_between(t - 1, t) || tree.token_text(t).trim().is_empty() {
                    break;
                }
                t += 1;
            }
            units.push(start..t);
        }
        Self::over(units, true)
    }

    /// ddmin over `units`; with `may_empty`, deleting them all is tried first.
    fn over(units: Vec<Range<TokenId>>, may_empty: bool) -> DdminUnits {
        let chunks = Chunks::new((0..units.len() as u32).collect(), may_empty);
        DdminUnits {
            units: Rc::new(units),
            chunks,
        }
    }
}

impl Pass for DdminUnits {
    fn propose(&mut self, _prog: &Program) -> Option<Edit> {
        let set = self.chunks.propose()?;
        Some(Edit::deleting(
            set.iter()
                .map(|&u| self.units[u as usize].clone())
                .collect(),
        ))
    }

    fn accepted(&mut self, _prog: &Program) {
        self.chunks.accepted();
    }

    fn box_clone(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }
}

/// A list deletion strategy as the tests drive it: [`Chunks`] and [`super::sweep::Sweep`].
#[cfg(test)]
pub(crate) trait Deletion {
    fn propose(&mut self) -> Option<Vec<u32>>;
    fn accepted(&mut self);
    fn kept(&self) -> &[u32];
}

#[cfg(test)]
impl Deletion for Chunks {
    fn propose(&mut self) -> Option<Vec<u32>> {
        Chunks::propose(self)
    }
    fn accepted(&mut self) {
        Chunks::accepted(self)
    }
    fn kept(&self) -> &[u32] {
        &self.alive
    }
}

/// Runs deletion `d` against a predicate on the kept set; returns what is kept and the tests.
#[cfg(test)]
pub(crate) fn run_deletion(
    mut d: impl Deletion,
    interesting: impl Fn(&[u32]) -> bool,
) -> (Vec<u32>, usize) {
    let mut queries = 0;
    while let Some(set) = d.propose() {
        let rest: Vec<u32> = d
            .kept()
            .iter()
            .copied()
            .filter(|u| !set.contains(u))
            .collect();
        queries += 1;
        if interesting(&rest) {
            d.accepted();
        }
    }
    (d.kept().to_vec(), queries)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(n: u32, interesting: impl Fn(&[u32]) -> bool) -> (Vec<u32>, usize) {
        run_deletion(Chunks::new((0..n).collect(), true), interesting)
    }

    #[test]
    fn finds_the_two_needed_units() {
        let (kept, queries) = run(100, |k| k.contains(&17) && k.contains(&83));
        assert_eq!(kept, vec![17, 83]);
        assert!(queries < 60, "{queries} queries");
    }

    #[test]
    fn one_minimal_for_an_order_dependent_property() {
        // Interesting while some unit >= 90 survives together with every unit it needs (u - 45).
        let (kept, _) = run(100, |k| k.iter().any(|&u| u >= 90 && k.contains(&(u - 45))));
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[1] - kept[0], 45);
    }

    #[test]
    fn empty_when_nothing_is_needed() {
        assert_eq!(run(10, |_| true).0, Vec::<u32>::new());
    }
}
