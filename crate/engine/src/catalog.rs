//! The names a user may give: strategies, passes, languages, and a generator's alignment and
//! trace strategies, with the messages for a wrong one. Help texts and errors in every shell come
//! from here.

use crate::folder::Cross;
use crate::generator::{Align, TraceStrategy};
use crate::reduce::{PassKind, Strategy, PASSES};
use crate::Lang;

/// `a, b, c or d`.
fn either(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.to_string(),
        None => String::new(),
    }
}

/// The strategies, for help texts: `perses, hdd, ddmin-lines or ddmin-tokens`.
pub fn strategy_names() -> String {
    either(&Strategy::ALL.map(Strategy::name))
}

/// The passes, for help texts and errors: `comments, perses, ... or update`.
/// Every pass's name: a file's, then those across a folder's files.
pub fn pass_names() -> String {
    let cross = Cross::ALL.map(|c| c.name());
    either(
        &PASSES
            .iter()
            .map(|p| p.name)
            .chain(cross)
            .collect::<Vec<_>>(),
    )
}

pub fn pass(name: &str) -> Result<PassKind, String> {
    PassKind::from_name(name).ok_or_else(|| {
        format!(
            "unknown pass `{name}`: use {} (`whittle reduce --list-passes` says what each does)",
            pass_names()
        )
    })
}

/// Where a pass runs: `perses: fine, coarse`, strategies alike joined (`all: every`).
fn rounds_of(pass: PassKind) -> String {
    let mut groups: Vec<(Vec<&str>, Vec<&str>)> = Vec::new();
    for strategy in Strategy::ALL {
        let rounds = strategy.rounds_of(pass);
        if rounds.is_empty() {
            continue;
        }
        match groups.iter_mut().find(|(r, _)| *r == rounds) {
            Some((_, names)) => names.push(strategy.name()),
            None => groups.push((rounds, vec![strategy.name()])),
        }
    }
    let group = |(rounds, names): &(Vec<&str>, Vec<&str>)| {
        let who = match names.len() == Strategy::ALL.len() {
            true => "all".to_string(),
            false => names.join(", "),
        };
        format!("{who}: {}", rounds.join(", "))
    };
    groups.iter().map(group).collect::<Vec<_>>().join("; ")
}

/// The passes as a table: name, where each runs, what it does (`whittle reduce --list-passes`).
pub fn pass_table() -> String {
    // A folder's rounds start with the passes across its files.
    let across = Cross::ALL.map(|c| {
        [
            c.name().into(),
            "folders: every, first".into(),
            c.about().into(),
        ]
    });
    let rows: Vec<[String; 3]> = PASSES
        .iter()
        .map(|p| [p.name.to_string(), rounds_of(p.kind), p.about.to_string()])
        .chain(across)
        .collect();
    let head = ["PASS", "ROUNDS (by strategy)", "WHAT IT DOES"].map(String::from);
    let width = |i: usize| {
        rows.iter()
            .chain([&head])
            .map(|r| r[i].len())
            .max()
            .unwrap_or(0)
    };
    let (w0, w1) = (width(0), width(1));
    let mut out = String::new();
    for [name, rounds, about] in [&head].into_iter().chain(&rows) {
        out += &format!("{name:w0$}  {rounds:w1$}  {about}\n");
    }
    out += "\nRounds: coarse ones first (only big deletions), then fine ones until none changes\n\
         the program. A stalled round is a fine one where nothing else made progress; the\n\
         finale runs once, at the end. A folder's rounds start with the passes across its\n\
         files. `--skip-pass NAME` leaves out a pass of a file's rounds.\n";
    out
}

/// Passes to skip, a file's and those across a folder's files, from names separated by
/// commas or spaces (`rename, types`).
pub fn skipped_passes<'a>(
    names: impl IntoIterator<Item = &'a str>,
) -> Result<(Vec<PassKind>, Vec<Cross>), String> {
    let (mut file, mut cross) = (Vec::new(), Vec::new());
    for name in names
        .into_iter()
        .flat_map(|n| n.split(|c: char| c == ',' || c.is_whitespace()))
        .filter(|n| !n.is_empty())
    {
        match Cross::from_name(name) {
            Some(c) => cross.push(c),
            None => file.push(pass(name)?),
        }
    }
    Ok((file, cross))
}

/// The languages, for help texts: `c, cpp, rust, javascript or java`.
pub fn lang_names() -> String {
    either(&Lang::ALL.map(Lang::name))
}

pub fn strategy(name: &str) -> Result<Strategy, String> {
    Strategy::from_name(name)
        .ok_or_else(|| format!("unknown strategy `{name}`: use {}", strategy_names()))
}

pub fn lang(name: &str) -> Result<Lang, String> {
    Lang::from_name(name).ok_or_else(|| format!("unknown language `{name}`: use {}", lang_names()))
}

/// The alignments of a generator's replay: `halt, bypass or realign`.
pub fn align_names() -> String {
    either(&Align::ALL.map(Align::name))
}

/// How a generator's trace is reduced: `hdd or ddmin`.
pub fn trace_names() -> String {
    either(&TraceStrategy::ALL.map(TraceStrategy::name))
}

pub fn align(name: &str) -> Result<Align, String> {
    Align::from_name(name).ok_or_else(|| format!("unknown align `{name}`: use {}", align_names()))
}

pub fn trace_strategy(name: &str) -> Result<TraceStrategy, String> {
    TraceStrategy::from_name(name)
        .ok_or_else(|| format!("unknown trace strategy `{name}`: use {}", trace_names()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_list_every_name() {
        let err = strategy("quick").unwrap_err();
        assert_eq!(
            err,
            "unknown strategy `quick`: use perses, hdd, ddmin-lines or ddmin-tokens"
        );
        let err = lang("cobol").unwrap_err();
        assert_eq!(
            err,
            "unknown language `cobol`: use c, cpp, rust, javascript or java"
        );
        assert_eq!(strategy("hdd"), Ok(Strategy::Hdd));
        assert_eq!(
            align("skip").unwrap_err(),
            "unknown align `skip`: use halt, bypass or realign"
        );
        assert_eq!(
            trace_strategy("bfs").unwrap_err(),
            "unknown trace strategy `bfs`: use hdd or ddmin"
        );
        assert_eq!(lang("c++"), Ok(Lang::Cpp));
    }

    #[test]
    fn the_pass_table_has_a_row_for_each_pass() {
        let table = pass_table();
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines[0].starts_with("PASS "), "{table}");
        for (p, line) in PASSES.iter().zip(&lines[1..]) {
            assert!(line.starts_with(&format!("{} ", p.name)), "{line}");
            assert!(line.ends_with(p.about), "{line}");
        }
        let row = |name: &str| *lines.iter().find(|l| l.starts_with(name)).unwrap();
        assert!(row("comments ").contains("all: every "), "{table}");
        assert!(
            row("error-regions ").contains("perses: fine, coarse "),
            "{table}"
        );
        assert!(row("format ").contains("perses: finale "), "{table}");
        for c in Cross::ALL {
            let line = row(&format!("{} ", c.name()));
            assert!(line.contains("folders: every, first "), "{table}");
            assert!(line.ends_with(c.about()), "{table}");
        }
    }

    #[test]
    fn passes_by_name_and_an_unknown_one_refused_with_the_list() {
        assert_eq!(
            skipped_passes([" rename,types  local,", "drop-link"]),
            Ok((
                vec![PassKind::Rename, PassKind::Types, PassKind::Local],
                vec![Cross::DropLinks]
            ))
        );
        assert_eq!(skipped_passes([""]), Ok((vec![], vec![])));
        let err = skipped_passes(["rename, renames"]).unwrap_err();
        assert!(
            err.starts_with("unknown pass `renames`: use comments, perses, hdd,"),
            "{err}"
        );
        for p in PASSES {
            assert!(err.contains(p.name), "{err} lacks {}", p.name);
        }
        assert!(
            err.contains(", bodies, terminators, chains, extensions, roots, clauses, file-scope, bare-field, delete-file, inline-file, drop-link, delete-symbol or make-flags (`whittle reduce --list-passes`"),
            "{err}"
        );
    }
}
