//! Passes over tokens that may each go alone: all at once, then in chunks for the ones a
//! test (or the validity check) needs. Comments are such tokens, and so are the terminators
//! a language lets a statement end without (`Kinds::optional_terminators`: JavaScript's `;`,
//! which automatic semicolon insertion supplies at a line break or a `}`; two statements on
//! one line fail the validity check, a line the next would continue, `a = b` before `(c)`,
//! fails the test), and compiler extensions with their argument (`Kinds::extensions`:
//! `__attribute__ ((__nothrow__))`), which go as one span.

use super::ddmin::Chunks;
use super::{Edit, Pass, Program};
use crate::tree::{TokenId, Tree};
use std::ops::Range;
use std::rc::Rc;

#[derive(Clone)]
pub struct LoneTokens {
    spans: Rc<Vec<Range<TokenId>>>,
    chunks: Chunks,
    /// Whether the test alone judges candidates (see [`Pass::tested_only`]).
    tested_only: bool,
    /// Proposals left before the pass ends: `None` for no bound.
    left: Option<usize>,
}

/// The `comments` pass.
pub fn comments(prog: &Program) -> LoneTokens {
    LoneTokens::new(prog, |t| prog.tree.tokens[t as usize].comment)
}

/// The `terminators` pass.
pub fn terminators(prog: &Program) -> LoneTokens {
    let tree = &prog.tree;
    let optional = tree.lang.kinds().optional_terminators;
    // The last child of its node: a `for (;;)`'s are separators, not terminators.
    let last = |t: TokenId| {
        let leaf = tree.tokens[t as usize].node;
        let parent = tree.node(leaf).parent.map(|p| tree.node(p));
        parent.is_some_and(|p| p.children.last() == Some(&leaf))
    };
    LoneTokens::new(prog, |t| optional.contains(&prog.text_of(t)) && last(t))
}

/// The `extensions` pass. The grammar often parses the program better without them (it
/// cannot parse `namespace std __attribute__ ((...)) {`), but where the braces then pair
/// differently it may find an error elsewhere: the test alone judges. A coarse round tries
/// only all of them at once (it runs first, on the biggest program: a test that needs a few
/// would cost a query for each chunk).
pub fn extensions(prog: &Program, coarse: bool) -> LoneTokens {
    let kept: Vec<TokenId> = (0..prog.tree.tokens.len() as TokenId)
        .filter(|&t| prog.kept(t) && !prog.tree.tokens[t as usize].comment)
        .collect();
    LoneTokens {
        tested_only: true,
        left: coarse.then_some(1),
        ..LoneTokens::over(extension_spans(&prog.tree, &kept))
    }
}

/// The compiler extensions among `tokens` (in order, none deleted), as token ranges: a word of
/// `Kinds::extension_words` alone, a keyword of `Kinds::extensions` with the parenthesized
/// argument after it.
pub fn extension_spans(tree: &Tree, tokens: &[TokenId]) -> Vec<Range<TokenId>> {
    let kinds = tree.lang.kinds();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let (at, text) = (i, tree.token_text(tokens[i]));
        i += 1;
        if kinds.extension_words.contains(&text) {
            spans.push(tokens[at]..tokens[at] + 1);
        } else if kinds.extensions.contains(&text) {
            if let Some(close) = closing(tree, &tokens[at + 1..]) {
                i = at + 1 + close + 1;
                spans.push(tokens[at]..tokens[at + 1 + close] + 1);
            }
        }
    }
    spans
}

/// The index in `tokens` of the `)` that closes the `(` they start with.
fn closing(tree: &Tree, tokens: &[TokenId]) -> Option<usize> {
    if tokens.first().map(|&t| tree.token_text(t)) != Some("(") {
        return None;
    }
    let mut depth = 0usize;
    for (i, &t) in tokens.iter().enumerate() {
        match tree.token_text(t) {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            // An argument never holds a statement: the parenthesis is unbalanced.
            ";" | "{" | "}" => return None,
            _ => {}
        }
    }
    None
}

impl LoneTokens {
    /// Over the kept tokens `which` picks.
    fn new(prog: &Program, which: impl Fn(TokenId) -> bool) -> LoneTokens {
        let spans = (0..prog.tree.tokens.len() as TokenId)
            .filter(|&t| prog.kept(t) && which(t))
            .map(|t| t..t + 1)
            .collect();
        LoneTokens::over(spans)
    }

    fn over(spans: Vec<Range<TokenId>>) -> LoneTokens {
        let chunks = Chunks::new((0..spans.len() as u32).collect(), true);
        LoneTokens {
            spans: Rc::new(spans),
            chunks,
            tested_only: false,
            left: None,
        }
    }
}

impl Pass for LoneTokens {
    fn propose(&mut self, _prog: &Program) -> Option<Edit> {
        if let Some(left) = &mut self.left {
            *left = left.checked_sub(1)?;
        }
        let set = self.chunks.propose()?;
        let delete = set
            .iter()
            .map(|&i| self.spans[i as usize].clone())
            .collect();
        Some(Edit::deleting(delete))
    }

    fn tested_only(&self) -> bool {
        self.tested_only
    }

    fn accepted(&mut self, _prog: &Program) {
        self.chunks.accepted();
    }

    fn box_clone(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }
}
