//! Renaming: every symbol the program declares gets the first name free where it is
//! visible (`a`, `b`, ..., `z`, `aa`, ...), all its tokens at once. Bytes fall and the
//! result reads like C-Reduce's.
//!
//! First one edit renames every symbol; if the property depends on some name (a diagnostic
//! quoting it), one edit per symbol follows, so that only those keep their names. Symbols
//! go most bytes first (name length times uses), so the biggest savings take the shortest
//! names. A coarse round tries only the edit of all: one query per round.
//!
//! The program's entry (`main`) is renamed only in its own edit: a property that runs the
//! program needs it, one that compiles it may not.
//!
//! A new name is never a keyword, a reserved word (`main`), a foreign word (a name the
//! program uses without declaring, like `printf`), nor the name of another symbol of the
//! same namespace whose scope holds this one's or lies in it. Only names earlier in that
//! order are tried: shorter ones, or as short and earlier (`w` to `a`, for a clean result).

use super::symbols::Symbols;
use super::{Edit, Pass, Program};
use crate::tree::TokenId;
use crate::Lang;
use std::collections::HashMap;
use std::rc::Rc;

#[derive(Clone, Copy)]
enum Stage {
    /// Every symbol at once.
    All,
    /// One symbol at a time, from this index in `order`.
    One(usize),
}

#[derive(Clone)]
pub struct Rename {
    symbols: Rc<Symbols>,
    /// Symbol indices, most bytes first.
    order: Rc<Vec<usize>>,
    stage: Stage,
    coarse: bool,
    deferred: bool,
}

/// The `i`th name in the order names are handed out: `a`..`z`, `aa`..`zz`, `aaa`...
fn nth_name(mut i: usize) -> String {
    let mut name = Vec::new();
    loop {
        name.push(b'a' + (i % 26) as u8);
        if i < 26 {
            break;
        }
        i = i / 26 - 1;
    }
    name.reverse();
    String::from_utf8(name).expect("ASCII letters")
}

/// Where a name stands in the order names are handed out: by length, then handed-out names
/// (`a`..`z`) before others of their length (`B`, `i2`).
fn rank(name: &str) -> (usize, bool, &str) {
    let given = name.bytes().all(|b| b.is_ascii_lowercase());
    (name.len(), !given, name)
}

/// The first name in order that is not taken (nor reserved), if it comes before `current`:
/// shorter, or as short and earlier (a name given in a crowded first round, `w`, becomes
/// `a` once the program is small).
fn first_free(lang: Lang, current: &str, taken: impl Fn(&str) -> bool) -> Option<String> {
    (0..)
        .map(nth_name)
        .take_while(|name| rank(name) < rank(current))
        .find(|name| !taken(name) && !lang.is_reserved(name))
}

/// The symbols that bear each name.
type ByName = HashMap<String, Vec<usize>>;

fn by_name(names: &[String]) -> ByName {
    let mut index = ByName::new();
    for (i, name) in names.iter().enumerate() {
        index.entry(name.clone()).or_default().push(i);
    }
    index
}

impl Rename {
    pub fn new(prog: &Program, coarse: bool) -> Rename {
        let symbols = Symbols::with_entry(prog);
        let bytes = |i: usize| {
            let s = &symbols.symbols[i];
            prog.text_of(s.tokens[0]).len() * s.tokens.len()
        };
        let mut order: Vec<usize> = (0..symbols.symbols.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(bytes(i)), symbols.symbols[i].tokens[0]));
        Rename {
            symbols: Rc::new(symbols),
            order: Rc::new(order),
            stage: Stage::All,
            coarse,
            deferred: false,
        }
    }

    /// Whether symbol `s` may not take `name`: a foreign name, or another symbol's in the
    /// same namespace whose scope overlaps its own (the symbols by name in `index`). Asked
    /// name by name, so a program of many symbols costs what its names' bearers do, not
    /// every pair of symbols.
    fn taken(&self, s: usize, name: &str, index: &ByName) -> bool {
        let sym = &self.symbols.symbols[s];
        self.symbols.foreign.contains(name)
            || index.get(name).is_some_and(|bearers| {
                bearers.iter().any(|&i| {
                    let other = &self.symbols.symbols[i];
                    i != s
                        && other.namespace == sym.namespace
                        && self.symbols.overlap(other.scope, sym.scope)
                })
            })
    }

    fn current_names(&self, prog: &Program) -> Vec<String> {
        self.symbols
            .symbols
            .iter()
            .map(|s| prog.text_of(s.tokens[0]).to_string())
            .collect()
    }

    fn renaming(&self, s: usize, name: &str) -> impl Iterator<Item = (TokenId, String)> + '_ {
        let name = name.to_string();
        self.symbols.symbols[s]
            .tokens
            .iter()
            .map(move |&t| (t, name.clone()))
    }

    /// The edit that renames every symbol, each in turn taking the first free name; and
    /// how many it renames.
    fn rename_all(&self, prog: &Program) -> (Edit, usize) {
        let lang = prog.tree.lang;
        let mut names = self.current_names(prog);
        let mut index = by_name(&names);
        let mut edit = Edit::default();
        let mut renamed = 0;
        for &s in self.order.iter() {
            // The entry goes alone: a property that runs the program would refuse them all.
            if lang.kinds().names.entry.contains(&names[s].as_str()) {
                continue;
            }
            let Some(name) = first_free(lang, &names[s], |n| self.taken(s, n, &index)) else {
                continue;
            };
            edit.replace.extend(self.renaming(s, &name));
            if let Some(bearers) = index.get_mut(&names[s]) {
                bearers.retain(|&i| i != s);
            }
            index.entry(name.clone()).or_default().push(s);
            names[s] = name;
            renamed += 1;
        }
        (edit, renamed)
    }

    /// The edit that renames symbol `s` alone.
    fn rename_one(&self, prog: &Program, s: usize) -> Option<Edit> {
        let names = self.current_names(prog);
        let index = by_name(&names);
        let name = first_free(prog.tree.lang, &names[s], |n| self.taken(s, n, &index))?;
        Some(Edit {
            delete: Vec::new(),
            replace: self.renaming(s, &name).collect(),
            ..Edit::default()
        })
    }
}

impl Pass for Rename {
    fn propose(&mut self, prog: &Program) -> Option<Edit> {
        if let Stage::All = self.stage {
            let (edit, renamed) = self.rename_all(prog);
            self.stage = Stage::One(0);
            if self.coarse {
                self.deferred = renamed > 0;
                return (renamed > 0).then_some(edit);
            }
            // A single renaming is the first edit of the next stage.
            if renamed > 1 {
                return Some(edit);
            }
        }
        if self.coarse {
            return None;
        }
        while let Stage::One(i) = self.stage {
            let &s = self.order.get(i)?;
            self.stage = Stage::One(i + 1);
            if let Some(edit) = self.rename_one(prog, s) {
                return Some(edit);
            }
        }
        None
    }

    fn accepted(&mut self, _prog: &Program) {}

    fn box_clone(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }

    fn deferred(&self) -> bool {
        self.deferred
    }
}

#[cfg(test)]
mod tests {
    use super::nth_name;
    use crate::reduce::tests::{drive, session_keeping_layout};
    use crate::Lang;
    use std::collections::HashMap;

    #[test]
    fn names_go_by_length_then_alphabet() {
        let names: Vec<String> = [0, 1, 25, 26, 27, 51, 52, 701, 702]
            .into_iter()
            .map(nth_name)
            .collect();
        assert_eq!(names, ["a", "b", "z", "aa", "ab", "az", "ba", "zz", "aaa"]);
    }

    /// Words, string literals and single other characters.
    fn lex(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            let len = if c.is_whitespace() {
                rest = &rest[c.len_utf8()..];
                continue;
            } else if c == '"' {
                1 + rest[1..].find('"').map_or(rest.len() - 1, |i| i + 1)
            } else if c.is_alphanumeric() || c == '_' {
                rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len())
            } else {
                c.len_utf8()
            };
            out.push(&rest[..len]);
            rest = &rest[len..];
        }
        out
    }

    /// Like a compiler that only accepts the original up to a consistent renaming: the same
    /// tokens but words, each word always renamed the same way; the words of `fixed`
    /// (keywords, library names, a name a diagnostic quotes) unchanged.
    fn renamed_consistently(original: &str, fixed: &[&str], text: &str) -> bool {
        let (a, b) = (lex(original), lex(text));
        let mut map: HashMap<&str, &str> = HashMap::new();
        let word = |w: &str| w.starts_with(|c: char| c.is_alphabetic() || c == '_');
        a.len() == b.len()
            && a.iter().zip(&b).all(|(&x, &y)| {
                if !word(x) || fixed.contains(&x) || fixed.contains(&y) {
                    return x == y;
                }
                word(y) && *map.entry(x).or_insert(y) == y
            })
    }

    fn renamed(lang: Lang, text: &str, fixed: &[&str]) -> String {
        let oracle = |t: &str| renamed_consistently(text, fixed, t);
        let s = drive(session_keeping_layout(lang, text), 2, false, &oracle);
        assert_eq!(s.stats().invalid_queries, 0);
        assert!(
            s.history().iter().all(|h| h.pass == "rename"),
            "{:?}",
            s.history()
        );
        s.best().to_string()
    }

    const C_PROGRAM: &str = "#include <stdio.h>\n\
        struct point { int xpos; int ypos; };\n\
        static int counter;\n\
        int helper(struct point *pt, int scale) {\n\
        \x20 int result = pt->xpos * scale;\n\
        \x20 if (result > 10) goto done;\n\
        \x20 result = result + pt->ypos;\n\
        done:\n\
        \x20 return result + counter;\n\
        }\n\
        int main(void) {\n\
        \x20 struct point origin = { 1, 2 };\n\
        \x20 int total = helper(&origin, 3);\n\
        \x20 printf(\"%d\\n\", total);\n\
        \x20 return 0;\n\
        }\n";

    const C_WORDS: &[&str] = &[
        "include", "stdio", "h", "struct", "int", "static", "if", "goto", "return", "void", "main",
        "printf",
    ];

    #[test]
    fn c_names_become_the_shortest_free_per_scope_and_namespace() {
        // Tags, fields and labels have namespaces of their own; `main`'s locals may reuse
        // `helper`'s names; `main` and `printf` stay.
        assert_eq!(
            renamed(Lang::C, C_PROGRAM, C_WORDS),
            "#include <stdio.h>\n\
            struct a { int a; int b; };\n\
            static int b;\n\
            int c(struct a *e, int d) {\n\
            \x20 int a = e->a * d;\n\
            \x20 if (a > 10) goto a;\n\
            \x20 a = a + e->b;\n\
            a:\n\
            \x20 return a + b;\n\
            }\n\
            int main(void) {\n\
            \x20 struct a a = { 1, 2 };\n\
            \x20 int d = c(&a, 3);\n\
            \x20 printf(\"%d\\n\", d);\n\
            \x20 return 0;\n\
            }\n"
        );
    }

    #[test]
    fn a_name_the_property_needs_stays_and_the_others_go() {
        // Like a diagnostic that quotes `total`: renaming all at once fails, one by one not.
        let mut fixed = C_WORDS.to_vec();
        fixed.push("total");
        let best = renamed(Lang::C, C_PROGRAM, &fixed);
        assert!(
            best.contains("int total = c(&a, 3);") && best.contains("int c(struct a *e, int d)"),
            "{best}"
        );
    }

    #[test]
    fn main_is_renamed_in_an_edit_of_its_own_where_the_property_allows() {
        // A compile-only property: `main` goes too, after the others, in its own edit.
        let words: Vec<&str> = C_WORDS.iter().copied().filter(|&w| w != "main").collect();
        let best = renamed(Lang::C, C_PROGRAM, &words);
        assert!(best.contains("int f(void) {"), "{best}");
        // A property that needs it (a run): the others are renamed all at once, in one step,
        // all the same.
        let session = drive(
            session_keeping_layout(Lang::C, C_PROGRAM),
            2,
            false,
            &|t: &str| renamed_consistently(C_PROGRAM, C_WORDS, t),
        );
        assert_eq!(session.history().len(), 1, "{:?}", session.history());
    }

    #[test]
    fn new_names_avoid_the_names_in_use() {
        // `a` is taken, `abs` is a library's: neither is renamed nor given. `value` has more
        // bytes than `compute`: it goes first.
        let text = "int a;\nint compute(int value) { return value + a + abs(value); }\n";
        assert_eq!(
            renamed(Lang::C, text, &["int", "return", "abs"]),
            "int a;\nint c(int b) { return b + a + abs(b); }\n"
        );
    }

    #[test]
    fn cpp_members_constructors_and_locals() {
        let text = "class Counter {\npublic:\n  int total;\n  Counter(int start) : total(start) {}\n  int bump(int step) { total += step; return total; }\n};\nint run() { Counter counter(1); return counter.bump(2); }\n";
        assert_eq!(
            renamed(Lang::Cpp, text, &["class", "public", "int", "return"]),
            "class a {\npublic:\n  int b;\n  a(int c) : b(c) {}\n  int d(int c) { b += c; return b; }\n};\nint e() { a c(1); return c.d(2); }\n"
        );
    }

    #[test]
    fn rust_javascript_and_java_names() {
        let cases: [(Lang, &str, &[&str], &str); 3] = [
            (
                Lang::Rust,
                "struct Point { x: i32 }\nfn helper(point: &Point, count: i32) -> i32 { let total = point.x + count; total }\nfn main() { let origin = Point { x: 1 }; println!(\"{}\", helper(&origin, 2)); }\n",
                &["struct", "fn", "let", "i32", "main", "println"],
                "struct a { f: i32 }\nfn b(c: &a, d: i32) -> i32 { let e = c.f + d; e }\nfn main() { let c = a { f: 1 }; println!(\"{}\", b(&c, 2)); }\n",
            ),
            (
                Lang::JavaScript,
                "function total(items, factor) { let sum = 0; for (const item of items) { sum += item * factor; } return sum; }\nconsole.log(total([1, 2], 3));\n",
                &["function", "let", "for", "const", "of", "return", "console", "log"],
                "function b(c, a) { let d = 0; for (const e of c) { d += e * a; } return d; }\nconsole.log(b([1, 2], 3));\n",
            ),
            (
                Lang::Java,
                "class Shape { int width; Shape(int w) { width = w; } int area(int factor) { int local = width * factor; return local; } }\n",
                &["class", "int", "return"],
                "class c { int a; c(int b) { a = b; } int e(int b) { int d = a * b; return d; } }\n",
            ),
        ];
        for (lang, text, fixed, expected) in cases {
            assert_eq!(renamed(lang, text, fixed), expected, "{lang}");
        }
    }
}
