use whittle::tree::{Parser, Validity};
use whittle::Lang;
fn errs(t: &tree_sitter::Tree) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut stack = vec![t.root_node()];
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            out.push((n.start_byte(), n.end_byte()));
        } else if n.has_error() {
            let mut c = n.walk();
            stack.extend(n.children(&mut c));
        }
    }
    out.sort();
    out
}
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let old = std::fs::read_to_string(&a[1]).unwrap();
    let new = std::fs::read_to_string(&a[2]).unwrap();
    let mut p = Parser::new(Lang::Cpp);
    p.set_tolerant(true);
    let (_, raw) = p.parse_with_raw(&old);
    let t = std::time::Instant::now();
    let inc = match p.check(&raw, &old, &new) {
        Validity::Flawed(t) => t,
        Validity::Valid(Some(t)) => t,
        _ => panic!(),
    };
    println!("incremental {:?}", t.elapsed());
    let mut q = Parser::new(Lang::Cpp);
    let t = std::time::Instant::now();
    let (_, fresh) = q.parse_with_raw(&new);
    println!("fresh {:?}", t.elapsed());
    let (ei, ef) = (errs(&inc), errs(&fresh));
    println!(
        "errors incremental {} fresh {} same {}",
        ei.len(),
        ef.len(),
        ei == ef
    );
    let eo = errs(&raw);
    println!("old errors {}", eo.len());
    for (x, y) in ei.iter().zip(&ef).filter(|(x, y)| x != y).take(5) {
        println!(
            "{:?} {:?} {:?} | {:?}",
            x,
            y,
            &new[x.0..x.1.min(x.0 + 80)],
            &new[y.0..y.1.min(y.0 + 80)]
        );
    }
}
