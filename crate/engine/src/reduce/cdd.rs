//! Counter-based delta debugging (CDD; Zhang et al., "Toward a Better Understanding of
//! Probabilistic Delta Debugging", ICSE 2025), the simplification of ProbDD, for the
//! elements of Perses's list slots, as an alternative to [`super::sweep::Sweep`].
//!
//! ProbDD gives every element a probability of being needed and deletes, each time, the set
//! that maximises the expected gain. The paper shows that the probabilities stay equal within
//! a round, so the subset size depends on the round alone: with `p` the probability of the
//! round, subsets of `-1 / ln(1 - p)` elements, each tried once; after a round `p` grows by
//! `1 / (1 - 1/e)`. A round with subsets of one element is the last. No complements, no
//! subset tried twice in a round.

use std::rc::Rc;

/// ProbDD's initial probability that an element is needed.
const P0: f64 = 0.1;

#[derive(Clone, Debug)]
pub struct Cdd {
    /// Indices of units still kept, in order.
    pub alive: Vec<u32>,
    p: f64,
    size: usize,
    /// Units before this position in `alive` are still to be tried this round; the round
    /// goes from the end, as the sweep does, so later users go before what they use.
    pos: usize,
    try_all: bool,
    all_out: bool,
    last: Option<std::ops::Range<usize>>,
    /// Some deletion this round: another round at the smallest size follows.
    progress: bool,
    mass: Option<Rc<Vec<u32>>>,
    min_mass: u32,
    /// Whether some subset was left for a fine round for being light.
    pub deferred: bool,
}

fn subset_size(p: f64) -> usize {
    if p >= 1.0 {
        1
    } else {
        (-1.0 / (1.0 - p).ln()).round().max(1.0) as usize
    }
}

impl Cdd {
    /// With `may_empty`, deleting every unit at once is tried first.
    pub fn new(alive: Vec<u32>, may_empty: bool) -> Cdd {
        let size = subset_size(P0);
        Cdd {
            try_all: may_empty && alive.len() > 1,
            all_out: false,
            pos: alive.len(),
            alive,
            p: P0,
            size,
            last: None,
            progress: false,
            mass: None,
            min_mass: 0,
            deferred: false,
        }
    }

    /// Only subsets that weigh at least `min_mass` (`mass` by unit index) are tried.
    pub fn coarse(mut self, mass: Rc<Vec<u32>>, min_mass: u32) -> Cdd {
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

    /// The next set of units to try deleting, or `None` after the last round.
    pub fn propose(&mut self) -> Option<Vec<u32>> {
        self.all_out = false;
        self.last = None;
        if std::mem::take(&mut self.try_all) {
            if self.weight(&self.alive) >= self.min_mass {
                self.all_out = true;
                return Some(self.alive.clone());
            }
            self.deferred = true;
        }
        loop {
            if self.pos == 0 {
                // The round is over: a round of single units ends it all unless it deleted
                // something (which may have freed units it passed).
                if self.alive.is_empty() || (self.size == 1 && !self.progress) {
                    return None;
                }
                if self.size > 1 {
                    self.p /= 1.0 - (-1.0f64).exp();
                    self.size = subset_size(self.p);
                }
                self.progress = false;
                self.pos = self.alive.len();
            }
            let start = self.pos.saturating_sub(self.size);
            let range = start..self.pos;
            self.pos = start;
            if self.weight(&self.alive[range.clone()]) < self.min_mass {
                self.deferred = true;
                continue;
            }
            self.last = Some(range.clone());
            return Some(self.alive[range].to_vec());
        }
    }

    /// The last proposed set was deleted.
    pub fn accepted(&mut self) {
        if std::mem::take(&mut self.all_out) {
            self.alive.clear();
            self.pos = 0;
        }
        if let Some(r) = self.last.take() {
            self.alive.drain(r);
            self.progress = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::reduce::ddmin::{run_deletion, Deletion};

    impl Deletion for Cdd {
        fn propose(&mut self) -> Option<Vec<u32>> {
            Cdd::propose(self)
        }
        fn accepted(&mut self) {
            Cdd::accepted(self)
        }
        fn kept(&self) -> &[u32] {
            &self.alive
        }
    }

    fn run(n: u32, interesting: impl Fn(&[u32]) -> bool) -> (Vec<u32>, usize) {
        run_deletion(Cdd::new((0..n).collect(), true), interesting)
    }

    #[test]
    fn sizes_shrink_round_by_round_to_one() {
        let sizes: Vec<usize> = (0..6)
            .map(|r| subset_size(P0 / (1.0 - (-1.0f64).exp()).powi(r)))
            .collect();
        assert_eq!(sizes, vec![9, 6, 3, 2, 1, 1]);
    }

    #[test]
    fn finds_the_two_needed_units() {
        let (kept, queries) = run(100, |k| k.contains(&17) && k.contains(&83));
        assert_eq!(kept, vec![17, 83]);
        assert!(queries < 60, "{queries} queries");
    }

    #[test]
    fn later_units_go_first_and_free_what_they_used() {
        let uses =
            |k: &[u32]| k.contains(&51) && k.iter().all(|&u| u % 2 == 0 || k.contains(&(u - 1)));
        assert_eq!(run(100, uses).0, vec![50, 51]);
    }

    #[test]
    fn empty_when_nothing_is_needed() {
        assert_eq!(run(10, |_| true), (Vec::new(), 1));
    }
}
