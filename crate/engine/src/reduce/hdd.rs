//! HDD (Misherghi and Su, ICSE 2006): ddmin over the deletable nodes of each tree level,
//! from the root down.

use super::ddmin::Chunks;
use super::lists::{deletion_edit, list_slots, optional_children};
use super::{Edit, Pass, Program};
use crate::tree::NodeId;
use std::rc::Rc;

#[derive(Clone)]
pub struct Hdd {
    /// Deletable nodes (list elements and optional children), by depth.
    levels: Rc<Vec<Vec<NodeId>>>,
    level: usize,
    dd: Option<(Rc<Vec<NodeId>>, Chunks)>,
}

impl Hdd {
    pub fn new(prog: &Program) -> Hdd {
        let tree = &prog.tree;
        let mut levels: Vec<Vec<NodeId>> = Vec::new();
        for n in 0..tree.nodes.len() as NodeId {
            let mut deletable = list_slots(tree, n).concat();
            deletable.extend(optional_children(tree, n));
            for d in deletable {
                let depth = tree.node(d).depth as usize;
                if levels.len() <= depth {
                    levels.resize(depth + 1, Vec::new());
                }
                levels[depth].push(d);
            }
        }
        for l in &mut levels {
            l.sort_unstable();
        }
        Hdd {
            levels: Rc::new(levels),
            level: 0,
            dd: None,
        }
    }
}

impl Pass for Hdd {
    fn propose(&mut self, prog: &Program) -> Option<Edit> {
        loop {
            if self.dd.is_none() {
                let nodes = self.levels.get(self.level)?;
                let alive: Vec<NodeId> = nodes.iter().copied().filter(|&n| prog.alive(n)).collect();
                let chunks = Chunks::new((0..alive.len() as u32).collect(), false);
                self.dd = Some((Rc::new(alive), chunks));
            }
            let (nodes, chunks) = self.dd.as_mut().unwrap();
            match chunks.propose() {
                Some(set) => {
                    let doomed: Vec<NodeId> = set.iter().map(|&i| nodes[i as usize]).collect();
                    return Some(deletion_edit(prog, &doomed));
                }
                None => {
                    self.level += 1;
                    self.dd = None;
                }
            }
        }
    }

    fn accepted(&mut self, _prog: &Program) {
        if let Some((_, chunks)) = &mut self.dd {
            chunks.accepted();
        }
    }

    fn box_clone(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }
}
