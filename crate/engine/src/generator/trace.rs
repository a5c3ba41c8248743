//! A generator's run as a tree of its decisions (GReduce's trace): plain choices, reducible
//! loops (a count, then its iterations) and reducible selections (a `maybe` that was taken,
//! with its body). The *units* of reduction are loop iterations and taken selections'
//! bodies; deleting one means a replay runs one iteration fewer, or takes the `no` branch.

use serde::Serialize;
use std::rc::Rc;

/// One decision of a run, with what was decided inside it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Node {
    /// An integer in `lo..=hi`, or an index into a list of choices.
    Int {
        label: Rc<str>,
        value: i64,
        /// Its range, for the `choose` pass (not shown: the value is what was decided).
        #[serde(skip)]
        lo: i64,
        #[serde(skip)]
        hi: i64,
        /// For a pick from named things, the name of the one picked: a replay picks it again
        /// wherever it now is in the list (deleting an earlier one moves it).
        #[serde(skip_serializing_if = "Option::is_none")]
        key: Option<Rc<str>>,
    },
    /// A reducible loop: its iterations, in order.
    Loop {
        label: Rc<str>,
        iterations: Vec<Vec<Node>>,
    },
    /// A reducible selection: its body when it was taken.
    Maybe {
        label: Rc<str>,
        body: Option<Vec<Node>>,
    },
}

impl Node {
    pub fn label(&self) -> &str {
        match self {
            Node::Int { label, .. } | Node::Loop { label, .. } | Node::Maybe { label, .. } => label,
        }
    }
}

/// A whole run: the top-level decisions in order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Trace {
    pub nodes: Vec<Node>,
}

/// A unit of reduction, numbered in preorder.
#[derive(Clone, Debug)]
pub struct TraceUnit {
    /// How many units enclose it (0 at the top).
    pub depth: usize,
    /// The unit that encloses it, if any.
    pub parent: Option<u32>,
}

impl Trace {
    /// The units in preorder (loop iterations and taken selections' bodies).
    pub fn units(&self) -> Vec<TraceUnit> {
        fn walk(nodes: &[Node], parent: Option<u32>, depth: usize, out: &mut Vec<TraceUnit>) {
            for inner in nodes.iter().flat_map(contents) {
                let id = out.len() as u32;
                out.push(TraceUnit { depth, parent });
                walk(inner, Some(id), depth + 1, out);
            }
        }
        let mut out = Vec::new();
        walk(&self.nodes, None, 0, &mut out);
        out
    }

    /// The trace without the `deleted` units (by preorder number, as [`Trace::units`]).
    pub fn without(&self, deleted: &[bool]) -> Trace {
        fn walk(nodes: &[Node], deleted: &[bool], next: &mut usize) -> Vec<Node> {
            let mut out = Vec::new();
            for n in nodes {
                out.push(match n {
                    Node::Int { .. } | Node::Maybe { body: None, .. } => n.clone(),
                    Node::Loop { label, iterations } => {
                        let mut kept = Vec::new();
                        for it in iterations {
                            let id = *next;
                            *next += 1;
                            let inner = walk(it, deleted, next);
                            if !deleted.get(id).copied().unwrap_or(false) {
                                kept.push(inner);
                            }
                        }
                        Node::Loop {
                            label: label.clone(),
                            iterations: kept,
                        }
                    }
                    Node::Maybe {
                        label,
                        body: Some(body),
                    } => {
                        let id = *next;
                        *next += 1;
                        let inner = walk(body, deleted, next);
                        Node::Maybe {
                            label: label.clone(),
                            body: (!deleted.get(id).copied().unwrap_or(false)).then_some(inner),
                        }
                    }
                });
            }
            out
        }
        Trace {
            nodes: walk(&self.nodes, deleted, &mut 0),
        }
    }

    /// For each unit in preorder that has any, the units inside it of its own label and kind
    /// (iterations of a loop of the same label, or bodies of a selection of the same label),
    /// in preorder: what it can be replaced by.
    pub fn same_kind_descendants(&self) -> Vec<(u32, Vec<u32>)> {
        // The units enclosing the walk's position, with their label and kind.
        struct Open<'a> {
            id: u32,
            label: &'a str,
            iteration: bool,
            found: Vec<u32>,
        }
        fn enter<'a>(id: u32, label: &'a str, iteration: bool, open: &mut [Open<'a>]) {
            for o in open
                .iter_mut()
                .filter(|o| o.label == label && o.iteration == iteration)
            {
                o.found.push(id);
            }
        }
        fn walk<'a>(
            nodes: &'a [Node],
            next: &mut u32,
            open: &mut Vec<Open<'a>>,
            out: &mut Vec<(u32, Vec<u32>)>,
        ) {
            for n in nodes {
                let (label, iteration) = (n.label(), matches!(n, Node::Loop { .. }));
                for inner in contents(n) {
                    let id = *next;
                    *next += 1;
                    enter(id, label, iteration, open);
                    open.push(Open {
                        id,
                        label,
                        iteration,
                        found: Vec::new(),
                    });
                    walk(inner, next, open, out);
                    let done = open.pop().expect("pushed above");
                    if !done.found.is_empty() {
                        out.push((done.id, done.found));
                    }
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.nodes, &mut 0, &mut Vec::new(), &mut out);
        out.sort_by_key(|(id, _)| *id);
        out
    }

    /// The trace with unit `target`'s decisions replaced by a copy of unit `source`'s: an
    /// iteration or a selection's body made of what one inside it decided (Perses's
    /// replacement of a node by a compatible descendant, on the trace).
    pub fn replaced(&self, target: u32, source: u32) -> Trace {
        let mut out = self.clone();
        if let Some(with) = unit_mut(&mut out.nodes, source, &mut 0).map(|c| c.clone()) {
            if let Some(unit) = unit_mut(&mut out.nodes, target, &mut 0) {
                *unit = with;
            }
        }
        out
    }

    /// The plain decisions (integers and picks) in the order the run made them: their value
    /// and range.
    pub fn ints(&self) -> Vec<(i64, i64, i64)> {
        fn walk(nodes: &[Node], out: &mut Vec<(i64, i64, i64)>) {
            for n in nodes {
                match n {
                    Node::Int { value, lo, hi, .. } => out.push((*value, *lo, *hi)),
                    _ => contents(n).into_iter().for_each(|inner| walk(inner, out)),
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.nodes, &mut out);
        out
    }

    /// The trace with plain decision `k` (in the order of [`Trace::ints`]) set to `value`.
    pub fn with_int(&self, k: usize, value: i64) -> Trace {
        let mut out = self.clone();
        let mut i = 0;
        visit_ints(&mut out.nodes, &mut |v, key| {
            if i == k {
                *v = value;
                // The value now says which: a pick by name replays it by index.
                *key = None;
            }
            i += 1;
        });
        out
    }

    /// The decisions in the order the run made them (a loop's count before its iterations,
    /// a selection's bit before its body): the flat choice sequence.
    pub fn flat(&self) -> Vec<i64> {
        fn walk(nodes: &[Node], out: &mut Vec<i64>) {
            for n in nodes {
                match n {
                    Node::Int { value, .. } => out.push(*value),
                    Node::Loop { iterations, .. } => {
                        out.push(iterations.len() as i64);
                        iterations.iter().for_each(|it| walk(it, out));
                    }
                    Node::Maybe { body, .. } => {
                        out.push(body.is_some() as i64);
                        if let Some(b) = body {
                            walk(b, out);
                        }
                    }
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.nodes, &mut out);
        out
    }
}

/// Calls `f` on each plain decision's value and name, in the order the run made them.
fn visit_ints(nodes: &mut [Node], f: &mut impl FnMut(&mut i64, &mut Option<Rc<str>>)) {
    for n in nodes {
        match n {
            Node::Int { value, key, .. } => f(value, key),
            Node::Loop { iterations, .. } => iterations.iter_mut().for_each(|it| visit_ints(it, f)),
            Node::Maybe { body, .. } => {
                if let Some(b) = body {
                    visit_ints(b, f);
                }
            }
        }
    }
}

/// What a node holds: a loop's iterations, or a taken selection's body (units, in order).
fn contents(n: &Node) -> Vec<&Vec<Node>> {
    match n {
        Node::Int { .. } | Node::Maybe { body: None, .. } => Vec::new(),
        Node::Loop { iterations, .. } => iterations.iter().collect(),
        Node::Maybe { body: Some(b), .. } => vec![b],
    }
}

/// Unit `want`'s decisions (numbered in preorder from `next`, as [`Trace::units`]).
fn unit_mut<'a>(nodes: &'a mut [Node], want: u32, next: &mut u32) -> Option<&'a mut Vec<Node>> {
    for n in nodes {
        let inners: Vec<&mut Vec<Node>> = match n {
            Node::Int { .. } | Node::Maybe { body: None, .. } => Vec::new(),
            Node::Loop { iterations, .. } => iterations.iter_mut().collect(),
            Node::Maybe { body: Some(b), .. } => vec![b],
        };
        for inner in inners {
            if *next == want {
                return Some(inner);
            }
            *next += 1;
            if let Some(found) = unit_mut(inner, want, next) {
                return Some(found);
            }
        }
    }
    None
}
