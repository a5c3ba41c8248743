//! An input the engine cannot reduce: a side that does not parse in its language. Each shell
//! words it its own way (the CLI names the file, the page the editor).

use crate::tree::SyntaxError;
use crate::{Lang, Side};

#[derive(Clone, Debug)]
pub struct InputError {
    /// Which side; `None` for a single program.
    pub side: Option<Side>,
    pub lang: Lang,
    /// Where the first error is (line and column are 1-based).
    pub error: SyntaxError,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = self.side.map_or("program", Side::name);
        write!(
            f,
            "the {what} does not parse as {} ({}); fix it or choose the right language",
            self.lang, self.error
        )
    }
}

impl std::error::Error for InputError {}
