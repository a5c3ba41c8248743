//! The `format` pass, once the rounds are over: the result laid out afresh
//! ([`crate::layout`]), or if that loses the property (a diagnostic may depend on layout, as
//! misleading indentation does) the original's layout without its blank lines and trailing
//! spaces. Each is one candidate, kept only if the test still says interesting.

use super::{Edit, Layout, Pass, Program};
use crate::tree::{Parser, TokenId};

#[derive(Clone, Default)]
pub struct Format {
    tried: usize,
}

const LAYOUTS: [Layout; 2] = [Layout::Fresh, Layout::Tidy];

/// The edit that lays `prog` out as `layout`, if its text then reads as the same tokens:
/// a layout only moves white space, and this makes sure no two tokens ran together or came
/// apart.
fn relayout(prog: &Program, layout: Layout) -> Option<Edit> {
    let edit = Edit {
        layout: Some(layout),
        ..Edit::default()
    };
    let tree = Parser::new(prog.tree.lang).parse(&prog.after(&edit).text());
    let before = (0..prog.tree.tokens.len() as TokenId)
        .filter(|&t| prog.kept(t))
        .map(|t| prog.text_of(t));
    let after = (0..tree.tokens.len() as TokenId).map(|t| tree.token_text(t));
    before.eq(after).then_some(edit)
}

impl Pass for Format {
    fn propose(&mut self, prog: &Program) -> Option<Edit> {
        // Once a layout is accepted, the next would only undo it.
        if prog.layout != Layout::Original {
            return None;
        }
        while let Some(&layout) = LAYOUTS.get(self.tried) {
            self.tried += 1;
            if let Some(edit) = relayout(prog, layout).filter(|e| e.changes(prog)) {
                return Some(edit);
            }
        }
        None
    }

    fn accepted(&mut self, _prog: &Program) {}

    fn box_clone(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }
}
