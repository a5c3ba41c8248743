//! A pass that tries a list of sites once each, in order, a site giving one edit: the
//! rewrites (`types`, `transform`, `implicit-int`) differ only in their sites and in how a
//! site becomes an edit.

use super::lists::deletion_edit;
use super::{Edit, Pass, Program};
use crate::tree::NodeId;
use std::rc::Rc;

pub struct Sites<S> {
    sites: Rc<Vec<S>>,
    next: usize,
    /// A site's edit on the program as it now is; `None` when it has none any more.
    edit: fn(&Program, &S) -> Option<Edit>,
    beyond_grammar: bool,
}

impl<S> Sites<S> {
    pub fn new(sites: Vec<S>, edit: fn(&Program, &S) -> Option<Edit>) -> Self {
        Sites {
            sites: Rc::new(sites),
            next: 0,
            edit,
            beyond_grammar: false,
        }
    }

    /// Its candidates are not parsed (see [`Pass::beyond_grammar`]).
    pub fn beyond_grammar(self) -> Self {
        Sites {
            beyond_grammar: true,
            ..self
        }
    }
}

impl Sites<Vec<NodeId>> {
    /// Deleting `nodes`: all at once (when there are several), then each alone.
    pub fn deletions(nodes: Vec<NodeId>) -> Self {
        let mut sites = Vec::new();
        if nodes.len() > 1 {
            sites.push(nodes.clone());
        }
        sites.extend(nodes.into_iter().map(|n| vec![n]));
        Sites::new(sites, |prog, doomed| Some(deletion_edit(prog, doomed)))
    }
}

impl<S> Clone for Sites<S> {
    fn clone(&self) -> Self {
        Sites {
            sites: self.sites.clone(),
            ..*self
        }
    }
}

impl<S: 'static> Pass for Sites<S> {
    fn propose(&mut self, prog: &Program) -> Option<Edit> {
        while let Some(site) = self.sites.get(self.next) {
            self.next += 1;
            if let Some(edit) = (self.edit)(prog, site) {
                if edit.changes(prog) {
                    return Some(edit);
                }
            }
        }
        None
    }

    fn accepted(&mut self, _prog: &Program) {}

    fn box_clone(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }

    fn beyond_grammar(&self) -> bool {
        self.beyond_grammar
    }
}
