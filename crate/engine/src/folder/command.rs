//! The test's command line as a file of the folder ([`COMMAND`], with `--reduce-flags`): its
//! flags and the files it names are tried away with the files, as a Makefile's words are.
//! The command is read as a shell reads its words; what would change its shape (the program,
//! an operator, a redirection and its target) never goes.

use std::ops::Range;

/// The path of the command line in a folder's tree: the test runs it with `sh`.
pub const COMMAND: &str = ".whittle-command";

/// The byte range of each shell word of `line` (quotes and backslashes keep a word whole).
fn words(line: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let (mut start, mut quote, mut escaped) = (None, None, false);
    for (i, c) in line.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match (c, quote) {
            ('\\', q) if q != Some('\'') => escaped = true,
            ('\'' | '"', None) => quote = Some(c),
            (c, Some(q)) if c == q => quote = None,
            (c, None) if c.is_whitespace() => {
                if let Some(s) = start.take() {
                    out.push(s..i);
                }
                continue;
            }
            _ => {}
        }
        start.get_or_insert(i);
    }
    if let Some(s) = start {
        out.push(s..line.len());
    }
    out
}

/// Words that join or redirect commands.
fn is_operator(word: &str) -> bool {
    matches!(word, "|" | "||" | "&&" | ";" | "&")
}

fn is_redirection(word: &str) -> bool {
    let w = word.trim_start_matches(|c: char| c.is_ascii_digit() || c == '&');
    w.starts_with('>') || w.starts_with('<')
}

/// The words that may go: the arguments of each command, not its program, nor an operator,
/// nor a redirection (whose target, when a word of its own, stays too).
fn arguments(line: &str) -> Vec<Range<usize>> {
    let all = words(line);
    let mut out = Vec::new();
    let mut program = true;
    let mut target = false;
    for r in all {
        let w = &line[r.clone()];
        if is_operator(w) {
            program = true;
        } else if is_redirection(w) {
            // `>out` carries its target; `>` alone has it next.
            target = w
                .trim_start_matches(['<', '>', '&', '0', '1', '2'])
                .is_empty();
        } else {
            // Both reset: a word after the program or a target is an argument.
            let fixed = std::mem::take(&mut target) | std::mem::take(&mut program);
            if !fixed {
                out.push(r);
            }
        }
    }
    out
}

/// What a move of the command takes away: a word, or a flag with its argument (`-I dir`),
/// each by its text (the first such in the command as it now reads).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    pub words: Vec<String>,
}

/// The cuts of the command, in order: each flag with its argument and each file, as the
/// recipes try flags away ([`crate::recipe::flag_span`]: what a compile writes and where,
/// `-c`, `-o out`, never goes, or a check would link over its output).
pub fn cuts(line: &str) -> Vec<Cut> {
    let args = arguments(line);
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let word = &line[args[i].clone()];
        let (mut width, goes) = match word.starts_with('-') {
            true => crate::recipe::flag_span(word),
            false => (1, true),
        };
        // An argument is the next word of the same command.
        if width == 2
            && !args
                .get(i + 1)
                .is_some_and(|next| adjacent(line, &args[i], next))
        {
            width = 1;
        }
        if goes {
            let words = args[i..i + width]
                .iter()
                .map(|r| line[r.clone()].to_string());
            out.push(Cut {
                words: words.collect(),
            });
        }
        i += width;
    }
    out
}

/// Whether only white space lies between the words `a` and `b` of `line`.
fn adjacent(line: &str, a: &Range<usize>, b: &Range<usize>) -> bool {
    line[a.end..b.start].trim().is_empty()
}

/// The command without `cut`'s words (in a row), if it has them; the space before them goes.
pub fn without(line: &str, cut: &Cut) -> Option<String> {
    let args = arguments(line);
    let n = cut.words.len();
    let at = args.windows(n).find(|w| {
        w.iter()
            .zip(&cut.words)
            .all(|(r, word)| &line[r.clone()] == word)
            && w.windows(2).all(|p| adjacent(line, &p[0], &p[1]))
    })?;
    let (first, last) = (at[0].start, at[n - 1].end);
    let from = line[..first].trim_end_matches([' ', '\t']).len();
    Some(format!("{}{}", &line[..from], &line[last..]))
}

/// The words of the command that name `path` (as `path` or `./path`): they go with the file.
pub fn naming(line: &str, path: &str) -> Vec<Cut> {
    arguments(line)
        .into_iter()
        .map(|r| &line[r])
        .filter(|w| w.strip_prefix("./").unwrap_or(w) == path)
        .map(|w| Cut {
            words: vec![w.to_string()],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(line: &str) -> Vec<String> {
        cuts(line).into_iter().map(|c| c.words.join(" ")).collect()
    }

    #[test]
    fn flags_with_their_arguments_and_files_but_not_what_the_compile_writes() {
        assert_eq!(
            listed("gcc -O2 -I inc -o out -c ./a.c -Wall"),
            ["-O2", "-I inc", "./a.c", "-Wall"]
        );
    }

    #[test]
    fn programs_operators_and_redirections_stay() {
        let line = "gcc -c 'a b.c' 2>&1 | grep -q warn > log";
        assert_eq!(listed(line), ["'a b.c'", "-q", "warn"]);
    }

    #[test]
    fn a_cut_takes_its_words_and_the_space_before() {
        let line = "gcc -O2 -o out -c ./a.c";
        let cut = |w: &[&str]| Cut {
            words: w.iter().map(|s| s.to_string()).collect(),
        };
        assert_eq!(
            without(line, &cut(&["-o", "out"])).unwrap(),
            "gcc -O2 -c ./a.c"
        );
        assert_eq!(
            without(line, &cut(&["-O2"])).unwrap(),
            "gcc -o out -c ./a.c"
        );
        assert_eq!(without(line, &cut(&["-g"])), None);
        assert_eq!(naming(line, "a.c"), [cut(&["./a.c"])]);
        assert!(naming(line, "b.c").is_empty());
    }
}
