//! The `format` pass: the result laid out afresh ([`crate::layout`]), one candidate tried
//! once the rounds are over. It is kept only if the test still says interesting: a
//! diagnostic may depend on layout (misleading indentation), and then the original's
//! white space stays.

use super::{Edit, Pass, Program};
use crate::tree::{Parser, TokenId};

#[derive(Clone, Default)]
pub struct Format {
    tried: bool,
}

/// Whether `prog` formatted reads as the same tokens: the layout only moves white space,
/// and this makes sure no two tokens ran together or came apart.
fn same_tokens(prog: &Program) -> bool {
    let formatted = prog.after(&Edit {
        format: true,
        ..Edit::default()
    });
    let tree = Parser::new(prog.tree.lang).parse(&formatted.text());
    let before: Vec<&str> = (0..prog.tree.tokens.len() as TokenId)
        .filter(|&t| prog.kept(t))
        .map(|t| prog.text_of(t))
        .collect();
    let after: Vec<&str> = (0..tree.tokens.len() as TokenId)
        .map(|t| tree.token_text(t))
        .collect();
    before == after
}

impl Pass for Format {
    fn name(&self) -> &'static str {
        "format"
    }

    fn propose(&mut self, prog: &Program) -> Option<Edit> {
        if std::mem::replace(&mut self.tried, true) || !same_tokens(prog) {
            return None;
        }
        Some(Edit {
            format: true,
            ..Edit::default()
        })
    }

    fn accepted(&mut self, _prog: &Program) {}

    fn box_clone(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }
}
