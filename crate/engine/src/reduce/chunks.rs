//! The `chunks` pass: big steps first, by text alone. A cheap lexer (strings, characters,
//! comments and preprocessor lines, nothing of the grammar) splits the program into
//! *chunks*: runs of tokens that end at `;` or `}` at bracket depth 0 of their block, as a
//! top-level declaration or a statement does. Chunks nest: a block's braces hold chunks a
//! level deeper. Level by level from the outermost, the pass deletes runs of chunks from the
//! end (Perses's sweep: a run doubles after a deletion, halves after a failure), as C-Vise's
//! line and `topformflat` passes delete lines, so a megabyte shrinks in its first minute;
//! the grammar-guided passes take over after. Deleting whole chunks keeps brackets balanced.
//!
//! The lexer also makes a *lexed tree* (one flat node over its tokens): a program too big to
//! parse cheaply is reduced on it, before any parse, until it is small enough (see `Single`).

use super::sweep::Sweep;
use super::{Edit, Pass, Program, COARSE_SHARE};
use crate::tree::{Node, Token, TokenId, Tree};
use crate::Lang;
use std::ops::Range;
use std::rc::Rc;

/// What a lexeme is, as far as chunking cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An identifier, a number, a string or character literal, any other punctuation.
    Plain,
    /// One of `( ) [ ] { } ;`.
    Bracket(u8),
    Comment,
    /// A whole preprocessor line, continuations and its newline included.
    Directive,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lexeme {
    pub start: u32,
    pub end: u32,
    pub kind: Kind,
}

/// The lexemes of `text`. Never fails: an unterminated string or comment runs to the end
/// of its line or of the text.
pub fn lex(text: &str, directives: bool) -> Vec<Lexeme> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    // Whether only white space came since the last newline (a `#` there is a directive).
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            line_start |= c == b'\n';
            i += 1;
            continue;
        }
        let start = i;
        let kind = match c {
            b'#' if directives && line_start => {
                i = directive_end(b, i);
                Kind::Directive
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = line_end(b, i);
                Kind::Comment
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = find(b, i + 2, b"*/").map_or(b.len(), |e| e + 2);
                Kind::Comment
            }
            b'"' | b'`' => {
                i = quoted_end(b, i, c);
                Kind::Plain
            }
            b'\'' => {
                // A character literal, or a lone quote (a Rust lifetime, a C++ digit
                // separator inside a number is taken with the number below).
                i = char_end(b, i);
                Kind::Plain
            }
            b'(' | b')' | b'[' | b']' | b'{' | b'}' | b';' => {
                i += 1;
                Kind::Bracket(c)
            }
            c if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 => {
                i = word_end(b, i);
                // A C++ raw string: R"delim( ... )delim", also u8R, LR, uR, UR.
                if b.get(i) == Some(&b'"') && b[i - 1] == b'R' && i - start <= 3 {
                    i = raw_string_end(b, i);
                } else if b.get(i) == Some(&b'"') || b.get(i) == Some(&b'\'') {
                    // A prefixed literal: L"..", u8'..'.
                    let q = b[i];
                    if i - start <= 2 {
                        i = if q == b'"' {
                            quoted_end(b, i, q)
                        } else {
                            char_end(b, i)
                        };
                    }
                }
                Kind::Plain
            }
            _ => {
                i += utf8_len(c);
                Kind::Plain
            }
        };
        // A directive ends past its newline.
        line_start = kind == Kind::Directive;
        out.push(Lexeme {
            start: start as u32,
            end: i.min(b.len()) as u32,
            kind,
        });
    }
    out
}

fn utf8_len(c: u8) -> usize {
    match c {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

fn find(b: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(pat.len())
        .position(|w| w == pat)
        .map(|p| p + from)
}

fn line_end(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |p| i + p)
}

/// The end of a preprocessor line starting at `i`: past its newline, across `\` continuations
/// and block comments.
fn directive_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' if b.get(i + 1) == Some(&b'\n') => i += 2,
            b'\\' if b.get(i + 1) == Some(&b'\r') && b.get(i + 2) == Some(&b'\n') => i += 3,
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = find(b, i + 2, b"*/").map_or(b.len(), |e| e + 2)
            }
            b'\n' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// The end of a string quoted by `q` at `i` (escapes skipped); an unterminated one ends at
/// its line's end (a template literal, `` ` ``, may span lines).
fn quoted_end(b: &[u8], mut i: usize, q: u8) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == q => return i + 1,
            b'\n' if q != b'`' => return i,
            _ => i += 1,
        }
    }
    b.len()
}

/// A character literal's end, or just past a lone `'` when no closing quote comes soon.
fn char_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while j < b.len() && j <= i + 12 {
        match b[j] {
            b'\\' => j += 2,
            b'\'' => return j + 1,
            b'\n' => break,
            _ => j += 1,
        }
    }
    i + 1
}

fn word_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80 {
            i += 1;
        } else if c == b'\'' && i > 0 && b[i - 1].is_ascii_digit() {
            i += 1; // 1'000'000
        } else if (c == b'+' || c == b'-')
            && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P')
            && b[0..i]
                .iter()
                .rev()
                .take_while(|c| c.is_ascii_alphanumeric())
                .last()
                .is_some_and(|d| d.is_ascii_digit())
        {
            i += 1; // 1e+5
        } else if c == b'.' && b[i - 1].is_ascii_digit() {
            i += 1; // 1.5
        } else {
            break;
        }
    }
    i
}

/// A raw string's end: `"` at `i`, then `delim(` ... `)delim"`.
fn raw_string_end(b: &[u8], i: usize) -> usize {
    let Some(open) = b[i..].iter().take(18).position(|&c| c == b'(') else {
        return quoted_end(b, i, b'"');
    };
    let delim = &b[i + 1..i + open];
    let mut close = Vec::with_capacity(delim.len() + 2);
    close.push(b')');
    close.extend_from_slice(delim);
    close.push(b'"');
    find(b, i + open + 1, &close).map_or(b.len(), |e| e + close.len())
}

/// A chunk: bytes `start..end` of the text, at nesting `level` (0: top level; a block's
/// braces hold level + 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    pub start: u32,
    pub end: u32,
    pub level: u32,
    /// Directly inside a type's body (C, C++): a member.
    pub member: bool,
}

/// The chunks of a lexeme stream, in the order they end (inner ones before the chunk that
/// holds them). A chunk ends at `;` or at the `}` that closes a block it opened (taking a `;`
/// right after: `struct s {...};`), provided no `(` or `[` is open inside it; a directive line
/// is a chunk of its own where a chunk could start; comments start none. Unbalanced closers
/// are skipped; what is open at the end of the text ends there, at level 0. With
/// `declarators` (C, C++) a type's body (`struct`, `class`, `union` or `enum` in a head
/// without a parameter list) does not end its chunk: its declarators and `;` follow
/// (`typedef struct {...} name;`).
pub fn chunks(text: &str, lexemes: &[Lexeme], declarators: bool) -> Vec<Chunk> {
    let mut out = Vec::new();
    // The open brackets, and for each level (the `{`s open, plus one) where its chunk began.
    let mut stack: Vec<u8> = Vec::new();
    let mut open: Vec<Option<u32>> = vec![None];
    // For each `{` open, whether it is a type's body.
    let mut types: Vec<bool> = Vec::new();
    let word = |l: &Lexeme| &text[l.start as usize..l.end as usize];
    let type_head = |start: u32, end: usize| {
        let head = &lexemes[lexemes.partition_point(|l| l.start < start)..end];
        head.iter()
            .any(|l| matches!(word(l), "struct" | "class" | "union" | "enum"))
            && !head.iter().any(|l| l.kind == Kind::Bracket(b'('))
    };
    // Whether the brackets' top is a block (or nothing): where chunks begin and end. A Rust
    // macro's repetition, `$( ... )`, holds items and statements as a block does.
    let in_block = |stack: &[u8]| stack.last().is_none_or(|&c| c == b'{' || c == b'$');
    let repetition = |at: usize| at > 0 && word(&lexemes[at - 1]) == "$";
    let mut i = 0;
    while i < lexemes.len() {
        let l = lexemes[i];
        i += 1;
        let level = open.len() - 1;
        match l.kind {
            Kind::Comment => continue,
            Kind::Directive => {
                if in_block(&stack) && open[level].is_none() {
                    out.push(Chunk {
                        start: l.start,
                        end: l.end,
                        level: level as u32,
                        member: types.last() == Some(&true),
                    });
                }
                continue;
            }
            _ => {}
        }
        if in_block(&stack) && open[level].is_none() {
            open[level] = Some(l.start);
        }
        match l.kind {
            Kind::Bracket(b'{') => {
                let start = open[level].filter(|_| declarators && in_block(&stack));
                types.push(start.is_some_and(|s| type_head(s, i - 1)));
                stack.push(b'{');
                open.push(None);
            }
            Kind::Bracket(b'(') if repetition(i - 1) => {
                stack.push(b'$');
                open.push(None);
            }
            Kind::Bracket(c @ (b'(' | b'[')) => stack.push(c),
            Kind::Bracket(b')') if stack.last() == Some(&b'$') => {
                stack.pop();
                open.pop(); // an unfinished inner chunk (`$($x),*`) is none
            }
            Kind::Bracket(c @ (b')' | b']')) => {
                let opener = if c == b')' { b'(' } else { b'[' };
                if stack.last() == Some(&opener) {
                    stack.pop();
                }
            }
            Kind::Bracket(b'}') => {
                if !stack.contains(&b'{') {
                    continue; // a stray closer
                }
                while let Some(c) = stack.pop() {
                    match c {
                        b'{' => break,
                        b'$' => {
                            open.pop(); // a repetition never closed
                        }
                        _ => {}
                    }
                }
                open.pop(); // an unfinished inner chunk (`{ return x }`) is none
                let level = open.len() - 1;
                // A type's body: its chunk goes on to the `;` after its declarators.
                let type_body = types.pop().unwrap_or(false);
                if in_block(&stack) && !type_body {
                    if let Some(start) = open[level].take() {
                        let mut end = l.end;
                        if let Some(next) = lexemes.get(i).filter(|n| n.kind == Kind::Bracket(b';'))
                        {
                            end = next.end;
                            i += 1;
                        }
                        out.push(Chunk {
                            start,
                            end,
                            level: level as u32,
                            member: types.last() == Some(&true),
                        });
                    }
                }
            }
            Kind::Bracket(b';') => {
                if in_block(&stack) {
                    if let Some(start) = open[level].take() {
                        out.push(Chunk {
                            start,
                            end: l.end,
                            level: level as u32,
                            member: types.last() == Some(&true),
                        });
                    }
                }
            }
            _ => {}
        }
    }
    if let (Some(start), Some(last)) = (open[0], lexemes.last()) {
        out.push(Chunk {
            start,
            end: last.end,
            level: 0,
            member: false,
        });
    }
    out
}

impl Chunk {
    /// Its tokens in `tree`, whose text it was found in.
    pub fn tokens(&self, tree: &Tree) -> Range<TokenId> {
        token_at(tree, self.start)..token_at(tree, self.end)
    }

    /// Its lexemes among `lexemes`, those of the text it was found in.
    pub fn lexemes<'a>(&self, lexemes: &'a [Lexeme]) -> &'a [Lexeme] {
        let first = lexemes.partition_point(|l| l.start < self.start);
        let last = lexemes.partition_point(|l| l.start < self.end);
        &lexemes[first..last]
    }
}

/// The first token of `tree` starting at or after `byte`.
pub fn token_at(tree: &Tree, byte: u32) -> TokenId {
    tree.tokens.partition_point(|t| t.start < byte) as TokenId
}

/// The lexemes of `text` in `lang` and its chunks.
pub fn chunks_of(text: &str, lang: Lang) -> (Vec<Lexeme>, Vec<Chunk>) {
    let c_family = lang.kinds().directives;
    let lexemes = lex(text, c_family);
    let found = chunks(text, &lexemes, c_family);
    (lexemes, found)
}

/// A tree of `text` made by the lexer alone: one node over its lexemes as tokens (comments
/// not counted). Cheap (16 bytes a token), so a huge program is reduced on it before any
/// parse; it has no error regions and knows no grammar.
pub fn lexed_tree(lang: Lang, text: &str) -> Tree {
    let tokens: Vec<Token> = lex(text, lang.kinds().directives)
        .into_iter()
        .map(|l| Token {
            node: 0,
            start: l.start,
            end: l.end,
            comment: l.kind == Kind::Comment,
            blank: false,
        })
        .collect();
    let root = Node {
        kind: "lexed",
        field: None,
        named: true,
        extra: false,
        error: false,
        missing: false,
        start: 0,
        end: text.len() as u32,
        parent: None,
        children: Vec::new(),
        first_token: 0,
        end_token: tokens.len() as TokenId,
        depth: 0,
    };
    Tree {
        lang,
        text: text.to_string(),
        nodes: vec![root],
        tokens,
        error: None,
    }
}

/// The pass: for each level, chunks as token ranges of the round's tree, deleted by a
/// [`Sweep`] from the end (a run of chunks that doubles after a deletion and halves after a
/// failure). On a parsed tree only heavy runs are tried; on a lexed tree, every run, down to
/// single chunks, since no other pass can work on it.
#[derive(Clone)]
pub struct Chunks {
    /// Each level's chunks, in text order.
    levels: Rc<Vec<Vec<Range<TokenId>>>>,
    /// Each level's chunks' token counts.
    mass: Rc<Vec<Rc<Vec<u32>>>>,
    min_mass: u32,
    level: usize,
    /// The current level's sweep; `None` before its first proposal.
    sweep: Option<Sweep>,
}

impl Chunks {
    pub fn new(prog: &Program) -> Chunks {
        let tree = &prog.tree;
        let found = chunks_of(&tree.text, tree.lang).1;
        let mut levels: Vec<Vec<Range<TokenId>>> = Vec::new();
        for c in found {
            let range = c.tokens(tree);
            if range.is_empty() {
                continue;
            }
            let level = c.level as usize;
            if levels.len() <= level {
                levels.resize(level + 1, Vec::new());
            }
            levels[level].push(range);
        }
        for level in &mut levels {
            level.sort_by_key(|r| r.start);
        }
        let mass = levels
            .iter()
            .map(|l| Rc::new(l.iter().map(|r| r.len() as u32).collect()))
            .collect();
        let lexed = tree.nodes.len() == 1;
        Chunks {
            levels: Rc::new(levels),
            mass: Rc::new(mass),
            min_mass: match lexed {
                true => 0,
                false => (prog.size() / COARSE_SHARE) as u32,
            },
            level: 0,
            sweep: None,
        }
    }
}

impl Pass for Chunks {
    fn propose(&mut self, prog: &Program) -> Option<Edit> {
        loop {
            let units = self.levels.get(self.level)?;
            let sweep = self.sweep.get_or_insert_with(|| {
                // The level's chunks still kept (a deleted outer chunk took its inner ones).
                let alive = (0..units.len() as u32)
                    .filter(|&u| units[u as usize].clone().any(|t| prog.kept(t)))
                    .collect();
                Sweep::new(alive, false).coarse(self.mass[self.level].clone(), self.min_mass)
            });
            match sweep.propose() {
                Some(set) => {
                    let delete = set.iter().map(|&u| units[u as usize].clone()).collect();
                    return Some(Edit::deleting(delete));
                }
                None => {
                    self.level += 1;
                    self.sweep = None;
                }
            }
        }
    }

    fn accepted(&mut self, _prog: &Program) {
        if let Some(sweep) = &mut self.sweep {
            sweep.accepted();
        }
    }

    fn box_clone(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts<'a>(text: &'a str, level: u32) -> Vec<&'a str> {
        let mut found: Vec<Chunk> = chunks(text, &lex(text, true), true)
            .into_iter()
            .filter(|c| c.level == level)
            .collect();
        found.sort_by_key(|c| c.start);
        found
            .iter()
            .map(|c| &text[c.start as usize..c.end as usize])
            .collect()
    }

    #[test]
    fn top_level_chunks_end_at_semicolons_and_closing_braces() {
        let text =
            "int a;\nstruct s { int x; int y; };\nint f(int p) { for (;;) { g(); } return 0; }\n";
        assert_eq!(
            texts(text, 0),
            [
                "int a;",
                "struct s { int x; int y; };",
                "int f(int p) { for (;;) { g(); } return 0; }"
            ]
        );
        assert_eq!(
            texts(text, 1),
            ["int x;", "int y;", "for (;;) { g(); }", "return 0;"]
        );
        assert_eq!(texts(text, 2), ["g();"]);
    }

    #[test]
    fn a_macro_repetition_holds_chunks_as_a_block_does() {
        let text = "macro_rules! m { ($($t:ty),*) => { $( const _: () = f(); impl A<$t> for S {} )* g(); }; }\nfn h() { ( a; b ); }";
        assert_eq!(
            texts(text, 2),
            ["$( const _: () = f(); impl A<$t> for S {} )* g();"]
        );
        assert_eq!(
            texts(text, 3),
            ["const _: () = f();", "impl A<$t> for S {}"]
        );
        // A plain parenthesis is no block: `( a; b )` holds no chunk.
        assert_eq!(
            texts(text, 1),
            [
                "($($t:ty),*) => { $( const _: () = f(); impl A<$t> for S {} )* g(); };",
                "( a; b );"
            ]
        );
    }

    #[test]
    fn brackets_inside_strings_chars_and_comments_do_not_count() {
        let text = "char *s = \"};{\\\"\"; // } ;\nchar c = '}'; /* { ; */ int b;\nauto r = R\"x(};)x\"; int z;";
        assert_eq!(
            texts(text, 0),
            [
                "char *s = \"};{\\\"\";",
                "char c = '}';",
                "int b;",
                "auto r = R\"x(};)x\";",
                "int z;"
            ]
        );
    }

    #[test]
    fn a_preprocessor_line_is_a_chunk_and_its_brackets_do_not_count() {
        let text = "#define OPEN {\n#include <x.h>\nint a;\n  # 12 \"f.h\" 3\nint f() {\n#if X\n  h();\n#endif\n}\n";
        assert_eq!(
            texts(text, 0),
            [
                "#define OPEN {\n",
                "#include <x.h>\n",
                "int a;",
                "# 12 \"f.h\" 3\n",
                "int f() {\n#if X\n  h();\n#endif\n}"
            ]
        );
        assert_eq!(texts(text, 1), ["#if X\n", "h();", "#endif\n"]);
        // Without directives (Rust, Java, JavaScript) `#` is punctuation.
        let rust = "#[derive(Debug)] struct S { a: u8 }\nfn f() {}";
        let found = chunks(rust, &lex(rust, false), false);
        assert_eq!(found.iter().filter(|c| c.level == 0).count(), 2);
    }

    #[test]
    fn a_type_body_ends_its_chunk_at_the_declarators_semicolon() {
        let text = "typedef struct s { int a; } s_t, *p_t;\nstruct t { int b; } __attribute__((packed));\nint f() { return 0; }\nnamespace n { int c; }";
        assert_eq!(
            texts(text, 0),
            [
                "typedef struct s { int a; } s_t, *p_t;",
                "struct t { int b; } __attribute__((packed));",
                "int f() { return 0; }",
                "namespace n { int c; }"
            ]
        );
        // Without declarators (Rust, Java, JavaScript) a body ends its chunk.
        let java = "class A { int a; } class B { }";
        let found = chunks(java, &lex(java, false), false);
        assert_eq!(found.iter().filter(|c| c.level == 0).count(), 2);
    }

    #[test]
    fn unbalanced_input_still_chunks_and_loses_no_text() {
        // A stray `}` and `)`, an unclosed block and an unterminated string and comment.
        let text = "int a; } ) int b;\nint f() { x = \"abc\n; y;\nint g() { /* open";
        // Stray closers go with the chunk they precede.
        assert_eq!(texts(text, 0)[..2], ["int a;", "} ) int b;"]);
        let last = texts(text, 0).pop().unwrap();
        assert!(
            last.starts_with("int f() {") && last.ends_with("/* open"),
            "{last}"
        );
        // The lexemes cover every non-space byte, in order.
        let mut covered = String::new();
        for l in lex(text, true) {
            covered.push_str(&text[l.start as usize..l.end as usize]);
        }
        let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        assert_eq!(
            covered
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect::<String>(),
            squeezed
        );
    }

    #[test]
    fn the_lexed_tree_unparses_to_its_text_and_counts_no_comments() {
        let text = "#include <a.h>\n/* c */ int main() {\n  return 0; // done\n}\n";
        let tree = lexed_tree(Lang::C, text);
        let keep = vec![true; tree.tokens.len()];
        assert_eq!(crate::unparse::unparse(&tree, &keep), text);
        assert_eq!(tree.size(), tree.tokens.len() - 2);
    }

    #[test]
    fn on_a_lexed_tree_the_pass_sweeps_from_the_end_down_to_single_chunks() {
        let tree = lexed_tree(Lang::C, "int a; int b; int c; int d;");
        let prog = Program::new(tree);
        let mut pass = Chunks::new(&prog);
        let first = pass.propose(&prog).unwrap();
        assert_eq!(prog.after(&first).text(), "int a; int b; int c;");
        // Accepted: the run doubles, before it.
        let prog = prog.after(&first);
        pass.accepted(&prog);
        let second = pass.propose(&prog).unwrap();
        assert_eq!(prog.after(&second).text(), "int a;");
        // Refused: halved.
        let third = pass.propose(&prog).unwrap();
        assert_eq!(prog.after(&third).text(), "int a; int b;");
    }

    #[test]
    fn a_program_past_the_parse_limit_is_reduced_lexed_first_then_parsed() {
        use crate::reduce::tests::drive;
        use crate::reduce::{Session, Settings};
        let mut text: String = (0..40)
            .map(|i| format!("int f{i}(int x) {{ return x + {i}; }}\n"))
            .collect();
        text.push_str("int marker(void) { return 1; }\n");
        let settings = Settings {
            parse_limit: 200,
            ..Settings::default()
        };
        let session = Session::new(Lang::C, &text, settings).unwrap();
        assert!(session.subject().lexed());
        let session = drive(session, 2, false, &|t: &str| t.contains("int marker"));
        assert!(!session.subject().lexed(), "parsed once small enough");
        // The passes by text came first: roots (the last definition reaches none of the
        // others: they go at once).
        assert_eq!(session.history()[0].pass, "roots");
        // The grammar's passes took over: the function's body went too.
        assert!(
            session.best().starts_with("int marker"),
            "{}",
            session.best()
        );
        assert!(session.best().len() < "int marker(void) { return 1; }".len());
    }
}
