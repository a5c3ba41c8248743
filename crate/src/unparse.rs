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
    (word(a) && word(b)) || (punct(a) && punct(b)) || (word(a) && (b == '\'' || b == '"'))
}

/// Text of the tokens `keep` selects (indexed by token id), in order.
pub fn unparse(tree: &Tree, keep: &[bool]) -> String {
    unparse_iter(tree, keep.iter().enumerate().filter(|(_, k)| **k).map(|(i, _)| i as TokenId))
}

/// Text of the given tokens, which must come in increasing order.
pub fn unparse_iter(tree: &Tree, kept: impl Iterator<Item = TokenId>) -> String {
    let text = tree.text.as_str();
    let mut out = String::with_capacity(text.len());
    let mut prev: Option<TokenId> = None;
    for t in kept {
        let tok = &tree.tokens[t as usize];
        let gap_start = if t == 0 { 0 } else { tree.tokens[t as usize - 1].end as usize };
        let gap = &text[gap_start.min(tok.start as usize)..tok.start as usize];
        match prev {
            // Before the first kept token: the original leading white space only.
            None => out.push_str(if t == 0 { gap } else { leading_space(gap) }),
            Some(p) => {
                // Across a deletion: a token that starts a line keeps its indentation;
                // otherwise the space that followed the previous kept token stays.
                let gap = if p + 1 != t && !gap.contains('\n') {
                    let after = tree.tokens[p as usize].end as usize;
                    &text[after..tree.tokens[p as usize + 1].start as usize]
                } else {
                    gap
                };
                if gap.is_empty() && p + 1 != t {
                    let a = out.chars().next_back();
                    let b = text[tok.start as usize..].chars().next();
                    if let (Some(a), Some(b)) = (a, b) {
                        if would_fuse(a, b) {
                            out.push(' ');
                        }
                    }
                }
                out.push_str(gap);
            }
        }
        out.push_str(&text[tok.start as usize..tok.end as usize]);
        prev = Some(t);
    }
    // The original trailing white space (usually the final newline) stays.
    if let Some(last) = tree.tokens.last() {
        if prev.is_some() {
            out.push_str(&text[last.end as usize..]);
        }
    }
    out
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
        let keep: Vec<bool> = (0..tree.tokens.len() as u32).map(|t| tree.token_text(t) != "*").collect();
        assert_eq!(unparse(&tree, &keep), "int x;");
    }

    #[test]
    fn deletion_keeps_following_layout() {
        let text = "void f() {\n  a();\n  b();\n  c();\n}\n";
        let tree = Parser::new(Lang::C).parse(text);
        let toks: Vec<&str> = (0..tree.tokens.len() as u32).map(|t| tree.token_text(t)).collect();
        let b = toks.iter().position(|t| *t == "b").unwrap();
        let keep: Vec<bool> = (0..toks.len()).map(|i| !(b..b + 4).contains(&i)).collect();
        assert_eq!(unparse(&tree, &keep), "void f() {\n  a();\n  c();\n}\n");
    }
}
