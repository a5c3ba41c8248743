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
    /// An integer in a range, or an index into a list of choices.
    Int { label: Rc<str>, value: i64 },
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
pub struct Unit {
    /// How many units enclose it (0 at the top).
    pub depth: usize,
    /// The unit that encloses it, if any.
    pub parent: Option<u32>,
}

impl Trace {
    /// The units in preorder (loop iterations and taken selections' bodies).
    pub fn units(&self) -> Vec<Unit> {
        fn walk(nodes: &[Node], parent: Option<u32>, depth: usize, out: &mut Vec<Unit>) {
            for n in nodes {
                match n {
                    Node::Int { .. } | Node::Maybe { body: None, .. } => {}
                    Node::Loop { iterations, .. } => {
                        for it in iterations {
                            let id = out.len() as u32;
                            out.push(Unit { depth, parent });
                            walk(it, Some(id), depth + 1, out);
                        }
                    }
                    Node::Maybe {
                        body: Some(body), ..
                    } => {
                        let id = out.len() as u32;
                        out.push(Unit { depth, parent });
                        walk(body, Some(id), depth + 1, out);
                    }
                }
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
