//! The `local` pass: small exhaustive edits, in the spirit of Vulcan's tree-based local
//! exhaustive enumeration (Xu et al., OOPSLA 2023). Perses deletes a node or puts a
//! descendant in its place, so a result can be 1-minimal for those edits and still lose
//! tokens that belong to different nodes: `a + b * c` to `a * c` takes `+` from the sum and
//! `b` from the product. For each small node, every proper subset of at least two of its
//! tokens is a candidate, largest first; the validity check drops, without a query, the
//! ones that do not parse.
//!
//! It runs only in a round where nothing else made progress (see
//! [`super::strategy::Round::Stalled`]), so it costs nothing until the fixpoint, and a
//! deletion it finds gives the other passes another round.

use super::lists::kept_tokens;
use super::sites::Sites;
use super::{Edit, Program};
use crate::tree::TokenId;
use std::collections::HashSet;

/// Nodes of at most this many tokens are enumerated (56 subsets of 2 to 5 tokens each).
const MAX_NODE_TOKENS: usize = 6;
/// At most this many candidates in one round, the largest nodes' first: what bounds the
/// search on a large program (a round that finds something is followed by another).
const MAX_SITES: usize = 4000;

pub fn pass(prog: &Program) -> Sites<Vec<TokenId>> {
    Sites::new(sites(prog), edit)
}

/// The token sets to try deleting: per node (largest first), its proper subsets with at
/// least two tokens, largest first, each set once (nested nodes share sets). Single tokens
/// are left out: a token that can go alone is a node (an optional child, a list element)
/// Perses tried.
fn sites(prog: &Program) -> Vec<Vec<TokenId>> {
    let tree = &prog.tree;
    let mut nodes: Vec<Vec<TokenId>> = (0..tree.nodes.len() as u32)
        .filter(|&n| !tree.node(n).extra && prog.alive(n))
        .map(|n| kept_tokens(prog, n))
        .filter(|t| (3..=MAX_NODE_TOKENS).contains(&t.len()))
        .collect();
    nodes.sort_by_key(|t| (std::cmp::Reverse(t.len()), t[0]));
    let mut out = Vec::new();
    let mut tried = HashSet::new();
    for tokens in nodes {
        let k = tokens.len();
        let mut masks: Vec<u32> = (1..(1u32 << k) - 1)
            .filter(|m| m.count_ones() >= 2)
            .collect();
        masks.sort_by_key(|m| (std::cmp::Reverse(m.count_ones()), *m));
        for m in masks {
            let set: Vec<TokenId> = (0..k)
                .filter(|i| m & (1 << i) != 0)
                .map(|i| tokens[i])
                .collect();
            if tried.insert(set.clone()) {
                out.push(set);
            }
        }
    }
    out.truncate(MAX_SITES);
    out
}

fn edit(prog: &Program, set: &Vec<TokenId>) -> Option<Edit> {
    if !set.iter().all(|&t| prog.kept(t)) {
        return None;
    }
    Some(Edit::deleting(set.iter().map(|&t| t..t + 1).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Lang;

    use crate::reduce::tests::program;

    fn candidates(lang: Lang, text: &str) -> Vec<String> {
        crate::reduce::tests::candidates(lang, text, pass)
    }

    #[test]
    fn tokens_of_two_nodes_go_together() {
        for (lang, text, want) in [
            (
                Lang::C,
                "int f() { return a + b * c; }",
                "intf(){returna*c;}",
            ),
            (Lang::Rust, "fn f() { g(a + b * c); }", "fnf(){g(a*c);}"),
            (Lang::JavaScript, "g(a + b * c);", "g(a*c);"),
        ] {
            let c = candidates(lang, text);
            assert!(
                c.iter().any(|t| t.replace(' ', "") == want),
                "{lang:?}: {c:?}"
            );
        }
    }

    #[test]
    fn subsets_are_tried_once_the_largest_node_first() {
        let s = sites(&program(Lang::C, "int f() { return a + b * c; }"));
        let unique: HashSet<_> = s.iter().collect();
        assert_eq!(unique.len(), s.len());
        assert!(s.iter().all(|set| set.len() >= 2));
        // `return a + b * c;` has seven tokens: the five of `a + b * c` go first.
        assert_eq!(s[0].len(), 4);
    }

    #[test]
    fn a_large_program_is_searched_up_to_the_cap() {
        // No gate on the program's size: its largest nodes are tried, up to the cap.
        let big = "int f() { return a + b * c; }\n".repeat(1000);
        let s = sites(&program(Lang::C, &big));
        assert_eq!(s.len(), MAX_SITES);
        assert_eq!(s[0].len(), 4);
    }
}
