//! `whittle serve`.

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct ServeArgs {
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// The folder holding index.html and web/ (default: the project folder).
    #[arg(long)]
    pub root: Option<PathBuf>,
}

pub fn run(args: ServeArgs) -> i32 {
    let root = args.root.unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".."));
    let opts = whittle::serve::ServeOptions { host: args.host, port: args.port, root };
    match whittle::serve::run(opts) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("whittle serve: {e}");
            1
        }
    }
}
