//! A parse tree in an arena: kinds, fields, byte ranges, children, and the token list.
//!
//! Tokens are the leaves that carry text. A node whose children leave some of its
//! non-space text uncovered (a few grammars' literals) is treated as one token, so that
//! the tokens always cover every non-space byte of the program and unparsing all of them
//! gives back the text exactly.

use crate::hunks::{self, Hunk};
use crate::window::Window;
use crate::Lang;
use serde::Serialize;
use std::collections::HashMap;

pub type NodeId = u32;
pub type TokenId = u32;

#[derive(Clone, Debug, Serialize)]
pub struct Node {
    pub kind: &'static str,
    pub field: Option<&'static str>,
    pub named: bool,
    /// Comments and other grammar extras.
    pub extra: bool,
    pub error: bool,
    pub missing: bool,
    pub start: u32,
    pub end: u32,
    pub parent: Option<NodeId>,
    pub children: Vec<NodeId>,
    /// The tokens under this node: `first_token..end_token`.
    pub first_token: TokenId,
    pub end_token: TokenId,
    pub depth: u32,
}

impl Node {
    pub fn tokens(&self) -> std::ops::Range<TokenId> {
        self.first_token..self.end_token
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Token {
    pub node: NodeId,
    pub start: u32,
    pub end: u32,
    /// Part of a comment: not counted in a program's size.
    pub comment: bool,
    /// Only white space (a preprocessor line's newline): kept for unparsing, not counted.
    pub blank: bool,
}

/// Where the first syntax error is, for messages (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub byte: usize,
    /// `"error"` for an ERROR node, `"missing"` for a MISSING one.
    pub what: &'static str,
    /// The kind of the missing node, or the text the parser could not place (shortened).
    pub near: String,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.what {
            "missing" => write!(
                f,
                "line {}, column {}: missing {}",
                self.line, self.column, self.near
            ),
            _ => write!(
                f,
                "line {}, column {}: syntax error near `{}`",
                self.line, self.column, self.near
            ),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Tree {
    pub lang: Lang,
    pub text: String,
    pub nodes: Vec<Node>,
    pub tokens: Vec<Token>,
    pub error: Option<SyntaxError>,
}

/// A tree-sitter parser for one language, reused across parses.
pub struct Parser {
    lang: Lang,
    inner: tree_sitter::Parser,
    /// The last valid text `check` saw, with its tree: a base for the next check.
    recent: Option<(String, tree_sitter::Tree)>,
    /// Whether a text (by hash) is valid, for each text checked.
    checked: HashMap<u64, bool>,
    /// The error ranges of each text a tolerant check parsed whole and found errors in: a
    /// text proposed again is judged again (the error regions it may keep change) without
    /// another parse of the whole.
    flawed: HashMap<u64, Vec<(usize, usize)>>,
    /// Whether `check` confirms each incremental verdict with a full parse.
    cross_check: bool,
    /// Whether `check` hands back texts with errors ([`Validity::Flawed`]) instead of
    /// rejecting them.
    tolerant: bool,
}

/// What the validity check found.
pub enum Validity {
    Invalid,
    /// Valid, with the new tree; `None` when the text was found valid before and its tree is
    /// not at hand ([`Parser::tree_of_valid`] makes it when it is needed).
    Valid(Option<tree_sitter::Tree>),
    /// Parsed with errors, by a tolerant parser: whether its error regions are acceptable is
    /// the caller's to judge (`reduce::tolerance`). The byte ranges of its outermost error
    /// nodes, with the tree (`None` when the text was parsed before and its tree is not at
    /// hand).
    Flawed {
        errors: Vec<(usize, usize)>,
        tree: Option<tree_sitter::Tree>,
    },
}

/// Programs from this size on are checked by a [`Window`] around the edit where one pays:
/// below it an incremental parse of the whole costs a millisecond or two.
const WINDOW_FROM: usize = 64 * 1024;

impl Parser {
    pub fn new(lang: Lang) -> Parser {
        let mut inner = tree_sitter::Parser::new();
        inner
            .set_language(&lang.language())
            .expect("grammar ABI matches the runtime");
        Parser {
            lang,
            inner,
            recent: None,
            checked: HashMap::new(),
            flawed: HashMap::new(),
            cross_check: cfg!(debug_assertions),
            tolerant: false,
        }
    }

    /// Makes [`Parser::check`] hand back texts with errors with their trees.
    pub fn set_tolerant(&mut self, on: bool) {
        self.tolerant = on;
    }

    /// Makes [`Parser::check`] confirm every incremental verdict with a full parse (slow: a
    /// test of the incremental check itself).
    pub fn set_cross_check(&mut self, on: bool) {
        self.cross_check = on;
    }

    pub fn lang(&self) -> Lang {
        self.lang
    }

    fn raw(&mut self, text: &str) -> tree_sitter::Tree {
        self.inner.reset();
        self.inner
            .parse(text, None)
            .expect("a parse without timeout or cancellation returns a tree")
    }

    /// Whether `text` parses with no ERROR or MISSING node: the validity check.
    pub fn is_valid(&mut self, text: &str) -> bool {
        !self.raw(text).root_node().has_error()
    }

    /// The validity check for `new_text`, an edit of `old_text` whose tree is `old`. Results
    /// are remembered by text: a reducer proposes the same text again (cache hits, repeated
    /// invalid edits), and parsing is the engine's main cost. With
    /// [`Parser::set_cross_check`], every incremental verdict is checked by a full parse.
    pub fn check(&mut self, old: &tree_sitter::Tree, old_text: &str, new_text: &str) -> Validity {
        self.check_with(old, old_text, new_text, None, &[])
    }

    /// [`Parser::check`] with the hunks that turn `old_text` into `new_text`, when known (an
    /// edit's tokens tell where it changed the text; a diff finds that only roughly), and,
    /// for a tolerant check, the byte spans of `old_text`'s error regions.
    pub(crate) fn check_with(
        &mut self,
        old: &tree_sitter::Tree,
        old_text: &str,
        new_text: &str,
        hunks: Option<&[Hunk]>,
        regions: &[(usize, usize)],
    ) -> Validity {
        let hash = crate::digest::text(new_text);
        match self.checked.get(&hash) {
            Some(true) => return Validity::Valid(None),
            // A tolerant check needs the tree of a text with errors: parse it again.
            Some(false) if !self.tolerant => return Validity::Invalid,
            _ => {}
        }
        if let Some(errors) = self.flawed.get(&hash).filter(|_| self.tolerant) {
            return Validity::Flawed {
                errors: errors.clone(),
                tree: None,
            };
        }
        if old_text.len() >= WINDOW_FROM {
            let found;
            let hunks = match hunks {
                Some(hunks) => hunks,
                None => {
                    found = hunks::between(old_text.as_bytes(), new_text.as_bytes());
                    &found
                }
            };
            let window = Window::around(self.lang, old, old_text, new_text, hunks);
            let verdict = window.and_then(|w| self.check_window(hash, new_text, &w, regions));
            if let Some(verdict) = verdict {
                return verdict;
            }
            return self.check_parsed(hash, old, old_text, new_text, Some(hunks));
        }
        self.check_parsed(hash, old, old_text, new_text, hunks)
    }

    fn check_parsed(
        &mut self,
        hash: u64,
        old: &tree_sitter::Tree,
        old_text: &str,
        new_text: &str,
        hunks: Option<&[Hunk]>,
    ) -> Validity {
        let tree = self.parse_edit(old, old_text, new_text, hunks);
        let valid = !tree.root_node().has_error();
        if valid && self.cross_check {
            assert!(
                self.is_valid(new_text),
                "the incremental check passed a text a full parse rejects:\n{new_text}"
            );
        }
        self.checked.insert(hash, valid);
        if valid {
            self.recent = Some((new_text.to_string(), tree.clone()));
            Validity::Valid(Some(tree))
        } else if self.tolerant {
            let errors = error_ranges(&tree);
            self.flawed.insert(hash, errors.clone());
            Validity::Flawed {
                errors,
                tree: Some(tree),
            }
        } else {
            Validity::Invalid
        }
    }

    /// [`Parser::check`] by a window of `new_text` (whose hash is `hash`): no tree to keep.
    /// Errors in a window clear of the error `regions` are new, as in a program without any.
    /// Around one, a window recovers in its own way: if its errors lie on the regions, in
    /// text the edit left alone, and no edit starts or ends on a region, they are the old
    /// ones (a whole parse found no other error in any of the 90 such candidates of a 1.6
    /// MB C++ reduction, nor the 35 of a 2.7 MB one); else the whole text tells (`None`).
    fn check_window(
        &mut self,
        hash: u64,
        new_text: &str,
        window: &Window,
        regions: &[(usize, usize)],
    ) -> Option<Validity> {
        let tree = self.raw(&window.text);
        let valid = !tree.root_node().has_error();
        if valid && self.cross_check && !self.tolerant {
            assert!(
                self.is_valid(new_text),
                "a window passed a text a full parse rejects:\n{}",
                window.text
            );
        }
        if !valid && self.tolerant && window.holds(regions) {
            // Not remembered: a later check, not tolerant, must not pass its old errors.
            return window
                .errors_are_old(&error_ranges(&tree), regions)
                .then_some(Validity::Valid(None));
        }
        self.checked.insert(hash, valid);
        Some(match valid {
            true => Validity::Valid(None),
            false => Validity::Invalid,
        })
    }

    /// The tree of a text [`Parser::check`] found valid: `tree` when it was kept, else
    /// parsed again (incrementally from `old`, across `hunks` if known).
    pub(crate) fn tree_of_valid(
        &mut self,
        tree: Option<tree_sitter::Tree>,
        old: &tree_sitter::Tree,
        old_text: &str,
        new_text: &str,
        hunks: Option<&[Hunk]>,
    ) -> tree_sitter::Tree {
        tree.unwrap_or_else(|| self.parse_edit(old, old_text, new_text, hunks))
    }

    /// An incremental re-parse of `new_text`, which reuses everything outside the changed
    /// hunks (`hunks` if known, else found by a diff).
    ///
    /// Any valid text with its tree can serve as the base; the verdict is the same. The last
    /// valid text checked often differs from `new_text` far less than `old_text` does (a
    /// reducer tries its candidates in runs of similar ones), so it is used when cheaper.
    fn parse_edit(
        &mut self,
        old: &tree_sitter::Tree,
        old_text: &str,
        new_text: &str,
        hunks: Option<&[Hunk]>,
    ) -> tree_sitter::Tree {
        let new = new_text.as_bytes();
        let hunks = hunks.map_or_else(|| hunks::between(old_text.as_bytes(), new), <[_]>::to_vec);
        let mut base = (hunks, old, old_text);
        if let Some((text, tree)) = &self.recent {
            let h = hunks::between(text.as_bytes(), new);
            if hunks::cost(&h) < hunks::cost(&base.0) {
                base = (h, tree, text);
            }
        }
        let (hunks, tree, text) = base;
        // Editing a tree touches every node in the changed hunks: past a point a fresh parse
        // of the new text is cheaper.
        let tree = (hunks::cost(&hunks) < new.len()).then(|| {
            let mut edited = tree.clone();
            for edit in hunks::input_edits(&hunks, text.as_bytes(), new) {
                edited.edit(&edit);
            }
            edited
        });
        self.inner.reset();
        self.inner
            .parse(new_text, tree.as_ref())
            .expect("a parse without timeout or cancellation returns a tree")
    }

    /// The first syntax error of `text`, if any.
    pub fn first_error(&mut self, text: &str) -> Option<SyntaxError> {
        let tree = self.raw(text);
        find_first_error(tree.root_node(), text)
    }

    pub fn parse(&mut self, text: &str) -> Tree {
        self.parse_with_raw(text).0
    }

    /// The arena tree and the tree-sitter tree it was built from.
    pub fn parse_with_raw(&mut self, text: &str) -> (Tree, tree_sitter::Tree) {
        let raw = self.raw(text);
        (Tree::build(self.lang, text, &raw), raw)
    }

    /// The arena tree of `text` from its tree-sitter tree, without parsing again.
    pub fn tree_from_raw(&self, text: &str, raw: &tree_sitter::Tree) -> Tree {
        Tree::build(self.lang, text, raw)
    }
}

/// Byte ranges of the ERROR and MISSING nodes of a tree, outermost only.
pub fn error_ranges(raw: &tree_sitter::Tree) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut stack = vec![raw.root_node()];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            out.push((node.start_byte(), node.end_byte()));
        } else if node.has_error() {
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
    }
    out
}

fn find_first_error(root: tree_sitter::Node, text: &str) -> Option<SyntaxError> {
    if !root.has_error() {
        return None;
    }
    let mut cursor = root.walk();
    let mut node = root;
    // Descend towards the first error or missing node in document order.
    'outer: loop {
        if node.is_error() || node.is_missing() {
            break;
        }
        for child in node.children(&mut cursor) {
            if child.has_error() {
                node = child;
                continue 'outer;
            }
        }
        break;
    }
    let pos = node.start_position();
    let byte = node.start_byte();
    let (what, near) = if node.is_missing() {
        ("missing", node.kind().to_string())
    } else {
        let snippet: String = text[byte..node.end_byte()].chars().take(30).collect();
        (
            "error",
            snippet.split_whitespace().collect::<Vec<_>>().join(" "),
        )
    };
    // tree-sitter columns count bytes; report characters, as editors do.
    let line_start = text[..byte].rfind('\n').map_or(0, |i| i + 1);
    let column = text[line_start..byte].chars().count() + 1;
    Some(SyntaxError {
        line: pos.row + 1,
        column,
        byte,
        what,
        near,
    })
}

impl Tree {
    fn build(lang: Lang, text: &str, raw: &tree_sitter::Tree) -> Tree {
        let mut tree = Tree {
            lang,
            text: text.to_string(),
            // Sized once: growing a vector of a big program's nodes copies it again and again.
            nodes: Vec::with_capacity(raw.root_node().descendant_count()),
            tokens: Vec::with_capacity(raw.root_node().descendant_count() / 2),
            error: find_first_error(raw.root_node(), text),
        };
        let mut cursor = raw.walk();
        tree.visit(&mut cursor, None, None, 0);
        tree
    }

    /// Pre-order walk that fills the arena; returns the new node's id.
    fn visit(
        &mut self,
        cursor: &mut tree_sitter::TreeCursor,
        parent: Option<NodeId>,
        field: Option<&'static str>,
        depth: u32,
    ) -> NodeId {
        let n = cursor.node();
        let id = self.nodes.len() as NodeId;
        let (start, end) = (n.start_byte() as u32, n.end_byte() as u32);
        self.nodes.push(Node {
            kind: n.kind(),
            field,
            named: n.is_named(),
            extra: n.is_extra(),
            error: n.is_error(),
            missing: n.is_missing(),
            start,
            end,
            parent,
            children: Vec::new(),
            first_token: self.tokens.len() as TokenId,
            end_token: 0,
            depth,
        });
        // A node whose children leave text uncovered (a string's contents) is one token;
        // that shows only while walking the children, which are then taken back. So is a
        // node the language's lexer reads as one token (a Rust lifetime).
        if self.lang.is_token_kind(n.kind())
            || !(cursor.goto_first_child() && self.visit_children(cursor, id, depth))
        {
            self.nodes.truncate(id as usize + 1);
            self.nodes[id as usize].children.clear();
            self.tokens
                .truncate(self.nodes[id as usize].first_token as usize);
            if end > start {
                let slice = &self.text[start as usize..end as usize];
                let comment = self.lang.is_comment_kind(n.kind())
                    || self.nodes[id as usize].extra && n.is_named();
                self.tokens.push(Token {
                    node: id,
                    start,
                    end,
                    comment,
                    blank: slice.trim().is_empty(),
                });
            }
        }
        if self.lang.is_comment_kind(n.kind()) {
            // Comments with inner structure (doc comments) are comments all through.
            let first = self.nodes[id as usize].first_token as usize;
            for t in &mut self.tokens[first..] {
                t.comment = true;
            }
        }
        self.nodes[id as usize].end_token = self.tokens.len() as TokenId;
        id
    }

    /// Visits the children of node `id` from its first child; false (with the cursor back on
    /// `id`) when some text between or after them is not whitespace.
    fn visit_children(
        &mut self,
        cursor: &mut tree_sitter::TreeCursor,
        id: NodeId,
        depth: u32,
    ) -> bool {
        let (mut pos, end) = (
            self.nodes[id as usize].start as usize,
            self.nodes[id as usize].end as usize,
        );
        let uncovered = |text: &str, from: usize, to: usize| {
            text.as_bytes()[from..to.max(from)]
                .iter()
                .any(|b| !b.is_ascii_whitespace())
        };
        let mut children = Vec::new();
        loop {
            let child = cursor.node();
            if uncovered(&self.text, pos, child.start_byte()) {
                cursor.goto_parent();
                return false;
            }
            pos = pos.max(child.end_byte());
            let f = cursor.field_name();
            children.push(self.visit(cursor, Some(id), f, depth + 1));
            if !cursor.goto_next_sibling() {
                break;
            }
        }
        cursor.goto_parent();
        self.nodes[id as usize].children = children;
        !uncovered(&self.text, pos, end)
    }

    pub fn root(&self) -> NodeId {
        0
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    pub fn token_text(&self, t: TokenId) -> &str {
        let tok = &self.tokens[t as usize];
        &self.text[tok.start as usize..tok.end as usize]
    }

    pub fn node_text(&self, id: NodeId) -> &str {
        let n = self.node(id);
        &self.text[n.start as usize..n.end as usize]
    }

    /// Whether a line break separates token `a` from the later token `b`.
    pub fn newline_between(&self, a: TokenId, b: TokenId) -> bool {
        let (end, start) = (self.tokens[a as usize].end, self.tokens[b as usize].start);
        self.text[end as usize..start as usize].contains('\n')
    }

    /// Tokens that count towards a program's size: not comments, not blank.
    pub fn is_counted(&self, t: TokenId) -> bool {
        let tok = &self.tokens[t as usize];
        !tok.comment && !tok.blank
    }

    /// The program's size: tokens that are neither comments nor blank.
    pub fn size(&self) -> usize {
        (0..self.tokens.len() as TokenId)
            .filter(|&t| self.is_counted(t))
            .count()
    }

    pub fn has_error(&self) -> bool {
        self.error.is_some()
    }

    /// Which tokens lie where the grammar could not parse: under an ERROR node, or on
    /// either side of a MISSING one (which has no token of its own).
    pub fn error_tokens(&self) -> Vec<bool> {
        let mut marked = vec![false; self.tokens.len()];
        if !self.has_error() {
            return marked;
        }
        for n in &self.nodes {
            if n.error {
                marked[n.first_token as usize..n.end_token as usize].fill(true);
            } else if n.missing {
                let at = n.first_token as usize;
                for t in [at.checked_sub(1), Some(at)].into_iter().flatten() {
                    if let Some(m) = marked.get_mut(t) {
                        *m = true;
                    }
                }
            }
        }
        marked
    }

    /// The grammar's coverage of the tokens `keep` selects: counted tokens outside error
    /// regions, and all counted tokens.
    pub fn grammar_coverage(&self, keep: &[bool]) -> (usize, usize) {
        let marked = self.error_tokens();
        let counted =
            (0..self.tokens.len() as TokenId).filter(|&t| keep[t as usize] && self.is_counted(t));
        counted.fold((0, 0), |(covered, all), t| {
            (covered + !marked[t as usize] as usize, all + 1)
        })
    }

    /// An S-expression-like outline, one node a line, for `whittle parse --tree`.
    pub fn outline(&self) -> String {
        let mut out = String::new();
        for (id, n) in self.nodes.iter().enumerate() {
            if !n.named && n.children.is_empty() {
                continue;
            }
            let indent = "  ".repeat(n.depth as usize);
            let field = n.field.map(|f| format!("{f}: ")).unwrap_or_default();
            let (line, col) = self.line_col(n.start as usize);
            out.push_str(&format!("{indent}{field}{} [{line}:{col}]", n.kind));
            if n.children.is_empty() || n.first_token + 1 == n.end_token && n.children.is_empty() {
                let text: String = self.node_text(id as NodeId).chars().take(40).collect();
                out.push_str(&format!(" {:?}", text));
            }
            out.push('\n');
        }
        out
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, byte: usize) -> (usize, usize) {
        let before = &self.text[..byte];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        (line, before[line_start..].chars().count() + 1)
    }
}

/// Whether a node's children cover all of its non-white-space text.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_cover_the_program() {
        let text = "int main(void) {\n  /* c */ return \"s\\n\" [0];\n}\n";
        let tree = Parser::new(Lang::C).parse(text);
        assert!(!tree.has_error());
        let toks: Vec<&str> = (0..tree.tokens.len() as u32)
            .map(|t| tree.token_text(t))
            .collect();
        assert!(toks.contains(&"/* c */"));
        assert!(toks.contains(&"return"));
        assert_eq!(tree.size(), toks.len() - 1, "the comment is not counted");
        let root = tree.node(tree.root());
        assert_eq!(root.kind, "translation_unit");
        assert_eq!(root.tokens(), 0..tree.tokens.len() as u32);
    }

    #[test]
    fn a_rust_lifetime_or_label_is_one_token_as_rustc_reads_it() {
        let text = "fn f<'a>(x: &'a str) -> Id<'_> { 'outer: loop { break 'outer; } }";
        let tree = Parser::new(Lang::Rust).parse(text);
        assert!(!tree.has_error());
        let toks: Vec<&str> = (0..tree.tokens.len() as u32)
            .map(|t| tree.token_text(t))
            .collect();
        for one in ["'a", "'_", "'outer"] {
            assert!(toks.contains(&one), "{one} in {toks:?}");
        }
        assert!(!toks.contains(&"'"), "{toks:?}");
        assert_eq!(toks.concat(), text.replace(' ', ""));
    }

    #[test]
    fn first_error_has_line_and_column() {
        let mut p = Parser::new(Lang::C);
        let err = p.first_error("int x = 1;\nint y = ;\n").unwrap();
        assert_eq!(err.line, 2);
        assert!(err.column >= 5, "{err}");
        assert!(p.first_error("int x;").is_none());
    }
}
