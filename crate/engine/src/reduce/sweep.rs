//! Adaptive deletion from the end of a list, for the elements of Perses's list slots.
//!
//! ddmin halves its chunks level by level, and on a list whose elements depend on each other
//! in a chain (a header's declarations, each used by a later one) every level above single
//! elements fails: about 2n tests for n elements. This sweep walks from the end to the start
//! with a chunk size that doubles after a deletion and halves after a failure, as choice-
//! sequence shrinkers delete runs: a run of r deletable elements costs about 2 log r tests,
//! an element that must stay costs one, and deleting the later elements first frees the
//! earlier ones they used.
//!
//! CDD (counter-based delta debugging, the simplified ProbDD) was measured in its place
//! (commit 7fdc811): the same results on nine bench cases, with 5% to 39% more queries.

use std::rc::Rc;

#[derive(Clone, Debug)]
pub struct Sweep {
    /// Indices of units still kept, in order.
    pub alive: Vec<u32>,
    /// Units before this position in `alive` are still to be tried.
    pos: usize,
    chunk: usize,
    try_all: bool,
    /// The last proposal was every unit.
    all_out: bool,
    last: Option<std::ops::Range<usize>>,
    /// The last proposal could not be halved: a single unit, or a chunk a coarse round had
    /// to grow to weigh enough.
    smallest: bool,
    /// In a coarse round, chunks lighter than `min_mass` (by `mass` of their units) wait.
    mass: Option<Rc<Vec<u32>>>,
    min_mass: u32,
    /// Whether some chunk was left for a fine round for being light.
    pub deferred: bool,
}

impl Sweep {
    /// With `may_empty`, deleting every unit at once is tried first.
    pub fn new(alive: Vec<u32>, may_empty: bool) -> Sweep {
        Sweep {
            try_all: may_empty && alive.len() > 1,
            all_out: false,
            pos: alive.len(),
            alive,
            chunk: 1,
            last: None,
            smallest: false,
            mass: None,
            min_mass: 0,
            deferred: false,
        }
    }

    /// Only chunks that weigh at least `min_mass` (`mass` by unit index) are tried.
    pub fn coarse(mut self, mass: Rc<Vec<u32>>, min_mass: u32) -> Sweep {
        self.mass = Some(mass);
        self.min_mass = min_mass;
        self
    }

    fn weight(&self, units: &[u32]) -> u32 {
        match &self.mass {
            Some(m) => units.iter().map(|&u| m[u as usize]).sum(),
            None => u32::MAX,
        }
    }

    /// The next set of units to try deleting, or `None` when the sweep reached the start.
    /// A set proposed before and not [`accepted`](Sweep::accepted) was not interesting.
    pub fn propose(&mut self) -> Option<Vec<u32>> {
        self.rejected();
        if std::mem::take(&mut self.try_all) {
            if self.weight(&self.alive) >= self.min_mass {
                self.all_out = true;
                return Some(self.alive.clone());
            }
            self.deferred = true;
        }
        if self.pos == 0 {
            return None;
        }
        let mut start = self.pos.saturating_sub(self.chunk);
        // A coarse round grows a light chunk backwards until it weighs enough.
        while start > 0 && self.weight(&self.alive[start..self.pos]) < self.min_mass {
            start -= 1;
        }
        if self.weight(&self.alive[start..self.pos]) < self.min_mass {
            self.deferred = true;
            self.pos = 0;
            return None;
        }
        let len = self.pos - start;
        self.smallest = len == 1 || len > self.chunk;
        self.chunk = len;
        self.last = Some(start..self.pos);
        Some(self.alive[start..self.pos].to_vec())
    }

    /// The last proposed set was deleted: go on before it with twice the chunk.
    pub fn accepted(&mut self) {
        if std::mem::take(&mut self.all_out) {
            self.alive.clear();
            self.pos = 0;
        }
        if let Some(r) = self.last.take() {
            self.pos = r.start;
            self.alive.drain(r);
            self.chunk *= 2;
        }
    }

    /// The last proposed set is needed (or part of it is): halve the chunk, or pass a
    /// single unit that must stay. A coarse round leaves a failed chunk whole for later.
    fn rejected(&mut self) {
        self.all_out = false;
        if let Some(r) = self.last.take() {
            if !self.smallest {
                self.chunk /= 2;
            } else {
                // A unit that must stay, or (coarse) the lightest chunk allowed here.
                self.deferred |= self.chunk > 1;
                self.pos = r.start;
                self.chunk = 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::reduce::ddmin::{run_deletion, Deletion};

    impl Deletion for Sweep {
        fn propose(&mut self) -> Option<Vec<u32>> {
            Sweep::propose(self)
        }
        fn accepted(&mut self) {
            Sweep::accepted(self)
        }
        fn kept(&self) -> &[u32] {
            &self.alive
        }
    }

    fn run(n: u32, interesting: impl Fn(&[u32]) -> bool) -> (Vec<u32>, usize) {
        run_deletion(Sweep::new((0..n).collect(), true), interesting)
    }

    #[test]
    fn finds_the_two_needed_units_in_few_tests() {
        let (kept, queries) = run(100, |k| k.contains(&17) && k.contains(&83));
        assert_eq!(kept, vec![17, 83]);
        assert!(queries < 40, "{queries} queries");
    }

    #[test]
    fn later_units_go_first_and_free_what_they_used() {
        // Each odd unit uses the one before it; only 51 is needed.
        let uses =
            |k: &[u32]| k.contains(&51) && k.iter().all(|&u| u % 2 == 0 || k.contains(&(u - 1)));
        let (kept, queries) = run(100, uses);
        assert_eq!(kept, vec![50, 51]);
        assert!(queries < 40, "{queries} queries");
    }

    #[test]
    fn needed_units_cost_one_test_each() {
        let (kept, queries) = run(64, |k| k.len() == 64);
        assert_eq!(kept.len(), 64);
        assert!(queries <= 65, "{queries} queries");
    }

    #[test]
    fn a_coarse_sweep_tries_only_heavy_chunks() {
        let mass = Rc::new(vec![1u32; 40]);
        let mut s = Sweep::new((0..40).collect(), false).coarse(mass, 10);
        while let Some(set) = s.propose() {
            assert!(set.len() >= 10, "{set:?}");
        }
        assert!(s.deferred);
        // Not even all of a light list at once.
        let mut light = Sweep::new((0..4).collect(), true).coarse(Rc::new(vec![1; 4]), 10);
        assert_eq!(light.propose(), None);
        assert!(light.deferred);
    }

    #[test]
    fn a_chunk_cut_short_by_the_start_still_halves_to_one() {
        // Two deletions double the chunk to 4 with only 2 units left before it.
        let (kept, _) = run(6, |k| k.contains(&0) && k.contains(&1));
        assert_eq!(kept, vec![0, 1]);
    }

    #[test]
    fn empty_when_nothing_is_needed() {
        assert_eq!(run(10, |_| true), (Vec::new(), 1));
    }
}
