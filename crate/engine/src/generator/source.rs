//! Where a generator's decisions come from, and how its run is recorded. A generator asks its
//! [`Source`] for every random choice; the source answers from a seeded pseudo-random
//! sequence (a free run), from a reduced trace aligned to the new run (GReduce's replay), or
//! from a flat sequence of values (the choice-sequence baseline), and records the run as a
//! [`Trace`] either way.

use super::trace::{Node, Trace};
use crate::rng::Rng;
use std::rc::Rc;

/// What a replay does when the run asks for a decision the reduced trace has no match for
/// at that point (GReduce §4.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// Give up on this candidate.
    Halt,
    /// Drop the rest of the enclosing iteration or selection body: its remaining decisions
    /// take their smallest values, and alignment resumes after it. At the top level, halt.
    Bypass,
    /// Take the smallest value for the misaligned decision, and align later ones with the
    /// next recorded decision of the same label.
    Realign,
}

whittle_grammars::names!(Align {
    Halt => "halt",
    Bypass => "bypass",
    Realign => "realign",
});

/// The run could not go on: a replay that halted, or a generator that broke the protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Halt(pub String);

/// A scope of the replayed trace: the recorded decisions left to align with, and for a loop
/// the iterations left.
#[derive(Debug)]
enum Frame {
    Seq {
        nodes: Vec<Node>,
        pos: usize,
        /// Bypassed: the rest takes default values.
        abandoned: bool,
    },
    Loop {
        iterations: std::vec::IntoIter<Vec<Node>>,
    },
}

#[derive(Debug)]
enum Mode {
    Free(Rng),
    Tree { frames: Vec<Frame>, align: Align },
    Flat { values: std::vec::IntoIter<i64> },
}

/// An open scope of the run being recorded.
#[derive(Debug)]
enum Open {
    Loop {
        label: Rc<str>,
        iterations: Vec<Vec<Node>>,
        in_iteration: bool,
    },
    Maybe {
        label: Rc<str>,
    },
}

/// Answers a generator's decisions and records its run.
#[derive(Debug)]
pub struct Source {
    mode: Mode,
    /// Recorded so far: one sequence per open scope (the top one is being filled).
    seqs: Vec<Vec<Node>>,
    open: Vec<Open>,
    /// Decisions that found no match in the replayed trace.
    pub misaligned: usize,
    /// How many numbers [`Source::fresh`] gave for each label.
    fresh: std::collections::HashMap<String, i64>,
}

/// Where the numbers of names a replay's trace has no record of start.
const FRESH_UNRECORDED: i64 = 1_000_000;

impl Source {
    fn with(mode: Mode) -> Source {
        Source {
            mode,
            seqs: vec![Vec::new()],
            open: Vec::new(),
            misaligned: 0,
            fresh: Default::default(),
        }
    }

    /// A free run from `seed`.
    pub fn free(seed: u64) -> Source {
        Source::with(Mode::Free(Rng::new(seed)))
    }

    /// A replay of `trace`, aligned to the new run by `align`.
    pub fn replay(trace: &Trace, align: Align) -> Source {
        Source::with(Mode::Tree {
            frames: vec![Frame::Seq {
                nodes: trace.nodes.clone(),
                pos: 0,
                abandoned: false,
            }],
            align,
        })
    }

    /// A replay of a flat sequence of values, taken in order (out of range: clamped; past
    /// the end: the smallest value).
    pub fn flat(values: Vec<i64>) -> Source {
        Source::with(Mode::Flat {
            values: values.into_iter(),
        })
    }

    /// The recorded node of `label` the run is at, if any (`matches` says whether a node fits).
    fn aligned(
        &mut self,
        label: &str,
        matches: impl Fn(&Node) -> bool,
    ) -> Result<Option<Node>, Halt> {
        let Mode::Tree { frames, align } = &mut self.mode else {
            return Ok(None);
        };
        let align = *align;
        let depth = frames.len();
        let Some(Frame::Seq {
            nodes,
            pos,
            abandoned,
        }) = frames.last_mut()
        else {
            return Err(Halt(
                "a decision between a loop and its first iteration".into(),
            ));
        };
        if *abandoned {
            return Ok(None);
        }
        let fits = |n: &Node| n.label() == label && matches(n);
        if nodes.get(*pos).is_some_and(fits) {
            *pos += 1;
            return Ok(Some(nodes[*pos - 1].clone()));
        }
        self.misaligned += 1;
        match align {
            Align::Halt => Err(Halt(format!("the run left the reduced trace at `{label}`"))),
            Align::Bypass if depth == 1 => Err(Halt(format!(
                "the run left the reduced trace at `{label}`, outside any loop or selection"
            ))),
            Align::Bypass => {
                *abandoned = true;
                Ok(None)
            }
            Align::Realign => match (*pos..nodes.len()).find(|&j| fits(&nodes[j])) {
                Some(j) => {
                    *pos = j + 1;
                    Ok(Some(nodes[j].clone()))
                }
                None => Ok(None),
            },
        }
    }

    /// The next value of a flat replay, or a fresh one of a free run.
    fn drawn(&mut self, lo: i64, hi: i64) -> Option<i64> {
        match &mut self.mode {
            Mode::Free(rng) => Some(rng.range(lo, hi)),
            Mode::Flat { values } => Some(values.next().map_or(lo, |v| v.clamp(lo, hi))),
            Mode::Tree { .. } => None,
        }
    }

    fn record(&mut self, node: Node) {
        self.seqs
            .last_mut()
            .expect("a sequence is always open")
            .push(node);
    }

    /// An integer in `lo..=hi`.
    pub fn int(&mut self, label: &str, lo: i64, hi: i64) -> Result<i64, Halt> {
        if lo > hi {
            return Err(Halt(format!("`{label}`: empty range {lo}..={hi}")));
        }
        let value = match self.drawn(lo, hi) {
            Some(v) => v,
            None => {
                let recorded = self.aligned(
                    label,
                    |n| matches!(n, Node::Int { value, .. } if (lo..=hi).contains(value)),
                )?;
                match recorded {
                    Some(Node::Int { value, .. }) => value,
                    _ => lo,
                }
            }
        };
        self.record(Node::Int {
            label: label.into(),
            value,
            lo,
            hi,
            key: None,
        });
        Ok(value)
    }

    /// An index into choices named by `keys` (distinct): a free run draws it as [`Source::pick`]
    /// does; a replay picks the recorded name again wherever it now is (deleting an earlier
    /// variable moves the later ones in the list, and an index would then name another).
    pub fn pick_named(&mut self, label: &str, keys: &[&str]) -> Result<usize, Halt> {
        if keys.is_empty() {
            return Err(Halt(format!("`{label}`: a pick from nothing")));
        }
        let hi = keys.len() as i64 - 1;
        let at = |key: &Option<Rc<str>>| {
            key.as_deref()
                .and_then(|k| keys.iter().position(|x| *x == k))
        };
        let value = match self.drawn(0, hi) {
            Some(v) => v,
            None => {
                // A recorded name, or a value the choose pass set (no name).
                let fits = |key: &Option<Rc<str>>, value: i64| match key {
                    Some(_) => at(key).map(|i| i as i64),
                    None => (0..=hi).contains(&value).then_some(value),
                };
                let recorded = self.aligned(
                    label,
                    |n| matches!(n, Node::Int { key, value, .. } if fits(key, *value).is_some()),
                )?;
                match recorded {
                    Some(Node::Int { key, value, .. }) => fits(&key, value).unwrap_or(0),
                    _ => 0,
                }
            }
        };
        self.record(Node::Int {
            label: label.into(),
            value,
            lo: 0,
            hi,
            key: Some(keys[value as usize].into()),
        });
        Ok(value as usize)
    }

    /// A number for a new name, which replays keep: a free run counts up (per label, with no
    /// draw); a replay gives the recorded number, so deleting one variable renames no other.
    pub fn fresh(&mut self, label: &str) -> Result<i64, Halt> {
        let value = match &mut self.mode {
            Mode::Free(_) => {
                let n = self.fresh.entry(label.to_string()).or_insert(0);
                *n += 1;
                *n - 1
            }
            Mode::Flat { values } => values.next().unwrap_or(FRESH_UNRECORDED),
            Mode::Tree { .. } => match self.aligned(label, |n| matches!(n, Node::Int { .. }))? {
                Some(Node::Int { value, .. }) => value,
                // Not in the trace: above every recorded number, so unlike all of them.
                _ => {
                    let n = self.fresh.entry(label.to_string()).or_insert(0);
                    *n += 1;
                    FRESH_UNRECORDED + *n
                }
            },
        };
        // A range of one value: the choose pass leaves names alone.
        self.record(Node::Int {
            label: label.into(),
            value,
            lo: value,
            hi: value,
            key: None,
        });
        Ok(value)
    }

    /// An index into `n` choices.
    pub fn pick(&mut self, label: &str, n: usize) -> Result<usize, Halt> {
        if n == 0 {
            return Err(Halt(format!("`{label}`: a pick from nothing")));
        }
        Ok(self.int(label, 0, n as i64 - 1)? as usize)
    }

    /// Starts a reducible loop of `min..=max` iterations; returns how many to run. Call
    /// [`Source::iteration`] before each and [`Source::end`] after the last.
    pub fn begin_loop(&mut self, label: &str, min: u32, max: u32) -> Result<u32, Halt> {
        if min > max {
            return Err(Halt(format!("`{label}`: empty range {min}..={max}")));
        }
        let (count, iterations) = match self.drawn(min as i64, max as i64) {
            Some(n) => (n as u32, Vec::new()),
            None => match self.aligned(label, |n| matches!(n, Node::Loop { .. }))? {
                Some(Node::Loop { iterations, .. }) => {
                    ((iterations.len() as u32).clamp(min, max), iterations)
                }
                _ => (min, Vec::new()),
            },
        };
        if let Mode::Tree { frames, .. } = &mut self.mode {
            frames.push(Frame::Loop {
                iterations: iterations.into_iter(),
            });
        }
        self.open.push(Open::Loop {
            label: label.into(),
            iterations: Vec::new(),
            in_iteration: false,
        });
        Ok(count)
    }

    /// Starts the next iteration of the innermost loop.
    pub fn iteration(&mut self) -> Result<(), Halt> {
        self.close_iteration()?;
        let Some(Open::Loop { in_iteration, .. }) = self.open.last_mut() else {
            return Err(Halt("an iteration outside a loop".into()));
        };
        *in_iteration = true;
        self.seqs.push(Vec::new());
        if let Mode::Tree { frames, .. } = &mut self.mode {
            let Some(Frame::Loop { iterations }) = frames.last_mut() else {
                unreachable!("a recorded loop has a loop frame");
            };
            let nodes = iterations.next().unwrap_or_default();
            frames.push(Frame::Seq {
                nodes,
                pos: 0,
                abandoned: false,
            });
        }
        Ok(())
    }

    /// Ends the iteration in progress of the innermost loop, if one is.
    fn close_iteration(&mut self) -> Result<(), Halt> {
        if let Some(Open::Loop {
            iterations,
            in_iteration: in_it @ true,
            ..
        }) = self.open.last_mut()
        {
            *in_it = false;
            iterations.push(self.seqs.pop().expect("an iteration has a sequence"));
            if let Mode::Tree { frames, .. } = &mut self.mode {
                frames.pop();
            }
        }
        Ok(())
    }

    /// A reducible selection: whether to run its body. When it says yes, call
    /// [`Source::end`] after the body.
    pub fn maybe(&mut self, label: &str) -> Result<bool, Halt> {
        self.selection(label, false)
    }

    /// A part of the output: a reducible selection that every free run takes without a draw
    /// (so adding one leaves the programs each seed makes as they were), and a replay may drop;
    /// a replay with no record of it takes it too. When it says yes, call [`Source::end`] after
    /// the body.
    pub fn part(&mut self, label: &str) -> Result<bool, Halt> {
        self.selection(label, true)
    }

    fn selection(&mut self, label: &str, part: bool) -> Result<bool, Halt> {
        let drawn = match self.mode {
            Mode::Free(_) if part => Some(1),
            _ => self.drawn(0, 1),
        };
        let (taken, body) = match drawn {
            Some(v) => (v == 1, Vec::new()),
            None => match self.aligned(label, |n| matches!(n, Node::Maybe { .. }))? {
                Some(Node::Maybe { body: Some(b), .. }) => (true, b),
                Some(_) => (false, Vec::new()),
                // Not in the trace: a selection is not taken (its smallest value), a part is,
                // as in every free run (only a recorded deletion drops it).
                None => (part, Vec::new()),
            },
        };
        if !taken {
            self.record(Node::Maybe {
                label: label.into(),
                body: None,
            });
            return Ok(false);
        }
        if let Mode::Tree { frames, .. } = &mut self.mode {
            frames.push(Frame::Seq {
                nodes: body,
                pos: 0,
                abandoned: false,
            });
        }
        self.open.push(Open::Maybe {
            label: label.into(),
        });
        self.seqs.push(Vec::new());
        Ok(true)
    }

    /// Ends the innermost loop, or the body of the innermost taken selection.
    pub fn end(&mut self) -> Result<(), Halt> {
        self.close_iteration()?;
        let node = match self.open.pop() {
            Some(Open::Loop {
                label, iterations, ..
            }) => Node::Loop { label, iterations },
            Some(Open::Maybe { label }) => Node::Maybe {
                label,
                body: Some(self.seqs.pop().expect("a body has a sequence")),
            },
            None => return Err(Halt("`end` with no loop or selection open".into())),
        };
        if let Mode::Tree { frames, .. } = &mut self.mode {
            frames.pop();
        }
        self.record(node);
        Ok(())
    }

    /// The run as recorded; an error if a loop or selection was left open.
    pub fn finish(mut self) -> Result<Trace, Halt> {
        if let Some(open) = self.open.last() {
            let label = match open {
                Open::Loop { label, .. } | Open::Maybe { label } => label.clone(),
            };
            return Err(Halt(format!("`{label}` was never ended")));
        }
        Ok(Trace {
            nodes: self.seqs.pop().unwrap_or_default(),
        })
    }

    /// Runs `body` `min..=max` times (as this source decides), as one reducible loop.
    pub fn repeat(
        &mut self,
        label: &str,
        min: u32,
        max: u32,
        mut body: impl FnMut(&mut Source) -> Result<(), Halt>,
    ) -> Result<(), Halt> {
        for _ in 0..self.begin_loop(label, min, max)? {
            self.iteration()?;
            body(self)?;
        }
        self.end()
    }

    /// Runs `body` if this source decides so, as one reducible selection.
    pub fn maybe_do(
        &mut self,
        label: &str,
        body: impl FnOnce(&mut Source) -> Result<(), Halt>,
    ) -> Result<bool, Halt> {
        if !self.maybe(label)? {
            return Ok(false);
        }
        body(self)?;
        self.end()?;
        Ok(true)
    }
}
