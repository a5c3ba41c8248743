//! A GumTree-style tree diff (Falleri et al., ASE 2014) between two parse trees.
//!
//! Top-down: identical subtrees (same hash) are matched, tallest first; a subtree with
//! several identical candidates goes to the one whose parent shares most (dice), then to
//! the nearest. Bottom-up: an unmatched container is matched to a container of the same
//! kind that holds most of its matched descendants (dice > 0.5), then their unmatched
//! children are matched by kind ("recovery"). The mapping gives the edit script: delete,
//! insert, update (a matched token whose text changed) and move.

use crate::tree::{NodeId, Tree};
use similar::{capture_diff_slices, Algorithm, DiffOp};
use std::collections::{BinaryHeap, HashMap};
use std::hash::{Hash, Hasher};

/// Subtrees shorter than this are left to the bottom-up phase (single tokens are too
/// ambiguous to match by themselves).
const MIN_HEIGHT: u32 = 2;
/// A container is matched bottom-up when at least this share of descendants agree.
const MIN_DICE: f64 = 0.5;
/// Above this many candidate pairs, identical subtrees are matched in order instead.
const MAX_AMBIGUOUS_PAIRS: usize = 400;
/// Parents bigger than this are not scanned for dice when matching identical subtrees.
const MAX_DICE_SCAN: u32 = 20_000;

/// Per-node facts used by the matcher.
struct Facts {
    hash: Vec<u64>,
    height: Vec<u32>,
    /// Nodes in the subtree, itself included; the subtree of `n` is `n..n + size[n]`
    /// (node ids are in pre-order).
    size: Vec<u32>,
}

impl Facts {
    fn new(t: &Tree) -> Facts {
        let n = t.nodes.len();
        let (mut hash, mut height, mut size) = (vec![0; n], vec![1; n], vec![1; n]);
        for id in (0..n).rev() {
            let node = &t.nodes[id];
            let mut h = std::collections::hash_map::DefaultHasher::new();
            node.kind.hash(&mut h);
            if node.children.is_empty() {
                t.node_text(id as NodeId).hash(&mut h);
            }
            for &c in &node.children {
                hash[c as usize].hash(&mut h);
                height[id] = height[id].max(height[c as usize] + 1);
                size[id] += size[c as usize];
            }
            hash[id] = h.finish();
        }
        Facts { hash, height, size }
    }
}

/// Which node of the other tree each node is matched to.
#[derive(Clone, Debug)]
pub struct Mapping {
    pub a: Vec<Option<NodeId>>,
    pub b: Vec<Option<NodeId>>,
}

impl Mapping {
    fn link(&mut self, x: NodeId, y: NodeId) {
        self.a[x as usize] = Some(y);
        self.b[y as usize] = Some(x);
    }

    pub fn len(&self) -> usize {
        self.a.iter().filter(|m| m.is_some()).count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

struct Matcher<'a> {
    a: &'a Tree,
    b: &'a Tree,
    fa: Facts,
    fb: Facts,
    m: Mapping,
}

/// Matches the nodes of `a` to those of `b`.
pub fn match_trees(a: &Tree, b: &Tree) -> Mapping {
    let mut mt = Matcher {
        a,
        b,
        fa: Facts::new(a),
        fb: Facts::new(b),
        m: Mapping {
            a: vec![None; a.nodes.len()],
            b: vec![None; b.nodes.len()],
        },
    };
    if !a.nodes.is_empty() && !b.nodes.is_empty() {
        mt.top_down();
        mt.bottom_up();
    }
    mt.m
}

impl Matcher<'_> {
    /// Matches `x` and `y`, which are identical, and all their descendants pairwise.
    fn link_subtrees(&mut self, x: NodeId, y: NodeId) {
        for k in 0..self.fa.size[x as usize] {
            self.m.link(x + k, y + k);
        }
    }

    fn top_down(&mut self) {
        let mut la: BinaryHeap<(u32, std::cmp::Reverse<NodeId>)> = BinaryHeap::new();
        let mut lb = la.clone();
        la.push((self.fa.height[0], std::cmp::Reverse(0)));
        lb.push((self.fb.height[0], std::cmp::Reverse(0)));
        while let (Some(&(ha, _)), Some(&(hb, _))) = (la.peek(), lb.peek()) {
            if ha.min(hb) < MIN_HEIGHT {
                break;
            }
            if ha != hb {
                // Only the taller side can hold something the other lacks at this height.
                let (list, tree) = if ha > hb {
                    (&mut la, self.a)
                } else {
                    (&mut lb, self.b)
                };
                let h = ha.max(hb);
                for n in pop_height(list, h) {
                    open(list, tree, if ha > hb { &self.fa } else { &self.fb }, n);
                }
                continue;
            }
            let (xs, ys) = (pop_height(&mut la, ha), pop_height(&mut lb, ha));
            let mut by_hash: HashMap<u64, (Vec<NodeId>, Vec<NodeId>)> = HashMap::new();
            for &x in &xs {
                by_hash
                    .entry(self.fa.hash[x as usize])
                    .or_default()
                    .0
                    .push(x);
            }
            for &y in &ys {
                by_hash
                    .entry(self.fb.hash[y as usize])
                    .or_default()
                    .1
                    .push(y);
            }
            // In the order of the seed, for determinism.
            let mut groups: Vec<(Vec<NodeId>, Vec<NodeId>)> = by_hash
                .into_values()
                .filter(|(x, y)| !x.is_empty() && !y.is_empty())
                .collect();
            groups.sort_by_key(|(x, _)| x[0]);
            for (gx, gy) in groups {
                if gx.len() == 1 && gy.len() == 1 {
                    self.link_subtrees(gx[0], gy[0]);
                } else {
                    self.match_ambiguous(&gx, &gy);
                }
            }
            for x in xs {
                if self.m.a[x as usize].is_none() {
                    open(&mut la, self.a, &self.fa, x);
                }
            }
            for y in ys {
                if self.m.b[y as usize].is_none() {
                    open(&mut lb, self.b, &self.fb, y);
                }
            }
        }
    }

    /// Identical subtrees with several candidates: best parent dice first, then nearest.
    fn match_ambiguous(&mut self, xs: &[NodeId], ys: &[NodeId]) {
        if xs.len() * ys.len() > MAX_AMBIGUOUS_PAIRS {
            for (&x, &y) in xs.iter().zip(ys) {
                self.link_subtrees(x, y);
            }
            return;
        }
        let (na, nb) = (self.a.nodes.len() as f64, self.b.nodes.len() as f64);
        let mut pairs: Vec<(f64, f64, NodeId, NodeId)> = Vec::new();
        for &x in xs {
            for &y in ys {
                let dice = match (self.a.node(x).parent, self.b.node(y).parent) {
                    (Some(px), Some(py)) => self.dice(px, py, MAX_DICE_SCAN),
                    _ => 0.0,
                };
                let distance = (x as f64 / na - y as f64 / nb).abs();
                pairs.push((dice, distance, x, y));
            }
        }
        pairs.sort_by(|p, q| {
            q.0.total_cmp(&p.0)
                .then(p.1.total_cmp(&q.1))
                .then((p.2, p.3).cmp(&(q.2, q.3)))
        });
        for (_, _, x, y) in pairs {
            if self.m.a[x as usize].is_none() && self.m.b[y as usize].is_none() {
                self.link_subtrees(x, y);
            }
        }
    }

    /// Share of descendants of `x` and `y` matched to each other; 0 when `x` is bigger than `scan`.
    fn dice(&self, x: NodeId, y: NodeId, scan: u32) -> f64 {
        let (sx, sy) = (self.fa.size[x as usize], self.fb.size[y as usize]);
        if sx > scan || sx + sy <= 2 {
            return 0.0;
        }
        let ys = y + 1..y + sy;
        let common = (x + 1..x + sx)
            .filter(|&d| self.m.a[d as usize].is_some_and(|p| ys.contains(&p)))
            .count();
        2.0 * common as f64 / (sx + sy - 2) as f64
    }

    fn bottom_up(&mut self) {
        for x in post_order(self.a) {
            if self.m.a[x as usize].is_some() || self.a.node(x).children.is_empty() {
                continue;
            }
            if x == 0 {
                if self.m.b[0].is_none() && self.a.node(0).kind == self.b.node(0).kind {
                    self.m.link(0, 0);
                    self.recover(0, 0);
                }
                continue;
            }
            let kind = self.a.node(x).kind;
            let mut best: Option<(f64, NodeId)> = None;
            for y in self.candidates(x) {
                if self.m.b[y as usize].is_some() || self.b.node(y).kind != kind {
                    continue;
                }
                let d = self.dice(x, y, u32::MAX);
                if d > MIN_DICE && best.is_none_or(|(bd, by)| d > bd || d == bd && y < by) {
                    best = Some((d, y));
                }
            }
            if let Some((_, y)) = best {
                self.m.link(x, y);
                self.recover(x, y);
            }
        }
    }

    /// Containers of `b` that may match `x`: the parents of its matched children's
    /// partners, or, when no child is matched, the nearest ancestors of its matched
    /// descendants' partners at the same distance.
    fn candidates(&self, x: NodeId) -> Vec<NodeId> {
        let mut out: Vec<NodeId> = Vec::new();
        for &c in &self.a.node(x).children {
            if let Some(p) = self.m.a[c as usize].and_then(|y| self.b.node(y).parent) {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
        if out.is_empty() {
            let depth = self.a.node(x).depth;
            let end = x + self.fa.size[x as usize];
            for d in (x + 1..end)
                .filter(|&d| self.m.a[d as usize].is_some())
                .take(16)
            {
                let mut y = self.m.a[d as usize].unwrap();
                for _ in depth..self.a.node(d).depth {
                    match self.b.node(y).parent {
                        Some(p) => y = p,
                        None => break,
                    }
                }
                if !out.contains(&y) {
                    out.push(y);
                }
            }
        }
        out
    }

    /// Matches the unmatched children of matched `x` and `y`: identical ones first, then
    /// containers of the same kind with mostly the same tokens, then the rest of the same
    /// kind in order; recursively.
    fn recover(&mut self, x: NodeId, y: NodeId) {
        let (mut free_a, mut free_b) = self.free_children(x, y);
        if free_a.is_empty() || free_b.is_empty() {
            return;
        }
        let ha: Vec<u64> = free_a.iter().map(|&c| self.fa.hash[c as usize]).collect();
        let hb: Vec<u64> = free_b.iter().map(|&c| self.fb.hash[c as usize]).collect();
        for (i, j) in common_pairs(&ha, &hb) {
            self.link_subtrees(free_a[i], free_b[j]);
        }
        (free_a, free_b) = self.free_children(x, y);
        if free_a.len() * free_b.len() <= MAX_AMBIGUOUS_PAIRS {
            let bags_b: Vec<Vec<u64>> = free_b.iter().map(|&c| token_bag(self.b, c)).collect();
            let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
            for (i, &cx) in free_a.iter().enumerate() {
                let (node, bag) = (self.a.node(cx), token_bag(self.a, cx));
                for (j, &cy) in free_b.iter().enumerate() {
                    if node.children.is_empty()
                        || self.b.node(cy).kind != node.kind
                        || self.b.node(cy).children.is_empty()
                    {
                        continue;
                    }
                    let sim = bag_dice(&bag, &bags_b[j]);
                    if sim >= MIN_DICE {
                        pairs.push((sim, i, j));
                    }
                }
            }
            pairs.sort_by(|p, q| q.0.total_cmp(&p.0).then((p.1, p.2).cmp(&(q.1, q.2))));
            for (_, i, j) in pairs {
                let (cx, cy) = (free_a[i], free_b[j]);
                if self.m.a[cx as usize].is_none() && self.m.b[cy as usize].is_none() {
                    self.m.link(cx, cy);
                    self.recover(cx, cy);
                }
            }
            (free_a, free_b) = self.free_children(x, y);
        }
        let ka: Vec<(&str, bool)> = free_a
            .iter()
            .map(|&c| (self.a.node(c).kind, self.a.node(c).children.is_empty()))
            .collect();
        let kb: Vec<(&str, bool)> = free_b
            .iter()
            .map(|&c| (self.b.node(c).kind, self.b.node(c).children.is_empty()))
            .collect();
        for (i, j) in common_pairs(&ka, &kb) {
            self.m.link(free_a[i], free_b[j]);
            self.recover(free_a[i], free_b[j]);
        }
    }

    fn free_children(&self, x: NodeId, y: NodeId) -> (Vec<NodeId>, Vec<NodeId>) {
        let a = self
            .a
            .node(x)
            .children
            .iter()
            .copied()
            .filter(|&c| self.m.a[c as usize].is_none())
            .collect();
        let b = self
            .b
            .node(y)
            .children
            .iter()
            .copied()
            .filter(|&c| self.m.b[c as usize].is_none())
            .collect();
        (a, b)
    }
}

/// The hashed texts of a subtree's tokens, sorted: a bag to compare contents by.
fn token_bag(t: &Tree, n: NodeId) -> Vec<u64> {
    let mut bag: Vec<u64> = t
        .node(n)
        .tokens()
        .map(|tok| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            t.token_text(tok).hash(&mut h);
            h.finish()
        })
        .collect();
    bag.sort_unstable();
    bag
}

/// Dice similarity of two sorted bags.
fn bag_dice(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    2.0 * crate::sorted::common(a, b) as f64 / (a.len() + b.len()) as f64
}

/// Node ids children first, left to right.
fn post_order(t: &Tree) -> Vec<NodeId> {
    let mut out = Vec::with_capacity(t.nodes.len());
    let mut stack: Vec<(NodeId, usize)> = vec![(t.root(), 0)];
    while let Some((n, i)) = stack.pop() {
        match t.node(n).children.get(i) {
            Some(&c) => {
                stack.push((n, i + 1));
                stack.push((c, 0));
            }
            None => out.push(n),
        }
    }
    out
}

/// Index pairs of a longest common subsequence of `a` and `b`.
fn common_pairs<T: Hash + Eq + Ord>(a: &[T], b: &[T]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, a, b) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            out.extend((0..len).map(|k| (old_index + k, new_index + k)));
        }
    }
    out
}

fn pop_height(list: &mut BinaryHeap<(u32, std::cmp::Reverse<NodeId>)>, h: u32) -> Vec<NodeId> {
    let mut out = Vec::new();
    while list.peek().is_some_and(|&(ph, _)| ph == h) {
        out.push(list.pop().unwrap().1 .0);
    }
    out.sort_unstable();
    out
}

fn open(
    list: &mut BinaryHeap<(u32, std::cmp::Reverse<NodeId>)>,
    tree: &Tree,
    facts: &Facts,
    n: NodeId,
) {
    for &c in &tree.node(n).children {
        list.push((facts.height[c as usize], std::cmp::Reverse(c)));
    }
}

/// One step of the edit script from `a` to `b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeEdit {
    /// A subtree of `a` that `b` does not have.
    Delete(NodeId),
    /// A subtree of `b` that `a` does not have.
    Insert(NodeId),
    /// A matched token whose text changed.
    Update(NodeId, NodeId),
    /// A matched subtree under a different parent.
    Move(NodeId, NodeId),
}

/// The edit script of a mapping, in the order of `a` (deletes, updates, moves) then `b`
/// (inserts).
pub fn edit_script(a: &Tree, b: &Tree, m: &Mapping) -> Vec<TreeEdit> {
    let mut out = Vec::new();
    for x in 0..a.nodes.len() as NodeId {
        let parent = a.node(x).parent;
        match m.a[x as usize] {
            None if parent.is_none_or(|p| m.a[p as usize].is_some()) => {
                out.push(TreeEdit::Delete(x))
            }
            None => {}
            Some(y) => {
                if a.node(x).children.is_empty() && a.node_text(x) != b.node_text(y) {
                    out.push(TreeEdit::Update(x, y));
                }
                if let (Some(px), Some(py)) = (parent, b.node(y).parent) {
                    if m.a[px as usize].is_some_and(|q| q != py) {
                        out.push(TreeEdit::Move(x, y));
                    }
                }
            }
        }
    }
    for y in 0..b.nodes.len() as NodeId {
        if m.b[y as usize].is_none() && b.node(y).parent.is_none_or(|p| m.b[p as usize].is_some()) {
            out.push(TreeEdit::Insert(y));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Parser;
    use crate::Lang;

    fn script(lang: Lang, a: &str, b: &str) -> (Tree, Tree, Vec<TreeEdit>) {
        let mut p = Parser::new(lang);
        let (ta, tb) = (p.parse(a), p.parse(b));
        let m = match_trees(&ta, &tb);
        let e = edit_script(&ta, &tb, &m);
        (ta, tb, e)
    }

    /// Edits as readable strings: `-text`, `+text`, `text->text`, `~text`.
    fn describe(a: &Tree, b: &Tree, edits: &[TreeEdit]) -> Vec<String> {
        edits
            .iter()
            .map(|e| match *e {
                TreeEdit::Delete(x) => format!("-{}", a.node_text(x)),
                TreeEdit::Insert(y) => format!("+{}", b.node_text(y)),
                TreeEdit::Update(x, y) => format!("{}->{}", a.node_text(x), b.node_text(y)),
                TreeEdit::Move(x, _) => format!("~{}", a.node_text(x)),
            })
            .collect()
    }

    #[test]
    fn identical_trees_match_completely() {
        let text = "int f(int a) { return a * 2; }\nint main(void) { return f(3); }\n";
        let (a, b, e) = script(Lang::C, text, text);
        assert!(e.is_empty(), "{:?}", describe(&a, &b, &e));
        let m = match_trees(&a, &b);
        assert_eq!(m.len(), a.nodes.len());
    }

    #[test]
    fn c_changed_operator_is_a_replacement_in_a_matched_expression() {
        let (a, b, e) = script(
            Lang::C,
            "int f(int a) { if (a == 17) return 1; return 0; }",
            "int f(int a) { if (a != 17) return 1; return 0; }",
        );
        assert_eq!(describe(&a, &b, &e), vec!["-==", "+!="]);
        let m = match_trees(&a, &b);
        // The comparison is matched, so the two edits sit under the same parent.
        let (TreeEdit::Delete(x), TreeEdit::Insert(y)) = (e[0], e[1]) else {
            panic!()
        };
        assert_eq!(m.a[a.node(x).parent.unwrap() as usize], b.node(y).parent);
    }

    #[test]
    fn c_deleted_statement_and_updated_literal() {
        let (a, b, e) = script(
            Lang::C,
            "void g(void);\nint f(int x) {\n  g();\n  x = x + 1;\n  return x;\n}\n",
            "void g(void);\nint f(int x) {\n  x = x + 2;\n  return x;\n}\n",
        );
        assert_eq!(describe(&a, &b, &e), vec!["-g();", "1->2"]);
    }

    #[test]
    fn rust_inserted_statement() {
        let (a, b, e) = script(
            Lang::Rust,
            "fn main() {\n    let x = 1;\n    println!(\"{}\", x);\n}\n",
            "fn main() {\n    let x = 1;\n    let y = x;\n    println!(\"{}\", x);\n}\n",
        );
        assert_eq!(describe(&a, &b, &e), vec!["+let y = x;"]);
    }

    #[test]
    fn javascript_moved_statement_is_a_move() {
        let (a, b, e) = script(
            Lang::JavaScript,
            "function f(a) { let b = a + 1; let c = b * 2; return c; }\nfunction g(x) { let y = x - 1; h(1, 2, 3); return y; }\n",
            "function f(a) { let b = a + 1; h(1, 2, 3); let c = b * 2; return c; }\nfunction g(x) { let y = x - 1; return y; }\n",
        );
        assert!(
            describe(&a, &b, &e).contains(&"~h(1, 2, 3);".to_string()),
            "{:?}",
            describe(&a, &b, &e)
        );
    }

    #[test]
    fn java_renamed_identifier_is_an_update() {
        let (a, b, e) = script(
            Lang::Java,
            "class A { int count(int n) { return n + 1; } }",
            "class A { int count(int m) { return m + 1; } }",
        );
        assert_eq!(describe(&a, &b, &e), vec!["n->m", "n->m"]);
    }
}
