//! DiWi's search for witnesses (§3.2, Algorithm 1): mutate a parent program by a rule chosen
//! by Metropolis-Hastings over the rules' scores, keep a passing mutant only when it adds
//! diversity (its coverage or trace differs from every witness so far), and move on to
//! higher-order mutants (failing mutants as parents) when a phase finds nothing.
//!
//! Like the reducers, a session hands out queries and takes verdicts; it never runs a test.
//! Queries go out in rounds of a fixed size and a round's verdicts are applied in query
//! order, so the same seed, settings and verdicts give the same witnesses whatever the
//! number of tests run at once.

use super::coverage::{rank, Coverage, Profile, Ranking};
use super::mutant::{Change, Mutant, Mutation};
use super::rules::{Rule, RuleSites};
use crate::rng::Rng;
use crate::tree::{Parser, Validity};
use crate::{InputError, Lang, Query, Side};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};

/// How the next rule is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    /// Metropolis-Hastings over the ranking by score, with a geometric target (DiWi).
    Mh,
    /// Uniformly at random: the paper's DiWi_rand baseline.
    Random,
}

/// Which passing mutants become witnesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Only those whose coverage (or trace) differs from the failing program's and every
    /// witness's so far (DiWi).
    Diverse,
    /// Every passing mutant: the baseline without the diversity filter.
    All,
}

whittle_grammars::names!(Selection {
    Mh => "mh",
    Random => "random",
});

whittle_grammars::names!(Keep {
    Diverse => "diverse",
    All => "all",
});

#[derive(Clone, Debug)]
pub struct WitnessSettings {
    /// The random seed of the search.
    pub rng_seed: u64,
    /// Tests at most (the original's included).
    pub budget: usize,
    /// Stop once this many witnesses are found.
    pub want: Option<usize>,
    pub selection: Selection,
    pub keep: Keep,
    /// Queries per round: a round is made from what the rounds before it found.
    pub round: usize,
}

impl Default for WitnessSettings {
    fn default() -> Self {
        WitnessSettings {
            rng_seed: 1,
            budget: 200,
            want: None,
            selection: Selection::Mh,
            keep: Keep::Diverse,
            round: 4,
        }
    }
}

/// The geometric distribution's success probability over the ranking: rule k places down
/// is accepted with probability (1 - P)^k.
const GEOMETRIC_P: f64 = 0.4;
/// Each phase's share of the budget before the search moves to higher-order mutants.
const PHASES: usize = 4;
/// At most this many edits are added to a parent at once.
const MAX_STEP: usize = 16;

/// What a test said of a mutant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MutantOutcome {
    /// Still shows the bug.
    Failing,
    /// The compiler accepts it and it does not show the bug: a witness.
    Passing,
    /// The compiler rejects it, or the test could not tell.
    Rejected,
}

/// A test's verdict with what the compile did, when the shell can tell.
#[derive(Clone, Debug)]
pub struct Observation {
    pub outcome: MutantOutcome,
    pub coverage: Option<Coverage>,
    /// A trace the compiler printed, compared line by line when there is no coverage.
    pub trace: Option<String>,
    /// The part of the compiler's report the bug is about (the messages the user's focus
    /// matches, see [`super::messages_about`]), when known: what tells a failing mutant
    /// nearer a witness, instead of the whole trace (where an unrelated message lost would
    /// count too).
    pub about: Option<String>,
}

impl Observation {
    pub fn of(outcome: MutantOutcome) -> Observation {
        Observation {
            outcome,
            coverage: None,
            trace: None,
            about: None,
        }
    }

    /// What a failing mutant is compared by, to tell whether it is nearer a witness: the
    /// messages the bug is about when known, else its whole profile.
    fn nearness(&self) -> Option<Profile> {
        match &self.about {
            Some(about) => Some(Profile::of_trace(about)),
            None => self.profile(),
        }
    }

    fn profile(&self) -> Option<Profile> {
        match (&self.coverage, &self.trace) {
            (Some(c), _) => Some(c.profile()),
            (None, Some(t)) => Some(Profile::of_trace(t)),
            _ => None,
        }
        .filter(|p| !p.is_empty())
    }
}

/// A witness: a passing mutant, with its edits and how far its compile is from the others.
#[derive(Clone, Debug, Serialize)]
pub struct Witness {
    pub text: String,
    pub changes: Vec<Change>,
    pub order: usize,
    /// The mean Jaccard distance of its profile to the failing program's and the earlier
    /// witnesses'; `None` without coverage or trace.
    pub distance: Option<f64>,
    #[serde(skip)]
    pub coverage: Option<Coverage>,
    /// The query that found it; `None` for one a higher-order mutant was shrunk to.
    pub query: Option<u64>,
}

/// A rule's record, for its score and the statistics.
#[derive(Clone, Debug, Serialize)]
pub struct RuleStats {
    #[serde(serialize_with = "rule_name")]
    pub rule: Rule,
    pub sites: usize,
    pub selected: u32,
    pub accepted: u32,
    /// Its mutants the compiler rejected.
    pub rejected: u32,
    /// The mean distance of its latest witness to the others.
    pub diversity: f64,
}

fn rule_name<S: serde::Serializer>(rule: &Rule, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(rule.name())
}

impl RuleStats {
    /// DiWi's priority: diversity times success rate.
    pub fn score(&self) -> f64 {
        if self.selected == 0 {
            0.0
        } else {
            self.diversity * self.accepted as f64 / self.selected as f64
        }
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct WitnessStats {
    pub queries: usize,
    pub failing: usize,
    pub passing: usize,
    pub rejected: usize,
    /// Mutants the parser rejected before any test.
    pub syntax_rejected: usize,
    /// Passing mutants dropped by the diversity filter.
    pub not_diverse: usize,
    /// Queries spent shrinking higher-order witnesses to fewer edits.
    pub minimize_queries: usize,
    pub witnesses: usize,
    /// The highest order of mutant tried.
    pub max_order: usize,
}

enum Purpose {
    Original,
    /// A new mutant; credits these rules.
    Search(Vec<Rule>),
    /// A smaller version of the witness being minimized.
    Minimize,
}

struct Pending {
    mutant: Mutant,
    purpose: Purpose,
}

/// Dropping edits from a passing higher-order mutant while it still passes: chunks of
/// halving size, as ddmin's complement tests.
struct Shrink {
    best: Mutant,
    obs: Observation,
    rules: Vec<Rule>,
    chunk: usize,
    pos: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OriginalState {
    Untested,
    Failing,
    /// The original does not fail: nothing to witness.
    NotFailing(MutantOutcome),
}

pub struct WitnessSearch {
    original: String,
    raw: tree_sitter::Tree,
    parser: Parser,
    sites: RuleSites,
    rules: Vec<RuleStats>,
    /// The rule Metropolis-Hastings stands on.
    current: usize,
    rng: Rng,
    settings: WitnessSettings,
    parents: Vec<Mutant>,
    next_parents: Vec<Mutant>,
    /// The failing mutants whose compile printed (or covered) only part of what the failing
    /// program's did: nearer a witness than the others, so preferred as the next parents.
    nearer_parents: Vec<Mutant>,
    /// Whether the parents are nearer ones: then an edit added to one takes, half the time,
    /// a rule of the parent's own edits (a bug that shows in two places, fixed in one, is
    /// likely fixed the same way in the other).
    parents_nearer: bool,
    step: usize,
    phase_queries: usize,
    phase_found: bool,
    witnesses: Vec<Witness>,
    profiles: Vec<Profile>,
    failing: Option<Observation>,
    /// The coverage of the mutants that still fail (the first 1,024), for the ranking (see
    /// [`rank`]).
    failing_mutants: Vec<Coverage>,
    /// The failing program's report as failing mutants are compared with it (see
    /// [`Observation::nearness`]), made once.
    failing_nearness: Option<Profile>,
    original_state: OriginalState,
    tested: HashSet<u64>,
    next_id: u64,
    pending: HashMap<u64, Pending>,
    /// Queries of the current round not yet reported, and the reports in.
    out: usize,
    reports: BTreeMap<u64, Observation>,
    round_left: usize,
    shrinking: Vec<Shrink>,
    exhausted: bool,
    stats: WitnessStats,
    /// Per rule, the sites near the lines the compiler pointed at, each with the running
    /// total of their weights (see [`WitnessSearch::focus_weighted`]).
    focused: HashMap<Rule, Vec<(usize, f64)>>,
}

/// How often a site is drawn from the lines the compiler pointed at, when it did.
const FOCUS_SHARE: f64 = 0.75;
/// Lines either side of a line the compiler pointed at that count as near it.
const FOCUS_LINES: usize = 3;

impl WitnessSearch {
    pub fn new(lang: Lang, text: &str, settings: WitnessSettings) -> Result<Self, InputError> {
        let mut parser = Parser::new(lang);
        parser.set_cross_check(false);
        let (tree, raw) = parser.parse_with_raw(text);
        if let Some(error) = tree.error.clone() {
            return Err(InputError {
                side: None,
                lang,
                error,
            });
        }
        let sites = RuleSites::of(&tree);
        let rules = sites
            .rules()
            .into_iter()
            .map(|rule| RuleStats {
                rule,
                sites: sites.of_rule(rule).len(),
                selected: 0,
                accepted: 0,
                rejected: 0,
                diversity: 0.0,
            })
            .collect::<Vec<_>>();
        let mut rng = Rng::new(settings.rng_seed);
        let current = if rules.is_empty() {
            0
        } else {
            rng.below(rules.len())
        };
        Ok(WitnessSearch {
            original: text.to_string(),
            raw,
            parser,
            sites,
            current,
            rules,
            rng,
            parents: vec![Mutant::default()],
            next_parents: vec![],
            nearer_parents: vec![],
            parents_nearer: false,
            step: 1,
            phase_queries: 0,
            phase_found: false,
            witnesses: vec![],
            profiles: vec![],
            failing: None,
            failing_mutants: vec![],
            failing_nearness: None,
            original_state: OriginalState::Untested,
            tested: HashSet::from([crate::digest::text(text)]),
            next_id: 0,
            pending: HashMap::new(),
            out: 0,
            reports: BTreeMap::new(),
            round_left: 0,
            shrinking: vec![],
            exhausted: false,
            stats: WitnessStats::default(),
            focused: HashMap::new(),
            settings,
        })
    }

    /// Lines (1-based) the compiler's report on the failing program points at: most sites
    /// are then drawn near them. The bug is rarely far from where the compiler complains, and
    /// a large program has too many sites to find it by chance.
    pub fn focus(&mut self, lines: &[usize]) {
        let weighted: Vec<(usize, f64)> = lines.iter().map(|&l| (l, 1.0)).collect();
        self.focus_weighted(&weighted);
    }

    /// [`WitnessSearch::focus`] with a weight per line: a site near lines of more weight
    /// is drawn more often (see [`super::pointed::pointed_lines`]).
    pub fn focus_weighted(&mut self, lines: &[(usize, f64)]) {
        let mut starts = vec![0usize];
        starts.extend(self.original.match_indices('\n').map(|(i, _)| i + 1));
        let weight = |byte: u32| {
            let line = starts.partition_point(|&s| s <= byte as usize);
            lines
                .iter()
                .filter(|(l, _)| line.abs_diff(*l) <= FOCUS_LINES)
                .map(|(_, w)| *w)
                .fold(0.0, f64::max)
        };
        self.focused = self
            .rules
            .iter()
            .map(|r| {
                let mut total = 0.0;
                let near: Vec<(usize, f64)> = self
                    .sites
                    .of_rule(r.rule)
                    .iter()
                    .enumerate()
                    .filter_map(|(i, s)| {
                        let w = weight(s.start);
                        (w > 0.0).then(|| {
                            total += w;
                            (i, total)
                        })
                    })
                    .collect();
                (r.rule, near)
            })
            .filter(|(_, v)| !v.is_empty())
            .collect();
    }

    pub fn original(&self) -> &str {
        &self.original
    }

    pub fn original_state(&self) -> OriginalState {
        self.original_state
    }

    pub fn witnesses(&self) -> &[Witness] {
        &self.witnesses
    }

    pub fn stats(&self) -> &WitnessStats {
        &self.stats
    }

    pub fn rules(&self) -> &[RuleStats] {
        &self.rules
    }

    /// The failing program's coverage, once its test reported one.
    pub fn failing_coverage(&self) -> Option<&Coverage> {
        self.failing.as_ref().and_then(|o| o.coverage.as_ref())
    }

    /// The coverage of the mutants that still fail, as their tests reported it.
    pub fn failing_mutants(&self) -> &[Coverage] {
        &self.failing_mutants
    }

    /// Ochiai over the coverage of the failing program, its failing mutants and the
    /// witnesses: `None` without the failing program's coverage.
    pub fn ranking(&self) -> Option<Ranking> {
        let failing = self.failing_coverage()?;
        let passing: Vec<Coverage> = self.witness_coverage().cloned().collect();
        Some(rank(failing, &self.failing_mutants, &passing))
    }

    /// The coverage of each witness that has one.
    pub fn witness_coverage(&self) -> impl Iterator<Item = &Coverage> {
        self.witnesses.iter().filter_map(|w| w.coverage.as_ref())
    }

    /// Whether the search is over: the budget spent, enough witnesses, nothing left to try,
    /// or an original that does not fail.
    pub fn done(&self) -> bool {
        if matches!(self.original_state, OriginalState::NotFailing(_)) {
            return true;
        }
        if self.out > 0 || !self.reports.is_empty() {
            return false;
        }
        self.stats.queries >= self.settings.budget
            || self.enough()
            || self.exhausted && self.shrinking.is_empty()
    }

    fn enough(&self) -> bool {
        self.settings
            .want
            .is_some_and(|w| self.witnesses.len() >= w)
    }

    /// Up to `k` queries; none while the round's verdicts are awaited.
    pub fn next(&mut self, k: usize) -> Vec<Query> {
        let mut out = vec![];
        if self.original_state == OriginalState::Untested {
            if self.next_id == 0 {
                let text = self.original.clone();
                out.push(self.issue(Mutant::default(), text, Purpose::Original));
                self.round_left = 0;
            }
            return out;
        }
        if self.done() {
            return out;
        }
        if self.round_left == 0 && self.out == 0 {
            self.round_left = self.round_size();
        }
        while out.len() < k && self.round_left > 0 {
            match self.make() {
                Some((mutant, text, purpose)) => {
                    self.round_left -= 1;
                    out.push(self.issue(mutant, text, purpose));
                }
                None => {
                    self.round_left = 0;
                    if self.out == 0 && self.shrinking.is_empty() && self.reports.is_empty() {
                        self.exhausted = true;
                    }
                    self.flush();
                }
            }
        }
        out
    }

    /// Whether the verdict of query `id` is still awaited (every verdict is used).
    pub fn wants(&self, id: u64) -> bool {
        self.pending.contains_key(&id) && !self.reports.contains_key(&id)
    }

    /// The verdict of query `id`; applied with the rest of its round, in query order.
    pub fn report(&mut self, id: u64, obs: Observation) {
        // A verdict for a query not asked, or asked and already answered, changes nothing.
        if !self.pending.contains_key(&id) || self.reports.contains_key(&id) {
            return;
        }
        self.out -= 1;
        self.reports.insert(id, obs);
        self.flush();
    }

    /// Applies a finished round's verdicts, in query order.
    fn flush(&mut self) {
        let untested = self.original_state == OriginalState::Untested;
        if self.out > 0 || !(self.round_left == 0 || untested) {
            return;
        }
        for (id, obs) in std::mem::take(&mut self.reports) {
            let p = self.pending.remove(&id).expect("a pending query");
            self.apply(p, id, obs);
        }
    }

    fn round_size(&self) -> usize {
        let left = self.settings.budget.saturating_sub(self.stats.queries);
        // Shrinking goes one test at a time: each step starts from the last success.
        let size = if self.shrinking.is_empty() {
            self.settings.round.max(1)
        } else {
            1
        };
        size.min(left)
    }

    fn issue(&mut self, mutant: Mutant, text: String, purpose: Purpose) -> Query {
        let id = self.next_id;
        self.next_id += 1;
        self.out += 1;
        self.stats.queries += 1;
        self.stats.max_order = self.stats.max_order.max(mutant.order());
        if matches!(purpose, Purpose::Minimize) {
            self.stats.minimize_queries += 1;
        }
        self.pending.insert(id, Pending { mutant, purpose });
        Query {
            id,
            candidate: id,
            side: Side::Variant,
            text,
            original: id == 0,
        }
    }

    /// The next mutant to test: a step of the shrinking under way, else a new one.
    fn make(&mut self) -> Option<(Mutant, String, Purpose)> {
        if let Some(s) = self.shrinking.last_mut() {
            while s.chunk > 0 {
                if s.pos >= s.best.order() {
                    s.chunk /= 2;
                    s.pos = 0;
                    continue;
                }
                let (from, to) = (s.pos, s.pos + s.chunk);
                s.pos = to;
                let smaller = s.best.only(|i| i < from || i >= to);
                if smaller.order() == 0 {
                    continue;
                }
                // Fewer edits of a mutant that parsed need not parse: checked as any mutant.
                let text = smaller.apply(&self.original);
                if let Validity::Invalid = self.parser.check(&self.raw, &self.original, &text) {
                    self.stats.syntax_rejected += 1;
                    continue;
                }
                return Some((smaller, text, Purpose::Minimize));
            }
            let done = self.shrinking.pop().expect("a shrink");
            self.consider(done.best, done.obs, done.rules, None);
            return self.make();
        }
        if self.rules.is_empty() || self.enough() {
            return None;
        }
        for _ in 0..256 {
            let parent = self.parents[self.rng.below(self.parents.len())].clone();
            let mut m = parent.clone();
            let mut rules = vec![];
            for _ in 0..self.step {
                let again = if self.parents_nearer && parent.order() > 0 && self.rng.below(2) == 0 {
                    Some(parent.edits()[self.rng.below(parent.order())].rule)
                } else {
                    None
                };
                let edit = self.draw_edit(again);
                let rule = edit.rule;
                if let Some(next) = m.with(edit) {
                    m = next;
                    rules.push(rule);
                }
            }
            if m.order() == parent.order() {
                continue;
            }
            let text = m.apply(&self.original);
            if !self.tested.insert(crate::digest::text(&text)) {
                continue;
            }
            if let Validity::Invalid = self.parser.check(&self.raw, &self.original, &text) {
                self.stats.syntax_rejected += 1;
                continue;
            }
            rules.sort();
            rules.dedup();
            return Some((m, text, Purpose::Search(rules)));
        }
        None
    }

    /// One edit: by `rule` if given, else a rule by [`Self::pick_rule`]; one of its sites
    /// (mostly near where the compiler pointed, when it did), one of the site's texts.
    fn draw_edit(&mut self, rule: Option<Rule>) -> Mutation {
        let rule = match rule {
            Some(rule) => rule,
            None => {
                let picked = self.pick_rule();
                self.rules[picked].rule
            }
        };
        let sites = self.sites.of_rule(rule);
        let site = match self.focused.get(&rule) {
            Some(near) if self.rng.unit() < FOCUS_SHARE => {
                let total = near.last().map_or(0.0, |n| n.1);
                let at = self.rng.unit() * total;
                let i = near.partition_point(|n| n.1 <= at).min(near.len() - 1);
                &sites[near[i].0]
            }
            _ => &sites[self.rng.below(sites.len())],
        };
        Mutation {
            start: site.start,
            end: site.end,
            text: site.choices[self.rng.below(site.choices.len())].clone(),
            rule,
        }
    }

    /// Metropolis-Hastings: propose a rule uniformly, accept it with probability
    /// min(1, (1-p)^(kb-ka)) where k is a rule's place in the ranking by score.
    fn pick_rule(&mut self) -> usize {
        let n = self.rules.len();
        if self.settings.selection == Selection::Random {
            return self.rng.below(n);
        }
        // A rule's place: how many rules score higher. Equal scores share a place, so rules
        // nothing is known of yet (all at 0) are drawn alike, whatever their order.
        let scores: Vec<f64> = self.rules.iter().map(RuleStats::score).collect();
        let place = |r: usize| scores.iter().filter(|&&x| x > scores[r]).count() as i32;
        let ka = place(self.current);
        loop {
            let b = self.rng.below(n);
            let kb = place(b);
            let accept = (1.0 - GEOMETRIC_P).powi((kb - ka).max(0));
            if self.rng.unit() < accept {
                self.current = b;
                return b;
            }
        }
    }

    fn apply(&mut self, p: Pending, id: u64, obs: Observation) {
        match p.purpose {
            Purpose::Original => {
                self.original_state = match obs.outcome {
                    MutantOutcome::Failing => OriginalState::Failing,
                    other => OriginalState::NotFailing(other),
                };
                self.failing_nearness = obs.nearness();
                self.failing = Some(obs);
            }
            Purpose::Minimize => {
                let s = self.shrinking.last_mut().expect("a shrink under way");
                if obs.outcome == MutantOutcome::Passing {
                    s.best = p.mutant;
                    s.obs = obs;
                    // The same chunk again, at the same place: the edits after it moved up.
                    s.pos = s.pos.saturating_sub(s.chunk);
                }
            }
            Purpose::Search(rules) => {
                let rejected = obs.outcome == MutantOutcome::Rejected;
                for &r in &rules {
                    if let Some(st) = self.rules.iter_mut().find(|s| s.rule == r) {
                        st.selected += 1;
                        st.rejected += rejected as u32;
                    }
                }
                match obs.outcome {
                    MutantOutcome::Failing => {
                        self.stats.failing += 1;
                        let nearer = match (obs.nearness(), &self.failing_nearness) {
                            (Some(p), Some(f)) => p.is_strict_subset(f),
                            _ => false,
                        };
                        if nearer && self.nearer_parents.len() < 4096 {
                            self.nearer_parents.push(p.mutant.clone());
                        }
                        if self.next_parents.len() < 4096 {
                            self.next_parents.push(p.mutant);
                        }
                        // A compile's coverage is about 100 KB (tcc's): the first ones are
                        // enough to rank by.
                        if let Some(c) = obs.coverage.filter(|_| self.failing_mutants.len() < 1024)
                        {
                            self.failing_mutants.push(c);
                        }
                    }
                    MutantOutcome::Rejected => self.stats.rejected += 1,
                    MutantOutcome::Passing => {
                        self.stats.passing += 1;
                        if p.mutant.order() > 1 {
                            let chunk = p.mutant.order() / 2;
                            self.shrinking.push(Shrink {
                                best: p.mutant,
                                obs,
                                rules,
                                chunk,
                                pos: 0,
                            });
                        } else {
                            self.consider(p.mutant, obs, rules, Some(id));
                        }
                    }
                }
                self.phase_queries += 1;
                self.next_phase();
            }
        }
    }

    /// A higher-order phase when this one found nothing: failing mutants become the parents
    /// (those nearer a witness, if any) and each candidate adds more edits.
    fn next_phase(&mut self) {
        let len = (self.settings.budget / PHASES).max(8);
        if self.phase_queries < len {
            return;
        }
        if !self.phase_found && !self.next_parents.is_empty() {
            let nearer = std::mem::take(&mut self.nearer_parents);
            let all = std::mem::take(&mut self.next_parents);
            self.parents_nearer = !nearer.is_empty();
            self.parents = if self.parents_nearer { nearer } else { all };
            self.step = (self.step + 1).min(MAX_STEP);
        }
        self.phase_queries = 0;
        self.phase_found = false;
    }

    /// What a passing mutant's diversity is measured on, with the failing program's
    /// counterpart. With coverage on both sides: what its compile did without of the failing
    /// compile's (nothing, for the failing program itself), so a witness counts as diverse
    /// only where it can tell Ochiai something; a mutant whose runtime behaviour changed but
    /// whose compile ran every statement as often as the failing one's is no witness of the
    /// bug's code. Else the whole coverage or trace.
    fn diversity_profiles(&self, obs: &Observation) -> (Option<Profile>, Option<Profile>) {
        let failing = self.failing.as_ref();
        match (&obs.coverage, failing.and_then(|f| f.coverage.as_ref())) {
            (Some(c), Some(f)) if !f.is_empty() => (Some(c.without(f)), Some(Profile::default())),
            _ => (obs.profile(), failing.and_then(Observation::profile)),
        }
    }

    /// A passing mutant becomes a witness if it adds diversity (or the filter is off).
    fn consider(&mut self, mutant: Mutant, obs: Observation, rules: Vec<Rule>, id: Option<u64>) {
        let (profile, failing) = self.diversity_profiles(&obs);
        let distance = profile.as_ref().map(|p| {
            let all: Vec<f64> = failing
                .iter()
                .chain(self.profiles.iter())
                .map(|q| p.distance(q))
                .collect();
            (all.iter().sum::<f64>() / all.len().max(1) as f64, all)
        });
        if self.settings.keep == Keep::Diverse {
            if let Some((_, all)) = &distance {
                if all.contains(&0.0) {
                    self.stats.not_diverse += 1;
                    return;
                }
            }
        }
        let mean = distance.as_ref().map(|(m, _)| *m);
        for r in rules {
            if let Some(st) = self.rules.iter_mut().find(|s| s.rule == r) {
                st.accepted += 1;
                st.diversity = mean.unwrap_or(1.0);
            }
        }
        self.profiles.push(profile.unwrap_or_default());
        let text = mutant.apply(&self.original);
        self.witnesses.push(Witness {
            changes: mutant
                .edits()
                .iter()
                .map(|e| Change::of(&self.original, e))
                .collect(),
            order: mutant.order(),
            text,
            distance: mean,
            coverage: obs.coverage,
            query: id,
        });
        self.stats.witnesses = self.witnesses.len();
        self.phase_found = true;
    }
}

impl crate::query::Queries for WitnessSearch {
    type Answer = Observation;
    fn next(&mut self, k: usize) -> Vec<Query> {
        WitnessSearch::next(self, k)
    }
    fn report(&mut self, id: u64, answer: Observation) {
        WitnessSearch::report(self, id, answer)
    }
    fn wants(&self, id: u64) -> bool {
        WitnessSearch::wants(self, id)
    }
    fn done(&self) -> bool {
        WitnessSearch::done(self)
    }
}

#[cfg(test)]
mod tests;
