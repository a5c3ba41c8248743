//! Perses (Sun et al., ICSE 2018): syntax-guided reduction.
//!
//! Nodes are visited largest first (by token count). For each node: replace it by a
//! compatible descendant (the slot it sits in accepts the descendant's kind), else sweep
//! the elements of each of its repeated slots from the end (see [`Sweep`]), then try
//! deleting each optional child.
//! The session repeats rounds (re-parsing in between) until one makes no progress.

use super::lists::{deletion_edit, list_slots, optional_children, replacements, slot_may_be_empty};
use super::sweep::Sweep;
use super::{chains, Edit, Pass, Program, COARSE_SHARE};
use crate::tree::NodeId;
use std::rc::Rc;

/// How many descendants a node may be replaced by, and how deep to look for them.
const MAX_REPLACEMENTS: usize = 6;
const MAX_REPLACEMENT_DEPTH: u32 = 4;

#[derive(Clone)]
pub struct Perses {
    order: Rc<Vec<NodeId>>,
    cursor: usize,
    work: Option<Work>,
    /// Edits smaller than this many tokens wait for a fine round (0: none wait).
    min_mass: u32,
    deferred: bool,
}

#[derive(Clone)]
enum Work {
    Replace {
        node: NodeId,
        with: Rc<Vec<NodeId>>,
        next: usize,
    },
    Lists {
        node: NodeId,
        slots: Rc<Vec<Vec<NodeId>>>,
        slot: usize,
        dd: Option<(Rc<Vec<NodeId>>, Sweep)>,
    },
    Optional {
        children: Rc<Vec<NodeId>>,
        next: usize,
    },
}

impl Perses {
    pub fn new(prog: &Program, coarse: bool) -> Perses {
        let tree = &prog.tree;
        // Counted tokens before each token, so a node's size is a subtraction.
        let mut before = Vec::with_capacity(tree.tokens.len() + 1);
        before.push(0u32);
        for t in 0..tree.tokens.len() as u32 {
            let counted = prog.kept(t) && tree.is_counted(t);
            before.push(before.last().unwrap() + counted as u32);
        }
        let size = |n: NodeId| {
            let r = tree.node(n).tokens();
            before[r.end as usize] - before[r.start as usize]
        };
        let mut order: Vec<NodeId> = (0..tree.nodes.len() as NodeId)
            .filter(|&n| {
                let node = tree.node(n);
                !node.children.is_empty() && !node.extra && size(n) >= 2
            })
            .collect();
        order.sort_by_key(|&n| (std::cmp::Reverse(size(n)), n));
        let min_mass = if coarse {
            (size(tree.root()) as usize / COARSE_SHARE) as u32
        } else {
            0
        };
        // A coarse round always leaves something for the fine one: the rewrites, at least.
        Perses {
            order: Rc::new(order),
            cursor: 0,
            work: None,
            min_mass,
            deferred: coarse,
        }
    }

    fn start(&self, prog: &Program, node: NodeId) -> Work {
        let tree = &prog.tree;
        let mut with = replacements(tree, node, MAX_REPLACEMENTS, MAX_REPLACEMENT_DEPTH);
        // A chain's inner level (`(((x)))`): replacing it by a level D below takes away the
        // levels from it to D's parent, the same program as its parent replaced by D's parent
        // when that level's own tokens are its parent's. Those repeats go unbuilt (a deep
        // chain made one a level, each the whole program's text to build and look up).
        if let Some(parent) = chains::outer_level(tree, node) {
            let theirs = replacements(tree, parent, MAX_REPLACEMENTS, MAX_REPLACEMENT_DEPTH);
            let frame = chains::frame(prog, parent);
            with.retain(|&d| {
                let above = tree.node(d).parent;
                !(chains::is_below(tree, node, d)
                    && above
                        .is_some_and(|a| theirs.contains(&a) && chains::frame(prog, a) == frame))
            });
        }
        Work::Replace {
            node,
            with: Rc::new(with),
            next: 0,
        }
    }
}

/// Delete all of `node` but `keep`.
fn replace_edit(prog: &Program, node: NodeId, keep: NodeId) -> Edit {
    let (n, k) = (prog.tree.node(node).tokens(), prog.tree.node(keep).tokens());
    Edit::deleting(vec![n.start..k.start, k.end..n.end])
}

impl Pass for Perses {
    fn propose(&mut self, prog: &Program) -> Option<Edit> {
        loop {
            let Some(work) = &mut self.work else {
                let node = *self.order.get(self.cursor)?;
                if prog.alive(node) && prog.size_of(node) >= 2 {
                    self.work = Some(self.start(prog, node));
                } else {
                    self.cursor += 1;
                }
                continue;
            };
            match work {
                Work::Replace { node, with, next } => {
                    if let Some(&d) = with.get(*next) {
                        *next += 1;
                        let edit = replace_edit(prog, *node, d);
                        if prog.alive(d) && edit.changes(prog) {
                            if ((prog.size_of(*node) - prog.size_of(d)) as u32) < self.min_mass {
                                self.deferred = true;
                                continue;
                            }
                            return Some(edit);
                        }
                    } else {
                        let slots = Rc::new(list_slots(&prog.tree, *node));
                        self.work = Some(Work::Lists {
                            node: *node,
                            slots,
                            slot: 0,
                            dd: None,
                        });
                    }
                }
                Work::Lists {
                    node,
                    slots,
                    slot,
                    dd,
                } => {
                    if dd.is_none() {
                        let Some(elems) = slots.get(*slot) else {
                            let children = Rc::new(optional_children(&prog.tree, *node));
                            self.work = Some(Work::Optional { children, next: 0 });
                            continue;
                        };
                        let alive: Vec<NodeId> =
                            elems.iter().copied().filter(|&e| prog.alive(e)).collect();
                        let may_empty = slot_may_be_empty(&prog.tree, elems[0]);
                        let mut chunks = Sweep::new((0..alive.len() as u32).collect(), may_empty);
                        if self.min_mass > 0 {
                            let mass = alive.iter().map(|&e| prog.size_of(e) as u32).collect();
                            chunks = chunks.coarse(Rc::new(mass), self.min_mass);
                        }
                        *dd = Some((Rc::new(alive), chunks));
                    }
                    let (elems, chunks) = dd.as_mut().unwrap();
                    match chunks.propose() {
                        Some(set) => {
                            let doomed: Vec<NodeId> =
                                set.iter().map(|&i| elems[i as usize]).collect();
                            return Some(deletion_edit(prog, &doomed));
                        }
                        None => {
                            self.deferred |= chunks.deferred;
                            *slot += 1;
                            *dd = None;
                        }
                    }
                }
                Work::Optional { children, next } => match children.get(*next) {
                    Some(&c) => {
                        *next += 1;
                        if prog.alive(c) {
                            if (prog.size_of(c) as u32) < self.min_mass {
                                self.deferred = true;
                                continue;
                            }
                            return Some(deletion_edit(prog, &[c]));
                        }
                    }
                    None => {
                        self.work = None;
                        self.cursor += 1;
                    }
                },
            }
        }
    }

    fn accepted(&mut self, _prog: &Program) {
        match &mut self.work {
            // The node is gone; its replacement comes up later in the order.
            Some(Work::Replace { .. }) => {
                self.work = None;
                self.cursor += 1;
            }
            Some(Work::Lists {
                dd: Some((_, chunks)),
                ..
            }) => chunks.accepted(),
            _ => {}
        }
    }

    fn box_clone(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }

    fn deferred(&self) -> bool {
        self.deferred
    }
}
