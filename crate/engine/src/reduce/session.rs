//! The sans-IO session: `next(k)` hands out queries (one program text for one side),
//! `report(id, verdict)` takes their verdicts, in any order. The result depends only on the input, the settings and the
//! verdicts: candidates are resolved in generation order, and of those in flight the
//! earliest interesting one wins (later ones were generated assuming it would fail).
//!
//! The machinery (speculation, verdict cache, replay, rounds) is generic over a
//! [`Subject`]: what is being reduced. [`Session`] reduces one program; a pair session
//! (`crate::pair`) reduces a seed and a variant, each candidate having two *parts* (sides),
//! each tested by its own property. A candidate is interesting when all its parts are. The
//! engine decides which part is tested when ([`Subject::TEST_ORDER`]): one at a time, the
//! next only once the previous passed, except for the original, whose parts are all asked
//! at once so that a failure says which.

use super::{HistoryStep, Proposal, Round, Stats, Subject, Verdict};
use crate::{Query, Recording};
use std::collections::{HashMap, VecDeque};

/// What one `next` call may spend on proposals, so each call does bounded work (and a
/// driver can stop a run between calls): a proposal costs a unit, and one more for each
/// [`BYTES_PER_UNIT`] of the program it unparses and checks.
const PROPOSALS_PER_CALL: usize = 64;
const BYTES_PER_UNIT: usize = 64 * 1024;

struct Slot<S: Subject> {
    id: u64,
    /// The pass that proposed it (`None` for the original).
    pass: Option<&'static str>,
    /// Whether its pass went beyond the grammar: not parsed (see `Pass::beyond_grammar`).
    beyond_grammar: bool,
    texts: Vec<String>,
    /// Each part's hash and verdict so far.
    parts: Vec<(u64, Option<bool>)>,
    /// Which parts were handed out as queries.
    asked: Vec<bool>,
    /// The pass's state after proposing this candidate: where to go on from if it fails.
    state: Option<S::Pass>,
    /// Where generation after this candidate got to when a `next` call ran out of budget
    /// (past proposals that assume this candidate fails): where to go on generating, and
    /// where the pass resumes if it does fail. Never used if it is accepted.
    resume: Option<S::Pass>,
    change: Option<S::Change>,
    verdict: Option<bool>,
}

/// A candidate made obsolete while out: its verdicts still fill the cache.
struct Stale {
    pass: Option<&'static str>,
    beyond_grammar: bool,
    parts: Vec<(u64, Option<bool>)>,
}

/// A query's id: its candidate's and its part's.
fn query_id<S: Subject>(candidate: u64, part: usize) -> u64 {
    candidate * S::SIDES.len() as u64 + part as u64
}

/// The candidate and part a query id names.
fn split_query<S: Subject>(id: u64) -> (u64, usize) {
    let n = S::SIDES.len() as u64;
    (id / n, (id % n) as usize)
}

/// The generic session; see [`super::Session`] for one program.
pub struct Engine<S: Subject> {
    subject: S,
    pass_index: usize,
    /// The current pass's state after the last resolved candidate.
    current: S::Pass,
    pass_progress: bool,
    round_progress: bool,
    /// Rounds start coarse (big edits only) and end with a fine one.
    coarse: bool,
    /// The size when the round began: a coarse round that takes less than a tenth is the last.
    round_start: usize,
    /// Past the fixpoint: running the finale's passes (see [`Subject::final_pass`]).
    finale: bool,
    round_deferred: bool,
    /// The steps (index and pass) of a coarse round that made no progress: the coarse rounds
    /// after it leave them out (a megabyte's chunks refused in one round are refused in the
    /// next, hundreds of queries each time), fine rounds do not.
    barren: Vec<(usize, &'static str)>,
    inflight: VecDeque<Slot<S>>,
    stale: HashMap<u64, Stale>,
    cache: HashMap<u64, bool>,
    next_id: u64,
    stats: Stats,
    /// Tests run per part (side).
    part_queries: Vec<u64>,
    history: Vec<HistoryStep>,
    record: Vec<bool>,
    replay: Option<(Vec<bool>, usize)>,
    /// Queries ready to hand out: the next part of candidates whose earlier parts passed.
    ready: VecDeque<Query>,
    /// The last `next` call ended for its budget: another may find more at once.
    sliced: bool,
}

impl<S: Subject> Slot<S> {
    fn new(
        id: u64,
        texts: Vec<String>,
        state: Option<S::Pass>,
        change: Option<S::Change>,
    ) -> Slot<S> {
        let parts: Vec<(u64, Option<bool>)> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| (crate::digest::of(i as u64, t.as_bytes()), None))
            .collect();
        Slot {
            id,
            pass: state.as_ref().map(S::pass_name),
            beyond_grammar: state.as_ref().is_some_and(S::pass_beyond_grammar),
            texts,
            asked: vec![false; parts.len()],
            parts,
            state,
            resume: None,
            change,
            verdict: None,
        }
    }

    fn is_original(&self) -> bool {
        self.state.is_none()
    }

    /// The queries to hand out for this slot now: every untested part of the original; else
    /// the first untested part in test order, once the parts before it passed.
    fn queries(&mut self) -> Vec<Query> {
        let mut out = Vec::new();
        if self.verdict.is_some() {
            return out;
        }
        for &p in S::TEST_ORDER {
            if self.parts[p].1.is_some() {
                continue;
            }
            if !self.asked[p] {
                self.asked[p] = true;
                out.push(Query {
                    id: query_id::<S>(self.id, p),
                    candidate: self.id,
                    side: S::SIDES[p],
                    text: self.texts[p].clone(),
                    original: self.is_original(),
                });
            }
            if !self.is_original() {
                break;
            }
        }
        out
    }

    /// The candidate's verdict once its parts' verdicts decide it: any boring part makes it
    /// boring, all interesting make it interesting.
    fn settle(&mut self) {
        if self.parts.iter().any(|(_, v)| *v == Some(false)) {
            self.verdict = Some(false);
        } else if self.parts.iter().all(|(_, v)| *v == Some(true)) {
            self.verdict = Some(true);
        }
    }
}

impl<S: Subject> Engine<S> {
    /// A session over `subject`, whose original texts go first: nothing else is worth
    /// trying if they are not interesting.
    pub(crate) fn start(mut subject: S, original: Vec<String>) -> Engine<S> {
        let current = subject
            .pass(0, Round::Coarse)
            .expect("every subject has a first pass");
        let parts = original.len();
        let stats = Stats {
            tokens_before: subject.size(),
            tokens_now: subject.size(),
            bytes_before: subject.bytes(),
            bytes_now: subject.bytes(),
            pass: S::pass_name(&current).to_string(),
            ..Stats::default()
        };
        let mut engine = Engine {
            subject,
            pass_index: 0,
            current,
            pass_progress: false,
            round_progress: false,
            coarse: true,
            round_start: stats.tokens_before,
            finale: false,
            round_deferred: false,
            barren: Vec::new(),
            inflight: VecDeque::new(),
            stale: HashMap::new(),
            cache: HashMap::new(),
            next_id: 1,
            stats,
            part_queries: vec![0; parts],
            history: Vec::new(),
            record: Vec::new(),
            replay: None,
            ready: VecDeque::new(),
            sliced: false,
        };
        let id = engine.take_id();
        let mut slot = Slot::new(id, original, None, None);
        engine.ready.extend(slot.queries());
        engine.inflight.push_back(slot);
        engine
    }

    /// Makes this session take its verdicts from a recording instead of reports.
    pub(crate) fn into_replay(mut self, recording: Recording) -> Engine<S> {
        // The original's slot was made before the recording was attached: resolve it now.
        let verdicts = recording.0;
        let first = verdicts.first().copied();
        self.replay = Some((verdicts, 1));
        self.ready.clear();
        match first {
            Some(v) => {
                self.inflight[0].verdict = Some(v);
                self.resolve();
            }
            None => self.end(),
        }
        self
    }

    pub(crate) fn subject(&self) -> &S {
        &self.subject
    }

    fn take_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Up to `k` queries to run (the original's parts come together, even past `k`). May
    /// return fewer (or none) while earlier ones are still out; none once [`Engine::done`].
    pub fn next(&mut self, k: usize) -> Vec<Query> {
        let mut out: Vec<Query> = Vec::new();
        while out.len() < k {
            match self.ready.pop_front() {
                Some(q) if self.wants(q.id) => out.push(q),
                Some(_) => {}
                None => break,
            }
        }
        if self.stats.original_interesting.is_none() {
            out.extend(self.ready.drain(..));
            return out; // nothing else is worth trying before the original's verdict
        }
        let mut budget = PROPOSALS_PER_CALL;
        while out.len() < k && budget > 0 && !self.stats.done {
            match self.generate(&mut budget) {
                Some(q) => out.extend(q),
                None => break,
            }
        }
        self.sliced = budget == 0 && out.len() < k && !self.stats.done;
        self.count_in_flight();
        out
    }

    /// Whether the last [`Engine::next`] stopped for its budget, not to await reports: a
    /// driver with tests out calls again at once instead of waiting for one to end.
    pub fn more(&self) -> bool {
        self.sliced
    }

    /// Runs a replaying session for up to `n` candidates.
    pub fn step(&mut self, n: usize) {
        for _ in 0..n {
            if self.stats.done {
                break;
            }
            let mut budget = PROPOSALS_PER_CALL;
            if self.generate(&mut budget).is_none() && budget > 0 {
                break;
            }
        }
    }

    /// Generates one candidate: `Some(Some(q))` with its first query, `Some(None)` when it
    /// was resolved at once (cache, replay) or a pass ended, `None` when waiting for reports.
    fn generate(&mut self, budget: &mut usize) -> Option<Option<Query>> {
        let mut state = match self.inflight.back() {
            Some(slot) => slot.resume.clone().or_else(|| slot.state.clone())?,
            None => self.current.clone(),
        };
        let cost = 1 + self.subject.bytes() / BYTES_PER_UNIT;
        while *budget > 0 {
            *budget = budget.saturating_sub(cost);
            let invalid_before = self.stats.invalid_skipped;
            let proposal = self.subject.propose(&mut state, &mut self.stats);
            let invalid = self.stats.invalid_skipped - invalid_before;
            if invalid > 0 {
                self.stats.pass_mut(S::pass_name(&state)).invalid_skipped += invalid;
            }
            let (texts, change) = match proposal {
                Proposal::Over => {
                    if self.inflight.is_empty() {
                        self.finish_pass();
                        return Some(None);
                    }
                    return None; // the pass may go on once the candidates out are resolved
                }
                Proposal::Skip => continue,
                Proposal::Candidate { texts, change } => (texts, change),
            };
            if self
                .replay
                .as_ref()
                .is_some_and(|(bits, pos)| *pos >= bits.len())
            {
                // The recording ends here: so does the replay.
                self.end();
                return None;
            }
            let id = self.take_id();
            let mut slot = Slot::new(id, texts, Some(state), Some(change));
            if let Some((bits, pos)) = &mut self.replay {
                slot.verdict = Some(bits[*pos]);
                *pos += 1;
            } else {
                self.look_up(&mut slot);
            }
            let out = slot.queries().pop();
            self.inflight.push_back(slot);
            if out.is_none() {
                self.resolve();
            }
            return Some(out);
        }
        // Out of budget: keep the state reached so the next call goes on from there.
        match self.inflight.back_mut() {
            Some(slot) => slot.resume = Some(state),
            None => self.current = state,
        }
        None
    }

    /// Fills in what the cache knows of a new candidate's parts.
    fn look_up(&mut self, slot: &mut Slot<S>) {
        for (hash, v) in &mut slot.parts {
            *v = self.cache.get(hash).copied();
        }
        slot.settle();
        if slot.verdict.is_some() {
            self.stats.cache_hits += 1;
            if let Some(pass) = slot.pass {
                self.stats.pass_mut(pass).cache_hits += 1;
            }
        }
    }

    /// Takes the verdict of query `id`. Unknown ids and repeated reports are ignored.
    pub fn report(&mut self, id: u64, verdict: Verdict) {
        let (candidate, part) = split_query::<S>(id);
        self.take_report(candidate, part, verdict);
    }

    fn take_report(&mut self, id: u64, part: usize, verdict: Verdict) {
        let v = match &verdict {
            Verdict::Interesting => Some(true),
            Verdict::Boring => Some(false),
            Verdict::Error(_) => None,
        };
        if v.is_none() {
            self.stats.errors += 1;
        }
        let (parts, pass, beyond_grammar, live) = if let Some(slot) = self
            .inflight
            .iter_mut()
            .find(|s| s.id == id && s.verdict.is_none())
        {
            (&mut slot.parts, slot.pass, slot.beyond_grammar, true)
        } else if let Some(stale) = self.stale.get_mut(&id) {
            (&mut stale.parts, stale.pass, stale.beyond_grammar, false)
        } else {
            return;
        };
        if !parts.get(part).is_some_and(|(_, v)| v.is_none()) {
            return;
        }
        self.stats.queries += 1;
        self.stats.unparsed_queries += beyond_grammar as u64;
        if let Some(pass) = pass {
            self.stats.pass_mut(pass).queries += 1;
        }
        self.part_queries[part] += 1;
        if !live {
            self.stats.stale_verdicts += 1;
        }
        parts[part].1 = Some(v == Some(true));
        if let Some(v) = v {
            self.cache.insert(parts[part].0, v);
        }
        if live {
            let slot = self.inflight.iter_mut().find(|s| s.id == id).unwrap();
            slot.settle();
            let next = slot.queries();
            self.ready.extend(next);
        } else if self.stale[&id].parts.iter().all(|(_, v)| v.is_some()) {
            self.stale.remove(&id);
        }
        self.resolve();
    }

    /// Resolves candidates at the front of the queue, in generation order.
    fn resolve(&mut self) {
        while let Some(v) = self.inflight.front().and_then(|s| s.verdict) {
            let slot = self.inflight.pop_front().unwrap();
            if self.replay.is_none() {
                self.record.push(v);
            }
            match (slot.state, slot.change) {
                (Some(state), Some(change)) if v => {
                    self.accept(slot.texts, change, state, slot.pass)
                }
                (Some(state), _) => self.current = slot.resume.unwrap_or(state),
                // The original's slot.
                (None, _) => {
                    self.stats.original_interesting = Some(v);
                    if !v {
                        self.end();
                    }
                }
            }
        }
        self.count_in_flight();
    }

    fn count_in_flight(&mut self) {
        self.stats.in_flight = self.inflight.iter().filter(|s| s.verdict.is_none()).count();
    }

    fn accept(
        &mut self,
        texts: Vec<String>,
        change: S::Change,
        mut state: S::Pass,
        pass: Option<&'static str>,
    ) {
        let before = self.stats.tokens_now;
        let bytes_before = self.stats.bytes_now;
        self.subject.accept(texts, change, &mut state);
        self.current = state;
        for s in self.inflight.drain(..) {
            if s.verdict.is_none() {
                self.stale.insert(
                    s.id,
                    Stale {
                        pass: s.pass,
                        beyond_grammar: s.beyond_grammar,
                        parts: s.parts,
                    },
                );
            }
        }
        self.stats.accepted += 1;
        self.stats.tokens_now = self.subject.size();
        self.stats.bytes_now = self.subject.bytes();
        if let Some(pass) = pass {
            let (tokens, bytes) = (self.stats.tokens_now, self.stats.bytes_now);
            let figures = self.stats.pass_mut(pass);
            figures.accepted += 1;
            figures.tokens_removed += before as i64 - tokens as i64;
            figures.bytes_removed += bytes_before as i64 - bytes as i64;
        }
        self.pass_progress = true;
        self.history.push(HistoryStep {
            strategy: self.subject.strategy_name(),
            pass: S::pass_name(&self.current),
            round: self.stats.round,
            tokens_before: before,
            tokens_after: self.stats.tokens_now,
            queries: self.stats.queries,
        });
    }

    /// The current pass has nothing more to try: on to the next one, the next round, or the
    /// finale's passes once rounds change nothing.
    fn finish_pass(&mut self) {
        self.round_deferred |= S::pass_deferred(&self.current);
        if self.finale {
            // The finale's results are never parsed again: no refresh, no more rounds.
            self.pass_index += 1;
            let next = self.subject.final_pass(self.pass_index);
            self.start_pass(next);
            return;
        }
        if self.coarse && !self.pass_progress {
            let name = S::pass_name(&self.current);
            self.barren.push((self.pass_index, name));
        }
        if self.pass_progress {
            self.subject.refresh();
            self.stats.tokens_now = self.subject.size();
            self.round_progress = true;
            self.pass_progress = false;
        }
        self.pass_index += 1;
        let next = match self.next_step() {
            Some(p) => Some(p),
            // Another round while rounds make progress; a fine one after a coarse one that
            // put edits off; done after a round that changed nothing and put nothing off.
            None if self.round_progress || (self.coarse && self.round_deferred) => {
                // Coarse rounds go on while each takes a tenth of the program: a megabyte
                // of headers falls in bulk (chunks, bodies, unused definitions) round after
                // round. Past that, what is left depends on itself in chains (a header's
                // declarations), which one-at-a-time deletion from the end takes apart.
                let size = self.subject.size();
                self.coarse &= self.round_progress && size * 10 <= self.round_start * 9;
                if !self.coarse {
                    self.barren.clear();
                }
                self.round_start = size;
                self.round_progress = false;
                self.round_deferred = false;
                self.pass_index = 0;
                self.stats.round += 1;
                self.next_step()
            }
            None => {
                self.finale = true;
                self.pass_index = 0;
                self.subject.final_pass(0)
            }
        };
        self.start_pass(next);
    }

    /// The round's step at `pass_index` or after it, past the steps left out as barren.
    fn next_step(&mut self) -> Option<S::Pass> {
        loop {
            let next = self.subject.pass(self.pass_index, self.round())?;
            let step = (self.pass_index, S::pass_name(&next));
            if !self.barren.contains(&step) {
                return Some(next);
            }
            // Put off: a fine round follows even if nothing else progresses.
            self.round_deferred = true;
            self.pass_index += 1;
        }
    }

    /// Makes `next` the current pass; the session ends without one.
    fn start_pass(&mut self, next: Option<S::Pass>) {
        match next {
            Some(p) => {
                self.stats.pass = S::pass_name(&p).to_string();
                self.current = p;
            }
            None => {
                self.end();
                self.stats.pass = "done".into();
            }
        }
    }

    /// The kind of the round going on, as its next step is picked.
    fn round(&self) -> Round {
        match (self.coarse, self.round_progress) {
            (true, _) => Round::Coarse,
            (false, true) => Round::Fine,
            (false, false) => Round::Stalled,
        }
    }

    /// The session is over: no more queries; every figure made exact.
    fn end(&mut self) {
        self.stats.done = true;
        self.ready.clear();
        self.subject.finish();
        self.stats.tokens_now = self.subject.size();
    }

    /// Ends the session where it is (the shell was interrupted): the best so far stays, and
    /// its figures are made exact.
    pub fn stop(&mut self) {
        if !self.stats.done {
            self.inflight.clear();
            self.end();
            self.count_in_flight();
        }
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Tests run for each part (for pairs: seed, variant).
    pub fn part_queries(&self) -> &[u64] {
        &self.part_queries
    }

    pub fn history(&self) -> &[HistoryStep] {
        &self.history
    }

    pub fn done(&self) -> bool {
        self.stats.done
    }

    /// Whether query `id` still needs running: its candidate is out, undecided, and this
    /// part of it untested.
    pub fn wants(&self, id: u64) -> bool {
        let (candidate, part) = split_query::<S>(id);
        self.inflight.iter().any(|s| {
            s.id == candidate
                && s.verdict.is_none()
                && s.parts.get(part).is_some_and(|(_, v)| v.is_none())
        })
    }

    /// Whether candidates are out awaiting verdicts.
    pub fn waiting(&self) -> bool {
        self.inflight.iter().any(|s| s.verdict.is_none())
    }

    /// The verdicts this session consumed, in the order a one-at-a-time run would ask for
    /// them: enough to replay the reduction anywhere without a test.
    pub fn recording(&self) -> Recording {
        Recording(self.record.clone())
    }
}

impl<S: Subject> crate::query::Queries for Engine<S> {
    type Answer = Verdict;
    fn next(&mut self, k: usize) -> Vec<Query> {
        Engine::next(self, k)
    }
    fn report(&mut self, id: u64, answer: Verdict) {
        Engine::report(self, id, answer)
    }
    fn wants(&self, id: u64) -> bool {
        Engine::wants(self, id)
    }
    fn done(&self) -> bool {
        Engine::done(self)
    }
    fn more(&self) -> bool {
        Engine::more(self)
    }
}
