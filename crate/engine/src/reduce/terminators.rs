//! Terminators a language lets a statement end without (`Kinds::optional_terminators`:
//! JavaScript's `;`, which automatic semicolon insertion supplies at a line break or a `}`):
//! all at once, then in chunks for the ones that must stay (two statements on one line fail
//! the validity check; a line the next would continue, `a = b` before `(c)`, fails the test).

use super::ddmin::Chunks;
use super::{Edit, Pass, Program};
use crate::tree::TokenId;
use std::rc::Rc;

#[derive(Clone)]
pub struct Terminators {
    tokens: Rc<Vec<TokenId>>,
    chunks: Chunks,
}

impl Terminators {
    pub fn new(prog: &Program) -> Terminators {
        let tree = &prog.tree;
        let optional = tree.lang.kinds().optional_terminators;
        // The last child of its node: a `for (;;)`'s are separators, not terminators.
        let last = |t: TokenId| {
            let leaf = tree.tokens[t as usize].node;
            let parent = tree.node(leaf).parent.map(|p| tree.node(p));
            parent.is_some_and(|p| p.children.last() == Some(&leaf))
        };
        let tokens: Vec<TokenId> = (0..tree.tokens.len() as TokenId)
            .filter(|&t| prog.kept(t) && optional.contains(&prog.text_of(t)) && last(t))
            .collect();
        let chunks = Chunks::new((0..tokens.len() as u32).collect(), true);
        Terminators {
            tokens: Rc::new(tokens),
            chunks,
        }
    }
}

impl Pass for Terminators {
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
