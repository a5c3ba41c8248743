//! The layout of a final result: one statement a line, blocks indented by two spaces, a
//! block that fits on its opener's line put there (`f() { int x; return x; }`, as
//! clang-format's short functions), one space between tokens where it reads well and none
//! where it does not (`f(x)`, `a[i]`, `x;`), no blank runs. Only the white space between
//! tokens changes, never a token, so the program means what it meant; a diagnostic that
//! depends on layout (misleading indentation) may change, which is why the formatted text is
//! a candidate like any other.
//!
//! Newlines that carry meaning stay: the end of a preprocessor directive or of a line
//! comment, and in JavaScript every newline of the original between statements (automatic
//! semicolons), not those inside an expression's parentheses or brackets.

use crate::grammars::kinds::Layout;
use crate::tree::{TokenId, Tree};
use crate::unparse::would_fuse;
use crate::Lang;

const INDENT: &str = "  ";

/// The widest line a block is joined into (clang-format's default column limit).
const WIDTH: usize = 80;

/// `text` without blank lines and trailing spaces: the original's layout otherwise.
pub fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let line = line.trim_end();
        if !line.is_empty() {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

struct Tok<'a> {
    text: &'a str,
    parent: &'static str,
    comment: bool,
    /// A preprocessor line's newline (tree-sitter's C grammars give it as a token).
    blank: bool,
    /// The original had a line break before this token.
    newline_before: bool,
    /// It followed the previous token with nothing between, inside a literal (a string's
    /// quotes, contents and escapes): it stays glued.
    glued: bool,
}

/// The whole of `tree`'s program laid out afresh (see [`format`]).
pub fn format_all(tree: &Tree) -> String {
    format(tree, 0..tree.tokens.len() as TokenId, |t| {
        tree.token_text(t)
    })
}

/// The formatted text of `kept` (token ids in order), `subst` giving rewritten tokens' text.
pub fn format<'a>(
    tree: &'a Tree,
    kept: impl Iterator<Item = TokenId>,
    text_of: impl Fn(TokenId) -> &'a str,
) -> String {
    let mut toks = Vec::new();
    let mut prev: Option<TokenId> = None;
    for t in kept {
        let tok = &tree.tokens[t as usize];
        let leaf = tree.node(tok.node);
        let parent = leaf.parent.map_or("", |p| tree.node(p).kind);
        let gap =
            prev.map(|p| &tree.text[tree.tokens[p as usize].end as usize..tok.start as usize]);
        let newline_before = gap.is_some_and(|g| g.contains('\n'));
        // Literals, and macro arguments (token trees) too, keep their tight spots: `sq!(2)`.
        let inside = tree.lang.kinds().layout.glued.contains(&parent);
        let glued = prev.is_some_and(|p| p + 1 == t) && gap == Some("") && inside;
        toks.push(Tok {
            text: text_of(t),
            parent,
            comment: tok.comment,
            blank: tok.blank,
            newline_before,
            glued,
        });
        prev = Some(t);
    }
    Writer::new(tree.lang).run(&toks)
}

struct Writer {
    kinds: &'static Layout,
    /// Preprocessor directives end a line where the original's did (C, C++).
    directives: bool,
    out: String,
    depth: usize,
    /// Open parentheses and brackets: `;` inside `for (;;)` does not end a line.
    parens: usize,
    /// Open braces, each whether it holds values (and so stays on its line) or statements.
    braces: Vec<Brace>,
    /// The current line is a preprocessor directive: it ends only where the original's did.
    directive: bool,
    /// Where the last line that must end did (a directive's, a line comment's): a block
    /// holding it stays on lines of its own.
    pinned: usize,
    /// Where the last block joined onto one line starts: the block around it is not joined
    /// too (one block a line reads; `{ if (x) { y; } }` does not).
    joined: usize,
}

#[derive(Clone, Copy, PartialEq)]
enum Brace {
    /// `{1, 2}`: on one line, no spaces inside.
    Inline,
    /// `{}` of a function or a block: on one line, then a new line.
    Empty,
    /// Statements or members, one a line, indented.
    Block {
        /// The kind of node that holds them.
        kind: &'static str,
        /// Where its text starts in the output (after its `{`), and `parens` there.
        start: usize,
        parens: usize,
    },
}

impl Writer {
    fn new(lang: Lang) -> Writer {
        Writer {
            kinds: &lang.kinds().layout,
            directives: lang.kinds().directives,
            out: String::new(),
            depth: 0,
            parens: 0,
            braces: Vec::new(),
            directive: false,
            pinned: 0,
            joined: 0,
        }
    }

    /// Inside parentheses or brackets opened since the innermost block: an expression, no
    /// statement ends here.
    fn in_expression(&self) -> bool {
        let block = self.braces.iter().rev().find_map(|b| match *b {
            Brace::Block { parens, .. } => Some(parens),
            _ => None,
        });
        self.parens > block.unwrap_or(0)
    }

    /// The block just closed (its text from `start`, the `}` not yet written) on its opener's
    /// line, if that fits: `{ x; }`, `{ int x; f(x); }`. Its lines must each end a statement
    /// (`;`, `}`): not a comment's; and in JavaScript there must be one, since a line break
    /// may end a statement there.
    fn join_block(&mut self, start: usize) {
        let inner = self.out[start..].trim();
        let lines = inner.lines().map(str::trim);
        let statements = lines.clone().all(|l| l.ends_with([';', '}']));
        let several = lines.clone().nth(1).is_some();
        if inner.is_empty()
            || several && (self.kinds.keep_newlines || !statements)
            || self.pinned > start
            || self.joined > start
        {
            return;
        }
        let mut one_line = String::from(" ");
        for l in lines {
            one_line.push_str(l);
            one_line.push(' ');
        }
        let line = self.out[..start].rfind('\n').map_or(0, |i| i + 1);
        if start - line + one_line.len() + 1 > WIDTH {
            return;
        }
        self.out.truncate(start);
        self.out.push_str(&one_line);
        self.joined = start;
    }

    fn at_line_start(&self) -> bool {
        self.out.is_empty() || self.out.ends_with('\n')
    }

    fn newline(&mut self) {
        if !self.at_line_start() {
            // No trailing spaces.
            let trimmed = self.out.trim_end_matches(' ').len();
            self.out.truncate(trimmed);
            self.out.push('\n');
        }
        self.directive = false;
    }

    fn push(&mut self, text: &str, space: bool) {
        if self.at_line_start() {
            if !self.directive {
                self.out.push_str(&INDENT.repeat(self.depth));
            }
        } else {
            let last = self.out.chars().next_back();
            // `a.#p`, `List<>`: pairs that `would_fuse` fears but no language joins.
            let fuse = match (last, text.chars().next()) {
                (Some('.'), _) | (Some('<'), Some('>')) => false,
                (Some(a), Some(b)) => would_fuse(a, b),
                _ => false,
            };
            if (space || fuse) && !self.out.ends_with(' ') {
                self.out.push(' ');
            }
        }
        self.out.push_str(text);
    }

    fn run(mut self, toks: &[Tok]) -> String {
        for (i, tok) in toks.iter().enumerate() {
            let prev = i.checked_sub(1).map(|p| &toks[p]);
            let next = toks.get(i + 1);
            if tok.blank {
                self.newline();
                self.pinned = self.out.len();
                continue;
            }
            let text = tok.text;
            if tok.glued {
                self.out.push_str(text);
                continue;
            }
            let kept = self.kinds.keep_newlines && !self.in_expression();
            if tok.newline_before && (self.directive || kept) {
                self.newline();
            }
            if self.directives && text.starts_with('#') {
                self.newline();
                self.directive = true;
                self.push(text, false);
                self.pinned = self.out.len();
                continue;
            }
            if self.directive {
                self.push(text, true);
                continue;
            }
            if tok.comment {
                if tok.newline_before {
                    self.newline();
                }
                self.push(text, true);
                if text.starts_with("//") || next.is_some_and(|n| n.newline_before) {
                    self.newline();
                    self.pinned = self.out.len();
                }
                continue;
            }
            match text {
                "{" => {
                    let after_opener = self.out.ends_with(['(', '[', ':'])
                        && !self.out.ends_with(" :")
                        || self.braces.last() == Some(&Brace::Inline) && self.out.ends_with('{');
                    self.push(text, !after_opener);
                    let brace = if self.kinds.inline_braces.contains(&tok.parent) {
                        Brace::Inline
                    } else if next.is_some_and(|n| n.text == "}") {
                        Brace::Empty
                    } else {
                        Brace::Block {
                            kind: tok.parent,
                            start: self.out.len(),
                            parens: self.parens,
                        }
                    };
                    self.braces.push(brace);
                    if matches!(brace, Brace::Block { .. }) {
                        self.depth += 1;
                        self.newline();
                    }
                }
                "}" => {
                    let brace = self.braces.pop().unwrap_or(Brace::Inline);
                    if let Brace::Block { start, .. } = brace {
                        self.depth = self.depth.saturating_sub(1);
                        self.newline();
                        self.join_block(start);
                    }
                    self.push(text, false);
                    let same_line = next.is_some_and(|n| match n.text {
                        ";" | "," | ")" | "]" | "." | "else" | "catch" | "finally" => true,
                        // `do { ... } while (x);`, not a loop after a block.
                        "while" => self.kinds.do_loops.contains(&n.parent),
                        _ => false,
                    });
                    if brace != Brace::Inline && !same_line && self.parens == 0 {
                        self.newline();
                    }
                }
                ";" => {
                    self.push(text, false);
                    if self.parens == 0 {
                        self.newline();
                    }
                }
                "(" | "[" => {
                    let space = prev.is_some_and(|p| {
                        let word = p
                            .text
                            .chars()
                            .last()
                            .is_some_and(|c| c.is_alphanumeric() || c == '_');
                        let closer = matches!(p.text, ")" | "]" | ">");
                        let keyword = self.kinds.keywords_before_paren.contains(&p.text);
                        (keyword || (!word && !closer))
                            && !matches!(p.text, "(" | "[" | "!" | "~" | "::" | "." | "->" | "#")
                            && !(text == "("
                                && self.kinds.prefixes.contains(&p.parent)
                                && p.text == "*")
                    });
                    self.push(text, space);
                    self.parens += 1;
                }
                ")" | "]" => {
                    self.push(text, false);
                    self.parens = self.parens.saturating_sub(1);
                    if self.kinds.attributes.contains(&tok.parent) && self.parens == 0 {
                        self.newline();
                    }
                }
                "," => {
                    self.push(text, false);
                    // Members of a block separated by commas (enumerators, Rust fields,
                    // match arms): one a line.
                    let member = |k: &str| k == tok.parent || self.kinds.arms.contains(&tok.parent);
                    if self.parens == 0
                        && matches!(self.braces.last(), Some(Brace::Block { kind, .. }) if member(kind))
                    {
                        self.newline();
                    }
                }
                "." | "->" | "::" | "?." => {
                    self.push(text, false);
                }
                _ => {
                    let space =
                        prev.is_some_and(|p| !self.glues_after(p, tok)) && !self.glues_before(tok);
                    self.push(text, space);
                    // `public:` on a line of its own.
                    if text == ":" && prev.is_some_and(|p| self.kinds.access.contains(&p.parent)) {
                        self.newline();
                    }
                }
            }
        }
        self.newline();
        self.out
    }
}

impl Writer {
    /// Whether no space goes after `p` when `tok` follows it.
    fn glues_after(&self, p: &Tok, tok: &Tok) -> bool {
        let k = self.kinds;
        let angle = |parent| k.angle_brackets.contains(parent);
        match p.text {
            "(" | "[" | "." | "->" | "::" | "!" | "~" | "?." | "@" | "#" => true,
            "{" => k.inline_braces.contains(&p.parent),
            "++" | "--" => k.prefixes.contains(&p.parent) || k.updates.contains(&p.parent),
            "*" | "&" | "&&" | "-" | "+" => k.prefixes.contains(&p.parent),
            "<" => angle(&p.parent),
            _ => tok.text == ">" && angle(&tok.parent),
        }
    }

    /// Whether no space goes before `tok` whatever precedes it.
    fn glues_before(&self, tok: &Tok) -> bool {
        let k = self.kinds;
        match tok.text {
            ";" | "," | ")" | "]" | "." | "->" | "::" => true,
            "++" | "--" => k.updates.contains(&tok.parent) && !k.prefixes.contains(&tok.parent),
            "<" => k.angle_brackets.contains(&tok.parent),
            // `a ? b : c`, `class C : B`, `for (x : xs)`, `C() : x(0)` have a space before.
            ":" => !k.spaced_colons.contains(&tok.parent),
            "!" => k.macros.contains(&tok.parent),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Parser;

    /// The layout of `text`, checked to read as the same tokens.
    fn formatted(lang: Lang, text: &str) -> String {
        let mut parser = Parser::new(lang);
        let tree = parser.parse(text);
        let out = format(&tree, 0..tree.tokens.len() as TokenId, |t| {
            tree.token_text(t)
        });
        let again = parser.parse(&out);
        let texts = |t: &Tree| {
            (0..t.tokens.len() as TokenId)
                .map(|i| t.token_text(i).to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(texts(&tree), texts(&again), "{out}");
        out
    }

    #[test]
    fn c_gets_one_statement_a_line() {
        let c = "#include <stdio.h>\n#define N 3\nstruct S { int a; int *p; };\n\n\n\
                 int  b( int x,int y )\n{\n  int a[2][2] = {{1,2}} ;\n      if (x>y) { return a[0x7 + 1][0]; } else return -x;\n\
                 for (int i=0;i<N;i++) { x += i++; }\n    while(1);\n do { x--; } while (x);\n\
                 return *s.p + (int) y;\n}\nvoid e() {}\nint main(void){printf(\"%d\\n\", b(1,2)); return 0;}\n";
        let want = "#include <stdio.h>\n#define N 3\nstruct S { int a; int *p; };\n\
                    int b(int x, int y) {\n  int a[2][2] = {{1, 2}};\n  if (x > y) { return a[0x7 + 1][0]; } else return -x;\n\
                    \x20 for (int i = 0; i < N; i++) { x += i++; }\n  while (1);\n  do { x--; } while (x);\n\
                    \x20 return *s.p + (int) y;\n}\nvoid e() {}\nint main(void) { printf(\"%d\\n\", b(1, 2)); return 0; }\n";
        assert_eq!(formatted(Lang::C, c), want);
    }

    #[test]
    fn cpp_templates_bases_and_access() {
        let cpp = "namespace n { template<typename T,int N> struct A { T d[N]; }; }\n\
                   class C:public B{public:C():x(0){} int f(A<unsigned,8>&a){return x?1:2;} private:int x;};";
        let want = "namespace n {\n  template<typename T, int N> struct A { T d[N]; };\n}\n\
                    class C : public B {\n  public:\n  C() : x(0) {}\n  int f(A<unsigned, 8> &a) { return x ? 1 : 2; }\n  private:\n  int x;\n};\n";
        assert_eq!(formatted(Lang::Cpp, cpp), want);
    }

    #[test]
    fn rust_fields_arms_attributes_and_macros() {
        let rs = "use std::collections::{HashMap, HashSet};\n#[derive(Debug)] struct P { x: i32, y: Vec<u8> }\n\
                  fn main() { let p = P { x: 1, y: vec![1,2] }; match p.x { 1 => println!(\"{}\", 2), _ => {} } let r = &mut 3; *r += 1; }";
        let want = "use std::collections::{HashMap, HashSet};\n#[derive(Debug)]\nstruct P {\n  x: i32,\n  y: Vec<u8>\n}\n\
                    fn main() {\n  let p = P {x: 1, y: vec![1,2]};\n  match p.x {\n    1 => println!(\"{}\", 2),\n    _ => {}\n  }\n\
                    \x20 let r = &mut 3;\n  *r += 1;\n}\n";
        assert_eq!(formatted(Lang::Rust, rs), want);
    }

    #[test]
    fn javascript_keeps_its_line_breaks_and_template_strings() {
        let js = "function f(a) { if (a) { return {x: 1} }\n  let s = `t${a}`\n  return s }\nclass K { #p = 1; m() { return this.#p } }";
        let want =
            "function f(a) {\n  if (a) { return {x: 1} }\n  let s = `t${a}`\n  return s\n}\n\
                    class K {\n  #p = 1;\n  m() { return this.#p }\n}\n";
        assert_eq!(formatted(Lang::JavaScript, js), want);
    }

    #[test]
    fn a_block_joins_its_opener_line_only_when_nothing_pins_it_and_it_fits() {
        // A line comment, a directive, a joined block inside, or 80 columns keep a block on
        // lines of its own.
        let c = "void a() { x(); // c\n}\nvoid b() {\n#ifdef X\n}\nvoid c() { y(); z(); }\nvoid l() { a: y(); }\n\
                 void d() { if (1) { y(); } }\n\
                 void e() { a_long_function_name(an_argument, another_argument, a_third_argument); }\n";
        let want = "void a() {\n  x();\n  // c\n}\nvoid b() {\n#ifdef X\n}\nvoid c() { y(); z(); }\nvoid l() { a: y(); }\n\
                    void d() {\n  if (1) { y(); }\n}\nvoid e() {\n  a_long_function_name(an_argument, another_argument, a_third_argument);\n}\n";
        assert_eq!(formatted(Lang::C, c), want);
    }

    #[test]
    fn javascript_joins_the_lines_of_an_expression_not_of_statements() {
        let js = "f(\n  'a' +\n  b\n)\nlet x = [\n  1,\n  2\n]\nfunction g() {\n  a\n  b\n}\n";
        let want = "f('a' + b)\nlet x = [1, 2]\nfunction g() {\n  a\n  b\n}\n";
        assert_eq!(formatted(Lang::JavaScript, js), want);
    }

    #[test]
    fn java_generics_and_try() {
        let java = "import java.util.*;\nclass A { List<String> xs = new ArrayList<>(); void run() { for (String s : xs) { f(s); } try { g(); } catch (Exception e) { } } }";
        let want = "import java.util.*;\nclass A {\n  List<String> xs = new ArrayList<>();\n  void run() {\n    for (String s : xs) { f(s); }\n\
                    \x20   try { g(); } catch (Exception e) {}\n  }\n}\n";
        assert_eq!(formatted(Lang::Java, java), want);
    }
}
