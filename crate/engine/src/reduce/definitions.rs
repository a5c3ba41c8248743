//! Two passes over the definitions the text shows, many at once: big C++ and C inputs
//! (a preprocessed translation unit is mostly headers) shrink here before Perses tries
//! one node at a time. A definition is a chunk (see [`super::chunks`]: a declaration ended
//! by `;` or `}`) whose head declares a name: a function's before its `(`, a type's or
//! variable's before `{`, `=`, `:` or `;`. By text and token identity alone, so both passes
//! work on a lexed tree as on a parsed one.
//!
//! - `unused`: a definition whose name occurs nowhere but in the definitions that declare it
//!   goes, with them (overloads, a declaration and its definition: C-Vise asks Clang for
//!   these, `remove-unused-function`). When a sweep is over, the names are counted again:
//!   what only deleted code used is unused now.
//! - `bodies`: a function definition becomes its declaration, `{...}` becomes `;` (C-Vise's
//!   `replace-function-def-with-decl`); C and C++ only, where a declaration may stand alone.
//!
//! Candidates go by ddmin: all at once first (most of a header is unused by one program),
//! then halves, quarters, ... down to sixteenths: the few a program needs cost a few queries
//! each, and a test that needs them all (one that links or runs needs the bodies) costs 32
//! (1 + 2 + 4 + 8 + 16, and the first thirty-second, which ends the sweep).

use super::chunks::{chunks_of, token_at, Kind, Lexeme};
use super::ddmin::Chunks;
use super::{Edit, Pass, Program};
use crate::tree::{TokenId, Tree};
use crate::Lang;
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::rc::Rc;

/// What a pass does to a definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    Unused,
    Bodies,
}

/// A chunk that declares a name.
#[derive(Clone, Debug)]
struct Definition {
    tokens: Range<TokenId>,
    /// The tokens of the names it declares: its head's, then a type's declarators after
    /// its body (`typedef struct s {...} s_t;`).
    names: Vec<TokenId>,
    /// A function's body: from its `{` (or the `:` of a constructor's initializers) to
    /// its `}`, that `}` last.
    body: Option<Range<TokenId>>,
}

/// A sweep stops when its sets would hold fewer than 1/FINEST of its candidates: the rest
/// go one at a time in Perses's fine rounds.
const FINEST: usize = 16;

#[derive(Clone)]
pub struct Definitions {
    goal: Goal,
    definitions: Rc<Vec<Definition>>,
    /// Definitions already swept: not tried again.
    tried: HashSet<usize>,
    /// The current sweep's units (each some indices into `definitions`) and the sweep over
    /// them.
    sweep: Option<(Vec<Vec<usize>>, Chunks)>,
}

impl Definitions {
    pub fn new(prog: &Program, goal: Goal) -> Definitions {
        let wanted = goal == Goal::Unused || matches!(prog.tree.lang, Lang::C | Lang::Cpp);
        Definitions {
            goal,
            definitions: Rc::new(if wanted {
                definitions(&prog.tree)
            } else {
                Vec::new()
            }),
            tried: HashSet::new(),
            sweep: None,
        }
    }

    /// The definitions not yet tried that this pass may change now, outermost only, in
    /// units that go together: for `unused`, the definitions that share a name (overloads,
    /// a declaration and its definition), for `bodies` each alone.
    fn candidates(&self, prog: &Program) -> Vec<Vec<usize>> {
        let tree = &prog.tree;
        let open = (0..self.definitions.len())
            .filter(|i| !self.tried.contains(i))
            .filter(|&i| prog.kept(self.definitions[i].names[0]));
        let mut found: Vec<usize> = match self.goal {
            Goal::Unused => {
                // A name nothing uses but the definitions that declare it: they go together.
                let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
                for i in open {
                    for &name in &self.definitions[i].names {
                        by_name.entry(tree.token_text(name)).or_default().push(i);
                    }
                }
                let uses = uses(prog);
                let dead = |name: &str| {
                    let declaring = &by_name[name];
                    uses.get(name).is_some_and(|all| {
                        all.iter().all(|t| {
                            declaring
                                .iter()
                                .any(|&i| self.definitions[i].tokens.contains(t))
                        })
                    })
                };
                let dead: HashSet<&str> = by_name.keys().copied().filter(|&n| dead(n)).collect();
                let mut found: Vec<usize> = by_name
                    .iter()
                    .filter(|(name, _)| dead.contains(*name))
                    .flat_map(|(_, defs)| defs.iter().copied())
                    .filter(|&i| {
                        let names = &self.definitions[i].names;
                        names.iter().all(|&n| dead.contains(tree.token_text(n)))
                    })
                    .collect();
                found.sort_unstable();
                found.dedup();
                found
            }
            Goal::Bodies => open
                .filter(|&i| {
                    let body = self.definitions[i].body.as_ref();
                    body.is_some_and(|b| prog.kept(b.start) && prog.kept(b.end - 1))
                })
                .collect(),
        };
        found.sort_by_key(|&i| {
            let r = &self.definitions[i].tokens;
            (r.start, std::cmp::Reverse(r.end))
        });
        let mut outer_end = 0;
        found.retain(|&i| {
            let r = &self.definitions[i].tokens;
            let inside = r.end <= outer_end;
            outer_end = outer_end.max(r.end);
            !inside
        });
        match self.goal {
            Goal::Unused => self.by_shared_name(tree, found),
            Goal::Bodies => found.into_iter().map(|i| vec![i]).collect(),
        }
    }

    /// `found` in units: definitions that declare a name in common are one, placed where
    /// its first definition is.
    fn by_shared_name(&self, tree: &Tree, found: Vec<usize>) -> Vec<Vec<usize>> {
        let mut unit_of: HashMap<&str, usize> = HashMap::new();
        let mut units: Vec<Vec<usize>> = Vec::new();
        for i in found {
            let names = &self.definitions[i].names;
            let shared = names
                .iter()
                .find_map(|&n| unit_of.get(tree.token_text(n)).copied());
            let u = shared.unwrap_or_else(|| {
                units.push(Vec::new());
                units.len() - 1
            });
            units[u].push(i);
            for &n in names {
                unit_of.entry(tree.token_text(n)).or_insert(u);
            }
        }
        units
    }

    fn edit(&self, set: &[usize]) -> Edit {
        let mut edit = Edit::default();
        for &i in set {
            let d = &self.definitions[i];
            match (self.goal, &d.body) {
                (Goal::Bodies, Some(body)) => {
                    edit.delete.push(body.start..body.end - 1);
                    edit.replace.push((body.end - 1, ";".to_string()));
                }
                _ => edit.delete.push(d.tokens.clone()),
            }
        }
        edit
    }
}

/// The kept identifier tokens of the program, by text.
fn uses(prog: &Program) -> HashMap<&str, Vec<TokenId>> {
    let tree = &prog.tree;
    let mut uses: HashMap<&str, Vec<TokenId>> = HashMap::new();
    for t in 0..tree.tokens.len() as TokenId {
        let text = tree.token_text(t);
        if prog.kept(t) && is_identifier(text) {
            uses.entry(text).or_default().push(t);
        }
    }
    uses
}

impl Pass for Definitions {
    fn propose(&mut self, prog: &Program) -> Option<Edit> {
        loop {
            if let Some((units, sweep)) = &mut self.sweep {
                let fine = sweep.chunk_size() * FINEST < units.len();
                if let Some(set) = sweep.propose().filter(|_| !fine) {
                    let set: Vec<usize> = set
                        .iter()
                        .flat_map(|&u| units[u as usize].iter().copied())
                        .collect();
                    return Some(self.edit(&set));
                }
                self.sweep = None;
            }
            let found = self.candidates(prog);
            if found.is_empty() {
                return None;
            }
            self.tried.extend(found.iter().flatten().copied());
            let sweep = Chunks::new((0..found.len() as u32).collect(), true);
            self.sweep = Some((found, sweep));
        }
    }

    fn accepted(&mut self, _prog: &Program) {
        if let Some((_, sweep)) = &mut self.sweep {
            sweep.accepted();
        }
    }

    fn box_clone(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }
}

/// The chunks of the tree's text that declare a name, as token ranges.
fn definitions(tree: &Tree) -> Vec<Definition> {
    let (lexemes, found) = chunks_of(&tree.text, tree.lang);
    let text = tree.text.as_bytes();
    // The token that is this lexeme, if one is.
    let token_of = |l: &Lexeme| {
        let t = token_at(tree, l.start);
        let exact = tree.tokens.get(t as usize).is_some_and(|k| k.end == l.end);
        exact.then_some(t)
    };
    let mut out = Vec::new();
    for c in found {
        let chunk = c.lexemes(&lexemes);
        let Some(head) = read_head(text, chunk) else {
            continue;
        };
        // A type's data members go one by one (Perses): an initializer counts them.
        if c.member && !head.function {
            continue;
        }
        let tokens = c.tokens(tree);
        let Some(name) = token_of(&head.name).filter(|t| tokens.contains(t)) else {
            continue;
        };
        // The body's `}` is the chunk's last closer.
        let close = chunk.iter().rposition(|l| l.kind == Kind::Bracket(b'}'));
        // A type's declarators (a function's last `}` may be a default argument's `{}`).
        let declarators = match close {
            Some(c) if !head.function => &chunk[c + 1..],
            _ => &[][..],
        };
        let names = std::iter::once(Some(name))
            .chain(declared_after(text, declarators).map(|l| token_of(&l)))
            .collect::<Option<Vec<TokenId>>>();
        let Some(names) = names else {
            continue;
        };
        let body = head.body.zip(close).filter(|&(from, close)| from < close);
        let body = body.and_then(|(from, close)| {
            let range = token_of(&chunk[from])?..token_of(&chunk[close])? + 1;
            (range.len() > 2).then_some(range)
        });
        out.push(Definition {
            tokens,
            names,
            body,
        });
    }
    out
}

/// The names a type's declarators declare after its body: identifiers outside brackets,
/// attributes left out.
pub(super) fn declared_after<'a>(
    text: &'a [u8],
    tail: &'a [Lexeme],
) -> impl Iterator<Item = Lexeme> + 'a {
    let mut depth = 0u32;
    tail.iter().copied().filter(move |l| {
        match l.kind {
            Kind::Bracket(b'(' | b'[' | b'{') => depth += 1,
            Kind::Bracket(b')' | b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
        let w = as_str(&text[l.start as usize..l.end as usize]);
        depth == 0 && l.kind == Kind::Plain && is_identifier(w) && !NOT_NAMES.contains(&w)
    })
}

/// What a chunk's head says.
pub(super) struct Head {
    pub name: Lexeme,
    /// Whether it declares a function (its name came before a parameter list).
    pub function: bool,
    /// The index of a function's body's first lexeme: its `{`, or the `:` before a
    /// constructor's initializers.
    body: Option<usize>,
}

/// Words that take a parenthesized group which is not a parameter list.
const NOT_NAMES: &[&str] = &[
    "__attribute__",
    "__attribute",
    "__declspec",
    "alignas",
    "_Alignas",
    "decltype",
    "__typeof__",
    "__typeof",
    "typeof",
    "noexcept",
    "throw",
    "__asm__",
    "__asm",
    "asm",
    "requires",
];

/// Words that begin a statement, not a declaration.
const STATEMENTS: &[&str] = &[
    "return",
    "if",
    "else",
    "while",
    "for",
    "do",
    "switch",
    "case",
    "default",
    "goto",
    "break",
    "continue",
    "throw",
    "try",
    "catch",
    "co_return",
    "co_yield",
    "co_await",
    "delete",
    "yield",
    "await",
    "loop",
    "match",
    "let",
];

/// A chunk's head: the name it declares (the identifier before its first parameter list,
/// or else its last identifier before `{`, `=`, `:`, `[` or `;`, outside brackets and
/// template arguments) and a function's body. `None` for an operator, a statement or a
/// head without a name.
pub(super) fn read_head(text: &[u8], chunk: &[Lexeme]) -> Option<Head> {
    let word = |l: &Lexeme| &text[l.start as usize..l.end as usize];
    let first = chunk.iter().find(|l| l.kind == Kind::Plain)?;
    if STATEMENTS.contains(&as_str(word(first))) {
        return None;
    }
    // A namespace's name says nothing of what it holds (`inline namespace v1`).
    if chunk.iter().any(|l| word(l) == b"namespace") {
        return None;
    }
    let mut name: Option<Lexeme> = None;
    let mut angles = 0u32;
    let mut i = 0;
    while i < chunk.len() {
        let l = chunk[i];
        i += 1;
        match l.kind {
            Kind::Comment | Kind::Directive => continue,
            Kind::Bracket(b'(') => {
                let skipped = name.is_some_and(|n| NOT_NAMES.contains(&as_str(word(&n))));
                if angles == 0 && !skipped {
                    let name = name?;
                    // `A::f() {...}` must stay a definition: a member is declared in its class.
                    let at = chunk.iter().position(|l| l.start == name.start)?;
                    let qualified = at >= 1 && colon_pair(text, chunk, at - 1);
                    let body =
                        body_after(text, chunk, group_end(chunk, i - 1)).filter(|_| !qualified);
                    return Some(Head {
                        name,
                        function: true,
                        body,
                    });
                }
                i = group_end(chunk, i - 1);
                if skipped {
                    name = None;
                }
                continue;
            }
            // An array's size, or a C++11 attribute (`struct [[deprecated]] s`).
            Kind::Bracket(b'[')
                if angles > 0
                    || name.is_none()
                    || chunk.get(i).is_some_and(|n| n.kind == Kind::Bracket(b'[')) =>
            {
                i = group_end(chunk, i - 1)
            }
            Kind::Bracket(_) => return name.filter(|_| angles == 0).map(Head::named),
            Kind::Plain => {}
        }
        let w = word(&l);
        if w == b"operator" {
            return None;
        }
        // `template <...>`: its parameters declare nothing outside it.
        if w == b"template" && chunk.get(i).is_some_and(|n| word(n) == b"<") {
            i = angles_end(text, chunk, i);
            continue;
        }
        if w.first() == Some(&b'"') {
            name = None; // extern "C"
            continue;
        }
        if is_identifier(as_str(w)) {
            if angles == 0 && w != b"final" && w != b"override" {
                name = Some(l);
            }
        } else if w == b"<"
            && name.is_some()
            && i >= 2
            && is_identifier(as_str(word(&chunk[i - 2])))
        {
            angles += 1;
        } else if w == b">" && angles > 0 {
            angles -= 1;
        } else if angles == 0 && (w == b"=" || (w == b":" && !colon_pair(text, chunk, i - 1))) {
            return name.map(Head::named);
        }
    }
    None
}

impl Head {
    fn named(name: Lexeme) -> Head {
        Head {
            name,
            function: false,
            body: None,
        }
    }
}

/// After a function's parameter list (ending before `i`): where its body starts, if it has
/// one (`{`, or `:` then initializers then `{`) and nothing else (`=` of `= default`).
fn body_after(text: &[u8], chunk: &[Lexeme], mut i: usize) -> Option<usize> {
    let word = |l: &Lexeme| &text[l.start as usize..l.end as usize];
    let mut from = None;
    while i < chunk.len() {
        let l = chunk[i];
        match l.kind {
            Kind::Bracket(b'{') => return Some(from.unwrap_or(i)),
            Kind::Bracket(b'(' | b'[') => {
                i = group_end(chunk, i);
                continue;
            }
            Kind::Bracket(_) => return None,
            Kind::Plain if word(&l) == b"=" => return None,
            Kind::Plain if word(&l) == b":" && from.is_none() && !colon_pair(text, chunk, i) => {
                from = Some(i);
            }
            _ => {}
        }
        i += 1;
    }
    None
}

pub(super) fn as_str(w: &[u8]) -> &str {
    std::str::from_utf8(w).unwrap_or("")
}

/// Whether the `:` at `i` is half of `::`.
fn colon_pair(text: &[u8], chunk: &[Lexeme], i: usize) -> bool {
    let colon = |j: Option<usize>| {
        j.and_then(|j| chunk.get(j)).is_some_and(|l| {
            text[l.start as usize..l.end as usize] == *b":" && l.start.abs_diff(chunk[i].start) == 1
        })
    };
    colon(i.checked_sub(1)) || colon(Some(i + 1))
}

/// The index past the `>` that closes the `<` at `i` (bracket groups inside skipped).
fn angles_end(text: &[u8], chunk: &[Lexeme], mut i: usize) -> usize {
    let mut depth = 0u32;
    while i < chunk.len() {
        match chunk[i].kind {
            Kind::Bracket(b'(' | b'[' | b'{') => {
                i = group_end(chunk, i);
                continue;
            }
            Kind::Bracket(_) => return i,
            _ => {}
        }
        match &text[chunk[i].start as usize..chunk[i].end as usize] {
            b"<" => depth += 1,
            b">" => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// The index past the bracket group opened at `i`.
fn group_end(chunk: &[Lexeme], i: usize) -> usize {
    let mut depth = 0i32;
    for (j, l) in chunk.iter().enumerate().skip(i) {
        match l.kind {
            Kind::Bracket(b'(' | b'[' | b'{') => depth += 1,
            Kind::Bracket(b')' | b']' | b'}') => {
                depth -= 1;
                if depth <= 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
    }
    chunk.len()
}

/// An identifier or keyword: a letter or `_` first, then letters, digits and `_`.
pub(super) fn is_identifier(w: &str) -> bool {
    let mut bytes = w.bytes();
    bytes
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_' || c >= 0x80)
        && bytes.all(|c| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80)
}

#[cfg(test)]
mod tests {
    use super::super::chunks::lex;
    use super::super::tests::program;
    use super::*;

    /// The name a head declares, and the text from its body's start, if it has one.
    fn head_of(chunk: &str) -> Option<(String, Option<String>)> {
        let lexemes = lex(chunk, true);
        let head = read_head(chunk.as_bytes(), &lexemes)?;
        let text = |l: &Lexeme| chunk[l.start as usize..l.end as usize].to_string();
        let body = head
            .body
            .map(|b| chunk[lexemes[b].start as usize..].to_string());
        Some((text(&head.name), body))
    }

    #[test]
    fn heads_name_what_they_declare() {
        let cases = [
            ("int f(int x) { return x; }", Some("f")),
            (
                "template <typename T> void S<T>::push(T x) {}",
                Some("push"),
            ),
            ("static int counter = 3;", Some("counter")),
            ("struct point { int x; };", Some("point")),
            ("class A : public B { };", Some("A")),
            ("class A final { };", Some("A")),
            ("extern int g(void) __attribute__((nothrow));", Some("g")),
            ("__attribute__((unused)) static int h(void) { }", Some("h")),
            ("typedef unsigned long size_t;", Some("size_t")),
            ("int table[10];", Some("table")),
            ("[[nodiscard]] int k();", Some("k")),
            ("union [[gnu::may_alias]] any { int i; };", Some("any")),
            (
                "template<typename _Tp> [[__nodiscard__]] constexpr _Tp&& forward(_Tp& t) { }",
                Some("forward"),
            ),
            (
                "template<size_t _Len, size_t _A = __alignof__(T<_Len>)> using a_t = int;",
                Some("a_t"),
            ),
            ("std::size_t A::count() const { }", Some("count")),
            ("fn parse<T: Read>(r: T) -> u32 { 0 }", Some("parse")),
            ("bool operator<(const A&, const A&);", None),
            ("extern \"C\" { }", None),
            ("return f(x);", None),
            ("if (x) { y(); }", None),
            ("inline namespace v1 { int a; }", None),
        ];
        for (chunk, want) in cases {
            assert_eq!(head_of(chunk).map(|h| h.0).as_deref(), want, "{chunk}");
        }
    }

    #[test]
    fn a_function_body_starts_at_its_brace_or_its_initializers() {
        let body = |chunk| head_of(chunk).and_then(|h| h.1);
        assert_eq!(
            body("int f(int x) const { return x; }").as_deref(),
            Some("{ return x; }")
        );
        assert_eq!(
            body("A(int x) : b(x), c{x} { }").as_deref(),
            Some(": b(x), c{x} { }")
        );
        assert_eq!(
            body("auto f() -> decltype(g()) { }").as_deref(),
            Some("{ }")
        );
        assert_eq!(body("A(const A&) = default;"), None);
        assert_eq!(body("void A::f() { }"), None);
        assert_eq!(body("int f(int);"), None);
        assert_eq!(body("struct S { int f() { } };"), None);
    }

    #[test]
    fn unused_definitions_go_together_then_what_only_they_used() {
        let prog = program(Lang::C, "int g(int x) { return x; }\nint f(int x) { return g(x); }\nint h;\nint k(void) { return h; }\n");
        let mut pass = Definitions::new(&prog, Goal::Unused);
        // f and k name nothing outside them (the test decides about such roots as main).
        let first = prog.after(&pass.propose(&prog).unwrap());
        assert_eq!(
            first
                .text()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
            "int g(int x) { return x; } int h;"
        );
        pass.accepted(&first);
        // Counted again: g and h are unused now, and go together.
        let second = first.after(&pass.propose(&first).unwrap());
        assert_eq!(second.text().trim(), "");
        pass.accepted(&second);
        assert!(pass.propose(&second).is_none());
    }

    #[test]
    fn definitions_that_share_an_unused_name_go_together() {
        let text = "int f(int);\nint f(int x) { return x; }\nint f(long x) { return 1; }\n\
                    int g(int);\nint g(int x) { return x; }\nint main(void) { return g(2); }\n";
        let prog = program(Lang::Cpp, text);
        let mut pass = Definitions::new(&prog, Goal::Unused);
        let words = |p: &Program| p.text().split_whitespace().collect::<Vec<_>>().join(" ");
        // f's three declarations name only each other; g is called, main by nothing.
        let all = prog.after(&pass.propose(&prog).unwrap());
        assert_eq!(words(&all), "int g(int); int g(int x) { return x; }");
        // Refused: the halves, f's unit whole (from the end: main first).
        let half = prog.after(&pass.propose(&prog).unwrap());
        assert!(!words(&half).contains("main"), "{}", half.text());
        let other = prog.after(&pass.propose(&prog).unwrap());
        assert_eq!(
            words(&other),
            "int g(int); int g(int x) { return x; } int main(void) { return g(2); }"
        );
    }

    #[test]
    fn bodies_become_declarations_all_at_once_then_halves() {
        let prog = program(
            Lang::C,
            "int f(int x) { return x; }\nstruct s { int a; };\nint main(void) { return f(1); }\n",
        );
        let mut pass = Definitions::new(&prog, Goal::Bodies);
        let all = prog.after(&pass.propose(&prog).unwrap());
        assert_eq!(
            all.text().split_whitespace().collect::<Vec<_>>().join(" "),
            "int f(int x) ; struct s { int a; }; int main(void) ;"
        );
        // Refused: the second half (main's body) goes alone first, from the end.
        let half = prog.after(&pass.propose(&prog).unwrap());
        assert!(
            half.text().contains("int f(int x) { return x; }"),
            "{}",
            half.text()
        );
        assert!(half.text().contains("int main(void) ;"), "{}", half.text());
        // Not for a language where a declaration cannot stand alone.
        let js = program(Lang::JavaScript, "function f(x) { return x; }");
        assert!(Definitions::new(&js, Goal::Bodies).propose(&js).is_none());
    }

    #[test]
    fn identifiers_are_words() {
        assert!(is_identifier("_x1"));
        assert!(!is_identifier("1x"));
        assert!(!is_identifier("\"s\""));
        assert!(!is_identifier(""));
    }
}
