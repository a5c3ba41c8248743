//! The token-list diff of a seed and a variant (`similar`, Myers over token texts), as one
//! merged sequence of *units*: tokens both programs share, and tokens only one has.
//!
//! The merged sequence is what makes a diff patchable in pieces: the seed is its `Both`
//! and `Seed` units, the variant its `Both` and `Variant` units, and a variant with only
//! some differences applied reads `Seed` units where a difference is not applied.

use crate::tree::{TokenId, Tree};
use similar::{capture_diff_slices, Algorithm, DiffOp};
use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// The same token text in both: seed token, variant token.
    Both(TokenId, TokenId),
    /// Only in the seed (deleted by the variant).
    Seed(TokenId),
    /// Only in the variant (inserted).
    Variant(TokenId),
}

impl Unit {
    pub fn is_common(self) -> bool {
        matches!(self, Unit::Both(..))
    }
}

/// One run of differing tokens: what the seed has there and what the variant has instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    /// Units of the merged sequence.
    pub units: Range<u32>,
    pub seed: Range<TokenId>,
    pub variant: Range<TokenId>,
}

#[derive(Clone, Debug)]
pub struct Alignment {
    pub units: Vec<Unit>,
    pub hunks: Vec<Hunk>,
    /// The unit of each seed token, and of each variant token.
    pub seed_unit: Vec<u32>,
    pub variant_unit: Vec<u32>,
}

impl Alignment {
    /// Aligns the tokens of two trees by their texts.
    pub fn new(seed: &Tree, variant: &Tree) -> Alignment {
        let (a, b) = (token_texts(seed), token_texts(variant));
        let ops = capture_diff_slices(Algorithm::Myers, &a, &b);
        let mut al = Alignment {
            units: Vec::with_capacity(a.len().max(b.len())),
            hunks: Vec::new(),
            seed_unit: vec![0; a.len()],
            variant_unit: vec![0; b.len()],
        };
        for op in ops {
            let (old, new) = (op.old_range(), op.new_range());
            if let DiffOp::Equal { .. } = op {
                for (s, v) in old.zip(new) {
                    al.push(Unit::Both(s as TokenId, v as TokenId));
                }
                continue;
            }
            // Consecutive differing ops make one hunk.
            let start = al.units.len() as u32;
            match al.hunks.last_mut() {
                Some(h) if h.units.end == start => {}
                _ => al.hunks.push(Hunk {
                    units: start..start,
                    seed: old.start as TokenId..old.start as TokenId,
                    variant: new.start as TokenId..new.start as TokenId,
                }),
            }
            for s in old.clone() {
                al.push(Unit::Seed(s as TokenId));
            }
            for v in new.clone() {
                al.push(Unit::Variant(v as TokenId));
            }
            let h = al.hunks.last_mut().unwrap();
            h.units.end = al.units.len() as u32;
            h.seed.end = old.end as TokenId;
            h.variant.end = new.end as TokenId;
        }
        al
    }

    fn push(&mut self, u: Unit) {
        let i = self.units.len() as u32;
        match u {
            Unit::Both(s, v) => {
                self.seed_unit[s as usize] = i;
                self.variant_unit[v as usize] = i;
            }
            Unit::Seed(s) => self.seed_unit[s as usize] = i,
            Unit::Variant(v) => self.variant_unit[v as usize] = i,
        }
        self.units.push(u);
    }
}

fn token_texts(t: &Tree) -> Vec<&str> {
    (0..t.tokens.len() as TokenId)
        .map(|i| t.token_text(i))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Parser;
    use crate::Lang;

    fn hunk_texts(lang: Lang, a: &str, b: &str) -> Vec<(String, String)> {
        let mut p = Parser::new(lang);
        let (ta, tb) = (p.parse(a), p.parse(b));
        let al = Alignment::new(&ta, &tb);
        let join =
            |t: &Tree, r: Range<TokenId>| r.map(|i| t.token_text(i)).collect::<Vec<_>>().join(" ");
        al.hunks
            .iter()
            .map(|h| (join(&ta, h.seed.clone()), join(&tb, h.variant.clone())))
            .collect()
    }

    #[test]
    fn c_hunks_are_the_changed_tokens() {
        let h = hunk_texts(
            Lang::C,
            "int f(int a) { return a + 1; }",
            "int f(int a) { return a - 1; }",
        );
        assert_eq!(h, vec![("+".to_string(), "-".to_string())]);
        let h = hunk_texts(Lang::C, "int x; int y;", "int x; long z; int y;");
        assert_eq!(h, vec![(String::new(), "long z ;".to_string())]);
    }

    #[test]
    fn rust_and_javascript_hunks() {
        let h = hunk_texts(
            Lang::Rust,
            "fn main() { let x = 1; }",
            "fn main() { let mut x = 2; }",
        );
        assert_eq!(
            h,
            vec![
                (String::new(), "mut".to_string()),
                ("1".to_string(), "2".to_string())
            ]
        );
        let h = hunk_texts(Lang::JavaScript, "f(a, b);", "f(b);");
        assert_eq!(h, vec![("a ,".to_string(), String::new())]);
    }

    #[test]
    fn units_cover_both_programs_in_order() {
        let mut p = Parser::new(Lang::Java);
        let (a, b) = (
            p.parse("class A { int x = 1; void f() {} }"),
            p.parse("class A { void f() { g(); } int y; }"),
        );
        let al = Alignment::new(&a, &b);
        let seed: Vec<TokenId> = al
            .units
            .iter()
            .filter_map(|u| match *u {
                Unit::Both(s, _) | Unit::Seed(s) => Some(s),
                _ => None,
            })
            .collect();
        let variant: Vec<TokenId> = al
            .units
            .iter()
            .filter_map(|u| match *u {
                Unit::Both(_, v) | Unit::Variant(v) => Some(v),
                _ => None,
            })
            .collect();
        assert_eq!(seed, (0..a.tokens.len() as TokenId).collect::<Vec<_>>());
        assert_eq!(variant, (0..b.tokens.len() as TokenId).collect::<Vec<_>>());
    }
}
