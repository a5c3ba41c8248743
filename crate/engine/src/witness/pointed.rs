//! Where a compiler's report on the failing program points, and how much each place counts:
//! a bug report is about one message, seldom one the compiler prints hundreds of times, so a
//! line weighs the inverse of how often its kind of message appears. A note counts as the
//! message before it (clang's "initialize the variable 'i'" points at the declaration).
//! When the user says which message the bug is about (the regex of the property), only the
//! messages it matches count.

use std::collections::HashMap;

/// The lines of `name` that `output`'s messages (`name:12:5: warning: ... [-Wflag]`) point
/// at, each with its weight in (0, 1]; the highest weight a line gets wins.
pub fn pointed_lines(name: &str, output: &str) -> Vec<(usize, f64)> {
    pointed_lines_of(name, output, |_| true)
}

/// [`pointed_lines`] of the messages whose first line `about` accepts (with their notes):
/// what the bug is about, when the user says so. All messages, when it accepts none.
pub fn pointed_lines_of(
    name: &str,
    output: &str,
    about: impl Fn(&str) -> bool,
) -> Vec<(usize, f64)> {
    let kept = messages_about(output, about);
    let output = if kept.is_empty() { output } else { &kept };
    let prefix = format!("{name}:");
    let mut messages = vec![]; // (line, kind)
    let mut kind = String::new();
    for text in output.lines() {
        let Some(at) = text.find(&prefix) else {
            continue;
        };
        let rest = &text[at + prefix.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let Ok(line) = digits.parse::<usize>() else {
            continue;
        };
        if !rest.contains(" note: ") {
            kind = message_kind(rest);
        }
        messages.push((line, kind.clone()));
    }
    let mut count: HashMap<&str, usize> = HashMap::new();
    for (_, k) in &messages {
        *count.entry(k.as_str()).or_default() += 1;
    }
    let mut best: HashMap<usize, f64> = HashMap::new();
    for (line, k) in &messages {
        let w = 1.0 / count[k.as_str()] as f64;
        let e = best.entry(*line).or_insert(0.0);
        *e = e.max(w);
    }
    let mut out: Vec<(usize, f64)> = best.into_iter().collect();
    out.sort_by_key(|(l, _)| *l);
    out
}

/// The lines of `output`'s messages whose first line (`x.c:3:1: warning: ...`) `about`
/// accepts, each with what follows it up to the next message (its notes, its excerpts).
pub fn messages_about(output: &str, about: impl Fn(&str) -> bool) -> String {
    let mut kept = String::new();
    let mut keeping = false;
    for text in output.lines() {
        let head = [": warning: ", ": error: ", ": fatal error: "]
            .iter()
            .any(|k| text.contains(k));
        if head {
            keeping = about(text);
        }
        if keeping {
            kept.push_str(text);
            kept.push('\n');
        }
    }
    kept
}

/// A message's kind: its `[-Wflag]` when it has one, else its text without what is quoted
/// and without numbers.
fn message_kind(rest: &str) -> String {
    if let (Some(open), true) = (rest.rfind("[-W"), rest.trim_end().ends_with(']')) {
        return rest[open..].trim_end().to_string();
    }
    let after = rest.split_once(": ").map_or(rest, |(_, m)| m);
    let mut kind = String::new();
    let mut quoted = false;
    for c in after.chars() {
        match c {
            '\'' | '‘' | '’' | '"' => quoted = !quoted,
            _ if quoted || c.is_ascii_digit() => {}
            _ => kind.push(c),
        }
    }
    kind
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rare_messages_weigh_more_and_notes_follow_their_message() {
        let out = "input.c:10:3: warning: unused variable 'a' [-Wunused-variable]\n\
                   input.c:20:3: warning: unused variable 'b' [-Wunused-variable]\n\
                   input.c:30:3: warning: unused variable 'c' [-Wunused-variable]\n\
                   input.c:95:16: warning: variable 'i' is uninitialized when used here [-Wuninitialized]\n\
                   input.c:92:14: note: initialize the variable 'i' to silence this warning\n\
                   other.h:5:1: warning: something [-Wother]\n\
                   input.c:40:1: error: expected ';'\n";
        let p = pointed_lines("input.c", out);
        let w = |l| p.iter().find(|x| x.0 == l).map(|x| x.1);
        assert_eq!(w(10), Some(1.0 / 3.0));
        assert_eq!(
            w(95),
            Some(0.5),
            "the warning and its note are two of one kind"
        );
        assert_eq!(w(92), Some(0.5));
        assert_eq!(w(40), Some(1.0));
        assert_eq!(w(5), None, "another file");
        assert_eq!(p.len(), 6);
    }

    #[test]
    fn only_the_messages_the_bug_is_about_when_it_is_known() {
        let out = "input.c:10:3: warning: unused variable 'a' [-Wunused-variable]\n\
                   input.c:1519:1: warning: this 'if' clause does not guard... [-Wmisleading-indentation]\n\
                   \x20 1519 | if (g_310) x = y ? 1 : 2;\n\
                   input.c:1522:21: note: ...this statement, but the latter is misleadingly indented\n\
                   input.c:30:3: warning: unused variable 'c' [-Wunused-variable]\n";
        let about = |m: &str| m.contains("does not guard");
        let p = pointed_lines_of("input.c", out, about);
        assert_eq!(p, [(1519, 0.5), (1522, 0.5)]);
        let none = pointed_lines_of("input.c", out, |_| false);
        assert_eq!(
            none,
            pointed_lines("input.c", out),
            "nothing matches: all count"
        );
    }

    #[test]
    fn kinds_without_a_flag_ignore_names_and_numbers() {
        assert_eq!(
            message_kind("3:1: error: 'x' undeclared"),
            message_kind("9:2: error: 'y' undeclared")
        );
        assert_ne!(
            message_kind("3:1: error: 'x' undeclared"),
            message_kind("3:1: error: expected ';'")
        );
    }
}
