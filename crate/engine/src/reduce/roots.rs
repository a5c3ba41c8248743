//! The `roots` pass: keep only what a few definitions need. A program's definitions (the
//! chunks of its top level and of its namespaces, see [`super::chunks`]) name each other;
//! a test needs a few of them (the function with the bug, `main`) and, transitively, what
//! those name. The pass runs ddmin over the definitions as *roots*: a candidate drops a set
//! of roots and deletes every definition the remaining roots do not reach by name, so a
//! header's web of templates, each naming the next, goes in one query where `unused` sees
//! every one of them named. Then ddmin over the statements of the roots that are left: a
//! statement goes with everything only it reached (`std::cout << x;` takes the streams).
//!
//! Reaching is by text alone: a definition is reached when a name it declares (see
//! [`super::definitions`]: its head's name, a type's declarators, an enum's enumerators)
//! occurs in a reached one; a member defined outside its class, with its class; a function
//! template, a specialization or an operator only once the types of its arguments are
//! reached too; a chunk that declares no name only as a root. Names the compiler looks up on its own stay reached
//! (the language's `roots.implicit`). Directives always stay, and a namespace stays while
//! something in it does or its name is used.

use super::chunks::{chunks_of, Kind, Lexeme};
use super::ddmin::Chunks as Ddmin;
use super::definitions::{as_str, declared_after, is_identifier, read_head};
use super::{Edit, Pass, Program, COARSE_SHARE};
use crate::tree::{TokenId, Tree};
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

/// A chunk at the top level or in a namespace.
struct Unit {
    tokens: Range<TokenId>,
    /// The names whose use reaches it (none: only being a root keeps it).
    triggers: Vec<u32>,
    /// Names that must be reached too before it is: the types a function template's
    /// parameters, a specialization's arguments or an operator's head name (no call can
    /// pass a type nothing else names).
    conditions: Vec<u32>,
    /// The names it uses outside its statements.
    uses: Vec<u32>,
    /// Its statements: indices into [`Graph::statements`].
    statements: Range<usize>,
}

/// A chunk directly inside a definition that is not a type (a function's statement).
struct Statement {
    tokens: Range<TokenId>,
    uses: Vec<u32>,
}

/// A block whose chunks are units: `namespace N {`, `extern "C" {`.
struct Container {
    tokens: Range<TokenId>,
    name: Option<u32>,
    /// The units inside it, nested containers' too.
    units: Range<usize>,
    /// It holds a directive: it stays.
    pinned: bool,
}

/// The program's units, statements and containers, and which names reach which units.
struct Graph {
    units: Vec<Unit>,
    statements: Vec<Statement>,
    containers: Vec<Container>,
    /// For each name, the units it reaches.
    reaches: Vec<Vec<u32>>,
    /// Names reached whatever the roots.
    implicit: Vec<u32>,
}

/// What the roots reach: the units kept and the names used.
struct Reach {
    units: Vec<bool>,
    names: Vec<bool>,
}

impl Graph {
    fn new(prog: &Program) -> Graph {
        let tree = &prog.tree;
        let text = tree.text.as_bytes();
        let kinds = tree.lang.kinds();
        let (lexemes, mut found) = chunks_of(&tree.text, tree.lang);
        found.sort_by_key(|c| (c.start, std::cmp::Reverse(c.end)));
        let mut ids = Interner::default();
        // Keywords name nothing (a head's reader may take `template` for a name).
        let is_name = |w: &str| is_identifier(w) && !tree.lang.is_reserved(w);
        let mut graph = Graph {
            units: Vec::new(),
            statements: Vec::new(),
            containers: Vec::new(),
            reaches: Vec::new(),
            implicit: Vec::new(),
        };
        // Heads' words, made conditions (an operator's, its triggers too) once every unit's
        // names are known: with whether the unit is an operator.
        let mut conditioned: Vec<(usize, Vec<u32>, bool)> = Vec::new();
        let mut members: Vec<(usize, u32, u32)> = Vec::new();
        #[derive(Clone, Copy)]
        enum Role {
            Container(usize),
            Unit(usize),
            Other,
        }
        let mut open: Vec<(u32, Role)> = Vec::new();
        for c in &found {
            while open.last().is_some_and(|&(end, _)| end <= c.start) {
                open.pop();
            }
            let chunk = c.lexemes(&lexemes);
            let directive = chunk.first().is_some_and(|l| l.kind == Kind::Directive);
            let tokens = c.tokens(tree);
            let role = match open.last().map(|&(_, r)| r) {
                None | Some(Role::Container(_)) if directive => {
                    for &(_, r) in &open {
                        if let Role::Container(k) = r {
                            graph.containers[k].pinned = true;
                        }
                    }
                    Role::Other
                }
                None | Some(Role::Container(_)) => {
                    let head = heads(text, chunk);
                    if let Some(name) = container(text, chunk, kinds.roots.containers) {
                        graph.containers.push(Container {
                            tokens,
                            name: name.map(|n| ids.id(word(text, &n))),
                            units: graph.units.len()..graph.units.len(),
                            pinned: false,
                        });
                        Role::Container(graph.containers.len() - 1)
                    } else if let Some(u) = graph.trailer(tree, &head, &tokens) {
                        // `struct s<f()> {...} __attribute__((...));`: the chunker ends
                        // the type at its `}`, and what follows belongs to it.
                        graph.units[u].tokens.end = tokens.end;
                        Role::Unit(u)
                    } else {
                        let u = graph.units.len();
                        let s = graph.statements.len();
                        let triggers = match head {
                            Head::Names(names, params) => {
                                // Not its own name (a constructor's `X(const X&)`).
                                let params =
                                    params.iter().filter(|w| is_name(w) && !names.contains(w));
                                conditioned.push((u, params.map(|&w| ids.id(w)).collect(), false));
                                names
                                    .iter()
                                    .filter(|w| is_name(w))
                                    .map(|&w| ids.id(w))
                                    .collect()
                            }
                            Head::Operator(words) => {
                                let words = words.iter().filter(|w| is_name(w));
                                conditioned.push((u, words.map(|&w| ids.id(w)).collect(), true));
                                Vec::new()
                            }
                            Head::Member(class, name) => {
                                members.push((u, ids.id(class), ids.id(name)));
                                Vec::new()
                            }
                            Head::Nameless => Vec::new(),
                        };
                        graph.units.push(Unit {
                            tokens,
                            triggers,
                            conditions: Vec::new(),
                            uses: Vec::new(),
                            statements: s..s,
                        });
                        for &(_, r) in &open {
                            if let Role::Container(k) = r {
                                graph.containers[k].units.end = graph.units.len();
                            }
                        }
                        Role::Unit(u)
                    }
                }
                Some(Role::Unit(u)) if !c.member && !directive => {
                    graph.statements.push(Statement {
                        tokens,
                        uses: Vec::new(),
                    });
                    graph.units[u].statements.end = graph.statements.len();
                    Role::Other
                }
                _ => Role::Other,
            };
            open.push((c.end, role));
        }
        // What each unit and statement uses: the kept identifiers of its text.
        let mut uses_of = |ranges: &[Range<TokenId>]| {
            let mut uses: Vec<u32> = ranges
                .iter()
                .flat_map(|r| r.clone())
                .filter(|&t| prog.kept(t))
                .map(|t| tree.token_text(t))
                .filter(|w| is_name(w))
                .map(|w| ids.id(w))
                .collect();
            uses.sort_unstable();
            uses.dedup();
            uses
        };
        for s in &mut graph.statements {
            s.uses = uses_of(&[s.tokens.clone()]);
        }
        for u in &mut graph.units {
            // Its tokens between its statements (in text order, apart).
            let mut outside = Vec::new();
            let mut at = u.tokens.start;
            for s in &graph.statements[u.statements.clone()] {
                outside.push(at..s.tokens.start.max(at));
                at = at.max(s.tokens.end);
            }
            outside.push(at..u.tokens.end.max(at));
            u.uses = uses_of(&outside);
        }
        let declared: std::collections::HashSet<u32> = graph
            .units
            .iter()
            .flat_map(|u| u.triggers.iter().copied())
            .collect();
        // A member is reached with its class; one of a namespace, by its name.
        for (u, class, name) in members {
            let by = if declared.contains(&class) {
                class
            } else {
                name
            };
            graph.units[u].triggers = vec![by];
        }
        // Conditions are the names of the head that units declare; an operator, which has
        // no name, is reached by any of them and kept once all are.
        for (u, words, operator) in conditioned {
            let mut words: Vec<u32> = words.into_iter().filter(|w| declared.contains(w)).collect();
            words.sort_unstable();
            words.dedup();
            if operator {
                graph.units[u].triggers = words.clone();
            }
            graph.units[u].conditions = words;
        }
        graph.implicit = kinds
            .roots
            .implicit
            .iter()
            .filter_map(|w| ids.0.get(w).copied())
            .collect();
        graph.reaches = vec![Vec::new(); ids.0.len()];
        for (u, unit) in graph.units.iter().enumerate() {
            for &t in &unit.triggers {
                graph.reaches[t as usize].push(u as u32);
            }
        }
        graph
    }

    /// The unit a nameless chunk ends, if the chunk follows right after a unit ending in `}`.
    fn trailer(&self, tree: &Tree, head: &Head, tokens: &Range<TokenId>) -> Option<usize> {
        let last = self.units.last()?;
        let after = last.tokens.end == tokens.start
            && last.tokens.end > last.tokens.start
            && tree.token_text(last.tokens.end - 1) == "}";
        (after && matches!(head, Head::Nameless)).then(|| self.units.len() - 1)
    }

    /// What `roots` reach, without the `dropped` statements and the `gone` units.
    fn reach(&self, roots: impl Iterator<Item = usize>, dropped: &[bool], gone: &[bool]) -> Reach {
        let mut reach = Reach {
            units: vec![false; self.units.len()],
            names: vec![false; self.reaches.len()],
        };
        let mut todo: Vec<usize> = Vec::new();
        // Units whose name is used, waiting for a name among their conditions.
        let mut waiting: HashMap<u32, Vec<usize>> = HashMap::new();
        let visit = |u: usize, reach: &mut Reach, todo: &mut Vec<usize>| {
            if !gone[u] && !reach.units[u] {
                reach.units[u] = true;
                todo.push(u);
            }
        };
        for u in roots {
            visit(u, &mut reach, &mut todo);
        }
        let mut names: Vec<u32> = self.implicit.clone();
        loop {
            while let Some(n) = names.pop() {
                if reach.names[n as usize] {
                    continue;
                }
                reach.names[n as usize] = true;
                let woken = waiting.remove(&n).unwrap_or_default();
                for u in self.reaches[n as usize]
                    .iter()
                    .map(|&u| u as usize)
                    .chain(woken)
                {
                    let unit = &self.units[u];
                    match unit.conditions.iter().find(|&&c| !reach.names[c as usize]) {
                        Some(&c) => waiting.entry(c).or_default().push(u),
                        None => visit(u, &mut reach, &mut todo),
                    }
                }
            }
            let Some(u) = todo.pop() else {
                return reach;
            };
            let unit = &self.units[u];
            names.extend(&unit.uses);
            for s in unit.statements.clone().filter(|&s| !dropped[s]) {
                names.extend(&self.statements[s].uses);
            }
        }
    }
}

/// Names as numbers.
#[derive(Default)]
struct Interner<'a>(HashMap<&'a str, u32>);

impl<'a> Interner<'a> {
    fn id(&mut self, w: &'a str) -> u32 {
        let n = self.0.len() as u32;
        *self.0.entry(w).or_insert(n)
    }
}

fn word<'a>(text: &'a [u8], l: &Lexeme) -> &'a str {
    as_str(&text[l.start as usize..l.end as usize])
}

/// If the chunk is a container: its name, if it has one. Its head (before its `{`) holds
/// one of the language's container keywords, or is `extern "…"`.
fn container(text: &[u8], chunk: &[Lexeme], keywords: &[&str]) -> Option<Option<Lexeme>> {
    let open = chunk.iter().position(|l| l.kind == Kind::Bracket(b'{'))?;
    let head: Vec<&Lexeme> = chunk[..open]
        .iter()
        .filter(|l| l.kind == Kind::Plain)
        .collect();
    let words: Vec<&str> = head.iter().map(|l| word(text, l)).collect();
    if let ["extern", s] = words[..] {
        return s.starts_with('"').then_some(None);
    }
    let at = words.iter().position(|w| keywords.contains(w))?;
    let name = head.get(at + 1).filter(|l| is_identifier(word(text, l)));
    Some(name.map(|&&l| l))
}

/// What a unit's head declares.
enum Head<'a> {
    /// The names, and the words of a function template's parameters or of a
    /// specialization's arguments.
    Names(Vec<&'a str>, Vec<&'a str>),
    /// An operator: the words of its head.
    Operator(Vec<&'a str>),
    /// A member defined outside its class (or namespace): the qualifier, and the name.
    Member(&'a str, &'a str),
    Nameless,
}

/// The identifier before `::` (and template arguments) that ends `before`, if one does.
fn qualifier(text: &[u8], before: &[Lexeme]) -> Option<Lexeme> {
    let colons = before.len().checked_sub(2)?;
    let is = |i: usize, w: &str| before.get(i).is_some_and(|l| word(text, l) == w);
    if !(is(colons, ":") && is(colons + 1, ":")) {
        return None;
    }
    let mut i = colons.checked_sub(1)?;
    if is(i, ">") {
        let mut depth = 0;
        loop {
            match word(text, &before[i]) {
                ">" => depth += 1,
                "<" => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                break;
            }
            i = i.checked_sub(1)?;
        }
        i = i.checked_sub(1)?;
    }
    let l = before[i];
    (l.kind == Kind::Plain && is_identifier(word(text, &l))).then_some(l)
}

fn heads<'a>(text: &'a [u8], chunk: &[Lexeme]) -> Head<'a> {
    let plain = |l: &&Lexeme| l.kind == Kind::Plain;
    if let Some(h) = read_head(text, chunk) {
        // `X<T>::f(...) {...}` defines a member of X: X reaches it.
        let at = chunk
            .iter()
            .position(|l| l.start == h.name.start)
            .unwrap_or(0);
        if let Some(class) = qualifier(text, &chunk[..at]) {
            return Head::Member(word(text, &class), word(text, &h.name));
        }
        let mut names = vec![word(text, &h.name)];
        // A function template's parameters deduce their types from its arguments: it is
        // called only with arguments of the types they name.
        let template = chunk
            .iter()
            .find(plain)
            .is_some_and(|l| word(text, l) == "template");
        let mut params = Vec::new();
        if h.function && template {
            let open = chunk[at..]
                .iter()
                .position(|l| l.kind == Kind::Bracket(b'('));
            let mut depth = 0;
            for l in open.map_or(&[][..], |o| &chunk[at + o..]) {
                match l.kind {
                    Kind::Bracket(b'(' | b'[' | b'{') => depth += 1,
                    Kind::Bracket(_) => depth -= 1,
                    Kind::Plain => params.push(word(text, l)),
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
            }
        }
        // A specialization, `template<> struct hash<string>`: used only with its arguments.
        let specialized = chunk.get(at + 1).is_some_and(|l| word(text, l) == "<");
        if !h.function && specialized {
            let mut depth = 0;
            for l in &chunk[at + 1..] {
                match word(text, l) {
                    "<" => depth += 1,
                    ">" => depth -= 1,
                    w => params.push(w),
                }
                if depth == 0 {
                    break;
                }
            }
        }
        let close = chunk.iter().rposition(|l| l.kind == Kind::Bracket(b'}'));
        if let Some(close) = close.filter(|_| !h.function) {
            names.extend(declared_after(text, &chunk[close + 1..]).map(|l| word(text, &l)));
        }
        // An enum's enumerators: the words after its `{` and its `,`s at depth one.
        if chunk.iter().filter(plain).any(|l| word(text, l) == "enum") {
            let mut depth = 0;
            let mut after_separator = false;
            for l in chunk {
                match l.kind {
                    Kind::Bracket(b'{' | b'(' | b'[') => {
                        depth += 1;
                        after_separator = depth == 1;
                    }
                    Kind::Bracket(_) => depth -= 1,
                    Kind::Plain if depth == 1 && after_separator => {
                        let w = word(text, l);
                        if is_identifier(w) {
                            names.push(w);
                        }
                        after_separator = false;
                    }
                    Kind::Plain => after_separator = depth == 1 && word(text, l) == ",",
                    _ => {}
                }
            }
        }
        return Head::Names(names, params);
    }
    let body = chunk
        .iter()
        .position(|l| l.kind == Kind::Bracket(b'{'))
        .unwrap_or(chunk.len());
    let head = &chunk[..body];
    if let Some(at) = head.iter().position(|l| word(text, l) == "operator") {
        if let Some(class) = qualifier(text, &head[..at]) {
            return Head::Member(word(text, &class), "operator");
        }
        let words = head.iter().filter(plain).map(|l| word(text, l));
        return Head::Operator(words.filter(|w| is_identifier(w)).collect());
    }
    Head::Nameless
}

/// The stage of a round: the last units as the only roots (declarations come before their
/// uses, so what a test needs is most likely last), then ddmin over the units as roots, then
/// over the statements of the roots that are left.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Only the last n units are roots; twice as many after a failure.
    Suffix(usize),
    Units,
    Statements,
    Done,
}

/// A statements' sweep stops when its sets would hold fewer than 1/FINEST of them: Perses
/// takes the rest one at a time.
const FINEST: usize = 16;

/// What the last proposal deletes: units, statements; and the suffix it kept, if it kept
/// one.
#[derive(Clone)]
struct Pending {
    units: Vec<usize>,
    statements: Vec<usize>,
    suffix: Option<usize>,
}

#[derive(Clone)]
pub struct Roots {
    graph: Rc<Graph>,
    stage: Stage,
    /// The stage's items (units, or statements), and the ddmin over their indices.
    items: Rc<Vec<usize>>,
    sweep: Ddmin,
    /// The roots the units' stage left.
    roots: Rc<Vec<usize>>,
    gone: Vec<bool>,
    dropped: Vec<bool>,
    pending: Option<Pending>,
    /// The fewest tokens an edit may delete (a coarse round's share), and whether one that
    /// deleted fewer was left for a fine round.
    least: usize,
    deferred: bool,
    coarse: bool,
}

impl Roots {
    pub fn new(prog: &Program, coarse: bool) -> Roots {
        let graph = Graph::new(prog);
        let gone: Vec<bool> = graph
            .units
            .iter()
            .map(|u| !u.tokens.clone().any(|t| prog.kept(t)))
            .collect();
        let dropped = vec![false; graph.statements.len()];
        let items: Vec<usize> = (0..graph.units.len()).filter(|&u| !gone[u]).collect();
        Roots {
            sweep: Ddmin::new((0..items.len() as u32).collect(), false),
            items: Rc::new(items),
            graph: Rc::new(graph),
            stage: Stage::Suffix(1),
            roots: Rc::default(),
            gone,
            dropped,
            pending: None,
            least: if coarse {
                prog.size() / COARSE_SHARE
            } else {
                0
            },
            deferred: false,
            coarse,
        }
    }

    /// On to the statements of the roots: in a coarse round (in a fine one, Perses deletes
    /// them one by one, and the next round takes what they reached).
    fn statements_stage(&mut self) -> Stage {
        if !self.coarse {
            return Stage::Done;
        }
        self.items = Rc::new(self.statements());
        self.sweep = Ddmin::new((0..self.items.len() as u32).collect(), true);
        Stage::Statements
    }

    /// The statements stage's items: the statements of the roots left, in text order.
    fn statements(&self) -> Vec<usize> {
        let mut found: Vec<usize> = self
            .roots
            .iter()
            .flat_map(|&u| self.graph.units[u].statements.clone())
            .filter(|&s| !self.dropped[s])
            .collect();
        found.sort_unstable();
        found
    }

    /// The edit that keeps what `roots` reach without the `dropped` statements, with the
    /// units and statements it deletes; `None` if it deletes nothing.
    fn cut(&self, roots: &[usize], dropped: &[usize]) -> Option<(Edit, Vec<usize>, Vec<usize>)> {
        let graph = &self.graph;
        let mut without = self.dropped.clone();
        for &s in dropped {
            without[s] = true;
        }
        let reach = graph.reach(roots.iter().copied(), &without, &self.gone);
        let units: Vec<usize> = (0..graph.units.len())
            .filter(|&u| !self.gone[u] && !reach.units[u])
            .collect();
        if units.is_empty() && dropped.is_empty() {
            return None;
        }
        let mut delete: Vec<Range<TokenId>> = units
            .iter()
            .map(|&u| graph.units[u].tokens.clone())
            .collect();
        delete.extend(dropped.iter().map(|&s| graph.statements[s].tokens.clone()));
        // A namespace nothing is left in goes too, unless its name is used.
        for c in &graph.containers {
            let empty = c.units.clone().all(|u| self.gone[u] || !reach.units[u]);
            let named = c.name.is_some_and(|n| reach.names[n as usize]);
            if empty && !named && !c.pinned {
                delete.push(c.tokens.clone());
            }
        }
        Some((Edit::deleting(delete), units, dropped.to_vec()))
    }

    /// Whether `edit` deletes enough for this round.
    fn big_enough(&mut self, prog: &Program, edit: &Edit) -> bool {
        // The roots' statements are few, and each may take much with it in the next round.
        if self.least == 0 || self.stage == Stage::Statements {
            return true;
        }
        let enough = prog.deletes_at_least(edit, self.least);
        self.deferred |= !enough;
        enough
    }
}

impl Pass for Roots {
    fn propose(&mut self, prog: &Program) -> Option<Edit> {
        loop {
            if let Stage::Suffix(n) = self.stage {
                let len = self.items.len();
                if n > len {
                    return None;
                }
                // What follows a failure: twice as many (a fine round tries the last alone).
                self.stage = match self.coarse {
                    true if 2 * n < len => Stage::Suffix(2 * n),
                    true => Stage::Units,
                    false => Stage::Done,
                };
                match self.cut(&self.items[len - n..], &[]) {
                    Some((edit, units, _)) if edit.changes(prog) => {
                        if self.big_enough(prog, &edit) {
                            self.pending = Some(Pending {
                                units,
                                statements: Vec::new(),
                                suffix: Some(n),
                            });
                            return Some(edit);
                        }
                        // More roots reach more, and would delete less still.
                        self.stage = if self.coarse {
                            Stage::Units
                        } else {
                            Stage::Done
                        };
                    }
                    // They reach everything: they are the roots.
                    _ => {
                        let len = self.items.len();
                        self.roots = Rc::new(self.items[len - n..].to_vec());
                        self.stage = self.statements_stage();
                    }
                }
                continue;
            }
            let set = match self.stage {
                Stage::Done => return None,
                Stage::Statements if self.sweep.chunk_size() * FINEST < self.items.len() => None,
                _ => self.sweep.propose(),
            };
            let Some(set) = set else {
                self.stage = match self.stage {
                    Stage::Units => {
                        let kept = self.sweep.alive.iter().map(|&i| self.items[i as usize]);
                        self.roots = Rc::new(kept.filter(|&u| !self.gone[u]).collect());
                        self.statements_stage()
                    }
                    _ => Stage::Done,
                };
                continue;
            };
            let chosen: Vec<usize> = set.iter().map(|&i| self.items[i as usize]).collect();
            let cut = match self.stage {
                Stage::Units => {
                    let roots: Vec<usize> = self
                        .sweep
                        .alive
                        .iter()
                        .map(|&i| self.items[i as usize])
                        .filter(|u| !chosen.contains(u))
                        .collect();
                    self.cut(&roots, &[])
                }
                _ => self.cut(&self.roots, &chosen),
            };
            match cut {
                Some((edit, units, statements)) if edit.changes(prog) => {
                    if self.big_enough(prog, &edit) {
                        self.pending = Some(Pending {
                            units,
                            statements,
                            suffix: None,
                        });
                        return Some(edit);
                    }
                }
                // Roots that the others reach anyway: dropped without a test.
                _ => self.sweep.accepted(),
            }
        }
    }

    fn accepted(&mut self, _prog: &Program) {
        let Some(pending) = self.pending.take() else {
            return;
        };
        for u in pending.units {
            self.gone[u] = true;
        }
        for s in pending.statements {
            self.dropped[s] = true;
        }
        match pending.suffix {
            // The suffix's units are the roots now.
            Some(n) if self.coarse => {
                let len = self.items.len();
                self.items = Rc::new(self.items[len - n..].to_vec());
                self.sweep = Ddmin::new((0..n as u32).collect(), false);
                self.stage = Stage::Units;
            }
            Some(_) => self.stage = Stage::Done,
            None => self.sweep.accepted(),
        }
    }

    fn deferred(&self) -> bool {
        self.deferred
    }

    /// Whole chunks go, brackets balanced: where the grammar already fails, its recovery
    /// may place an error elsewhere in a candidate it parses better as a whole.
    fn tested_only(&self) -> bool {
        true
    }

    fn box_clone(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::program;
    use super::*;
    use crate::Lang;

    fn words(p: &Program) -> String {
        p.text().split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn the_last_definition_keeps_what_it_reaches_and_the_rest_goes_at_once() {
        let prog = program(
            Lang::C,
            "int dead(void) { return 1; }\nint helper(int x) { return x; }\n\
             int other(void) { return dead(); }\nint main(void) { return helper(2); }\n",
        );
        let mut pass = Roots::new(&prog, false);
        let first = prog.after(&pass.propose(&prog).unwrap());
        assert_eq!(
            words(&first),
            "int helper(int x) { return x; } int main(void) { return helper(2); }"
        );
        // Refused: the last two reach everything, so nothing is left to try.
        assert!(pass.propose(&prog).is_none());
    }

    #[test]
    fn roots_that_others_reach_go_untested_and_needed_ones_stay() {
        // `a` is what the test needs; main reaches b alone: the suffix is refused, then
        // ddmin over the four roots (in a coarse round; a fine one tries the last alone).
        let prog = program(
            Lang::C,
            "int a(void) { return 0; }\nint b(void) { return 1; }\nint c(void) { return b(); }\n\
             int main(void) { return b(); }\n",
        );
        let mut pass = Roots::new(&prog, true);
        let needs_a = |p: &Program| p.text().contains("int a(void)");
        let mut best = prog.clone();
        while let Some(edit) = pass.propose(&best) {
            let next = best.after(&edit);
            if needs_a(&next) {
                best = next;
                pass.accepted(&best);
            }
        }
        // Then a's statement, which the test does not need either.
        assert_eq!(words(&best), "int a(void) { }");
    }

    #[test]
    fn a_member_goes_with_its_class_and_a_template_with_its_parameters_types() {
        let prog = program(
            Lang::Cpp,
            "namespace n {\nstruct S { void f(); };\nvoid S::f() {}\nstruct T {};\n\
             template <class X> void swap(T &a, T &b) {}\ntemplate <class X> void swap(S &a, S &b) {}\n}\n\
             namespace m { int unused; }\n\
             int main() { n::S s; s.f(); swap<int>(s, s); }\n",
        );
        let mut pass = Roots::new(&prog, false);
        let first = prog.after(&pass.propose(&prog).unwrap());
        assert_eq!(
            words(&first),
            "namespace n { struct S { void f(); }; void S::f() {} \
             template <class X> void swap(S &a, S &b) {} } \
             int main() { n::S s; s.f(); swap<int>(s, s); }"
        );
    }

    #[test]
    fn a_specialization_stays_while_its_arguments_are_used() {
        let prog = program(
            Lang::Cpp,
            "template <class T> struct hash;\nstruct A {};\nstruct B {};\n\
             template <> struct hash<A> { int v; };\ntemplate <> struct hash<B> { int v; };\n\
             int main() { hash<A> h; return h.v; }\n",
        );
        let mut pass = Roots::new(&prog, false);
        let first = prog.after(&pass.propose(&prog).unwrap());
        assert_eq!(
            words(&first),
            "template <class T> struct hash; struct A {}; \
             template <> struct hash<A> { int v; }; int main() { hash<A> h; return h.v; }"
        );
    }

    #[test]
    fn a_coarse_round_drops_the_roots_statements_with_what_only_they_reached() {
        let prog = program(
            Lang::C,
            "int big(int x) { x = x + 1; x = x * 2; x = x - 3; x = x / 4; return x; }\n\
             int main(void) { int y = 0; big(y); return y; }\n",
        );
        let mut pass = Roots::new(&prog, true);
        // main reaches everything: its statements, all at once first, then from the end.
        let all = prog.after(&pass.propose(&prog).unwrap());
        assert_eq!(words(&all), "int main(void) { }");
        let half = prog.after(&pass.propose(&prog).unwrap());
        assert_eq!(words(&half), "int main(void) { int y = 0; }");
    }
}
