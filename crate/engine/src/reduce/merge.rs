//! A name's uses take another name visible there, as Vulcan's final search replaces an
//! identifier by another in scope, and its declaration goes in the same edit: two
//! variables become one. `int a; int b; f(a, b);` may become `int a; f(a, a);`. A rename
//! that removes nothing is never tried: it would change one program for another as large,
//! and can leave a declaration that no pass removes any more.
//!
//! Only a name declared the same way (the same kind of name in the same kind of
//! declaration: a variable for a variable, a field for a field), declared earlier, and
//! visible wherever the merged name is used, is tried, the nearest first. Earlier only, so
//! that two names never swap back and forth round after round.

use super::inline::declaration_removal;
use super::sites::Sites;
use super::symbols::{Symbol, Symbols};
use super::{Edit, Program};
use crate::tree::{NodeId, TokenId};

/// At most this many other names are tried for one name.
const MAX_PER_NAME: usize = 2;
/// At most this many candidates in one round.
const MAX_SITES: usize = 200;

#[derive(Clone)]
pub struct Site {
    /// The node whose removal removes the merged name's declaration.
    declarator: NodeId,
    uses: Vec<TokenId>,
    /// A token with the name they take.
    other: TokenId,
}

pub fn pass(prog: &Program) -> Sites<Site> {
    let tree = &prog.tree;
    let symbols = Symbols::new(prog);
    // How a symbol is declared: the kind of its name and of the node around it.
    let declared_as = |s: &Symbol| -> Option<(&str, Option<&str>)> {
        let n: NodeId = tree.tokens[*s.declarations.first()? as usize].node;
        Some((
            tree.node(n).kind,
            tree.node(n).parent.map(|p| tree.node(p).kind),
        ))
    };
    let mut sites = Vec::new();
    for s in &symbols.symbols {
        let uses: Vec<TokenId> = s
            .tokens
            .iter()
            .copied()
            .filter(|t| !s.declarations.contains(t))
            .collect();
        let (&[declared], false, Some(how)) =
            (s.declarations.as_slice(), uses.is_empty(), declared_as(s))
        else {
            continue;
        };
        let name = tree.tokens[declared as usize].node;
        let declarator = match tree.node(name).parent {
            Some(p) if tree.node(p).kind.contains("declarator") => p,
            _ => name,
        };
        let mut others: Vec<&Symbol> = symbols
            .symbols
            .iter()
            .filter(|o| {
                !std::ptr::eq(*o, s)
                    && o.namespace == s.namespace
                    && symbols.encloses(o.scope, s.scope)
                    && o.declarations.first().is_some_and(|&d| d < declared)
                    && declared_as(o) == Some(how)
            })
            .collect();
        // Nearest first: the latest declared before it.
        others.sort_by_key(|o| std::cmp::Reverse(o.declarations[0]));
        sites.extend(others.into_iter().take(MAX_PER_NAME).map(|o| Site {
            declarator,
            uses: uses.clone(),
            other: o.declarations[0],
        }));
    }
    sites.truncate(MAX_SITES);
    Sites::new(sites, edit)
}

fn edit(prog: &Program, site: &Site) -> Option<Edit> {
    let name = prog.text_of(site.other).to_string();
    let replace: Vec<(TokenId, String)> = site
        .uses
        .iter()
        .filter(|&&t| prog.kept(t))
        .map(|&t| (t, name.clone()))
        .collect();
    let mut edit = declaration_removal(prog, site.declarator)?;
    let removed = |t: &TokenId| edit.delete.iter().any(|r| r.contains(t));
    let kept_apart = !removed(&site.other) && !replace.iter().any(|(t, _)| removed(t));
    if !prog.kept(site.other) || replace.is_empty() || !kept_apart {
        return None;
    }
    edit.replace = replace;
    Some(edit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Lang;

    fn candidates(lang: Lang, text: &str) -> Vec<String> {
        crate::reduce::tests::candidates(lang, text, pass)
    }

    #[test]
    fn a_name_takes_another_of_the_same_kind_visible_there() {
        let text = "int g;\nint f(int p) { int a = 1; int b = 2; return a + b + p + g; }\n";
        // Locals take earlier locals: not the parameter, not the global.
        assert_eq!(
            candidates(Lang::C, text),
            ["int g;\nint f(int p) { int a = 1; return a + a + p + g; }\n"]
        );
    }

    #[test]
    fn every_language_merges_names() {
        for (lang, text, merged) in [
            (
                Lang::Cpp,
                "struct S { int x; int y; int f() { return x + y; } };\n",
                "struct S { int x; int f() { return x + x; } };\n",
            ),
            (
                Lang::Rust,
                "fn f(p: u8) -> u8 { let a = 1; let b = 2; a + b + p }\n",
                "fn f(p: u8) -> u8 { let a = 1; a + a + p }\n",
            ),
            (
                Lang::JavaScript,
                "let a = 1; let b = 2; console.log(a + b);\n",
                "let a = 1; console.log(a + a);\n",
            ),
            (
                Lang::Java,
                "class A { int x; int y; int f() { return x + y; } }\n",
                "class A { int x; int f() { return x + x; } }\n",
            ),
        ] {
            let all = candidates(lang, text);
            assert!(all.iter().any(|c| c == merged), "{lang:?}: {all:#?}");
        }
    }

    /// Like a warning about a product of two variables: any two declared ones will do.
    #[test]
    fn a_declaration_goes_once_its_name_is_merged() {
        use crate::reduce::tests::{drive, session};
        use crate::reduce::Strategy;
        let text = "int f(void) {\n  int a;\n  int b;\n  return a * b;\n}\n";
        let oracle = |t: &str| {
            let Some((_, r)) = t.split_once("return ") else {
                return false;
            };
            let product: Vec<&str> = r.split(';').next().unwrap_or("").split(" * ").collect();
            product.len() == 2
                && product
                    .iter()
                    .all(|v| !v.is_empty() && t.contains(&format!("int {v};")))
        };
        let s = drive(session(Lang::C, text, Strategy::Perses), 2, false, &oracle);
        assert_eq!(s.best(), "{ int a; return a * a; }\n");
    }
}
