//! Which tokens name the same thing: a program's symbols, found from its tree with the
//! language's naming table ([`crate::grammars::kinds::Names`]).
//!
//! Scopes are functions (and lambdas): a name declared inside one is its own; a use
//! belongs to the nearest enclosing scope that declares its name, else to the file. Block
//! scopes inside a function are not told apart, which only merges same-named locals of one
//! function into one symbol (renamed together, so still consistently). Names the program
//! uses but never declares (a library's `printf`, a macro's) are *foreign*: never renamed,
//! never given.
//!
//! This is the engine's one scope analysis: the witness rules ask it with the finer scopes of
//! their language table (blocks, loops, classes: [`Symbols::scoped`]) which variable a name
//! is and where it is seen.

use super::lists::field_child;
use super::Program;
use crate::grammars::kinds::Names;
use crate::tree::{NodeId, TokenId, Tree};
use std::collections::{HashMap, HashSet};

/// A namespace: names in different ones never clash (C's tags, fields, labels).
pub type Namespace = usize;

/// One declared thing and every token that names it.
pub struct Symbol {
    pub namespace: Namespace,
    /// The function it is local to; `None` for the file.
    pub scope: Option<NodeId>,
    pub tokens: Vec<TokenId>,
    /// Those of `tokens` that declare it (a definition, a prototype, a field).
    pub declarations: Vec<TokenId>,
}

pub struct Symbols {
    pub symbols: Vec<Symbol>,
    /// Words the program uses that no symbol owns: they stay, and no symbol may take them.
    pub foreign: HashSet<String>,
    /// Each scope's enclosing scope.
    outer: HashMap<NodeId, Option<NodeId>>,
    /// The symbol of each token that names one.
    owner: HashMap<TokenId, usize>,
}

/// Which of the words the language reserves are symbols too.
#[derive(Clone, Copy)]
enum Reserved {
    /// None of them.
    Skipped,
    /// Where a run starts (`main`): renaming takes it away (the test decides).
    Entries,
    /// Every name, keywords somewhere in the grammar included.
    Symbols,
}

impl Symbols {
    pub fn new(prog: &Program) -> Symbols {
        Symbols::scoped(prog, prog.tree.lang.kinds().names.scopes, Reserved::Skipped)
    }

    /// Renaming's view: [`Symbols::new`]'s, and the program's entry (`main`) too.
    pub fn with_entry(prog: &Program) -> Symbols {
        Symbols::scoped(prog, prog.tree.lang.kinds().names.scopes, Reserved::Entries)
    }

    /// The variables' view (the witness rules'): the blocks, loops and classes of the
    /// language's [`Variables`](crate::grammars::kinds::Variables) open scopes too, and names
    /// that are keywords somewhere in the grammar (`path`, `from`) are symbols like any other.
    pub fn of_variables(prog: &Program) -> Symbols {
        Symbols::scoped(
            prog,
            prog.tree.lang.kinds().variables.scopes,
            Reserved::Symbols,
        )
    }

    /// The symbols with `scopes` the nodes that open a scope, and those of the reserved
    /// words that `reserved` admits (renaming never gives them).
    fn scoped(prog: &Program, scopes: &[&str], reserved: Reserved) -> Symbols {
        let tree = &prog.tree;
        let names = &tree.lang.kinds().names;
        let inner_start = scope_regions(prog, scopes);
        let scope_of = |n: NodeId, t: TokenId| enclosing_scope(tree, &inner_start, n, t);
        let outer: HashMap<NodeId, Option<NodeId>> = inner_start
            .keys()
            .map(|&s| (s, scope_of(s, tree.node(s).first_token)))
            .collect();
        let mut foreign = HashSet::new();
        // Every name token: (token, namespace, text, scope, whether it declares).
        let mut uses = Vec::new();
        for t in (0..tree.tokens.len() as TokenId).filter(|&t| prog.kept(t)) {
            let n = tree.tokens[t as usize].node;
            let node = tree.node(n);
            let text = prog.text_of(t);
            if names.opaque.contains(&node.kind) {
                foreign.extend(words(text).map(str::to_string));
                continue;
            }
            if !names.kinds.contains(&node.kind) || node.extra {
                continue;
            }
            let admitted = match reserved {
                Reserved::Skipped => false,
                Reserved::Entries => names.entry.contains(&text),
                Reserved::Symbols => true,
            };
            if !admitted && tree.lang.is_reserved(text) {
                continue;
            }
            let parent = node.parent.map(|p| tree.node(p).kind);
            if names.pinned.contains(&node.kind)
                || parent.is_some_and(|p| names.pinned_under.contains(&p))
            {
                foreign.insert(text.to_string());
                continue;
            }
            let namespace = namespace(tree, names, n);
            let declares = declares(tree, names, n);
            uses.push((t, namespace, text, scope_of(n, t), declares));
        }
        let declared: HashSet<(Namespace, &str, Option<NodeId>)> = uses
            .iter()
            .filter(|u| u.4)
            .map(|&(_, ns, text, scope, _)| (ns, text, scope))
            .collect();
        let mut index: HashMap<(Namespace, &str, Option<NodeId>), usize> = HashMap::new();
        let mut symbols: Vec<Symbol> = Vec::new();
        for &(t, namespace, text, scope, declares) in &uses {
            // The nearest scope out from the use that declares the name.
            let mut at = scope;
            let binding = loop {
                if declared.contains(&(namespace, text, at)) {
                    break Some(at);
                }
                match at {
                    Some(s) => at = outer[&s],
                    None => break None,
                }
            };
            let Some(scope) = binding else {
                foreign.insert(text.to_string());
                continue;
            };
            let i = *index.entry((namespace, text, scope)).or_insert_with(|| {
                symbols.push(Symbol {
                    namespace,
                    scope,
                    tokens: Vec::new(),
                    declarations: Vec::new(),
                });
                symbols.len() - 1
            });
            symbols[i].tokens.push(t);
            if declares {
                symbols[i].declarations.push(t);
            }
        }
        let owner = symbols
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.tokens.iter().map(move |&t| (t, i)))
            .collect();
        Symbols {
            symbols,
            foreign,
            outer,
            owner,
        }
    }

    /// The symbol token `t` names, if it names one.
    pub fn of_token(&self, t: TokenId) -> Option<&Symbol> {
        self.owner.get(&t).map(|&i| &self.symbols[i])
    }

    /// Whether names in scopes `a` and `b` can see each other: one scope holds the other.
    pub fn overlap(&self, a: Option<NodeId>, b: Option<NodeId>) -> bool {
        self.encloses(a, b) || self.encloses(b, a)
    }

    /// Whether scope `outer` holds scope `inner` (or is it): names of `outer` are seen there.
    pub fn encloses(&self, outer: Option<NodeId>, mut inner: Option<NodeId>) -> bool {
        loop {
            if inner == outer {
                return true;
            }
            match inner {
                Some(s) => inner = self.outer[&s],
                None => return false,
            }
        }
    }
}

/// Identifier-like words of a text.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|w| w.chars().next().is_some_and(|c| !c.is_ascii_digit()))
}

/// For each scope node, the first token of its inside: a function's parameters, else its
/// body (its name and return type come before, in the enclosing scope); all of any other
/// scope (a block, a loop with its declarations, a file).
fn scope_regions(prog: &Program, scopes: &[&str]) -> HashMap<NodeId, TokenId> {
    let tree = &prog.tree;
    let functions = tree.lang.kinds().names.scopes;
    (0..tree.nodes.len() as NodeId)
        .filter(|&n| scopes.contains(&tree.node(n).kind) && prog.alive(n))
        .map(|n| {
            let function = functions.contains(&tree.node(n).kind);
            let inside = function
                .then(|| parameters(tree, n).or_else(|| field_child(tree, n, "body")))
                .flatten();
            let start = inside.map_or(tree.node(n).first_token, |c| tree.node(c).first_token);
            (n, start)
        })
        .collect()
}

/// A scope's parameters (a C function's are under its declarator): the nearest descendant
/// in field `parameters` or `parameter`, outside the body.
fn parameters(tree: &Tree, scope: NodeId) -> Option<NodeId> {
    let mut queue: std::collections::VecDeque<(NodeId, u32)> = [(scope, 0)].into();
    while let Some((n, depth)) = queue.pop_front() {
        for &c in &tree.node(n).children {
            let field = tree.node(c).field;
            if matches!(field, Some("parameters" | "parameter")) {
                return Some(c);
            }
            if field != Some("body") && depth < 3 {
                queue.push_back((c, depth + 1));
            }
        }
    }
    None
}

/// The innermost scope whose inside holds token `t` of node `n`.
fn enclosing_scope(
    tree: &Tree,
    inner_start: &HashMap<NodeId, TokenId>,
    n: NodeId,
    t: TokenId,
) -> Option<NodeId> {
    let mut at = tree.node(n).parent;
    while let Some(a) = at {
        if inner_start.get(&a).is_some_and(|&start| start <= t) {
            return Some(a);
        }
        at = tree.node(a).parent;
    }
    None
}

/// The namespace of name node `n`: 0 for ordinary names, then one per kind kept apart, then
/// tags.
fn namespace(tree: &Tree, names: &Names, n: NodeId) -> Namespace {
    let node = tree.node(n);
    if let Some(i) = names.apart.iter().position(|&k| k == node.kind) {
        return 1 + i;
    }
    let in_tag = node.field == Some("name")
        && node
            .parent
            .is_some_and(|p| names.tag_specifiers.contains(&tree.node(p).kind));
    if names.tags_apart && in_tag {
        return 1 + names.apart.len();
    }
    0
}

/// Whether name node `n` declares its name there.
fn declares(tree: &Tree, names: &Names, n: NodeId) -> bool {
    let node = tree.node(n);
    let Some(p) = node.parent else {
        return false;
    };
    let parent = tree.node(p).kind;
    if names.tag_specifiers.contains(&parent) && node.field == Some("name") {
        // `struct S *p` only names a tag; `struct S { ... }` declares it.
        return field_child(tree, p, "body").is_some();
    }
    (node.field == Some("name") && names.named.contains(&parent))
        || names
            .declared_at
            .iter()
            .any(|&(k, field)| (k.is_empty() || k == parent) && field == node.field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Parser;
    use crate::Lang;

    /// Each symbol as `name@scope-name` with its token count, sorted.
    fn symbols(lang: Lang, text: &str) -> (Vec<String>, Vec<String>) {
        let prog = Program::new(Parser::new(lang).parse(text));
        let s = Symbols::new(&prog);
        let tree = &prog.tree;
        let mut out: Vec<String> = s
            .symbols
            .iter()
            .map(|sym| {
                let scope = sym.scope.map_or("file".to_string(), |f| {
                    let name = tree.node(f).first_token;
                    let t = (name..tree.node(f).end_token)
                        .find(|&t| tree.node(tree.tokens[t as usize].node).kind == "identifier")
                        .unwrap();
                    tree.token_text(t).to_string()
                });
                format!(
                    "{}{}@{scope}x{}",
                    ["", "field:", "label:", "tag:"][sym.namespace],
                    tree.token_text(sym.tokens[0]),
                    sym.tokens.len()
                )
            })
            .collect();
        out.sort();
        let mut foreign: Vec<String> = s.foreign.into_iter().collect();
        foreign.sort();
        (out, foreign)
    }

    #[test]
    fn c_symbols_by_scope_and_namespace() {
        let text = "#define N 3\n\
            struct node { int val; struct node *next; };\n\
            int count;\n\
            int f(struct node *n, int x) { int count = N; again: if (x) goto again; return n->val + count; }\n\
            int g(void) { struct stat *s; return count + printf(\"%d\", count); }\n";
        let (symbols, foreign) = symbols(Lang::C, text);
        assert_eq!(
            symbols,
            [
                "count@filex3",
                "count@fx2",
                "f@filex1",
                "field:next@filex1",
                "field:val@filex2",
                "g@filex1",
                "label:again@fx2",
                "n@fx2",
                "s@gx1",
                "tag:node@filex3",
                "x@fx2",
            ]
        );
        // `stat` has no body here, `printf` and `N` no declaration.
        assert_eq!(foreign, ["N", "printf", "stat"]);
    }
}
