//! Comment removal: all comments at once, then in chunks for the ones a test needs.

use super::ddmin::Chunks;
use super::{Edit, Pass, Program};
use crate::tree::TokenId;
use std::rc::Rc;

#[derive(Clone)]
pub struct Comments {
    tokens: Rc<Vec<TokenId>>,
    chunks: Chunks,
}

impl Comments {
    pub fn new(prog: &Program) -> Comments {
        let tokens: Vec<TokenId> = (0..prog.tree.tokens.len() as TokenId)
            .filter(|&t| prog.kept(t) && prog.tree.tokens[t as usize].comment)
            .collect();
        let chunks = Chunks::new((0..tokens.len() as u32).collect(), true);
        Comments {
            tokens: Rc::new(tokens),
            chunks,
        }
    }
}

impl Pass for Comments {
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
