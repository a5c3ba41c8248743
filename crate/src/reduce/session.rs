//! The sans-IO session: `next(k)` hands out candidates, `report(id, verdict)` takes
//! verdicts, in any order. The result depends only on the input, the settings and the
//! verdicts: candidates are resolved in generation order, and of those in flight the
//! earliest interesting one wins (later ones were generated assuming it would fail).

use super::{Edit, Pass, Program, Strategy, Verdict};
use crate::tree::Parser;
use crate::unparse::unparse;
use crate::Lang;
use serde::Serialize;
use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};

/// Most proposals one `next` call examines, so each call does bounded work.
const PROPOSALS_PER_CALL: usize = 64;

#[derive(Clone, Debug)]
pub struct Settings {
    pub strategy: Strategy,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { strategy: Strategy::Perses }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Candidate {
    pub id: u64,
    pub text: String,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Stats {
    /// Verdicts received for candidates handed out (the test runs).
    pub queries: u64,
    /// Candidates answered from the verdict cache instead.
    pub cache_hits: u64,
    /// Candidates dropped before querying because they did not parse.
    pub invalid_skipped: u64,
    /// Candidates sent to a test that did not parse: always 0, by construction.
    pub invalid_queries: u64,
    /// Verdicts that came back for candidates made obsolete by an earlier success.
    pub stale_verdicts: u64,
    pub errors: u64,
    pub accepted: u64,
    pub tokens_before: usize,
    pub tokens_now: usize,
    pub bytes_before: usize,
    pub bytes_now: usize,
    pub pass: String,
    pub round: usize,
    pub in_flight: usize,
    /// `None` until the original program's verdict is in.
    pub original_interesting: Option<bool>,
    pub done: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct HistoryStep {
    pub strategy: &'static str,
    pub pass: &'static str,
    pub round: usize,
    pub tokens_before: usize,
    pub tokens_after: usize,
    pub queries: u64,
}

struct Slot {
    id: u64,
    hash: u64,
    text: String,
    keep: Vec<bool>,
    size: usize,
    /// The pass's state after proposing this candidate: where to go on from if it fails.
    state: Option<Box<dyn Pass>>,
    verdict: Option<bool>,
    /// The candidate's tree-sitter tree, the base of incremental checks once it is the best.
    raw: Option<tree_sitter::Tree>,
}

pub struct Session {
    parser: Parser,
    settings: Settings,
    prog: Program,
    best: String,
    best_raw: tree_sitter::Tree,
    pass_index: usize,
    /// The current pass's state after the last resolved candidate.
    current: Box<dyn Pass>,
    pass_progress: bool,
    round_progress: bool,
    /// Rounds start coarse (big edits only) and end with a fine one.
    coarse: bool,
    round_deferred: bool,
    inflight: VecDeque<Slot>,
    stale: HashMap<u64, u64>,
    cache: HashMap<u64, bool>,
    next_id: u64,
    stats: Stats,
    history: Vec<HistoryStep>,
    record: Vec<bool>,
    replay: Option<(Vec<bool>, usize)>,
    original_sent: bool,
}

fn content_hash(text: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

impl Session {
    /// A session over `text`, which must parse: a program with syntax errors could only
    /// yield candidates with syntax errors.
    pub fn new(lang: Lang, text: &str, settings: Settings) -> Result<Session, String> {
        let mut parser = Parser::new(lang);
        let (tree, best_raw) = parser.parse_with_raw(text);
        if let Some(err) = &tree.error {
            return Err(format!(
                "the program does not parse as {lang} ({err}); fix it or choose the right language"
            ));
        }
        let prog = Program::new(tree);
        let size = prog.size();
        let current = settings.strategy.pass(0, &prog, true).expect("every strategy has a first pass");
        let stats = Stats {
            tokens_before: size,
            tokens_now: size,
            bytes_before: text.len(),
            bytes_now: text.len(),
            pass: current.name().to_string(),
            ..Stats::default()
        };
        let mut session = Session {
            parser,
            settings,
            prog,
            best: text.to_string(),
            best_raw,
            pass_index: 0,
            current,
            pass_progress: false,
            round_progress: false,
            coarse: true,
            round_deferred: false,
            inflight: VecDeque::new(),
            stale: HashMap::new(),
            cache: HashMap::new(),
            next_id: 1,
            stats,
            history: Vec::new(),
            record: Vec::new(),
            replay: None,
            original_sent: false,
        };
        // The original goes first: nothing else is worth trying if it is not interesting.
        session.push_slot(text.to_string(), (*session.prog.keep).clone(), size, None, None);
        Ok(session)
    }

    /// A session that takes its verdicts from a recording (see [`Session::verdicts`])
    /// instead of reports: `step` runs it without any test.
    pub fn replay(lang: Lang, text: &str, settings: Settings, verdicts: Vec<bool>) -> Result<Session, String> {
        let mut s = Session::new(lang, text, settings)?;
        // The original's slot was made before the recording was attached: resolve it now.
        let first = verdicts.first().copied();
        s.replay = Some((verdicts, 1));
        match first {
            Some(v) => {
                s.inflight[0].verdict = Some(v);
                s.resolve();
            }
            None => s.stats.done = true,
        }
        Ok(s)
    }

    /// Up to `k` new candidates to test. May return fewer (or none) while earlier ones are
    /// still out; returns none once [`Session::done`].
    pub fn next(&mut self, k: usize) -> Vec<Candidate> {
        let mut out = Vec::new();
        if self.inflight.len() == 1 && self.stats.original_interesting.is_none() {
            // The original, handed out once.
            if !self.original_sent {
                self.original_sent = true;
                let slot = &self.inflight[0];
                out.push(Candidate { id: slot.id, text: slot.text.clone() });
            }
            return out;
        }
        let mut budget = PROPOSALS_PER_CALL;
        while out.len() < k && budget > 0 && !self.stats.done {
            match self.generate(&mut budget) {
                Some(c) => out.extend(c),
                None => break,
            }
        }
        self.stats.in_flight = self.inflight.iter().filter(|s| s.verdict.is_none()).count();
        out
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

    /// Generates one candidate: `Some(Some(c))` to hand out, `Some(None)` when it was
    /// resolved at once (cache, replay) or a pass ended, `None` when waiting for reports.
    fn generate(&mut self, budget: &mut usize) -> Option<Option<Candidate>> {
        let mut state = match self.inflight.back() {
            Some(slot) => slot.state.clone()?,
            None => self.current.clone(),
        };
        while *budget > 0 {
            *budget -= 1;
            let Some(edit) = state.propose(&self.prog) else {
                if self.inflight.is_empty() {
                    self.finish_pass();
                    return Some(None);
                }
                return None; // the pass may go on once the candidates out are resolved
            };
            if let Some((text, keep, size, raw)) = self.candidate_text(&edit) {
                if self.replay.as_ref().is_some_and(|(bits, pos)| *pos >= bits.len()) {
                    // The recording ends here: so does the replay.
                    self.stats.done = true;
                    return None;
                }
                let hash = content_hash(&text);
                let id = self.push_slot(text, keep, size, Some(state), Some(raw));
                let slot = self.inflight.back_mut().unwrap();
                slot.hash = hash;
                if let Some((bits, pos)) = &mut self.replay {
                    slot.verdict = Some(bits[*pos]);
                    *pos += 1;
                } else if let Some(&v) = self.cache.get(&hash) {
                    self.stats.cache_hits += 1;
                    slot.verdict = Some(v);
                } else {
                    let text = slot.text.clone();
                    return Some(Some(Candidate { id, text }));
                }
                self.resolve();
                return Some(None);
            }
        }
        // Out of budget: keep the state reached so the next call goes on from there.
        match self.inflight.back_mut() {
            Some(slot) => slot.state = Some(state),
            None => self.current = state,
        }
        None
    }

    /// The text an edit gives, if it changes the program and parses.
    fn candidate_text(&mut self, edit: &Edit) -> Option<(String, Vec<bool>, usize, tree_sitter::Tree)> {
        if !edit.changes(&self.prog) {
            return None;
        }
        let keep = self.prog.mask_after(edit);
        let text = unparse(&self.prog.tree, &keep);
        if text == self.best {
            return None;
        }
        let Some(raw) = self.parser.check_edit(&self.best_raw, &self.best, &text) else {
            self.stats.invalid_skipped += 1;
            return None;
        };
        if cfg!(debug_assertions) || std::env::var_os("WHITTLE_CHECK_INCREMENTAL").is_some() {
            assert!(self.parser.is_valid(&text), "the incremental check passed a candidate a full parse rejects:\n{text}");
        }
        let tree = &self.prog.tree;
        let size = keep.iter().enumerate().filter(|(t, k)| **k && tree.is_counted(*t as u32)).count();
        Some((text, keep, size, raw))
    }

    fn push_slot(
        &mut self,
        text: String,
        keep: Vec<bool>,
        size: usize,
        state: Option<Box<dyn Pass>>,
        raw: Option<tree_sitter::Tree>,
    ) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let hash = content_hash(&text);
        self.inflight.push_back(Slot { id, hash, text, keep, size, state, verdict: None, raw });
        id
    }

    /// Takes a verdict for candidate `id`. Unknown ids are ignored.
    pub fn report(&mut self, id: u64, verdict: Verdict) {
        let v = match &verdict {
            Verdict::Interesting => Some(true),
            Verdict::Boring => Some(false),
            Verdict::Error(_) => None,
        };
        if verdict != Verdict::Interesting && verdict != Verdict::Boring {
            self.stats.errors += 1;
        }
        if let Some(slot) = self.inflight.iter_mut().find(|s| s.id == id && s.verdict.is_none()) {
            self.stats.queries += 1;
            slot.verdict = Some(v.unwrap_or(false));
            if let Some(v) = v {
                self.cache.insert(slot.hash, v);
            }
        } else if let Some(hash) = self.stale.remove(&id) {
            self.stats.queries += 1;
            self.stats.stale_verdicts += 1;
            if let Some(v) = v {
                self.cache.insert(hash, v);
            }
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
            match slot.state {
                // The original's slot.
                None => {
                    self.stats.original_interesting = Some(v);
                    if !v {
                        self.stats.done = true;
                    }
                }
                Some(state) if v => {
                    if let Some(raw) = slot.raw {
                        self.best_raw = raw;
                    }
                    self.accept(slot.text, slot.keep, slot.size, state)
                }
                Some(state) => self.current = state,
            }
        }
        self.stats.in_flight = self.inflight.iter().filter(|s| s.verdict.is_none()).count();
    }

    fn accept(&mut self, text: String, keep: Vec<bool>, size: usize, mut state: Box<dyn Pass>) {
        let before = self.stats.tokens_now;
        self.prog = self.prog.with_mask(keep);
        self.best = text;
        state.accepted(&self.prog);
        self.current = state;
        for s in self.inflight.drain(..) {
            if s.verdict.is_none() {
                self.stale.insert(s.id, s.hash);
            }
        }
        self.stats.accepted += 1;
        self.stats.tokens_now = size;
        self.stats.bytes_now = self.best.len();
        self.pass_progress = true;
        self.history.push(HistoryStep {
            strategy: self.settings.strategy.name(),
            pass: self.current.name(),
            round: self.stats.round,
            tokens_before: before,
            tokens_after: size,
            queries: self.stats.queries,
        });
    }

    /// The current pass has nothing more to try: on to the next one, or the next round.
    fn finish_pass(&mut self) {
        self.round_deferred |= self.current.deferred();
        if self.pass_progress {
            // A fresh tree for the next pass: the program as it now reads.
            self.prog = Program::new(self.parser.tree_from_raw(&self.best, &self.best_raw));
            self.round_progress = true;
            self.pass_progress = false;
        }
        self.pass_index += 1;
        let strategy = self.settings.strategy;
        let next = match strategy.pass(self.pass_index, &self.prog, self.coarse) {
            Some(p) => Some(p),
            // Another round while rounds make progress; a fine one after a coarse one that
            // put edits off; done after a round that changed nothing and put nothing off.
            None if self.round_progress || (self.coarse && self.round_deferred) => {
                self.coarse = self.round_progress;
                self.round_progress = false;
                self.round_deferred = false;
                self.pass_index = 0;
                self.stats.round += 1;
                strategy.pass(0, &self.prog, self.coarse)
            }
            None => None,
        };
        match next {
            Some(p) => {
                self.stats.pass = p.name().to_string();
                self.current = p;
            }
            None => {
                self.stats.done = true;
                self.stats.pass = "done".into();
            }
        }
    }

    pub fn best(&self) -> &str {
        &self.best
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    pub fn history(&self) -> &[HistoryStep] {
        &self.history
    }

    pub fn done(&self) -> bool {
        self.stats.done
    }

    /// Whether candidate `id` is out and its verdict still matters.
    pub fn wants(&self, id: u64) -> bool {
        self.inflight.iter().any(|s| s.id == id && s.verdict.is_none())
    }

    /// Whether candidates are out awaiting verdicts.
    pub fn waiting(&self) -> bool {
        self.inflight.iter().any(|s| s.verdict.is_none())
    }

    /// The verdicts this session consumed, in the order a one-at-a-time run would ask for
    /// them: enough to replay the reduction anywhere without a test.
    pub fn verdicts(&self) -> &[bool] {
        &self.record
    }

    pub fn lang(&self) -> Lang {
        self.parser.lang()
    }
}
