//! Passes over tokens that may each go alone: all at once, then in chunks for the ones a
//! test (or the validity check) needs. Comments are such tokens, and so are the terminators
//! a language lets a statement end without (`Kinds::optional_terminators`: JavaScript's `;`,
//! which automatic semicolon insertion supplies at a line break or a `}`; two statements on
//! one line fail the validity check, a line the next would continue, `a = b` before `(c)`,
//! fails the test).

use super::ddmin::Chunks;
use super::{Edit, Pass, Program};
use crate::tree::TokenId;
use std::rc::Rc;

#[derive(Clone)]
pub struct LoneTokens {
    tokens: Rc<Vec<TokenId>>,
    chunks: Chunks,
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

impl LoneTokens {
    /// Over the kept tokens `which` picks.
    fn new(prog: &Program, which: impl Fn(TokenId) -> bool) -> LoneTokens {
        let tokens: Vec<TokenId> = (0..prog.tree.tokens.len() as TokenId)
            .filter(|&t| prog.kept(t) && which(t))
            .collect();
        let chunks = Chunks::new((0..tokens.len() as u32).collect(), true);
        LoneTokens {
            tokens: Rc::new(tokens),
            chunks,
        }
    }
}

impl Pass for LoneTokens {
    fn propose(&mut self, _prog: &Program) -> Option<Edit> {
        let set = self.chunks.propose()?;
        let delete = set
            .iter()
            .map(|&i| self.tokens[i as usize])
            .map(|t| t..t + 1)
            .collect();
        Some(Edit::deleting(delete))
    }

    fn accepted(&mut self, _prog: &Program) {
        self.chunks.accepted();
    }

    fn box_clone(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }
}
