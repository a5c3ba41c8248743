//! A mutant: the original program with edits at some of its rules' sites. Every mutant,
//! first-order or higher, is kept as its list of edits on the original, so its text, its
//! diff and its order are plain to see and a higher-order mutant is a lower one plus an edit.

use super::rules::Rule;
use serde::Serialize;

/// One mutation (an edit of the original): bytes `start..end` become `text`, by `rule`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Mutation {
    pub start: u32,
    pub end: u32,
    pub text: String,
    #[serde(serialize_with = "rule_name")]
    pub rule: Rule,
}

fn rule_name<S: serde::Serializer>(rule: &Rule, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(rule.name())
}

/// Mutations that never overlap, in order of position.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Mutant(Vec<Mutation>);

impl Mutant {
    pub fn edits(&self) -> &[Mutation] {
        &self.0
    }

    /// The order: how many edits.
    pub fn order(&self) -> usize {
        self.0.len()
    }

    /// This mutant with `edit` too; `None` when it overlaps or touches an edit already made.
    pub fn with(&self, edit: Mutation) -> Option<Mutant> {
        let at = self.0.partition_point(|e| e.start < edit.start);
        let clash = |e: &Mutation| e.start <= edit.end && edit.start <= e.end;
        if self.0.get(at).is_some_and(clash) || at > 0 && clash(&self.0[at - 1]) {
            return None;
        }
        let mut edits = self.0.clone();
        edits.insert(at, edit);
        Some(Mutant(edits))
    }

    /// This mutant with only the edits `keep` says yes to.
    pub fn only(&self, keep: impl Fn(usize) -> bool) -> Mutant {
        Mutant(
            self.0
                .iter()
                .enumerate()
                .filter(|(i, _)| keep(*i))
                .map(|(_, e)| e.clone())
                .collect(),
        )
    }

    pub fn apply(&self, original: &str) -> String {
        let mut out = String::with_capacity(original.len() + 16);
        let mut pos = 0;
        for e in &self.0 {
            out.push_str(&original[pos..e.start as usize]);
            out.push_str(&e.text);
            pos = e.end as usize;
        }
        out.push_str(&original[pos..]);
        out
    }

    /// The rules of its edits, each once, in [`Rule::ALL`]'s order.
    pub fn rules(&self) -> Vec<Rule> {
        let mut r: Vec<Rule> = self.0.iter().map(|e| e.rule).collect();
        r.sort();
        r.dedup();
        r
    }
}

/// An edit as a person reads it: where, what was there, what is there now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    pub rule: &'static str,
    /// 1-based line of the original.
    pub line: usize,
    pub before: String,
    pub after: String,
}

impl Change {
    pub fn of(original: &str, e: &Mutation) -> Change {
        Change {
            rule: e.rule.name(),
            line: original[..e.start as usize].matches('\n').count() + 1,
            before: original[e.start as usize..e.end as usize]
                .trim()
                .to_string(),
            after: e.text.trim().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(start: u32, end: u32, text: &str) -> Mutation {
        Mutation {
            start,
            end,
            text: text.into(),
            rule: Rule::ConstZero,
        }
    }

    #[test]
    fn edits_apply_in_order_and_never_overlap() {
        let m = Mutant::default()
            .with(edit(8, 9, "0"))
            .and_then(|m| m.with(edit(0, 3, "long")))
            .unwrap();
        assert_eq!(m.apply("int x = 5;"), "long x = 0;");
        assert_eq!(m.order(), 2);
        assert!(m.with(edit(2, 4, "q")).is_none(), "overlaps the first edit");
        assert!(m.with(edit(9, 9, "1")).is_none(), "touches the second");
        assert_eq!(m.only(|i| i == 1).apply("int x = 5;"), "int x = 0;");
        let c = Change::of("int x;\nx = 5;", &edit(11, 12, "6"));
        assert_eq!((c.line, c.before.as_str(), c.after.as_str()), (2, "5", "6"));
    }
}
