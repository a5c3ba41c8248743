//! The names a user may give: strategies, languages, and a generator's alignment and trace
//! strategies, with the messages for a wrong one. Help texts and errors in every shell come
//! from here.

use crate::generator::{Align, TraceStrategy};
use crate::reduce::Strategy;
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
}
