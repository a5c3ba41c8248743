//! `whittle parse FILE [--lang L] [--tree] [--json]`.

use std::path::PathBuf;
use whittle::parse_report::ParseReport;
use whittle::tree::Parser;

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
    let text = match crate::input::read_program(&args.file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("whittle parse: {e}");
            return 2;
        }
    };
    let lang = match crate::input::pick_lang(args.lang.as_deref(), &args.file, &text) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("whittle parse: {e}");
            return 2;
        }
    };
    let started = std::time::Instant::now();
    let tree = Parser::new(lang).parse(&text);
    let parse_ms = started.elapsed().as_secs_f64() * 1000.0;
    let report = ParseReport::of(&tree, &text, parse_ms, args.tree && args.json);
    let name = args.file.display();
    if args.json {
        let mut out = serde_json::to_value(&report).unwrap_or_default();
        out["file"] = name.to_string().into();
        println!("{out}");
    } else {
        println!("language:   {lang}");
        println!("tokens:     {}", report.tokens);
        if report.ok {
            println!("parses:     yes");
        } else {
            let covered = report.tokens - report.error_tokens;
            let coverage = crate::input::grammar_coverage(covered, report.tokens);
            println!("parses:     no: {coverage}");
        }
        println!(
            "round-trip: {}",
            if report.round_trip { "yes" } else { "NO" }
        );
        println!("parse time: {parse_ms:.1} ms");
        if args.tree {
            print!("{}", tree.outline());
        }
    }
    match &report.error {
        Some(err) => {
            eprintln!("whittle parse: {name}: {err}");
            eprintln!("  (whittle reduce still reduces it, adding no error; or fix the syntax there, or pass --lang if the language was guessed wrong: it was {lang})");
            2
        }
        None => 0,
    }
}
