//! Two folders reduced as a pair (PPR over trees of files): the [`Subject`] of a
//! [`FolderPairSession`]. Its candidates have two parts, the seed's tree and the variant's,
//! each one text ([`bundle`]), tested as a single pair's sides are (the variant first).
//!
//! A path that both folders hold and a grammar covers is a [`crate::pair::Pair`], reduced by PPR's
//! passes, the file with the largest difference first at each step. Any other path (no
//! grammar, or only one side has it) is kept, matched or deleted whole. Each round starts
//! with the moves over whole files, each on both sides at once: a path deleted with the lines
//! linking to it ([`Cross::DeleteFiles`]), a file linked once inlined, a link dropped; then a
//! whole file's difference undone, one side taking the other's version (MinTDiff at the grain
//! of files). A candidate whose two trees are the same explains nothing and is
//! never tested.

use super::Cross;
use super::{bundle, links};
use crate::pair::passes::PairPass;
use crate::pair::{PairSettings, PairStats, Sizes};
use crate::reduce::{Engine, Proposal, Round, Stats, Subject};
use crate::{InputError, Side};
use std::rc::Rc;

/// One path of the two folders.
struct Entry {
    path: String,
    body: Body,
    /// Changed since its trees were built.
    dirty: bool,
}

pub enum Body {
    /// Both sides have it and a grammar covers it.
    Parsed(Box<crate::pair::Pair>),
    /// Each side's text (`None`: that side lacks it).
    Whole([Option<String>; 2]),
}

impl Entry {
    fn texts(&self) -> [Option<&str>; 2] {
        match &self.body {
            Body::Parsed(pair) => pair.texts().map(Some),
            Body::Whole(texts) => [texts[0].as_deref(), texts[1].as_deref()],
        }
    }

    fn sizes(&self) -> Sizes {
        match &self.body {
            Body::Parsed(pair) => pair.sizes(),
            Body::Whole(texts) => {
                let count =
                    |t: &Option<String>| t.as_deref().map_or(0, |t| t.split_whitespace().count());
                let (seed, variant) = (count(&texts[0]), count(&texts[1]));
                let diff = if texts[0] == texts[1] {
                    0
                } else {
                    seed + variant
                };
                Sizes {
                    seed,
                    variant,
                    diff,
                }
            }
        }
    }
}

/// A move over whole files.
#[derive(Clone, Debug)]
pub enum Move {
    /// The path goes from both sides.
    Delete(usize),
    /// The other side takes this side's version of the path (or lacks it too).
    Match(usize, Side),
    /// This line of the file, linking another, goes from both sides.
    Drop { file: usize, line: String },
    /// This line of the file is replaced on both sides by the file it links, which each
    /// side links from that line only; the linked file goes.
    Inline { file: usize, line: String },
}

/// The passes over whole files, in each round's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Whole {
    Delete,
    Inline,
    Drop,
    /// A whole file's difference undone: MinTDiff at the grain of files.
    Match,
}

impl Whole {
    /// The folder's pass this one is on both sides, if any (its name, and what skips it).
    fn cross(self) -> Option<Cross> {
        match self {
            Whole::Delete => Some(Cross::DeleteFiles),
            Whole::Inline => Some(Cross::InlineLinks),
            Whole::Drop => Some(Cross::DropLinks),
            Whole::Match => None,
        }
    }
}

const WHOLE: [Whole; 4] = [Whole::Delete, Whole::Inline, Whole::Drop, Whole::Match];

#[derive(Clone)]
pub enum FolderPairPass {
    Files {
        kind: Whole,
        moves: Rc<Vec<Move>>,
        next: usize,
    },
    File {
        file: usize,
        running: PairPass,
    },
}

/// What accepting a folder pair's candidate takes.
pub enum FolderPairChange {
    File {
        file: usize,
        texts: Vec<String>,
        change: <crate::pair::Pair as Subject>::Change,
    },
    /// Paths with new bodies.
    Files(Vec<(usize, Body)>),
}

/// Two folders under reduction.
pub struct FolderPair {
    entries: Vec<Entry>,
    settings: PairSettings,
    /// The parsed paths of the round's PPR steps, largest difference first.
    order: Vec<usize>,
    /// How many finale passes each file runs.
    finale: usize,
    before: Sizes,
}

/// The sizes of the whole pair: every path's, added.
fn total(sizes: impl Iterator<Item = Sizes>) -> Sizes {
    let zero = Sizes {
        seed: 0,
        variant: 0,
        diff: 0,
    };
    sizes.fold(zero, |a, s| Sizes {
        seed: a.seed + s.seed,
        variant: a.variant + s.variant,
        diff: a.diff + s.diff,
    })
}

impl FolderPair {
    /// Each side's tree as one text, with the `changed` paths' texts in place of their own.
    fn bundles_with(&self, changed: &[(usize, [Option<&str>; 2])]) -> [String; 2] {
        [0, 1].map(|side| {
            bundle::encode(self.entries.iter().enumerate().filter_map(|(i, e)| {
                let texts = match changed.iter().find(|(c, _)| *c == i) {
                    Some((_, texts)) => *texts,
                    None => e.texts(),
                };
                texts[side].map(|t| (e.path.as_str(), t))
            }))
        })
    }

    /// A candidate with the `changed` paths' texts, unless it changes nothing or makes the
    /// two trees the same.
    fn candidate(&self, changed: &[(usize, [Option<&str>; 2])]) -> Option<[String; 2]> {
        let bundles = self.bundles_with(changed);
        (bundles[0] != bundles[1] && bundles != self.bundles_with(&[])).then_some(bundles)
    }

    /// The links of path `i` on `side`, to paths that side has.
    fn links_of(&self, i: usize, side: usize) -> Vec<links::Link> {
        let entry = &self.entries[i];
        let (Some(lang), Some(text)) = (
            crate::grammars::detect_from_name(&entry.path),
            entry.texts()[side],
        ) else {
            return Vec::new();
        };
        let exists = |p: &str| {
            let at = self.entries.iter().find(|e| e.path == p);
            at.is_some_and(|e| e.texts()[side].is_some())
        };
        links::links(lang, &entry.path, text, &exists)
    }

    fn moves(&self, kind: Whole) -> Vec<Move> {
        if kind
            .cross()
            .is_some_and(|c| self.settings.skipped_cross.contains(&c))
        {
            return Vec::new();
        }
        let mut files: Vec<usize> = (0..self.entries.len())
            .filter(|&i| self.entries[i].texts() != [None, None])
            .collect();
        files.sort_by_key(|&i| {
            let s = self.entries[i].sizes();
            std::cmp::Reverse(s.diff + s.seed)
        });
        match kind {
            Whole::Delete => files.into_iter().map(Move::Delete).collect(),
            Whole::Match => files
                .into_iter()
                .filter(|&i| matches!(self.entries[i].body, Body::Whole(_)))
                .flat_map(|i| [Move::Match(i, Side::Seed), Move::Match(i, Side::Variant)])
                .collect(),
            Whole::Inline | Whole::Drop => {
                let mut moves = Vec::new();
                for file in files {
                    let theirs = self.links_of(file, 1);
                    for link in self.links_of(file, 0) {
                        // The same line on both sides, linking the same path.
                        if !theirs
                            .iter()
                            .any(|l| l.line == link.line && l.target == link.target)
                        {
                            continue;
                        }
                        let line = link.line;
                        moves.push(match kind {
                            Whole::Drop => Move::Drop { file, line },
                            _ if link.target.is_some() => Move::Inline { file, line },
                            _ => continue,
                        });
                    }
                }
                moves
            }
        }
    }

    /// The new texts of a move's paths, if it still applies (each side on its own).
    fn moved(&self, m: &Move) -> Option<Vec<(usize, [Option<String>; 2])>> {
        let texts = |i: usize| self.entries[i].texts().map(|t| t.map(String::from));
        Some(match m {
            Move::Delete(file) => {
                // On each side, the lines linking to it go with it.
                let path = self.entries[*file].path.as_str();
                let mut edits = vec![(*file, [None, None])];
                for i in (0..self.entries.len()).filter(|&i| i != *file) {
                    let mut now = texts(i);
                    let mut changed = false;
                    for (side, text) in now.iter_mut().enumerate() {
                        let Some(text) = text else { continue };
                        for link in self.links_of(i, side) {
                            if link.target.as_deref() == Some(path) {
                                changed |= links::cut_line(text, &link.line);
                            }
                        }
                    }
                    if changed {
                        edits.push((i, now));
                    }
                }
                edits
            }
            Move::Match(file, side) => {
                let kept = texts(*file)[*side as usize].clone();
                vec![(*file, [kept.clone(), kept])]
            }
            Move::Drop { file, line } | Move::Inline { file, line } => {
                let mut out = [None, None];
                let mut target = None;
                for side in 0..2 {
                    let links = self.links_of(*file, side);
                    let link = links.iter().find(|l| &l.line == line)?;
                    let replacement = match m {
                        Move::Drop { .. } => String::new(),
                        _ => {
                            let path = link.target.as_deref()?;
                            let t = self.entries.iter().position(|e| e.path == path)?;
                            let uses = (0..self.entries.len())
                                .flat_map(|i| self.links_of(i, side))
                                .filter(|l| l.target.as_deref() == Some(path))
                                .count();
                            if t == *file || uses != 1 {
                                return None;
                            }
                            target = Some(t);
                            links::inlined(link, self.entries[t].texts()[side]?)?
                        }
                    };
                    let mut text = self.entries[*file].texts()[side]?.to_string();
                    text.replace_range(link.start..link.start + link.line.len(), &replacement);
                    out[side] = Some(text);
                }
                let mut edits = vec![(*file, out)];
                edits.extend(target.map(|t| (t, [None, None])));
                edits
            }
        })
    }

    /// A path's body with these texts: a pair when both sides have it and it was parsed
    /// (`None` when a side no longer parses).
    fn body_of(&self, i: usize, texts: [Option<String>; 2]) -> Option<Body> {
        let entry = &self.entries[i];
        let lang = crate::grammars::detect_from_name(&entry.path);
        match (&entry.body, lang, &texts) {
            (Body::Parsed(_), Some(lang), [Some(s), Some(v)]) => {
                let mut pair = crate::pair::Pair::open(lang, s, v, self.settings.clone()).ok()?;
                pair.equal_ok = true;
                Some(Body::Parsed(Box::new(pair)))
            }
            _ => Some(Body::Whole(texts)),
        }
    }

    fn pair_mut(&mut self, i: usize) -> &mut crate::pair::Pair {
        match &mut self.entries[i].body {
            Body::Parsed(pair) => pair,
            Body::Whole(_) => unreachable!("PPR's passes run on parsed paths only"),
        }
    }

    fn parsed_by_diff(&self) -> Vec<usize> {
        let mut files: Vec<usize> = (0..self.entries.len())
            .filter(|&i| matches!(self.entries[i].body, Body::Parsed(_)))
            .collect();
        files.sort_by_key(|&i| {
            let s = self.entries[i].sizes();
            std::cmp::Reverse((s.diff, s.seed + s.variant))
        });
        files
    }

    /// The sizes of seed, variant and difference, over all paths.
    pub fn sizes(&self) -> Sizes {
        total(self.entries.iter().map(Entry::sizes))
    }
}

impl Subject for FolderPair {
    type Pass = FolderPairPass;
    type Change = FolderPairChange;
    const SIDES: &'static [Side] = &[Side::Seed, Side::Variant];
    const TEST_ORDER: &'static [usize] = &[1, 0];

    fn strategy_name(&self) -> &'static str {
        "pairwise"
    }

    fn pass_name(pass: &FolderPairPass) -> &'static str {
        match pass {
            FolderPairPass::Files { kind, .. } => kind.cross().map_or("min-tdiff", Cross::name),
            FolderPairPass::File { running, .. } => running.name(),
        }
    }

    fn pass_deferred(pass: &FolderPairPass) -> bool {
        match pass {
            FolderPairPass::Files { .. } => false,
            FolderPairPass::File { running, .. } => running.deferred(),
        }
    }

    fn pass(&mut self, i: usize, round: Round) -> Option<FolderPairPass> {
        if let Some(&kind) = WHOLE.get(i) {
            let moves = Rc::new(self.moves(kind));
            return Some(FolderPairPass::Files {
                kind,
                moves,
                next: 0,
            });
        }
        let j = i - WHOLE.len();
        if j == 0 {
            self.order = self.parsed_by_diff();
        }
        let n = self.order.len();
        if n == 0 {
            return None;
        }
        let file = self.order[j % n];
        let running = self.pair_mut(file).pass(j / n, round)?;
        Some(FolderPairPass::File { file, running })
    }

    fn final_pass(&mut self, i: usize) -> Option<FolderPairPass> {
        if i == 0 {
            self.order = self.parsed_by_diff();
            let first = *self.order.first()?;
            let pair = self.pair_mut(first);
            self.finale = (0..).take_while(|&k| pair.final_pass(k).is_some()).count();
        }
        let n = self.order.len();
        if n == 0 || i / n >= self.finale {
            return None;
        }
        let file = self.order[i % n];
        let running = self.pair_mut(file).final_pass(i / n)?;
        Some(FolderPairPass::File { file, running })
    }

    fn refresh(&mut self) {
        for entry in &mut self.entries {
            if let (true, Body::Parsed(pair)) = (std::mem::take(&mut entry.dirty), &mut entry.body)
            {
                pair.refresh();
            }
        }
    }

    fn finish(&mut self) {
        for entry in &mut self.entries {
            if let Body::Parsed(pair) = &mut entry.body {
                pair.finish();
            }
        }
    }

    fn propose(
        &mut self,
        pass: &mut FolderPairPass,
        stats: &mut Stats,
    ) -> Proposal<FolderPairChange> {
        match pass {
            FolderPairPass::File { file, running } => {
                let file = *file;
                match self.pair_mut(file).propose(running, stats) {
                    Proposal::Over => Proposal::Over,
                    Proposal::Skip => Proposal::Skip,
                    Proposal::Candidate { texts, change } => {
                        let Some(bundles) =
                            self.candidate(&[(file, [Some(&texts[0]), Some(&texts[1])])])
                        else {
                            return Proposal::Skip;
                        };
                        Proposal::Candidate {
                            texts: bundles.into(),
                            change: FolderPairChange::File {
                                file,
                                texts,
                                change,
                            },
                        }
                    }
                }
            }
            FolderPairPass::Files { moves, next, .. } => {
                let Some(m) = moves.get(*next) else {
                    return Proposal::Over;
                };
                *next += 1;
                let Some(edits) = self.moved(m) else {
                    return Proposal::Skip;
                };
                let changed: Vec<(usize, [Option<&str>; 2])> = edits
                    .iter()
                    .map(|(i, t)| (*i, [t[0].as_deref(), t[1].as_deref()]))
                    .collect();
                let Some(bundles) = self.candidate(&changed) else {
                    return Proposal::Skip;
                };
                let mut bodies = Vec::new();
                for (i, texts) in edits {
                    match self.body_of(i, texts) {
                        Some(body) => bodies.push((i, body)),
                        None => {
                            stats.invalid_skipped += 1;
                            return Proposal::Skip;
                        }
                    }
                }
                Proposal::Candidate {
                    texts: bundles.into(),
                    change: FolderPairChange::Files(bodies),
                }
            }
        }
    }

    fn accept(&mut self, _texts: Vec<String>, change: FolderPairChange, pass: &mut FolderPairPass) {
        match (change, pass) {
            (
                FolderPairChange::File {
                    file,
                    texts,
                    change,
                },
                FolderPairPass::File { running, .. },
            ) => {
                self.pair_mut(file).accept(texts, change, running);
                self.entries[file].dirty = true;
            }
            (FolderPairChange::Files(bodies), _) => {
                for (i, body) in bodies {
                    self.entries[i].body = body;
                }
            }
            (FolderPairChange::File { .. }, FolderPairPass::Files { .. }) => {
                unreachable!("a file's change comes from its own pass")
            }
        }
    }

    fn size(&self) -> usize {
        let s = self.sizes();
        s.seed + s.variant
    }

    fn bytes(&self) -> usize {
        let texts = self.entries.iter().flat_map(|e| e.texts());
        texts.map(|t| t.map_or(0, str::len)).sum()
    }
}

/// A session reducing two folders as a pair: its queries' texts are [`bundle`]s.
pub type FolderPairSession = Engine<FolderPair>;

/// A path of a folder pair that its grammar refused, on which side.
#[derive(Debug)]
pub struct FolderPairError {
    pub path: String,
    pub error: InputError,
}

impl Engine<FolderPair> {
    /// A session over the seed's files and the variant's (`(path, text)`, paths relative
    /// to each folder, `/`-separated). A path's language comes from its name.
    pub fn folder_pair(
        seed: Vec<(String, String)>,
        variant: Vec<(String, String)>,
        settings: PairSettings,
    ) -> Result<FolderPairSession, FolderPairError> {
        // A file's two sides parse whole: a whole-file move (inline-file, drop-link) is judged
        // by whether both still do, so no move leaves a syntax error behind.
        let settings = PairSettings {
            strict: true,
            ..settings
        };
        let mut paths: Vec<String> = seed
            .iter()
            .chain(&variant)
            .map(|(p, _)| p.clone())
            .collect();
        paths.sort();
        paths.dedup();
        let text = |files: &[(String, String)], path: &str| {
            files
                .iter()
                .find(|(p, _)| p == path)
                .map(|(_, t)| t.clone())
        };
        let mut entries = Vec::new();
        for path in paths {
            let texts = [text(&seed, &path), text(&variant, &path)];
            let body = match (crate::grammars::detect_from_name(&path), &texts) {
                (Some(lang), [Some(s), Some(v)]) => {
                    match crate::pair::Pair::open(lang, s, v, settings.clone()) {
                        Ok(mut pair) => {
                            pair.equal_ok = true;
                            Body::Parsed(Box::new(pair))
                        }
                        Err(error) => return Err(FolderPairError { path, error }),
                    }
                }
                _ => Body::Whole(texts),
            };
            entries.push(Entry {
                path,
                body,
                dirty: false,
            });
        }
        let mut pair = FolderPair {
            entries,
            settings: settings.clone(),
            order: Vec::new(),
            finale: 0,
            before: Sizes {
                seed: 0,
                variant: 0,
                diff: 0,
            },
        };
        pair.before = pair.sizes();
        let originals = pair.bundles_with(&[]);
        Ok(Engine::start(pair, originals.into()))
    }

    /// The best trees, seed's then variant's: each path with its text, `None` where that
    /// side lacks it.
    pub fn best_trees(&self) -> [Vec<(&str, Option<&str>)>; 2] {
        let entries = &self.subject().entries;
        [0, 1].map(|side| {
            entries
                .iter()
                .map(|e| (e.path.as_str(), e.texts()[side]))
                .collect()
        })
    }

    /// Sizes before the reduction and now.
    pub fn pair_sizes(&self) -> (Sizes, Sizes) {
        (self.subject().before, self.subject().sizes())
    }

    pub fn pair_stats(&self) -> PairStats {
        let (before, now) = self.pair_sizes();
        PairStats::new(self.stats().clone(), before, now, self.part_queries())
    }

    /// The paths a grammar covers on both sides.
    pub fn parsed_paths(&self) -> Vec<&str> {
        let entries = &self.subject().entries;
        entries
            .iter()
            .filter(|e| matches!(e.body, Body::Parsed(_)))
            .map(|e| e.path.as_str())
            .collect()
    }
}
