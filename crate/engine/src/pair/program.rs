//! A pair under reduction: the merged token sequence of seed and variant with two masks.
//!
//! `keep` says which units are still there (a common unit is one keep bit for both
//! programs, so deleting it reduces both); `applied` says which differences the variant
//! still has (an unapplied difference makes the variant read as the seed there). The seed
//! is never patched: it is the base the variant's differences apply to.

use super::align::{Alignment, Unit};
pub use crate::query::Side;
use crate::reduce::{Edit, Program};
use crate::tree::{TokenId, Tree};
use crate::unparse::{unparse_refs_with, Substitutions};
use serde::Serialize;
use std::ops::Range;
use std::rc::Rc;

/// A change to a pair: units to delete (from both programs), differences to unapply,
/// units to rewrite (a transformation's new token text).
#[derive(Clone, Debug, Default)]
pub struct PairEdit {
    pub delete: Vec<Range<u32>>,
    pub unapply: Vec<u32>,
    pub replace: Vec<(u32, String)>,
}

impl PairEdit {
    pub fn unapplying(unapply: Vec<u32>) -> PairEdit {
        PairEdit {
            unapply,
            ..PairEdit::default()
        }
    }
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
    /// Each program's tree with the mask and rewrites of its tokens, for single-program passes.
    pub seed: Program,
    pub variant: Program,
    pub align: Rc<Alignment>,
    pub keep: Rc<Vec<bool>>,
    pub applied: Rc<Vec<bool>>,
    /// Rewritten units, with their new text.
    pub subst: Rc<Substitutions>,
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
            subst: Rc::default(),
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

    /// Whether each token of the variant's tree is one the seed lacks (the alignment's, as
    /// the pair was built).
    pub fn variant_differs(&self) -> Vec<bool> {
        let al = &self.align;
        al.variant_unit
            .iter()
            .map(|&u| !al.units[u as usize].is_common())
            .collect()
    }

    /// Whether unit `u` is a difference the pair still has.
    pub fn differs(&self, u: u32) -> bool {
        let u = u as usize;
        !self.align.units[u].is_common() && self.keep[u] && self.applied[u]
    }

    /// A unit's current text.
    pub fn text_of(&self, u: u32) -> &str {
        match self.align.units[u as usize] {
            Unit::Both(s, _) | Unit::Seed(s) => self.seed.text_of(s),
            Unit::Variant(v) => self.variant.text_of(v),
        }
    }

    pub fn changes(&self, e: &PairEdit) -> bool {
        e.delete
            .iter()
            .any(|r| r.clone().any(|u| self.keep[u as usize]))
            || e.unapply.iter().any(|&u| self.differs(u))
            || e.replace
                .iter()
                .any(|(u, text)| self.keep[*u as usize] && self.text_of(*u) != text)
    }

    /// The pair after `e`.
    pub fn after(&self, e: &PairEdit) -> PairProgram {
        let mut keep = self.keep.as_ref().clone();
        for r in &e.delete {
            keep[r.start as usize..r.end as usize].fill(false);
        }
        let mut applied = self.applied.clone();
        if !e.unapply.is_empty() {
            let a = Rc::make_mut(&mut applied);
            for &u in &e.unapply {
                a[u as usize] = false;
            }
        }
        let mut subst = self.subst.clone();
        if !e.replace.is_empty() {
            let m = Rc::make_mut(&mut subst);
            for (u, text) in &e.replace {
                m.insert(*u, text.clone());
            }
        }
        self.with_state(keep, applied, subst)
    }

    fn with_state(
        &self,
        keep: Vec<bool>,
        applied: Rc<Vec<bool>>,
        subst: Rc<Substitutions>,
    ) -> PairProgram {
        let al = &self.align;
        let seed_keep = al.seed_unit.iter().map(|&u| keep[u as usize]).collect();
        let variant_keep = al
            .variant_unit
            .iter()
            .map(|&u| keep[u as usize] && (al.units[u as usize].is_common() || applied[u as usize]))
            .collect();
        let (mut seed_subst, mut variant_subst) = (Substitutions::new(), Substitutions::new());
        for (&u, text) in subst.iter() {
            match al.units[u as usize] {
                Unit::Both(s, v) => {
                    seed_subst.insert(s, text.clone());
                    variant_subst.insert(v, text.clone());
                }
                Unit::Seed(s) => _ = seed_subst.insert(s, text.clone()),
                Unit::Variant(v) => _ = variant_subst.insert(v, text.clone()),
            }
        }
        let side = |p: &Program, keep: Vec<bool>, subst: Substitutions| Program {
            tree: p.tree.clone(),
            keep: Rc::new(keep),
            subst: Rc::new(subst),
            layout: Default::default(),
        };
        PairProgram {
            seed: side(&self.seed, seed_keep, seed_subst),
            variant: side(&self.variant, variant_keep, variant_subst),
            align: self.align.clone(),
            keep: Rc::new(keep),
            applied,
            subst,
        }
    }

    /// The seed and variant texts: the variant is the seed patched with the applied
    /// differences.
    pub fn texts(&self) -> (String, String) {
        let seed = self.seed.text();
        // The variant's own tokens, and the seed's where a difference is not applied.
        let (keep, applied) = (&self.keep, &self.applied);
        let refs = self
            .align
            .units
            .iter()
            .enumerate()
            .filter(|(u, _)| keep[*u])
            .filter_map(|(u, unit)| match *unit {
                Unit::Both(_, v) => Some((0, v)),
                Unit::Variant(v) if applied[u] => Some((0, v)),
                Unit::Seed(s) if !applied[u] => Some((1, s)),
                _ => None,
            });
        let trees = [self.variant.tree.as_ref(), self.seed.tree.as_ref()];
        let variant = unparse_refs_with(&trees, refs, &[&self.variant.subst, &self.seed.subst]);
        (seed, variant)
    }

    pub fn sizes(&self) -> Sizes {
        let (st, vt) = (&self.seed.tree, &self.variant.tree);
        let mut s = Sizes::default();
        for (u, unit) in self.align.units.iter().enumerate() {
            if !self.keep[u] {
                continue;
            }
            match *unit {
                Unit::Both(a, b) => {
                    s.seed += st.is_counted(a) as usize;
                    s.variant += vt.is_counted(b) as usize;
                }
                Unit::Seed(a) if st.is_counted(a) => {
                    s.seed += 1;
                    if self.applied[u] {
                        s.diff += 1;
                    } else {
                        s.variant += 1;
                    }
                }
                Unit::Variant(b) if self.applied[u] && vt.is_counted(b) => {
                    s.variant += 1;
                    s.diff += 1;
                }
                _ => {}
            }
        }
        s
    }

    /// The units spanned by tokens `r` of one side: from the first token's unit to the
    /// last one's, so differences inside the span go with it.
    pub fn units_of(&self, side: Side, r: Range<TokenId>) -> Range<u32> {
        if r.is_empty() {
            return 0..0;
        }
        let map = self.unit_map(side);
        map[r.start as usize]..map[r.end as usize - 1] + 1
    }

    fn unit_map(&self, side: Side) -> &[u32] {
        match side {
            Side::Seed => &self.align.seed_unit,
            Side::Variant => &self.align.variant_unit,
        }
    }

    /// A single-program edit of one side as an edit of the pair: what it deletes goes from
    /// both programs, what it rewrites is rewritten in both where they share it.
    pub fn edit_from(&self, side: Side, edit: &Edit) -> PairEdit {
        let map = self.unit_map(side);
        PairEdit {
            delete: edit
                .delete
                .iter()
                .map(|r| self.units_of(side, r.clone()))
                .collect(),
            unapply: Vec::new(),
            replace: edit
                .replace
                .iter()
                .map(|(t, text)| (map[*t as usize], text.clone()))
                .collect(),
        }
    }
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;
    use crate::tree::Parser;
    use crate::Lang;

    fn pair(lang: Lang, a: &str, b: &str) -> PairProgram {
        let mut p = Parser::new(lang);
        PairProgram::new(p.parse(a), p.parse(b))
    }

    fn token(t: &Tree, text: &str) -> TokenId {
        (0..t.tokens.len() as TokenId)
            .find(|&i| t.token_text(i) == text)
            .unwrap()
    }

    #[test]
    fn all_applied_gives_back_both_programs() {
        let (a, b) = (
            "int f(int x) {\n  return x + 1;\n}\n",
            "int f(int x) {\n  x++;\n  return x - 1;\n}\n",
        );
        let p = pair(Lang::C, a, b);
        assert_eq!(p.texts(), (a.to_string(), b.to_string()));
        assert_eq!(
            p.sizes(),
            Sizes {
                seed: 13,
                variant: 16,
                diff: 5
            }
        );
    }

    #[test]
    fn unapplying_a_difference_patches_it_out() {
        let p = pair(
            Lang::C,
            "int f(int x) {\n  return x + 1;\n}\n",
            "int f(int x) {\n  x++;\n  return x - 1;\n}\n",
        );
        // Unapply the operator change, keep the inserted statement.
        let op: Vec<u32> = p
            .align
            .hunks
            .iter()
            .filter(|h| h.seed.len() == 1)
            .flat_map(|h| h.units.clone())
            .collect();
        let q = p.after(&PairEdit::unapplying(op));
        let (seed, variant) = q.texts();
        assert_eq!(seed, "int f(int x) {\n  return x + 1;\n}\n");
        assert_eq!(variant, "int f(int x) {\n  x++;\n  return x + 1;\n}\n");
        assert_eq!(q.sizes().diff, 3);
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
        let q = p.after(&p.edit_from(Side::Seed, &Edit::deleting(vec![from..to])));
        assert_eq!(
            q.texts(),
            (
                "fn main() {\n    let b = 2;\n}\n".to_string(),
                "fn main() {\n    let b = 3;\n}\n".to_string()
            )
        );
        assert_eq!(q.variant.size(), 11);
    }

    #[test]
    fn a_reduced_seed_is_patched_with_the_applied_differences() {
        // JavaScript: drop a common statement from the seed, then unapply one of two changes.
        let p = pair(
            Lang::JavaScript,
            "let a = 1;\nlet b = g(a);\nf(a, b);\n",
            "let a = 2;\nlet b = g(a);\nf(b, a);\n",
        );
        let st = &p.seed.tree;
        let from = (0..st.tokens.len() as TokenId)
            .filter(|&i| st.token_text(i) == "let")
            .nth(1)
            .unwrap();
        let q = p.after(&p.edit_from(Side::Seed, &Edit::deleting(vec![from..from + 8])));
        assert_eq!(q.texts().1, "let a = 2;\nf(b, a);\n");
        let first: Vec<u32> = q.align.hunks[0].units.clone().collect();
        assert_eq!(
            q.after(&PairEdit::unapplying(first)).texts(),
            (
                "let a = 1;\nf(a, b);\n".to_string(),
                "let a = 1;\nf(b, a);\n".to_string()
            )
        );
    }
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)]
mod rewrite_tests {
    use super::*;
    use crate::tree::Parser;
    use crate::Lang;

    #[test]
    fn a_rewrite_of_a_shared_token_rewrites_both() {
        let mut p = Parser::new(Lang::C);
        let prog = PairProgram::new(
            p.parse("typedef long L;\nL x = 1;\n"),
            p.parse("typedef long L;\nL x = 2;\n"),
        );
        let st = &prog.seed.tree;
        let uses: Vec<TokenId> = (0..st.tokens.len() as TokenId)
            .filter(|&t| st.token_text(t) == "L")
            .collect();
        // Inline the typedef: its use becomes `long`, the typedef goes.
        let edit = Edit {
            delete: vec![0..uses[0] + 2],
            replace: vec![(uses[1], "long".to_string())],
            ..Edit::default()
        };
        let q = prog.after(&prog.edit_from(Side::Seed, &edit));
        assert_eq!(
            q.texts(),
            ("long x = 1;\n".to_string(), "long x = 2;\n".to_string())
        );
        assert_eq!(q.seed.text(), "long x = 1;\n");
        assert_eq!(q.variant.text(), "long x = 2;\n");
    }
}
