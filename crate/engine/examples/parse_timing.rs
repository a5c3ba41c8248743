//! Times the validity check of small deletions across a big program (`cargo run --release
//! --example parse_timing -- FILE [LANG]`): a full parse, then one check per deletion.
use std::time::Instant;
use whittle::tree::{Parser, Validity};
use whittle::Lang;
fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("a file");
    let lang = args
        .next()
        .and_then(|l| Lang::from_name(&l))
        .unwrap_or(Lang::Cpp);
    let text = std::fs::read_to_string(path).expect("a readable file");
    let mut p = Parser::new(lang);
    p.set_cross_check(false);
    p.set_tolerant(true);
    let t = Instant::now();
    let (_tree, raw) = p.parse_with_raw(&text);
    println!("full parse {:?}", t.elapsed());
    for frac in [0.1, 0.3, 0.5, 0.7, 0.9] {
        let at = (text.len() as f64 * frac) as usize;
        // One statement or declaration: from a line's `;` to the next.
        let at = text[..at].rfind(";\n").expect("a `;` at a line's end") + 2;
        let end = at + text[at..].find(";\n").expect("another") + 2;
        let new = format!("{}{}", &text[..at], &text[end..]);
        let t = Instant::now();
        let v = p.check(&raw, &text, &new);
        let verdict = match v {
            Validity::Invalid => "invalid",
            Validity::Valid(_) => "valid",
            Validity::Flawed { .. } => "flawed",
        };
        println!(
            "{frac}: deleted {} bytes, check {:?} {verdict}",
            end - at,
            t.elapsed()
        );
    }
}
