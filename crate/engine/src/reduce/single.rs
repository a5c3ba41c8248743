//! One program under reduction: the [`Subject`] of a [`Session`].

use super::chunks;
use super::spans::{Agreement, Span, Spans};
use super::{
    tolerance, Edit, Engine, Pass, PassKind, Program, Proposal, Round, Stats, Strategy, Subject,
};
use crate::hunks::{self, Hunk};
use crate::tree::{error_ranges, Parser, Validity};
use crate::{InputError, Lang, Recording, Side};

#[derive(Clone, Debug)]
pub struct Settings {
    pub strategy: Strategy,
    /// Cross-check every incremental validity verdict with a full parse (slow; for testing).
    pub cross_check: bool,
    /// Refuse a program the grammar cannot fully parse, instead of reducing it tolerantly
    /// (see `reduce::tolerance`).
    pub strict: bool,
    /// End with C's implicit int (`f() {...}`, `typedef t;`), whose candidates the grammar
    /// cannot parse (they are valid C89 or K&R C; counted apart in `Stats::unparsed_queries`).
    pub implicit_int: bool,
    /// End by laying the result out afresh (kept only if it stays interesting).
    pub format: bool,
    /// Passes left out of the strategy's schedule and finale.
    pub skipped: Vec<PassKind>,
    /// Passes across a folder's files left out (a folder's rounds run them first).
    pub skipped_cross: Vec<crate::folder::Cross>,
    /// A program of more bytes than this is not parsed until the `chunks` pass has made it
    /// this small (or has ended): till then it is a lexed tree, and its candidates go
    /// unchecked. A full tree costs about a hundred times the program's bytes.
    pub parse_limit: usize,
}

/// The default [`Settings::parse_limit`]: a parse of at most a few hundred megabytes.
pub const PARSE_LIMIT: usize = 4 << 20;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            strategy: Strategy::Perses,
            cross_check: cfg!(debug_assertions),
            strict: false,
            implicit_int: true,
            format: true,
            skipped: Vec::new(),
            skipped_cross: Vec::new(),
            parse_limit: PARSE_LIMIT,
        }
    }
}

/// One program under reduction by a [`Strategy`].
pub struct Single {
    parser: Parser,
    strategy: Strategy,
    /// Whether the finale's optional passes run.
    implicit_int: bool,
    format: bool,
    skipped: Vec<PassKind>,
    prog: Program,
    best: String,
    /// The tree-sitter tree of `best`; `None` while `prog` is a lexed tree (too big to parse
    /// yet, see [`Settings::parse_limit`]).
    best_raw: Option<tree_sitter::Tree>,
    parse_limit: usize,
    /// The current round began on a lexed tree with this many extra steps (see [`LEXED`]).
    lexed_steps: usize,
    size: usize,
    /// Whether `prog` is a fresh parse of `best`, or one with only a finale's changes since
    /// (either way `size` is exact and `finish` need not parse).
    fresh: bool,
    /// Tokens of `prog`'s tree in its error regions: where candidates may have errors.
    marked: Vec<bool>,
    /// The spans of `best`'s tokens, once a candidate asked.
    spans: Option<Spans>,
}

/// What accepting a single-program candidate takes.
pub struct SingleChange {
    prog: Program,
    size: usize,
    /// The candidate's tree-sitter tree, the base of incremental checks once it is the best;
    /// `None` when its validity was known without a parse (then parsed if accepted).
    raw: Option<tree_sitter::Tree>,
    /// Where its text differs from the best's, if the edit told.
    hunks: Option<Vec<Hunk>>,
    /// The spans of the tokens in its hunks, when its text was spliced: with the best's, its
    /// own (see `Spans::after`).
    fresh: Option<Vec<Span>>,
    /// Where it agrees with the best (when checked): what a walk over its tokens may skip.
    agreement: Option<Agreement>,
    /// Not parsed (a finale's candidate): never parsed afterwards either.
    beyond_grammar: bool,
}

impl Single {
    /// The text an edit gives, if it changes the program and parses (or need not: a
    /// pass beyond the grammar's).
    fn candidate_text(
        &mut self,
        edit: &Edit,
        pass: &dyn Pass,
        stats: &mut Stats,
    ) -> Option<(String, SingleChange)> {
        let beyond_grammar = pass.beyond_grammar();
        let flawed = || {
            self.best_raw
                .as_ref()
                .is_some_and(|r| r.root_node().has_error())
        };
        let unchecked = beyond_grammar || pass.tested_only() && flawed();
        if !edit.changes(&self.prog) {
            return None;
        }
        let next = self.prog.after(edit);
        // Unchecked: a finale's pass, one the test alone judges in a program with errors, or
        // a program too big to parse yet.
        let checked = !unchecked && self.best_raw.is_some();
        let (prog, marked, best) = (&self.prog, &self.marked, &self.best);
        let spans = checked.then(|| {
            &*self
                .spans
                .get_or_insert_with(|| Spans::of(prog, marked, best))
        });
        let (text, mut hunks, fresh) = match spans.and_then(|s| s.splice(prog, &next, edit)) {
            Some(s) => {
                debug_assert_eq!(s.text, next.text(), "a spliced text is the program's");
                (s.text, Some(s.hunks), Some(s.fresh))
            }
            None => (next.text(), None, None),
        };
        if text == self.best {
            return None;
        }
        let mut agreement = None;
        let raw = match (spans, &self.best_raw) {
            (None, _) | (Some(_), None) => None,
            (Some(spans), Some(best_raw)) => {
                if hunks.is_none() {
                    hunks = spans.changes(prog, &next, edit).and_then(|changes| {
                        hunks::of_changes(best.as_bytes(), text.as_bytes(), &changes)
                    });
                }
                // Outside its hunks the edit changed no token (a diff's hunks could end where
                // a token changed for one of the same text).
                let agreed = Agreement {
                    changed: edit.first_changed(),
                    head: hunks.as_ref().and_then(|h| h.first()).map(|h| h.old.start),
                    tail: hunks
                        .as_ref()
                        .and_then(|h| h.last())
                        .map(|h| (h.old.end, h.new.end)),
                };
                agreement = Some(agreed);
                let regions = spans.marked();
                let verdict =
                    match self
                        .parser
                        .check_with(best_raw, best, &text, hunks.as_deref(), regions)
                    {
                        Validity::Valid(raw) => Ok(raw),
                        Validity::Flawed { errors, tree } => {
                            let best = (spans, agreed);
                            tolerance::adds_no_error(
                                &next,
                                &self.marked,
                                &text,
                                &errors,
                                Some(best),
                            )
                            .then_some(tree)
                            .ok_or(())
                        }
                        Validity::Invalid => Err(()),
                    };
                match verdict {
                    Ok(raw) => raw,
                    Err(_) => {
                        stats.invalid_skipped += 1;
                        return None;
                    }
                }
            }
        };
        let size = next.size();
        Some((
            text,
            SingleChange {
                prog: next,
                size,
                raw,
                hunks,
                fresh,
                agreement,
                beyond_grammar,
            },
        ))
    }
}

/// A running pass, with the kind it was started as (its name).
#[derive(Clone)]
pub struct Running {
    kind: PassKind,
    pass: Box<dyn Pass>,
}

impl Running {
    fn start(kind: PassKind, prog: &Program, coarse: bool) -> Running {
        let pass = kind.start(prog, coarse);
        Running { kind, pass }
    }
}

/// The passes that work on a lexed tree, by text alone, in the order a lexed round runs them:
/// function bodies first, then what nothing names now, then runs of chunks.
const LEXED: [PassKind; 4] = [
    PassKind::Roots,
    PassKind::Bodies,
    PassKind::Unused,
    PassKind::Chunks,
];

impl Subject for Single {
    type Pass = Running;
    type Change = SingleChange;
    const SIDES: &'static [Side] = &[Side::Variant];
    const TEST_ORDER: &'static [usize] = &[0];

    fn strategy_name(&self) -> &'static str {
        self.strategy.name()
    }

    fn pass_name(pass: &Running) -> &'static str {
        pass.kind.name()
    }

    fn pass_deferred(pass: &Running) -> bool {
        pass.pass.deferred()
    }

    fn pass_beyond_grammar(pass: &Running) -> bool {
        pass.pass.beyond_grammar()
    }

    fn pass(&mut self, i: usize, round: Round) -> Option<Running> {
        // Only the passes by text work on a lexed tree: a round that starts on one starts
        // with those of its steps, its schedule's steps after.
        let lexed = || {
            let steps: Vec<PassKind> = self.strategy.steps(round, &self.skipped).collect();
            LEXED.iter().copied().filter(move |k| steps.contains(k))
        };
        if i == 0 {
            let chunks = lexed().any(|k| k == PassKind::Chunks);
            self.lexed_steps = match self.lexed() && chunks {
                true => lexed().count(),
                false => 0,
            };
        }
        if i < self.lexed_steps {
            let kind = lexed().nth(i)?;
            return Some(Running::start(kind, &self.prog, true));
        }
        // Past the chunks the program is parsed, whatever its size.
        self.parse_best();
        let kind = self
            .strategy
            .steps(round, &self.skipped)
            .nth(i - self.lexed_steps)?;
        Some(Running::start(kind, &self.prog, round == Round::Coarse))
    }

    fn final_pass(&mut self, i: usize) -> Option<Running> {
        self.parse_best();
        let finale = self.strategy.finale().iter();
        let kind = finale
            .filter(|&&k| !self.skipped.contains(&k))
            .filter(|&&k| match k {
                PassKind::ImplicitInt => self.implicit_int,
                PassKind::Format => self.format,
                _ => true,
            })
            .nth(i)?;
        Some(Running::start(*kind, &self.prog, false))
    }

    fn refresh(&mut self) {
        // A fresh tree for the next pass: the program as it now reads.
        let Some(best_raw) = &self.best_raw else {
            if self.best.len() > self.parse_limit {
                self.prog = Program::new(chunks::lexed_tree(self.parser.lang(), &self.best));
                self.size = self.prog.size();
                self.fresh = true;
            } else {
                self.parse_best();
            }
            return;
        };
        self.prog = Program::new(self.parser.tree_from_raw(&self.best, best_raw));
        self.marked = self.prog.tree.error_tokens();
        self.spans = None;
        // Once the errors are gone (an extension deleted), none may come back: a window that
        // finds one is believed, with no parse of the whole to judge it.
        self.parser.set_tolerant(best_raw.root_node().has_error());
        // Exact again: a rewritten token ("long long" for a typedef) counted as one till now.
        self.size = self.prog.size();
        self.fresh = true;
    }

    fn propose(&mut self, running: &mut Running, stats: &mut Stats) -> Proposal<SingleChange> {
        let Some(edit) = running.pass.propose(&self.prog) else {
            return Proposal::Over;
        };
        match self.candidate_text(&edit, running.pass.as_ref(), stats) {
            Some((text, change)) => Proposal::Candidate {
                texts: vec![text],
                change,
            },
            None => Proposal::Skip,
        }
    }

    fn accept(&mut self, mut texts: Vec<String>, change: SingleChange, running: &mut Running) {
        let pass = &mut running.pass;
        // The best program's spans, till it is replaced: where the candidate agrees with it.
        let spans = self.spans.take();
        let text = texts.swap_remove(0);
        if change.beyond_grammar {
            // Its size is exact (only deletions since the last parse); there is no tree to
            // keep, and none is made again.
            self.prog = change.prog;
            self.best = text;
            self.size = change.size;
            // Nothing parses it again, and its size is exact: no refresh at the end (the
            // tree it would take is gone).
            self.fresh = true;
            pass.accepted(&self.prog);
            return;
        }
        if let Some(best_raw) = &self.best_raw {
            let raw = self.parser.tree_of_valid(
                change.raw,
                best_raw,
                &self.best,
                &text,
                change.hunks.as_deref(),
            );
            if raw.root_node().has_error() {
                // From now on candidates may keep these errors, as a program the grammar
                // could not fully parse at the start may keep its own.
                self.parser.set_tolerant(true);
                let errors = error_ranges(&raw);
                let best = spans.as_ref().zip(change.agreement);
                tolerance::mark_errors(&change.prog, &mut self.marked, &text, &errors, best);
            }
            self.best_raw = Some(raw);
            // A spliced text's spans are the old best's, moved, with its own in its hunks.
            if let (Some(old), Some(hunks), Some(fresh)) = (&spans, &change.hunks, &change.fresh) {
                let new = old.after(&text, hunks, fresh, &self.marked);
                debug_assert_eq!(new, Spans::of(&change.prog, &self.marked, &text));
                self.spans = Some(new);
            }
        }
        self.prog = change.prog;
        self.best = text;
        self.size = change.size;
        self.fresh = false;
        pass.accepted(&self.prog);
    }

    fn finish(&mut self) {
        if !self.fresh {
            self.refresh();
        }
    }

    fn size(&self) -> usize {
        self.size
    }

    fn bytes(&self) -> usize {
        self.best.len()
    }
}

/// A session reducing one program.
pub type Session = Engine<Single>;

impl Engine<Single> {
    /// A session over `text`. A program the grammar cannot fully parse is reduced
    /// tolerantly (its candidates may not add errors), or refused with `settings.strict`.
    pub fn new(lang: Lang, text: &str, settings: Settings) -> Result<Session, InputError> {
        let subject = Single::open(lang, text, settings)?;
        Ok(Engine::start(subject, vec![text.to_string()]))
    }

    /// A session that takes its verdicts from a recording (see [`Engine::recording`])
    /// instead of reports: `step` runs it without any test.
    pub fn replay(
        lang: Lang,
        text: &str,
        settings: Settings,
        recording: Recording,
    ) -> Result<Session, InputError> {
        Ok(Session::new(lang, text, settings)?.into_replay(recording))
    }

    pub fn best(&self) -> &str {
        &self.subject().best
    }

    pub fn lang(&self) -> Lang {
        self.subject().parser.lang()
    }

    /// How much of the best program the grammar covers: counted tokens outside error
    /// regions, and all counted tokens (exact once the session is over).
    pub fn grammar_coverage(&self) -> (usize, usize) {
        let prog = &self.subject().prog;
        prog.tree.grammar_coverage(&prog.keep)
    }
}

impl Single {
    /// Parses the best program if it is still a lexed tree (a fresh tree then, with its
    /// error regions: what candidates may keep from now on).
    fn parse_best(&mut self) {
        if self.best_raw.is_some() {
            return;
        }
        let (tree, raw) = self.parser.parse_with_raw(&self.best);
        if tree.error.is_some() {
            self.parser.set_tolerant(true);
        }
        self.marked = tree.error_tokens();
        self.spans = None;
        self.prog = Program::new(tree);
        self.size = self.prog.size();
        self.best_raw = Some(raw);
        self.fresh = true;
    }

    /// Whether the best program is a lexed tree, not yet parsed.
    pub fn lexed(&self) -> bool {
        self.best_raw.is_none()
    }
}

/// Hooks for subjects made of several programs (`crate::folder`): each file a [`Single`].
impl Single {
    /// One program under reduction; see [`Session::new`].
    pub(crate) fn open(lang: Lang, text: &str, settings: Settings) -> Result<Single, InputError> {
        let mut parser = Parser::new(lang);
        parser.set_cross_check(settings.cross_check);
        // `--strict` must know now whether the grammar takes the program: it is parsed.
        let (tree, best_raw) = if text.len() > settings.parse_limit && !settings.strict {
            (chunks::lexed_tree(lang, text), None)
        } else {
            let (tree, raw) = parser.parse_with_raw(text);
            (tree, Some(raw))
        };
        if let Some(error) = tree.error.clone() {
            if settings.strict {
                return Err(InputError {
                    side: None,
                    lang,
                    error,
                });
            }
            parser.set_tolerant(true);
        }
        let marked = tree.error_tokens();
        let prog = Program::new(tree);
        let size = prog.size();
        Ok(Single {
            parse_limit: settings.parse_limit,
            lexed_steps: 0,
            parser,
            strategy: settings.strategy,
            implicit_int: settings.implicit_int,
            format: settings.format,
            skipped: settings.skipped,
            prog,
            best: text.to_string(),
            best_raw,
            size,
            fresh: true,
            marked,
            spans: None,
        })
    }

    pub(crate) fn text(&self) -> &str {
        &self.best
    }

    /// The program as the passes see it (the tokens kept so far).
    pub(crate) fn prog(&self) -> &super::Program {
        &self.prog
    }

    /// A text made outside the passes (another file's contents moved in) if it parses with
    /// no error: its tree-sitter tree.
    pub(crate) fn check_text(&mut self, text: &str) -> Option<tree_sitter::Tree> {
        self.parse_best();
        let best_raw = self.best_raw.as_ref()?;
        match self.parser.check(best_raw, &self.best, text) {
            Validity::Valid(raw) => Some(
                self.parser
                    .tree_of_valid(raw, best_raw, &self.best, text, None),
            ),
            Validity::Flawed { .. } | Validity::Invalid => None,
        }
    }

    /// Makes `text` (checked by [`Single::check_text`]) the best, parsed afresh.
    pub(crate) fn replace(&mut self, text: String, raw: tree_sitter::Tree) {
        self.best = text;
        self.best_raw = Some(raw);
        self.refresh();
    }
}
