//! The `update` rewrite: a small statement that reads a variable becomes `x++;`, the shortest
//! statement that still reads it. A bare `x;` reads it too, but compilers drop a statement
//! without effect before they look at what it reads (gcc warns of `return x;` and `x++;`
//! for an uninitialised `x`, never of `x;`), so deletion alone stops at the longer
//! statement. A subscripted variable is updated whole: `a[i]++`.
//!
//! Like [`super::local`], it runs only once nothing else progresses, and only in languages
//! whose table names an update expression (C and C++). It runs on programs of any size: a
//! fixpoint of a large program has such statements too.

use super::lists::{is_a, is_read, kept_tokens, replace_by};
use super::sites::Sites;
use super::{Edit, Program};
use crate::tree::{NodeId, TokenId, Tree};
use crate::unparse::would_fuse;

/// Statements of at most this many tokens are rewritten.
const MAX_STATEMENT_TOKENS: usize = 8;
/// At most this many candidates in one round.
const MAX_SITES: usize = 200;

/// A statement and the text of what it updates instead.
pub type Site = (NodeId, String);

pub fn pass(prog: &Program) -> Sites<Site> {
    Sites::new(sites(prog), edit)
}

fn sites(prog: &Program) -> Vec<Site> {
    let tree = &prog.tree;
    let k = tree.lang.kinds();
    if k.update.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for n in 0..tree.nodes.len() as NodeId {
        let node = tree.node(n);
        if node.extra || !node.named || !prog.alive(n) || !is_a(tree, node.kind, k.statement) {
            continue;
        }
        let tokens = kept_tokens(prog, n);
        if tokens.len() > MAX_STATEMENT_TOKENS {
            continue;
        }
        let bytes: usize = tokens.iter().map(|&t| prog.text_of(t).len()).sum();
        let mut targets: Vec<String> = Vec::new();
        // A variable is one token, so the statement's kept tokens find every read in it.
        for v in tokens.iter().map(|&t| tree.tokens[t as usize].node) {
            if !is_read(tree, v) {
                continue;
            }
            let target = kept_tokens(prog, updated(tree, v));
            let text = compact(prog, &target);
            // Strictly smaller: as many tokens at most, fewer bytes (`++` and `;` are three).
            let smaller = text.len() + 3 < bytes && target.len() + 2 <= tokens.len();
            if smaller && !targets.contains(&text) {
                targets.push(text);
            }
        }
        out.extend(targets.into_iter().map(|t| (n, t)));
    }
    out.truncate(MAX_SITES);
    out
}

/// What an update of variable `v` updates: `v`, or the subscripts of it around it.
fn updated(tree: &Tree, mut v: NodeId) -> NodeId {
    let subscript = tree.lang.kinds().subscript;
    while let Some(p) = tree.node(v).parent {
        if Some(tree.node(p).kind) != subscript || tree.node(v).field != Some("argument") {
            break;
        }
        v = p;
    }
    v
}

/// The tokens' texts, a space only between two that would fuse.
fn compact(prog: &Program, tokens: &[TokenId]) -> String {
    let mut out = String::new();
    for &t in tokens {
        let text = prog.text_of(t);
        let (last, first) = (out.chars().last(), text.chars().next());
        if last.zip(first).is_some_and(|(a, b)| would_fuse(a, b)) {
            out.push(' ');
        }
        out.push_str(text);
    }
    out
}

fn edit(prog: &Program, (n, target): &Site) -> Option<Edit> {
    if !prog.alive(*n) {
        return None;
    }
    replace_by(prog, *n, &format!("{target}++;"))
}

#[cfg(test)]
mod tests {
    use crate::reduce::tests::drive;
    use crate::reduce::{Session, Settings};
    use crate::Lang;

    fn reduce(lang: Lang, text: &str, oracle: &dyn Fn(&str) -> bool) -> String {
        let session = Session::new(lang, text, Settings::default()).unwrap();
        drive(session, 2, false, oracle).best().to_string()
    }

    /// Like gcc's -Wmaybe-uninitialized: `v` is read by a statement with an effect.
    fn reads_v(t: &str) -> bool {
        t.contains("int v;")
            && ["return v", "v++", "f(v)", "v[0]++"]
                .iter()
                .any(|s| t.contains(s))
    }

    #[test]
    fn a_return_of_a_variable_becomes_its_update() {
        let text = "int f(int);\nint g() {\n  int v;\n  return v;\n}\n";
        let best = reduce(Lang::C, text, &reads_v);
        assert!(best.contains("v++;") && !best.contains("return"), "{best}");
        let best = reduce(Lang::Cpp, "int g() {\n  int v;\n  f(v);\n}\n", &reads_v);
        assert!(best.contains("v++;") && !best.contains("f(v)"), "{best}");
    }

    #[test]
    fn a_subscripted_variable_is_updated_whole_and_other_languages_are_left_alone() {
        let best = reduce(Lang::C, "int g() {\n  int v;\n  return v[0];\n}\n", &|t| {
            t.contains("int v;") && (t.contains("return v[0]") || t.contains("v[0]++"))
        });
        assert!(best.contains("v[0]++;"), "{best}");
        let js = "function g() {\n  let v;\n  return v;\n}\n";
        let best = reduce(Lang::JavaScript, js, &|t| {
            t.contains("let v") && t.contains("return v") || t.contains("v++")
        });
        assert!(best.contains("return v"), "{best}");
    }
}
