//! The `clauses` pass: an optional part of a node deleted together with the keywords and
//! punctuation that belong to it, `fmt::Debug for` of `impl fmt::Debug for S`, `: u8` of
//! `let x: u8 = 1`, `-> T` of a closure, `extends B` of a class. Perses deletes an optional
//! child alone, which leaves its keyword behind and does not parse; the grammar's node types
//! do not say which anonymous tokens go with which child, so both neighbours are tried: the
//! child with the anonymous tokens after it, and with those before it, up to the next named
//! child either way. The validity check drops the combinations that do not parse, without a
//! query.
//!
//! Then each keyword alone, where the grammar lets the node go on without it (JavaScript's
//! `new E()` to `E()`, an `else` whose branch then follows the `if`): the node stays, so
//! Perses never tries it; the check drops what does not parse.
//!
//! It runs in a round where nothing else made progress (like `local`): a child Perses could
//! not delete alone is tried with its clause once the fixpoint is reached.

use super::lists::{is_bracket, optional_children};
use super::sites::Sites;
use super::{Edit, Program};
use crate::tree::{NodeId, TokenId};
use std::ops::Range;

/// Tokens that delimit or separate, never a clause's own: lists and brackets have their passes.
fn is_delimiter(text: &str) -> bool {
    is_bracket(text) || matches!(text, ";" | ",")
}

pub fn pass(prog: &Program) -> Sites<Vec<Range<TokenId>>> {
    Sites::new(sites(prog), edit)
}

fn sites(prog: &Program) -> Vec<Vec<Range<TokenId>>> {
    let mut sites = clauses(prog);
    sites.extend(keywords(prog).map(|t| vec![t..t + 1]));
    sites
}

/// For each optional child with a clause's tokens beside it (largest first): the child with
/// the anonymous tokens after it, then with those before it.
fn clauses(prog: &Program) -> Vec<Vec<Range<TokenId>>> {
    let tree = &prog.tree;
    let mut found: Vec<(usize, Vec<Range<TokenId>>)> = Vec::new();
    for n in 0..tree.nodes.len() as NodeId {
        if !prog.alive(n) {
            continue;
        }
        let siblings = &tree.node(n).children;
        let anonymous = |s: &&NodeId| !tree.node(**s).named && !tree.node(**s).extra;
        let alive = |s: &NodeId| prog.alive(*s);
        for c in optional_children(tree, n) {
            let at = siblings
                .iter()
                .position(|&s| s == c)
                .expect("a child of its parent");
            let after = siblings[at + 1..].iter().take_while(anonymous);
            let before = siblings[..at].iter().rev().take_while(anonymous);
            let after: Vec<NodeId> = after.copied().filter(alive).collect();
            let before: Vec<NodeId> = before.copied().filter(alive).collect();
            for words in [after, before] {
                let own = words.iter().all(|&w| {
                    let mut tokens = tree.node(w).tokens();
                    tokens.all(|t| !is_delimiter(prog.text_of(t)))
                });
                if words.is_empty() || !own {
                    continue;
                }
                let mut ranges: Vec<Range<TokenId>> =
                    words.iter().map(|&w| tree.node(w).tokens()).collect();
                ranges.push(tree.node(c).tokens());
                ranges.sort_unstable_by_key(|r| r.start);
                found.push((prog.size_of(c), ranges));
            }
        }
    }
    // Largest first: a big clause gone shrinks the program most.
    found.sort_by_key(|(size, ranges)| (std::cmp::Reverse(*size), ranges[0].start));
    found.into_iter().map(|(_, ranges)| ranges).collect()
}

/// The keywords kept: anonymous words of the grammar, in text order.
fn keywords(prog: &Program) -> impl Iterator<Item = TokenId> + '_ {
    let tree = &prog.tree;
    (0..tree.tokens.len() as TokenId).filter(move |&t| {
        let leaf = tree.node(tree.tokens[t as usize].node);
        let text = prog.text_of(t);
        prog.kept(t)
            && !leaf.named
            && !leaf.extra
            && text.len() > 1
            && text.bytes().all(|b| b.is_ascii_alphabetic() || b == b'_')
    })
}

// `Sites` hands each site by reference, whatever it is.
#[allow(clippy::ptr_arg)]
fn edit(prog: &Program, ranges: &Vec<Range<TokenId>>) -> Option<Edit> {
    let kept = ranges.iter().flat_map(|r| r.clone()).any(|t| prog.kept(t));
    kept.then(|| Edit::deleting(ranges.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Parser;
    use crate::Lang;

    fn candidates(lang: Lang, text: &str) -> Vec<String> {
        crate::reduce::tests::candidates(lang, text, pass)
    }

    fn squeezed(texts: &[String]) -> Vec<String> {
        texts
            .iter()
            .map(|t| t.split_whitespace().collect())
            .collect()
    }

    #[test]
    fn an_optional_part_goes_with_its_keyword() {
        for (lang, text, want) in [
            // A trait's impl becomes the type's own.
            (
                Lang::Rust,
                "impl fmt::Debug for S { fn f() {} }",
                "implS{fnf(){}}",
            ),
            (Lang::Rust, "fn f() { let x: u8 = 1; }", "fnf(){letx=1;}"),
            (Lang::Rust, "fn f() { let x: u8 = 1; }", "fnf(){letx:u8;}"),
            (
                Lang::Rust,
                "fn f() { g(|x| -> u8 { 1 }); }",
                "fnf(){g(|x|{1});}",
            ),
            (Lang::Cpp, "enum class E : int { A };", "enumclassE{A};"),
        ] {
            let c = squeezed(&candidates(lang, text));
            assert!(c.iter().any(|t| t == want), "{lang:?}: {want} not in {c:?}");
        }
    }

    #[test]
    fn a_clause_never_takes_a_bracket_or_a_separator() {
        let text = "fn f(a: u8, b: &mut T) -> u8 { let x: u8 = if a > 0 { 1 } else { 2 }; x }";
        let prog = crate::reduce::tests::program(Lang::Rust, text);
        let sites = clauses(&prog);
        assert!(!sites.is_empty());
        for ranges in sites {
            // The child is the longest range; the rest are its clause's own tokens.
            let child = ranges.iter().max_by_key(|r| r.len()).unwrap().clone();
            let words = ranges
                .iter()
                .filter(|r| **r != child)
                .flat_map(|r| r.clone());
            let words: Vec<&str> = words.map(|t| prog.text_of(t)).collect();
            assert!(
                !words.is_empty() && !words.iter().any(|t| is_delimiter(t)),
                "{words:?}"
            );
        }
        let mut parser = Parser::new(Lang::Rust);
        let valid: Vec<String> = candidates(Lang::Rust, text)
            .into_iter()
            .filter(|t| parser.is_valid(t))
            .collect();
        let valid = squeezed(&valid);
        for want in [
            "fnf(a:u8,b:&mutT){letx:u8=ifa>0{1}else{2};x}",
            "fnf(a:u8,b:&mutT)->u8{letx=ifa>0{1}else{2};x}",
        ] {
            assert!(valid.iter().any(|v| v == want), "{want} not in {valid:?}");
        }
    }

    #[test]
    fn a_child_without_a_clause_is_not_tried() {
        // `else { h(); }` is a named clause that Perses deletes alone: it never goes here.
        let c = candidates(Lang::C, "void f(void) { if (x) { g(); } else { h(); } }");
        assert!(squeezed(&c).iter().all(|t| t.contains("h();")), "{c:?}");
    }

    #[test]
    fn a_keyword_goes_alone_where_the_rest_parses() {
        for (lang, text, want) in [
            (
                Lang::JavaScript,
                "throw new TypeError('no');",
                "throwTypeError('no');",
            ),
            (
                Lang::C,
                "void f(void) { if (x) { g(); } else { h(); } }",
                "voidf(void){if(x){g();}{h();}}",
            ),
        ] {
            let c = squeezed(&candidates(lang, text));
            assert!(c.iter().any(|t| t == want), "{lang:?}: {want} not in {c:?}");
        }
        // Words that are names, not the grammar's, stay (a call's callee).
        let c = squeezed(&candidates(Lang::JavaScript, "f(x);"));
        assert!(c.is_empty(), "{c:?}");
    }
}
