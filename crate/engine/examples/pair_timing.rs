//! Times the pair engine's set-up on a pair of files: parse, align, tree diff, groups.
//! `cargo run --release --example pair_timing -- seed.c variant.c`
use std::time::Instant;
use whittle::pair::{groups, program::PairProgram, treediff};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (s, v) = (
        std::fs::read_to_string(&args[1]).unwrap(),
        std::fs::read_to_string(&args[2]).unwrap(),
    );
    let mut p = whittle::tree::Parser::new(whittle::Lang::C);
    let t = Instant::now();
    let (a, b) = (p.parse(&s), p.parse(&v));
    println!(
        "parse {:.3} s, {} + {} nodes",
        t.elapsed().as_secs_f64(),
        a.nodes.len(),
        b.nodes.len()
    );
    let t = Instant::now();
    let m = treediff::match_trees(&a, &b);
    println!(
        "match {:.3} s, {} matched",
        t.elapsed().as_secs_f64(),
        m.len()
    );
    let t = Instant::now();
    let prog = PairProgram::new(a, b);
    println!(
        "align {:.3} s, sizes {:?}, {} hunks",
        t.elapsed().as_secs_f64(),
        prog.sizes(),
        prog.align.hunks.len()
    );
    let t = Instant::now();
    let g = groups::tree_groups(&prog);
    println!(
        "tree groups {:.3} s: {}",
        t.elapsed().as_secs_f64(),
        g.len()
    );
    let t = Instant::now();
    let (x, y) = prog.texts();
    println!(
        "texts {:.3} s ({} {})",
        t.elapsed().as_secs_f64(),
        x.len(),
        y.len()
    );
}
