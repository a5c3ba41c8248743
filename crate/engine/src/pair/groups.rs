//! The differences of a pair in pieces that MinTDiff and MinLDiff unapply as a whole:
//! tree edits (a deleted, inserted, updated or moved subtree; a replacement's two sides
//! together) and token hunks.

use super::align::Unit;
use super::program::PairProgram;
use super::treediff::{match_trees, Mapping};
use crate::tree::{NodeId, Tree};
use std::collections::HashMap;

/// What a differing token belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key {
    /// The largest unmatched subtree of the seed around it.
    Delete(NodeId),
    /// The largest unmatched subtree of the variant around it.
    Insert(NodeId),
    /// A matched pair of subtrees whose tokens all differ (updated or moved).
    Matched(NodeId, NodeId),
}

/// Counted common tokens under each node: a prefix sum over tokens.
struct CommonCount(Vec<u32>);

impl CommonCount {
    fn new(t: &Tree, unit_of: &[u32], units: &[Unit]) -> CommonCount {
        let mut c = Vec::with_capacity(t.tokens.len() + 1);
        c.push(0);
        for &u in unit_of {
            c.push(c.last().unwrap() + units[u as usize].is_common() as u32);
        }
        CommonCount(c)
    }

    fn of(&self, t: &Tree, n: NodeId) -> u32 {
        let r = t.node(n).tokens();
        self.0[r.end as usize] - self.0[r.start as usize]
    }
}

/// The key of a differing token whose leaf is `leaf` in tree `t` (mapped by `map`).
fn key_of(t: &Tree, map: &[Option<NodeId>], common: &CommonCount, leaf: NodeId) -> (NodeId, bool) {
    let mut x = leaf;
    if map[leaf as usize].is_none() {
        while let Some(p) = t.node(x).parent.filter(|&p| map[p as usize].is_none()) {
            x = p;
        }
        (x, false)
    } else {
        while let Some(p) = t
            .node(x)
            .parent
            .filter(|&p| map[p as usize].is_some() && common.of(t, p) == 0)
        {
            x = p;
        }
        (x, true)
    }
}

/// Groups of differing units, one per tree edit, in the order they appear.
pub fn tree_groups(prog: &PairProgram) -> Vec<Vec<u32>> {
    let (a, b) = (&prog.seed.tree, &prog.variant.tree);
    let m = match_trees(a, b);
    tree_groups_with(prog, &m)
}

fn tree_groups_with(prog: &PairProgram, m: &Mapping) -> Vec<Vec<u32>> {
    let (a, b) = (&prog.seed.tree, &prog.variant.tree);
    let al = &prog.align;
    let (ca, cb) = (
        CommonCount::new(a, &al.seed_unit, &al.units),
        CommonCount::new(b, &al.variant_unit, &al.units),
    );
    let mut keys: Vec<Key> = Vec::new();
    let mut key_ids: HashMap<Key, usize> = HashMap::new();
    let mut unit_key: Vec<(u32, usize)> = Vec::new();
    for u in 0..al.units.len() as u32 {
        if !prog.differs(u) {
            continue;
        }
        let key = match al.units[u as usize] {
            Unit::Seed(t) => match key_of(a, &m.a, &ca, a.tokens[t as usize].node) {
                (x, false) => Key::Delete(x),
                (x, true) => Key::Matched(x, m.a[x as usize].unwrap()),
            },
            Unit::Variant(t) => match key_of(b, &m.b, &cb, b.tokens[t as usize].node) {
                (y, false) => Key::Insert(y),
                (y, true) => Key::Matched(m.b[y as usize].unwrap(), y),
            },
            Unit::Both(..) => continue,
        };
        let id = *key_ids.entry(key).or_insert_with(|| {
            keys.push(key);
            keys.len() - 1
        });
        unit_key.push((u, id));
    }
    // A deletion and an insertion under matched parents that overlap in the merged
    // sequence, or meet with no common token between them, are one replacement.
    let mut common_before = Vec::with_capacity(al.units.len() + 1);
    common_before.push(0u32);
    for unit in &al.units {
        common_before.push(common_before.last().unwrap() + unit.is_common() as u32);
    }
    let meet = |(s1, e1): (u32, u32), (s2, e2): (u32, u32)| {
        let ((_, e1), (s2, _)) = if s1 <= s2 {
            ((s1, e1), (s2, e2))
        } else {
            ((s2, e2), (s1, e1))
        };
        s2 <= e1 || common_before[s2 as usize] == common_before[e1 as usize + 1]
    };
    let span = |t: &Tree, unit_of: &[u32], n: NodeId| {
        let r = t.node(n).tokens();
        (!r.is_empty()).then(|| (unit_of[r.start as usize], unit_of[r.end as usize - 1]))
    };
    let mut inserts: HashMap<NodeId, Vec<usize>> = HashMap::new();
    for (id, k) in keys.iter().enumerate() {
        if let Key::Insert(y) = *k {
            if let Some(p) = b.node(y).parent {
                inserts.entry(p).or_default().push(id);
            }
        }
    }
    let mut uf: Vec<usize> = (0..keys.len()).collect();
    for (id, k) in keys.iter().enumerate() {
        let Key::Delete(x) = *k else { continue };
        let Some(pb) = a.node(x).parent.and_then(|p| m.a[p as usize]) else {
            continue;
        };
        let Some(del) = span(a, &al.seed_unit, x) else {
            continue;
        };
        for &other in inserts.get(&pb).into_iter().flatten() {
            let Key::Insert(y) = keys[other] else {
                unreachable!()
            };
            if let Some(ins) = span(b, &al.variant_unit, y) {
                if meet(del, ins) {
                    union(&mut uf, id, other);
                }
            }
        }
    }
    let mut groups: Vec<Vec<u32>> = Vec::new();
    let mut group_of: HashMap<usize, usize> = HashMap::new();
    for (u, id) in unit_key {
        let root = find(&mut uf, id);
        let g = *group_of.entry(root).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(u);
    }
    groups
}

fn find(uf: &mut [usize], mut i: usize) -> usize {
    while uf[i] != i {
        uf[i] = uf[uf[i]];
        i = uf[i];
    }
    i
}

fn union(uf: &mut [usize], i: usize, j: usize) {
    let (ri, rj) = (find(uf, i), find(uf, j));
    if ri != rj {
        uf[ri.max(rj)] = ri.min(rj);
    }
}

/// Groups of differing units, one per token hunk.
pub fn hunk_groups(prog: &PairProgram) -> Vec<Vec<u32>> {
    prog.align
        .hunks
        .iter()
        .map(|h| {
            h.units
                .clone()
                .filter(|&u| prog.differs(u))
                .collect::<Vec<u32>>()
        })
        .filter(|g| !g.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Parser;
    use crate::Lang;

    /// Each group as `seed tokens -> variant tokens`.
    fn describe(
        lang: Lang,
        a: &str,
        b: &str,
        groups: fn(&PairProgram) -> Vec<Vec<u32>>,
    ) -> Vec<String> {
        let mut p = Parser::new(lang);
        let prog = PairProgram::new(p.parse(a), p.parse(b));
        let (st, vt) = (&prog.seed.tree, &prog.variant.tree);
        groups(&prog)
            .iter()
            .map(|g| {
                let side = |want_seed: bool| {
                    g.iter()
                        .filter_map(|&u| match prog.units()[u as usize] {
                            Unit::Seed(t) if want_seed => Some(st.token_text(t)),
                            Unit::Variant(t) if !want_seed => Some(vt.token_text(t)),
                            _ => None,
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                format!("{} -> {}", side(true), side(false))
                    .trim()
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn c_replacement_is_one_group_independent_edits_are_not() {
        let g = describe(
            Lang::C,
            "int f(int a) {\n  if (a == 17) return 1;\n  g(a);\n  return 0;\n}\n",
            "int f(int a) {\n  if (a != 17) return 1;\n  return 2;\n}\n",
            tree_groups,
        );
        assert_eq!(g, vec!["== -> !=", "g ( a ) ; ->", "0 -> 2"]);
    }

    #[test]
    fn rust_replaced_statement_spans_hunks_but_is_one_edit() {
        // `if` becomes `while`: the tokens in between are common, the edit is one.
        let g = describe(
            Lang::Rust,
            "fn f(a: bool) {\n    if a { g(); }\n    h();\n}\n",
            "fn f(a: bool) {\n    while a { g(); }\n    h();\n}\n",
            tree_groups,
        );
        assert_eq!(g, vec!["if -> while"]);
    }

    #[test]
    fn java_hunks_follow_the_token_diff() {
        let g = describe(
            Lang::Java,
            "class A { int f(int n) { return n + 1; } }",
            "class A { long f(int n) { return n * 1; } }",
            hunk_groups,
        );
        assert_eq!(g, vec!["int -> long", "+ -> *"]);
    }

    #[test]
    fn cpp_inserted_statements_are_separate_edits() {
        let g = describe(
            Lang::Cpp,
            "int main() {\n  int x = 0;\n  return x;\n}\n",
            "int main() {\n  int x = 0;\n  x += 1;\n  x *= 2;\n  return x;\n}\n",
            tree_groups,
        );
        assert_eq!(g, vec!["-> x += 1 ;", "-> x *= 2 ;"]);
    }
}
