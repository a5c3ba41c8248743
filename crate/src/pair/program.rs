//! A pair under reduction: the merged token sequence of seed and variant with two masks.
//!
//! `keep` says which units are still there (a common unit is one keep bit for both
//! programs, so deleting it reduces both); `applied` says which differences the variant
//! still has (an unapplied difference makes the variant read as the seed there). The seed
//! is never patched: it is the base the variant's differences apply to.

use super::align::{Alignment, Unit};
use crate::reduce::{Edit, Program};
use crate::tree::{TokenId, Tree};
use crate::unparse::{unparse, unparse_refs};
use serde::Serialize;
use std::ops::Range;
use std::rc::Rc;

/// One program of a pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Seed = 0,
    Variant = 1,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::Seed, Side::Variant];

    pub fn name(self) -> &'static str {
        match self {
            Side::Seed => "seed",
            Side::Variant => "variant",
        }
    }
}

/// A change to a pair: units to delete (from both programs), differences to unapply.
#[derive(Clone, Debug, Default)]
pub struct PairEdit {
    pub delete: Vec<Range<u32>>,
    pub unapply: Vec<u32>,
}

/// Counted tokens of each program and of their difference.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Sizes {
    pub seed: usize,
    pub variant: usize,
    /// Tokens only one program has (under this alignment: an upper bound of the minimal diff).
    pub diff: usize,
}

#[derive(Clone)]
pub struct PairProgram {
    /// Each program's tree with the mask of its tokens, for single-program passes.
    pub seed: Program,
    pub variant: Program,
    pub align: Rc<Alignment>,
    pub keep: Rc<Vec<bool>>,
    pub applied: Rc<Vec<bool>>,
}

impl PairProgram {
    pub fn new(seed: Tree, variant: Tree) -> PairProgram {
        let align = Alignment::new(&seed, &variant);
        let n = align.units.len();
        PairProgram {
            seed: Program::new(seed),
            variant: Program::new(variant),
            align: Rc::new(align),
            keep: Rc::new(vec![true; n]),
            applied: Rc::new(vec![true; n]),
        }
    }

    pub fn side(&self, side: Side) -> &Program {
        match side {
            Side::Seed => &self.seed,
            Side::Variant => &self.variant,
        }
    }

    pub fn units(&self) -> &[Unit] {
        &self.align.units
    }

    /// Whether unit `u` is a difference the pair still has.
    pub fn differs(&self, u: u32) -> bool {
        let u = u as usize;
        !self.align.units[u].is_common() && self.keep[u] && self.applied[u]
    }

    pub fn changes(&self, e: &PairEdit) -> bool {
        e.delete.iter().any(|r| r.clone().any(|u| self.keep[u as usize])) || e.unapply.iter().any(|&u| self.differs(u))
    }

    /// The masks after `e`.
    pub fn masks_after(&self, e: &PairEdit) -> (Vec<bool>, Vec<bool>) {
        let mut keep = self.keep.as_ref().clone();
        for r in &e.delete {
            keep[r.start as usize..r.end as usize].fill(false);
        }
        let mut applied = self.applied.as_ref().clone();
        for &u in &e.unapply {
            applied[u as usize] = false;
        }
        (keep, applied)
    }

    pub fn with_masks(&self, keep: Vec<bool>, applied: Vec<bool>) -> PairProgram {
        let al = &self.align;
        let seed_keep = al.seed_unit.iter().map(|&u| keep[u as usize]).collect();
        let variant_keep = al
            .variant_unit
            .iter()
            .map(|&u| keep[u as usize] && (al.units[u as usize].is_common() || applied[u as usize]))
            .collect();
        PairProgram {
            seed: self.seed.with_mask(seed_keep),
            variant: self.variant.with_mask(variant_keep),
            align: self.align.clone(),
            keep: Rc::new(keep),
            applied: Rc::new(applied),
        }
    }

    /// The seed and variant texts under the given masks: the variant is the seed patched
    /// with the applied differences.
    pub fn texts_with(&self, keep: &[bool], applied: &[bool]) -> (String, String) {
        let (st, vt) = (&self.seed.tree, &self.variant.tree);
        let seed_mask: Vec<bool> = self.align.seed_unit.iter().map(|&u| keep[u as usize]).collect();
        let seed = unparse(st, &seed_mask);
        // The variant's own tokens, and the seed's where a difference is not applied.
        let refs = self.align.units.iter().enumerate().filter(|(u, _)| keep[*u]).filter_map(|(u, unit)| match *unit {
            Unit::Both(_, v) => Some((0, v)),
            Unit::Variant(v) if applied[u] => Some((0, v)),
            Unit::Seed(s) if !applied[u] => Some((1, s)),
            _ => None,
        });
        let variant = unparse_refs(&[vt, st], refs);
        (seed, variant)
    }

    pub fn texts(&self) -> (String, String) {
        self.texts_with(&self.keep, &self.applied)
    }

    pub fn sizes_with(&self, keep: &[bool], applied: &[bool]) -> Sizes {
        let (st, vt) = (&self.seed.tree, &self.variant.tree);
        let mut s = Sizes::default();
        for (u, unit) in self.align.units.iter().enumerate() {
            if !keep[u] {
                continue;
            }
            match *unit {
                Unit::Both(a, b) => {
                    s.seed += st.is_counted(a) as usize;
                    s.variant += vt.is_counted(b) as usize;
                }
                Unit::Seed(a) if st.is_counted(a) => {
                    s.seed += 1;
                    if applied[u] {
                        s.diff += 1;
                    } else {
                        s.variant += 1;
                    }
                }
                Unit::Variant(b) if applied[u] && vt.is_counted(b) => {
                    s.variant += 1;
                    s.diff += 1;
                }
                _ => {}
            }
        }
        s
    }

    pub fn sizes(&self) -> Sizes {
        self.sizes_with(&self.keep, &self.applied)
    }

    /// The units spanned by tokens `r` of one side: from the first token's unit to the
    /// last one's, so differences inside the span go with it.
    pub fn units_of(&self, side: Side, r: Range<TokenId>) -> Range<u32> {
        if r.is_empty() {
            return 0..0;
        }
        let map = match side {
            Side::Seed => &self.align.seed_unit,
            Side::Variant => &self.align.variant_unit,
        };
        map[r.start as usize]..map[r.end as usize - 1] + 1
    }

    /// A single-program edit of one side as an edit of the pair: what it deletes goes from
    /// both programs.
    pub fn edit_from(&self, side: Side, edit: &Edit) -> PairEdit {
        PairEdit { delete: edit.delete.iter().map(|r| self.units_of(side, r.clone())).collect(), unapply: Vec::new() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Parser;
    use crate::Lang;

    fn pair(lang: Lang, a: &str, b: &str) -> PairProgram {
        let mut p = Parser::new(lang);
        PairProgram::new(p.parse(a), p.parse(b))
    }

    fn token(t: &Tree, text: &str) -> TokenId {
        (0..t.tokens.len() as TokenId).find(|&i| t.token_text(i) == text).unwrap()
    }

    #[test]
    fn all_applied_gives_back_both_programs() {
        let (a, b) = ("int f(int x) {\n  return x + 1;\n}\n", "int f(int x) {\n  x++;\n  return x - 1;\n}\n");
        let p = pair(Lang::C, a, b);
        assert_eq!(p.texts(), (a.to_string(), b.to_string()));
        assert_eq!(p.sizes(), Sizes { seed: 13, variant: 16, diff: 5 });
    }

    #[test]
    fn unapplying_a_difference_patches_it_out() {
        let p = pair(Lang::C, "int f(int x) {\n  return x + 1;\n}\n", "int f(int x) {\n  x++;\n  return x - 1;\n}\n");
        // Unapply the operator change, keep the inserted statement.
        let op: Vec<u32> = p.align.hunks.iter().filter(|h| h.seed.len() == 1).flat_map(|h| h.units.clone()).collect();
        let (keep, applied) = p.masks_after(&PairEdit { delete: vec![], unapply: op });
        let (seed, variant) = p.texts_with(&keep, &applied);
        assert_eq!(seed, "int f(int x) {\n  return x + 1;\n}\n");
        assert_eq!(variant, "int f(int x) {\n  x++;\n  return x + 1;\n}\n");
        assert_eq!(p.sizes_with(&keep, &applied).diff, 3);
    }

    #[test]
    fn deleting_from_the_seed_deletes_from_both() {
        let p = pair(
            Lang::Rust,
            "fn main() {\n    let a = 1;\n    let b = 2;\n}\n",
            "fn main() {\n    let a = 1;\n    let b = 3;\n}\n",
        );
        let st = &p.seed.tree;
        let (from, to) = (token(st, "let"), token(st, "1") + 2);
        let e = p.edit_from(Side::Seed, &Edit::deleting(vec![from..to]));
        let (keep, applied) = p.masks_after(&e);
        let q = p.with_masks(keep, applied);
        assert_eq!(q.texts(), ("fn main() {\n    let b = 2;\n}\n".to_string(), "fn main() {\n    let b = 3;\n}\n".to_string()));
        assert_eq!(q.variant.size(), 11);
    }

    #[test]
    fn a_reduced_seed_is_patched_with_the_applied_differences() {
        // JavaScript: drop a common statement from the seed, then unapply one of two changes.
        let p = pair(Lang::JavaScript, "let a = 1;\nlet b = g(a);\nf(a, b);\n", "let a = 2;\nlet b = g(a);\nf(b, a);\n");
        let st = &p.seed.tree;
        let from = (0..st.tokens.len() as TokenId).filter(|&i| st.token_text(i) == "let").nth(1).unwrap();
        let e = p.edit_from(Side::Seed, &Edit::deleting(vec![from..from + 8]));
        let (keep, applied) = p.masks_after(&e);
        let q = p.with_masks(keep, applied);
        assert_eq!(q.texts().1, "let a = 2;\nf(b, a);\n");
        let first: Vec<u32> = q.align.hunks[0].units.clone().collect();
        let (keep, applied) = q.masks_after(&PairEdit { delete: vec![], unapply: first });
        assert_eq!(q.texts_with(&keep, &applied), ("let a = 1;\nf(a, b);\n".to_string(), "let a = 1;\nf(b, a);\n".to_string()));
    }
}
