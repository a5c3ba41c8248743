//! `whittle serve`: the playground page and a Compiler Explorer-shaped compile API.

use std::path::PathBuf;

pub struct ServeOptions {
    pub host: String,
    pub port: u16,
    /// The folder holding index.html and web/.
    pub root: PathBuf,
}

pub fn run(_opts: ServeOptions) -> Result<(), String> {
    Err("not built yet".into())
}
