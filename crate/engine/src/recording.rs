//! A reduction's verdicts, in the order a one-at-a-time run would ask for them: enough to
//! replay the whole reduction without a test. Written as a string of `0` and `1`
//! (permalinks, `--stats-json`).

use std::fmt;
use std::str::FromStr;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recording(pub Vec<bool>);

impl fmt::Display for Recording {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0
            .iter()
            .try_for_each(|&b| f.write_str(if b { "1" } else { "0" }))
    }
}

impl FromStr for Recording {
    type Err = String;

    fn from_str(s: &str) -> Result<Recording, String> {
        s.chars()
            .enumerate()
            .map(|(i, c)| match c {
                '0' => Ok(false),
                '1' => Ok(true),
                _ => Err(format!(
                    "a recording is a string of 0 and 1, but character {} is `{c}`",
                    i + 1
                )),
            })
            .collect::<Result<_, _>>()
            .map(Recording)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_and_parses_back() {
        let r = Recording(vec![true, false, false, true]);
        assert_eq!(r.to_string(), "1001");
        assert_eq!("1001".parse::<Recording>(), Ok(r));
        assert_eq!("".parse::<Recording>(), Ok(Recording::default()));
    }

    #[test]
    fn refuses_other_characters() {
        let err = "10x1".parse::<Recording>().unwrap_err();
        assert!(err.contains("character 3 is `x`"), "{err}");
    }
}
