//! The live progress line on a terminal (stderr), redrawn in place.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};
use whittle::reduce::Stats;

pub struct Progress {
    enabled: bool,
    last: Option<Instant>,
}

impl Progress {
    pub fn new(quiet: bool) -> Progress {
        Progress {
            enabled: !quiet && std::io::stderr().is_terminal(),
            last: None,
        }
    }

    /// Redraws at most ten times a second. `sizes` stands in for the token count (a pair's
    /// seed, variant and diff).
    pub fn show(&mut self, s: &Stats, elapsed: Duration, sizes: Option<String>) {
        if !self.enabled
            || self
                .last
                .is_some_and(|t| t.elapsed() < Duration::from_millis(100))
        {
            return;
        }
        self.last = Some(Instant::now());
        let secs = elapsed.as_secs_f64().max(0.001);
        let pct = 100.0 * s.tokens_now as f64 / s.tokens_before.max(1) as f64;
        let sizes = sizes.unwrap_or_else(|| format!("{} tokens ({pct:.1}%)", s.tokens_now));
        let mut err = std::io::stderr();
        let _ = write!(
            err,
            "\r\x1b[K{sizes} | {} queries, {:.1}/s | {} cache hits | {} | {:.0} s",
            s.queries,
            s.queries as f64 / secs,
            s.cache_hits,
            s.pass,
            secs
        );
        let _ = err.flush();
    }

    pub fn clear(&mut self) {
        if self.enabled && self.last.is_some() {
            eprint!("\r\x1b[K");
        }
    }
}
