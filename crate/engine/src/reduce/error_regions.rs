//! Reduction where the grammar could not parse: the `error-regions` pass. Inside an error
//! region the tree says nothing, so this pass works as C-Vise's grammar-free passes do, on
//! the region's tokens: ddmin over compiler extensions the grammar may lack (the language's
//! `Kinds::extensions`, as the `extensions` pass finds them in the whole program), then over
//! whole regions, then over chunks ending at `;` or `}`, then over balanced bracket groups
//! (whole, then their contents), then lines, then tokens (coarse rounds try only extensions,
//! whole regions and whole groups). A program
//! without error regions gives it nothing to do.

use super::ddmin::Chunks;
use super::lone_tokens::extension_spans;
use super::{Edit, Pass, Program, COARSE_SHARE};
use crate::tree::{TokenId, Tree};
use std::ops::Range;
use std::rc::Rc;

/// The units each stage splits the error regions into, in the order they are tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Extensions,
    Regions,
    Statements,
    Groups,
    GroupContents,
    Lines,
    Tokens,
}

const STAGES: [Stage; 7] = [
    Stage::Extensions,
    Stage::Regions,
    Stage::Statements,
    Stage::Groups,
    Stage::GroupContents,
    Stage::Lines,
    Stage::Tokens,
];

#[derive(Clone)]
pub struct ErrorRegions {
    /// Tokens in an error region of this round's tree.
    marked: Rc<Vec<bool>>,
    stage: usize,
    units: Rc<Vec<Range<TokenId>>>,
    chunks: Option<Chunks>,
    coarse: bool,
    /// The fewest tokens an edit may delete: a share of the program in coarse rounds.
    min_weight: usize,
}

impl ErrorRegions {
    pub fn new(prog: &Program, coarse: bool) -> ErrorRegions {
        ErrorRegions {
            marked: Rc::new(prog.tree.error_tokens()),
            stage: 0,
            units: Rc::default(),
            chunks: None,
            coarse,
            min_weight: if coarse {
                prog.size() / COARSE_SHARE
            } else {
                0
            },
        }
    }

    /// The kept, counted tokens of each error region, in order.
    fn regions(&self, prog: &Program) -> Vec<Vec<TokenId>> {
        let mut regions: Vec<Vec<TokenId>> = Vec::new();
        let mut open = false;
        for t in 0..prog.tree.tokens.len() as TokenId {
            if !self.marked[t as usize] {
                open = false;
                continue;
            }
            if !(prog.kept(t) && prog.tree.is_counted(t)) {
                continue;
            }
            match regions.last_mut() {
                Some(r) if open => r.push(t),
                _ => regions.push(vec![t]),
            }
            open = true;
        }
        regions
    }

    fn units(&self, stage: Stage, prog: &Program) -> Vec<Range<TokenId>> {
        let tree = &prog.tree;
        let span = |ts: &[TokenId]| ts[0]..ts[ts.len() - 1] + 1;
        let mut units = Vec::new();
        for region in self.regions(prog) {
            match stage {
                Stage::Extensions => units.extend(extension_spans(tree, &region)),
                Stage::Regions => units.push(span(&region)),
                Stage::Statements => units.extend(
                    region
                        .split_inclusive(|&t| matches!(tree.token_text(t), ";" | "}"))
                        .map(span),
                ),
                Stage::Groups | Stage::GroupContents => {
                    for (open, close) in outermost_groups(tree, &region) {
                        let (a, b) = (region[open], region[close]);
                        units.push(match stage {
                            Stage::Groups => a..b + 1,
                            _ => a + 1..b,
                        });
                    }
                }
                Stage::Lines => units.extend(
                    region
                        .chunk_by(|&a, &b| !tree.newline_between(a, b))
                        .map(span),
                ),
                Stage::Tokens => units.extend(region.iter().map(|&t| t..t + 1)),
            }
        }
        units.retain(|u| !u.is_empty());
        units
    }
}

/// Matching brackets among `region`'s tokens that no other pair encloses: index pairs.
fn outermost_groups(tree: &Tree, region: &[TokenId]) -> Vec<(usize, usize)> {
    let mut groups = Vec::new();
    let mut stack: Vec<(usize, &str)> = Vec::new();
    for (i, &t) in region.iter().enumerate() {
        match tree.token_text(t) {
            open @ ("(" | "[" | "{") => stack.push((i, open)),
            close @ (")" | "]" | "}") => {
                let opener = match close {
                    ")" => "(",
                    "]" => "[",
                    _ => "{",
                };
                match stack.pop() {
                    Some((j, o)) if o == opener => {
                        if stack.is_empty() {
                            groups.push((j, i));
                        }
                    }
                    _ => stack.clear(), // unbalanced: start afresh
                }
            }
            _ => {}
        }
    }
    groups
}

impl Pass for ErrorRegions {
    fn propose(&mut self, prog: &Program) -> Option<Edit> {
        if !self.marked.contains(&true) {
            return None;
        }
        loop {
            if let Some(set) = self.chunks.as_mut().and_then(Chunks::propose) {
                let delete: Vec<_> = set
                    .iter()
                    .map(|&u| self.units[u as usize].clone())
                    .collect();
                // Coarse rounds take only big bites (the units are runs of kept tokens).
                let weight: usize = delete.iter().map(|r| r.len()).sum();
                if weight < self.min_weight {
                    continue;
                }
                return Some(Edit::deleting(delete));
            }
            let stage = *STAGES.get(self.stage)?;
            self.stage += 1;
            // Coarse rounds take only big bites: what Perses deletes next often takes a region
            // with it, and fine stages there would be spent for nothing.
            let big = matches!(stage, Stage::Extensions | Stage::Regions | Stage::Groups);
            if self.coarse && !big {
                continue;
            }
            self.units = Rc::new(self.units(stage, prog));
            self.chunks = Some(Chunks::new((0..self.units.len() as u32).collect(), true));
        }
    }

    fn accepted(&mut self, _prog: &Program) {
        if let Some(c) = &mut self.chunks {
            c.accepted();
        }
    }

    fn box_clone(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }

    fn deferred(&self) -> bool {
        self.coarse && self.marked.contains(&true)
    }
}
