//! Replays a recorded reduction (stats JSON from `whittle reduce --stats-json`) to time the
//! engine alone: `cargo run --release --example replay_time -- input.c.orig stats.json [LANG]`
//! (C unless LANG names another language).
use std::time::Instant;
use whittle::reduce::{Session, Settings};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).unwrap();
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&args[2]).unwrap()).unwrap();
    let recording: whittle::Recording = stats["verdicts"].as_str().unwrap().parse().unwrap();
    let lang = args
        .get(3)
        .map_or(Some(whittle::Lang::C), |l| whittle::Lang::from_name(l));
    let started = Instant::now();
    let mut s = Session::replay(
        lang.expect("a language"),
        &text,
        Settings::default(),
        recording,
    )
    .unwrap();
    while !s.done() {
        s.step(100);
    }
    println!(
        "replay: {:.2} s, {} tokens, {} accepted, {} skipped as invalid",
        started.elapsed().as_secs_f64(),
        s.stats().tokens_now,
        s.stats().accepted,
        s.stats().invalid_skipped
    );
}
