//! `whittle parse FILE [--lang L] [--tree] [--json]`.

use std::path::PathBuf;
use whittle::tree::Parser;
use whittle::unparse::unparse;

#[derive(clap::Args)]
pub struct ParseArgs {
    pub file: PathBuf,
    #[arg(long)]
    pub lang: Option<String>,
    /// Print the parse tree.
    #[arg(long)]
    pub tree: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: ParseArgs) -> i32 {
    let text = match super::read_program(&args.file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("whittle parse: {e}");
            return 2;
        }
    };
    let lang = match super::pick_lang(args.lang.as_deref(), &args.file, &text) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("whittle parse: {e}");
            return 2;
        }
    };
    let started = std::time::Instant::now();
    let tree = Parser::new(lang).parse(&text);
    let parse_ms = started.elapsed().as_secs_f64() * 1000.0;
    let round_trip = unparse(&tree, &vec![true; tree.tokens.len()]) == text;
    let name = args.file.display();
    if args.json {
        let mut out = serde_json::json!({
            "file": name.to_string(),
            "lang": lang.name(),
            "tokens": tree.size(),
            "bytes": text.len(),
            "ok": !tree.has_error(),
            "error": tree.error,
            "round_trip": round_trip,
            "parse_ms": parse_ms,
        });
        if args.tree {
            out["tree"] = serde_json::to_value(&tree.nodes).unwrap_or_default();
        }
        println!("{out}");
    } else {
        println!("language:   {lang}");
        println!("tokens:     {}", tree.size());
        println!(
            "parses:     {}",
            if tree.has_error() { "no" } else { "yes" }
        );
        println!("round-trip: {}", if round_trip { "yes" } else { "NO" });
        println!("parse time: {parse_ms:.1} ms");
        if args.tree {
            print!("{}", tree.outline());
        }
    }
    match &tree.error {
        Some(err) => {
            eprintln!("whittle parse: {name}: {err}");
            eprintln!("  (fix the syntax there, or pass --lang if the language was guessed wrong: it was {lang})");
            2
        }
        None => 0,
    }
}
