//! Unparse: the text of a subset of a tree's tokens, with the original spacing.
//!
//! Each kept token is preceded by the white space that preceded it in the original (or,
//! across a deletion within a line, by the space that followed the previous kept token),
//! so layout and indentation (and whitespace-sensitive warnings) survive. Where two kept tokens were not
//! neighbours and nothing separates them now, one space goes in if they would otherwise
//! fuse into a different token (`int` `x`, `+` `+`).

use crate::tree::{TokenId, Tree};

/// Whether a token ending in `a` followed directly by one starting with `b` could lex as
/// something else.
pub fn would_fuse(a: char, b: char) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$' || !c.is_ascii();
    let punct = |c: char| "+-*/%<>=!&|^~.:#?@'\"".contains(c);
    // A string's quotes meet when its text goes: `""` is the empty string, not a new token.
    let quotes = a == b && matches!(a, '"' | '\'' | '`');
    (word(a) && word(b))
        || (punct(a) && punct(b) && !quotes)
        || (word(a) && (b == '\'' || b == '"'))
}

/// Text of the tokens `keep` selects (indexed by token id), in order.
pub fn unparse(tree: &Tree, keep: &[bool]) -> String {
    unparse_iter(
        tree,
        keep.iter()
            .enumerate()
            .filter(|(_, k)| **k)
            .map(|(i, _)| i as TokenId),
    )
}

/// Text of the given tokens, which must come in increasing order.
pub fn unparse_iter(tree: &Tree, kept: impl Iterator<Item = TokenId>) -> String {
    unparse_refs(&[tree], kept.map(|t| (0, t)))
}

/// Text of tokens drawn from several trees: `(tree index, token)`, each tree's tokens in
/// increasing order (a pair's variant mixes its own tokens with its seed's). The trailing
/// white space is the first tree's.
pub fn unparse_refs(trees: &[&Tree], kept: impl Iterator<Item = (usize, TokenId)>) -> String {
    unparse_refs_with(trees, kept, &[])
}

/// Replacement texts for tokens (transformations beyond deletion), by token id.
pub type Substitutions = std::collections::BTreeMap<TokenId, String>;

/// Text of the tokens `keep` selects, with `subst` standing in for the tokens it names.
pub fn unparse_with(tree: &Tree, keep: &[bool], subst: &Substitutions) -> String {
    let kept = keep
        .iter()
        .enumerate()
        .filter(|(_, k)| **k)
        .map(|(i, _)| (0, i as TokenId));
    unparse_refs_with(&[tree], kept, &[subst])
}

/// [`unparse_refs`] with rewritten tokens: `substs[i]` applies to the tokens of `trees[i]`.
pub fn unparse_refs_with(
    trees: &[&Tree],
    kept: impl Iterator<Item = (usize, TokenId)>,
    substs: &[&Substitutions],
) -> String {
    let token_text = |i: usize, t: TokenId| -> &str {
        match substs.get(i).and_then(|m| m.get(&t)) {
            Some(s) => s,
            None => {
                let tok = &trees[i].tokens[t as usize];
                &trees[i].text[tok.start as usize..tok.end as usize]
            }
        }
    };
    let mut out = String::with_capacity(trees[0].text.len());
    let mut prev: Option<(usize, TokenId)> = None;
    // An untouched stretch of the original (adjacent kept tokens, none rewritten) is copied
    // in one piece: its tree and byte range, not yet in `out`.
    let mut run: Option<(usize, usize, usize)> = None;
    let flush = |out: &mut String, run: &mut Option<(usize, usize, usize)>| {
        if let Some((i, a, b)) = run.take() {
            out.push_str(&trees[i].text[a..b]);
        }
    };
    for (i, t) in kept {
        let tree = trees[i];
        let tok = &tree.tokens[t as usize];
        let rewritten = substs.get(i).is_some_and(|m| m.contains_key(&t));
        match prev {
            Some((pi, p)) if pi == i && p + 1 == t && !rewritten => {
                let start = match run {
                    Some((_, a, _)) => a,
                    None => tree.tokens[p as usize].end as usize,
                };
                run = Some((i, start, tok.end as usize));
                prev = Some((i, t));
                continue;
            }
            _ => flush(&mut out, &mut run),
        }
        push(&mut out, gap(trees, prev, (i, t)), token_text(i, t));
        prev = Some((i, t));
    }
    flush(&mut out, &mut run);
    // The original trailing white space (usually the final newline) stays.
    if let Some(last) = trees[0].tokens.last() {
        if prev.is_some() {
            out.push_str(&trees[0].text[last.end as usize..]);
        }
    }
    out
}

/// The white space that goes before kept token `(i, t)` when `prev` is the kept token before
/// it (`None`: it is the first), and whether nothing separates two tokens that were not
/// neighbours (a space then goes in if they would fuse).
fn gap<'a>(
    trees: &[&'a Tree],
    prev: Option<(usize, TokenId)>,
    (i, t): (usize, TokenId),
) -> (&'a str, bool) {
    let tree = trees[i];
    let tok = &tree.tokens[t as usize];
    let gap_start = if t == 0 {
        0
    } else {
        tree.tokens[t as usize - 1].end as usize
    };
    let gap = &tree.text[gap_start.min(tok.start as usize)..tok.start as usize];
    let Some((pi, p)) = prev else {
        // Before the first kept token: the original leading white space only.
        return (if t == 0 { gap } else { leading_space(gap) }, false);
    };
    let adjacent = pi == i && p + 1 == t;
    // Across a deletion: a token that starts a line keeps its indentation; otherwise the
    // space that followed the previous kept token stays.
    let gap = if !adjacent && !gap.contains('\n') {
        let ptree = trees[pi];
        let after = ptree.tokens[p as usize].end as usize;
        let next = ptree
            .tokens
            .get(p as usize + 1)
            .map_or(ptree.text.len(), |n| n.start as usize);
        &ptree.text[after..next]
    } else {
        gap
    };
    (gap, gap.is_empty() && !adjacent)
}

/// Appends a token's `text` after its `gap` (see [`gap`]).
fn push(out: &mut String, (gap, bare): (&str, bool), text: &str) {
    if bare {
        space_if_fused(out, text.chars().next());
    }
    out.push_str(gap);
    out.push_str(text);
}

/// A space if what `out` ends with would fuse with `next`.
fn space_if_fused(out: &mut String, next: Option<char>) {
    if let (Some(a), Some(b)) = (out.chars().next_back(), next) {
        if would_fuse(a, b) {
            out.push(' ');
        }
    }
}

/// Part of [`unparse_with`]'s text, appended to `out`, which holds the text before it: what
/// it puts after kept token `from`'s text (`None`: from the start) up to the start of kept
/// token `to`'s (`None`: to the end), where `between` are the kept tokens in between, in
/// order; with the byte spans in `out` of those that are not blank, in `spans`. An edit
/// changes a megabyte program in a few places: its text is the old one with these parts made
/// anew, the same as a whole unparse makes them (each token's gap depends only on the kept
/// token before it).
pub fn part(
    out: &mut String,
    spans: &mut Vec<(usize, usize, TokenId)>,
    tree: &Tree,
    subst: &Substitutions,
    (from, to): (Option<TokenId>, Option<TokenId>),
    between: impl Iterator<Item = TokenId>,
) {
    let trees = [tree];
    let text = |t: TokenId| {
        subst
            .get(&t)
            .map_or_else(|| tree.token_text(t), |s| s.as_str())
    };
    let mut prev = from.map(|t| (0, t));
    for t in between {
        let token = text(t);
        push(out, gap(&trees, prev, (0, t)), token);
        if !token.trim().is_empty() {
            spans.push((out.len() - token.len(), out.len(), t));
        }
        prev = Some((0, t));
    }
    match to {
        Some(t) => {
            let (gap, bare) = gap(&trees, prev, (0, t));
            if bare {
                space_if_fused(out, text(t).chars().next());
            }
            out.push_str(gap);
        }
        None => {
            if let (Some(last), Some(_)) = (tree.tokens.last(), prev) {
                out.push_str(&tree.text[last.end as usize..]);
            }
        }
    }
}

/// The part of a gap after its last newline: the indentation of the token that follows.
fn leading_space(gap: &str) -> &str {
    gap.rfind('\n').map_or("", |i| &gap[i + 1..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Parser;
    use crate::Lang;

    #[test]
    fn all_tokens_give_back_the_text() {
        let text = "  // lead\nint  main(void)\n{\n\treturn 1+ +2; /* x */\n}\n\n";
        let tree = Parser::new(Lang::C).parse(text);
        assert_eq!(unparse(&tree, &vec![true; tree.tokens.len()]), text);
    }

    #[test]
    fn fusing_tokens_get_a_space() {
        let text = "int*x;";
        let tree = Parser::new(Lang::C).parse(text);
        let keep: Vec<bool> = (0..tree.tokens.len() as u32)
            .map(|t| tree.token_text(t) != "*")
            .collect();
        assert_eq!(unparse(&tree, &keep), "int x;");
    }

    #[test]
    fn deletion_keeps_following_layout() {
        let text = "void f() {\n  a();\n  b();\n  c();\n}\n";
        let tree = Parser::new(Lang::C).parse(text);
        let toks: Vec<&str> = (0..tree.tokens.len() as u32)
            .map(|t| tree.token_text(t))
            .collect();
        let b = toks.iter().position(|t| *t == "b").unwrap();
        let keep: Vec<bool> = (0..toks.len()).map(|i| !(b..b + 4).contains(&i)).collect();
        assert_eq!(unparse(&tree, &keep), "void f() {\n  a();\n  c();\n}\n");
    }
}
