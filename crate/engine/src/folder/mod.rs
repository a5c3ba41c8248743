//! A folder reduced as one test case: the [`Subject`] of a [`FolderSession`].
//!
//! Every file a grammar covers is a [`Single`], reduced by the strategy's passes, the
//! largest file first at each step; the others are kept or deleted whole. A candidate is
//! the whole tree, as one text ([`bundle`]): one test sees every file, and the cache knows
//! a tree it saw. Before the single-file steps, each round runs the passes that cross
//! files ([`Cross`]): a file deleted (with the lines that link to it), a link removed, a
//! file linked once moved into its one linker. Validity stays per file: a candidate whose
//! changed file no longer parses is never tested.

pub mod bundle;
pub mod command;
pub mod links;
pub mod pair;
#[cfg(test)]
mod tests;

use crate::reduce::dependencies;
use crate::reduce::PassKind;
use crate::reduce::{
    Engine, Proposal, Round, Settings, Single, SingleChange, Stats, Strategy, Subject,
};
use crate::{InputError, Lang, Side};
use links::Link;
use std::collections::BTreeMap;
use std::rc::Rc;

/// At most this many names a round for `delete-symbol`, those with the most tokens first.
const MAX_SHARED: usize = 200;

/// A pass that crosses files, in the order each round runs them (the most removed first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cross {
    /// A file deleted whole, with the lines that link to it (and a Rust module's `use` lines).
    DeleteFiles,
    /// A file linked from exactly one line: its contents replace that line (a header
    /// inlined, `mod m;` made `mod m { ... }`), and the file goes.
    InlineLinks,
    /// A link removed: an unused `#include "..."`, `mod m;`, `import` or `require`.
    DropLinks,
    /// A thing of file scope that several files name (a function a header declares, one
    /// file defines and another calls) goes with every declaration and use of it, in every
    /// file at once: the statements and items around them.
    DeleteSymbols,
    /// The build command reduced: a Makefile's lines (targets, recipes, variables) and the
    /// words of its variables (flags, files), and the test's command line's flags and files
    /// ([`command::COMMAND`]), tried away one at a time.
    MakeFlags,
}

whittle_grammars::names!(Cross {
    DeleteFiles => "delete-file",
    InlineLinks => "inline-file",
    DropLinks => "drop-link",
    DeleteSymbols => "delete-symbol",
    MakeFlags => "make-flags",
});

impl Cross {
    /// One line: what it tries (`whittle reduce --list-passes`).
    pub fn about(self) -> &'static str {
        match self {
            Cross::DeleteFiles => {
                "a folder's file goes whole, with the lines that link to it (a Rust module's `use` lines too)"
            }
            Cross::InlineLinks => {
                "a file linked from one line replaces that line (`#include`, `mod m;`, `import { f } from`)"
            }
            Cross::DropLinks => "an unused `#include \"...\"`, `mod m;`, `import` or `require` goes",
            Cross::DeleteSymbols => {
                "a file-scope name several files use goes with its declarations and uses in all of them"
            }
            Cross::MakeFlags => {
                "a Makefile's lines and its variables' words go one at a time; with --reduce-flags, the test command's flags and files too"
            }
        }
    }
}

/// One file of the folder.
struct Entry {
    path: String,
    body: Body,
    /// Deleted files stay as entries, out of every candidate.
    present: bool,
    /// Changed since its tree was built.
    dirty: bool,
}

enum Body {
    /// A grammar covers it.
    Parsed(Box<Single>),
    /// No grammar does: kept or deleted whole.
    Whole(String),
}

impl Entry {
    fn text(&self) -> &str {
        match &self.body {
            Body::Parsed(single) => single.text(),
            Body::Whole(text) => text,
        }
    }

    fn lang(&self) -> Option<Lang> {
        crate::grammars::detect_from_name(&self.path).filter(|_| self.parsed())
    }

    fn parsed(&self) -> bool {
        matches!(self.body, Body::Parsed(_))
    }
}

/// A move of a crossing pass, found when the pass starts and looked for again when it is
/// proposed (an earlier move may have changed the tree).
#[derive(Clone, Debug)]
pub enum Move {
    Delete(usize),
    Inline {
        file: usize,
        line: String,
    },
    Drop {
        file: usize,
        line: String,
    },
    /// A Makefile's line without its `word`th word after `=` (`None`: without the line).
    Make {
        file: usize,
        line: String,
        word: Option<usize>,
    },
    /// Every declaration and use of a file-scope name, in every file.
    Symbol(String),
    /// The test's command without a flag (and its argument) or a file it names.
    Command {
        file: usize,
        cut: command::Cut,
    },
}

/// Whether a file is a Makefile (kept whole: only `make-flags` edits it).
fn is_makefile(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(name, "Makefile" | "makefile" | "GNUmakefile")
}

/// The words of a Makefile variable's value (`X = a b`, `X += a`, `X := a`): where the
/// value starts, and each word's byte range in the line.
fn make_words(line: &str) -> Vec<std::ops::Range<usize>> {
    let Some(eq) = line.find('=') else {
        return Vec::new();
    };
    let name = line[..eq].trim_end_matches([':', '+', '?']).trim();
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices().skip_while(|&(i, _)| i <= eq) {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(s..line.len());
    }
    out
}

#[derive(Clone)]
pub enum FolderPass {
    Cross {
        kind: Cross,
        moves: Rc<Vec<Move>>,
        next: usize,
    },
    File {
        file: usize,
        running: <Single as Subject>::Pass,
    },
}

/// What accepting a folder candidate takes.
pub enum FolderChange {
    File {
        file: usize,
        text: String,
        change: SingleChange,
    },
    Cross {
        /// Files with new texts (and, for parsed ones, their trees).
        edits: Vec<(usize, String, Option<tree_sitter::Tree>)>,
        removed: Vec<usize>,
    },
}

/// A folder under reduction.
pub struct Folder {
    entries: Vec<Entry>,
    strategy: Strategy,
    skipped: Vec<PassKind>,
    skipped_cross: Vec<Cross>,
    /// The parsed files of the round's single-file steps, largest first.
    order: Vec<usize>,
    /// How many finale passes each file runs.
    finale: usize,
}

/// A file of a folder that its grammar refused (with `strict`).
#[derive(Debug)]
pub struct FolderError {
    pub path: String,
    pub error: InputError,
}

impl Folder {
    fn text_of(&self, i: usize) -> &str {
        self.entries[i].text()
    }

    /// The tree as one text, with `changed` files' new texts (`None`: deleted).
    fn bundle_with(&self, changed: &[(usize, Option<&str>)]) -> String {
        let files = self.entries.iter().enumerate().filter_map(|(i, e)| {
            match changed.iter().find(|(c, _)| *c == i) {
                Some((_, text)) => text.map(|t| (e.path.as_str(), t)),
                None => e.present.then(|| (e.path.as_str(), e.text())),
            }
        });
        bundle::encode(files)
    }

    fn index_of(&self, path: &str) -> Option<usize> {
        self.entries
            .iter()
            .position(|e| e.present && e.path == path)
    }

    /// The links of file `i` as it now reads.
    fn links_of(&self, i: usize) -> Vec<Link> {
        let entry = &self.entries[i];
        match entry.lang() {
            Some(lang) if entry.present => links::links(lang, &entry.path, entry.text(), &|p| {
                self.index_of(p).is_some()
            }),
            _ => Vec::new(),
        }
    }

    /// Every present file's links, by file.
    fn all_links(&self) -> Vec<(usize, Link)> {
        (0..self.entries.len())
            .flat_map(|i| self.links_of(i).into_iter().map(move |l| (i, l)))
            .collect()
    }

    fn size_of(&self, i: usize) -> usize {
        match &self.entries[i].body {
            Body::Parsed(single) => single.size(),
            Body::Whole(text) => text.split_whitespace().count(),
        }
    }

    /// Present files (of those `keep` picks), largest first.
    fn largest_first(&self, keep: impl Fn(&Entry) -> bool) -> Vec<usize> {
        let mut files: Vec<usize> = (0..self.entries.len())
            .filter(|&i| self.entries[i].present && keep(&self.entries[i]))
            .collect();
        files.sort_by_key(|&i| std::cmp::Reverse(self.size_of(i)));
        files
    }

    fn moves(&self, kind: Cross) -> Vec<Move> {
        match kind {
            Cross::DeleteFiles => self
                .largest_first(|e| e.path != command::COMMAND)
                .into_iter()
                .map(Move::Delete)
                .collect(),
            Cross::InlineLinks => self
                .all_links()
                .into_iter()
                .filter(|(_, l)| l.target.is_some())
                .map(|(file, l)| Move::Inline { file, line: l.line })
                .collect(),
            Cross::DropLinks => self
                .all_links()
                .into_iter()
                .map(|(file, l)| Move::Drop { file, line: l.line })
                .collect(),
            Cross::DeleteSymbols => self.shared_names().into_iter().map(Move::Symbol).collect(),
            Cross::MakeFlags => {
                let mut moves = Vec::new();
                for (file, e) in self.entries.iter().enumerate() {
                    if e.present && e.path == command::COMMAND {
                        let cuts = command::cuts(e.text()).into_iter();
                        moves.extend(cuts.map(|cut| Move::Command { file, cut }));
                    }
                    if !e.present || !is_makefile(&e.path) {
                        continue;
                    }
                    for line in e.text().split_inclusive('\n') {
                        let make = |word| Move::Make {
                            file,
                            line: line.to_string(),
                            word,
                        };
                        moves.push(make(None));
                        moves.extend((0..make_words(line).len()).map(|w| make(Some(w))));
                    }
                }
                moves
            }
        }
    }

    /// The candidate a move makes of the tree as it now is, if it still applies and every
    /// parsed file it changes still parses.
    fn apply(&mut self, m: &Move, stats: &mut Stats) -> Option<(String, FolderChange)> {
        let mut texts: Vec<(usize, String)> = Vec::new();
        let mut removed = Vec::new();
        match m {
            Move::Delete(f) => {
                if !self.entries[*f].present {
                    return None;
                }
                removed.push(*f);
                let path = self.entries[*f].path.clone();
                let mut doomed: Vec<(usize, String)> = Vec::new();
                for (file, link) in self.all_links() {
                    if file != *f && link.target.as_deref() == Some(path.as_str()) {
                        // A Rust module's `use` lines go with its `mod` line.
                        if let Some((name, _)) = &link.module {
                            for (i, e) in self.entries.iter().enumerate() {
                                if e.present && i != *f && e.lang() == Some(Lang::Rust) {
                                    let uses = links::uses_of_module(e.text(), name);
                                    doomed.extend(uses.into_iter().map(|l| (i, l)));
                                }
                            }
                        }
                        doomed.push((file, link.line));
                    }
                }
                // The command's words that name the file go too.
                if let Some(c) = self.index_of(command::COMMAND) {
                    let mut text = self.text_of(c).to_string();
                    for cut in command::naming(self.text_of(c), &path) {
                        text = command::without(&text, &cut).unwrap_or(text);
                    }
                    if text != self.text_of(c) {
                        texts.push((c, text));
                    }
                }
                for (file, line) in doomed {
                    let at = texts.iter().position(|(i, _)| *i == file);
                    let text = match at {
                        Some(k) => &mut texts[k].1,
                        None => {
                            texts.push((file, self.text_of(file).to_string()));
                            &mut texts.last_mut().unwrap().1
                        }
                    };
                    links::cut_line(text, &line);
                }
            }
            Move::Symbol(name) => {
                for (file, e) in self.entries.iter().enumerate() {
                    let (true, Body::Parsed(single)) = (e.present, &e.body) else {
                        continue;
                    };
                    let prog = single.prog();
                    if let Some((tokens, _)) = dependencies::file_scope_names(prog).get(name) {
                        let edit = dependencies::deleting(prog, tokens)?;
                        texts.push((file, prog.after(&edit).text()));
                    }
                }
            }
            Move::Command { file, cut } => {
                texts.push((*file, command::without(self.text_of(*file), cut)?));
            }
            Move::Make { file, line, word } => {
                let text = self.text_of(*file);
                let start = text.split_inclusive('\n').scan(0, |at, l| {
                    let here = *at;
                    *at += l.len();
                    Some((here, l))
                });
                let (at, _) = start.into_iter().find(|(_, l)| l == line)?;
                let replacement = match word {
                    None => String::new(),
                    Some(w) => {
                        // The word and the space before it (after it, for the first).
                        let words = make_words(line);
                        let range = words.get(*w)?;
                        let cut = match (w.checked_sub(1), words.get(w + 1)) {
                            (Some(before), _) => words[before].end..range.end,
                            (None, Some(after)) => range.start..after.start,
                            (None, None) => range.clone(),
                        };
                        format!("{}{}", &line[..cut.start], &line[cut.end..])
                    }
                };
                let mut text = text.to_string();
                text.replace_range(at..at + line.len(), &replacement);
                texts.push((*file, text));
            }
            Move::Inline { file, line } | Move::Drop { file, line } => {
                let links = self.links_of(*file);
                let link = links.iter().find(|l| &l.line == line)?;
                let replacement = match m {
                    Move::Drop { .. } => String::new(),
                    _ => {
                        let target = self.index_of(link.target.as_deref()?)?;
                        let linked = self.all_links();
                        let uses = linked
                            .iter()
                            .filter(|(_, l)| l.target == link.target)
                            .count();
                        if target == *file || uses != 1 {
                            return None;
                        }
                        removed.push(target);
                        links::inlined(link, self.text_of(target))?
                    }
                };
                let mut text = self.text_of(*file).to_string();
                text.replace_range(link.start..link.start + link.line.len(), &replacement);
                texts.push((*file, text));
            }
        }
        let mut edits = Vec::new();
        for (file, text) in texts {
            let raw = match &mut self.entries[file].body {
                Body::Parsed(single) => match single.check_text(&text) {
                    Some(raw) => Some(raw),
                    None => {
                        stats.invalid_skipped += 1;
                        return None;
                    }
                },
                Body::Whole(_) => None,
            };
            edits.push((file, text, raw));
        }
        let mut changed: Vec<(usize, Option<&str>)> = edits
            .iter()
            .map(|(f, t, _)| (*f, Some(t.as_str())))
            .collect();
        changed.extend(removed.iter().map(|&f| (f, None)));
        let bundle = self.bundle_with(&changed);
        Some((bundle, FolderChange::Cross { edits, removed }))
    }

    /// The file-scope names that one file declares and another names too, those with the
    /// most tokens first (at most [`MAX_SHARED`]).
    fn shared_names(&self) -> Vec<String> {
        // Per name: the files naming it, whether one declares it, its tokens.
        let mut names: BTreeMap<String, (usize, bool, usize)> = BTreeMap::new();
        for e in self.entries.iter().filter(|e| e.present) {
            let Body::Parsed(single) = &e.body else {
                continue;
            };
            for (name, (tokens, declared)) in dependencies::file_scope_names(single.prog()) {
                let n = names.entry(name).or_default();
                *n = (n.0 + 1, n.1 || declared, n.2 + tokens.len());
            }
        }
        let mut shared: Vec<(String, usize)> = names
            .into_iter()
            .filter(|(_, (files, declared, _))| *files > 1 && *declared)
            .map(|(name, (_, _, tokens))| (name, tokens))
            .collect();
        shared.sort_by_key(|(_, tokens)| std::cmp::Reverse(*tokens));
        shared
            .into_iter()
            .take(MAX_SHARED)
            .map(|(n, _)| n)
            .collect()
    }

    fn single_mut(&mut self, i: usize) -> &mut Single {
        match &mut self.entries[i].body {
            Body::Parsed(single) => single,
            Body::Whole(_) => unreachable!("single-file passes run on parsed files only"),
        }
    }
}

impl Subject for Folder {
    type Pass = FolderPass;
    type Change = FolderChange;
    const SIDES: &'static [Side] = &[Side::Variant];
    const TEST_ORDER: &'static [usize] = &[0];

    fn strategy_name(&self) -> &'static str {
        self.strategy.name()
    }

    fn pass_name(pass: &FolderPass) -> &'static str {
        match pass {
            FolderPass::Cross { kind, .. } => kind.name(),
            FolderPass::File { running, .. } => Single::pass_name(running),
        }
    }

    fn pass_deferred(pass: &FolderPass) -> bool {
        match pass {
            FolderPass::Cross { .. } => false,
            FolderPass::File { running, .. } => Single::pass_deferred(running),
        }
    }

    fn pass_beyond_grammar(pass: &FolderPass) -> bool {
        match pass {
            FolderPass::Cross { .. } => false,
            FolderPass::File { running, .. } => Single::pass_beyond_grammar(running),
        }
    }

    /// The crossing passes, then each of the strategy's steps over each parsed file,
    /// largest first.
    fn pass(&mut self, i: usize, round: Round) -> Option<FolderPass> {
        if let Some(&kind) = Cross::ALL.get(i) {
            // A pass left out still holds its place in the round, with nothing to try.
            let moves = match self.skipped_cross.contains(&kind) {
                true => Vec::new(),
                false => self.moves(kind),
            };
            let moves = Rc::new(moves);
            return Some(FolderPass::Cross {
                kind,
                moves,
                next: 0,
            });
        }
        let j = i - Cross::ALL.len();
        if j == 0 {
            self.order = self.largest_first(Entry::parsed);
        }
        let n = self.order.len();
        if n == 0 || j / n >= self.strategy.steps(round, &self.skipped).count() {
            return None;
        }
        let file = self.order[j % n];
        let running = self.single_mut(file).pass(j / n, round)?;
        Some(FolderPass::File { file, running })
    }

    fn final_pass(&mut self, i: usize) -> Option<FolderPass> {
        if i == 0 {
            self.order = self.largest_first(Entry::parsed);
            let first = *self.order.first()?;
            let single = self.single_mut(first);
            self.finale = (0..)
                .take_while(|&k| single.final_pass(k).is_some())
                .count();
        }
        let n = self.order.len();
        if n == 0 || i / n >= self.finale {
            return None;
        }
        let file = self.order[i % n];
        let running = self.single_mut(file).final_pass(i / n)?;
        Some(FolderPass::File { file, running })
    }

    fn refresh(&mut self) {
        for entry in &mut self.entries {
            if let (true, Body::Parsed(single)) =
                (std::mem::take(&mut entry.dirty), &mut entry.body)
            {
                single.refresh();
            }
        }
    }

    fn propose(&mut self, pass: &mut FolderPass, stats: &mut Stats) -> Proposal<FolderChange> {
        match pass {
            FolderPass::File { file, running } => {
                let file = *file;
                match self.single_mut(file).propose(running, stats) {
                    Proposal::Over => Proposal::Over,
                    Proposal::Skip => Proposal::Skip,
                    Proposal::Candidate { mut texts, change } => {
                        let text = texts.swap_remove(0);
                        let bundle = self.bundle_with(&[(file, Some(&text))]);
                        Proposal::Candidate {
                            texts: vec![bundle],
                            change: FolderChange::File { file, text, change },
                        }
                    }
                }
            }
            FolderPass::Cross { moves, next, .. } => {
                let Some(m) = moves.get(*next) else {
                    return Proposal::Over;
                };
                *next += 1;
                match self.apply(m, stats) {
                    Some((bundle, change)) => Proposal::Candidate {
                        texts: vec![bundle],
                        change,
                    },
                    None => Proposal::Skip,
                }
            }
        }
    }

    fn accept(&mut self, _texts: Vec<String>, change: FolderChange, pass: &mut FolderPass) {
        match (change, pass) {
            (FolderChange::File { file, text, change }, FolderPass::File { running, .. }) => {
                self.single_mut(file).accept(vec![text], change, running);
                self.entries[file].dirty = true;
            }
            (FolderChange::Cross { edits, removed }, _) => {
                for (file, text, raw) in edits {
                    match (&mut self.entries[file].body, raw) {
                        (Body::Parsed(single), Some(raw)) => single.replace(text, raw),
                        (body, _) => *body = Body::Whole(text),
                    }
                }
                for file in removed {
                    self.entries[file].present = false;
                }
            }
            (FolderChange::File { .. }, FolderPass::Cross { .. }) => {
                unreachable!("a file's change comes from its own pass")
            }
        }
    }

    fn finish(&mut self) {
        for entry in &mut self.entries {
            if let Body::Parsed(single) = &mut entry.body {
                single.finish();
            }
        }
    }

    fn size(&self) -> usize {
        (0..self.entries.len())
            .filter(|&i| self.entries[i].present)
            .map(|i| self.size_of(i))
            .sum()
    }

    fn bytes(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| e.present)
            .map(|e| e.text().len())
            .sum()
    }
}

/// A session reducing a folder: its queries' texts are [`bundle`]s of the whole tree.
pub type FolderSession = Engine<Folder>;

impl Engine<Folder> {
    /// A session over `files` (`(path, text)`, paths relative to the folder, `/`-separated).
    /// A file's language comes from its name; files of no language are kept or deleted whole.
    pub fn folder(
        files: Vec<(String, String)>,
        settings: Settings,
    ) -> Result<FolderSession, FolderError> {
        let mut entries = Vec::new();
        for (path, text) in files {
            let body = match crate::grammars::detect_from_name(&path) {
                Some(lang) => match Single::open(lang, &text, settings.clone()) {
                    Ok(single) => Body::Parsed(Box::new(single)),
                    Err(error) => return Err(FolderError { path, error }),
                },
                None => Body::Whole(text),
            };
            entries.push(Entry {
                path,
                body,
                present: true,
                dirty: false,
            });
        }
        let folder = Folder {
            entries,
            strategy: settings.strategy,
            skipped: settings.skipped,
            skipped_cross: settings.skipped_cross,
            order: Vec::new(),
            finale: 0,
        };
        let original = folder.bundle_with(&[]);
        Ok(Engine::start(folder, vec![original]))
    }

    /// A session that replays a recording (see [`Engine::recording`]) with `step`.
    pub fn folder_replay(
        files: Vec<(String, String)>,
        settings: Settings,
        recording: crate::Recording,
    ) -> Result<FolderSession, FolderError> {
        Ok(Self::folder(files, settings)?.into_replay(recording))
    }

    /// The best tree: each file's path and text, `None` for a file deleted.
    pub fn best_files(&self) -> Vec<(&str, Option<&str>)> {
        self.subject()
            .entries
            .iter()
            .map(|e| (e.path.as_str(), e.present.then(|| e.text())))
            .collect()
    }

    /// The paths of the files a grammar covers.
    pub fn parsed_files(&self) -> Vec<&str> {
        let entries = &self.subject().entries;
        entries
            .iter()
            .filter(|e| e.parsed())
            .map(|e| e.path.as_str())
            .collect()
    }
}
