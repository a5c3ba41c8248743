//! `FolderSession`: a program and the files beside it (headers, modules) reduced as one
//! test case. Its queries' texts are bundles of the whole tree (`whittle::folder::bundle`);
//! the worker unpacks each into the compile's source and files.

use crate::{recording, session_api, settings, to_js};
use wasm_bindgen::prelude::*;
use whittle::folder::FolderSession as Session;
use whittle::Recording;

#[derive(serde::Deserialize)]
struct File {
    filename: String,
    contents: String,
}

#[derive(serde::Deserialize)]
struct FolderConfig {
    files: Vec<File>,
    #[serde(default)]
    strategy: Option<String>,
    /// Passes left out, by name: a file's (`rename, types`) and a folder's (`delete-file`).
    #[serde(default, alias = "skipPasses")]
    skip_passes: Option<String>,
}

fn session_from(config: JsValue, recording: Option<Recording>) -> Result<Session, JsError> {
    let cfg: FolderConfig = crate::config(config, "folder reducer")?;
    let settings = settings(cfg.strategy.as_deref(), cfg.skip_passes.as_deref())?;
    let files = cfg
        .files
        .into_iter()
        .map(|f| (f.filename, f.contents))
        .collect();
    match recording {
        None => Session::folder(files, settings),
        Some(r) => Session::folder_replay(files, settings, r),
    }
    .map_err(|e| JsError::new(&format!("{}: {}", e.path, e.error)))
}

/// A reduction of a program and the files beside it, in progress.
#[wasm_bindgen]
pub struct FolderSession {
    session: Session,
}

#[wasm_bindgen]
impl FolderSession {
    /// `config`: `{files: [{filename, contents}], strategy?, skip_passes?}`. Throws if a file
    /// a grammar covers does not parse.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "FolderSessionConfig")] config: JsValue,
    ) -> Result<FolderSession, JsError> {
        Ok(FolderSession {
            session: session_from(config, None)?,
        })
    }

    /// A reducer that replays a recorded verdict string ('0'/'1') with `step`, no test needed.
    pub fn replay(
        #[wasm_bindgen(unchecked_param_type = "FolderSessionConfig")] config: JsValue,
        verdicts: &str,
    ) -> Result<FolderSession, JsError> {
        Ok(FolderSession {
            session: session_from(config, Some(recording(verdicts)?))?,
        })
    }

    /// Runs a replay for up to `n` candidates; returns the stats.
    #[wasm_bindgen(unchecked_return_type = "Stats")]
    pub fn step(&mut self, n: usize) -> Result<JsValue, JsError> {
        self.session.step(n);
        to_js(self.session.stats())
    }

    /// The best tree as one text (a bundle, as the queries carry it).
    pub fn best(&self) -> String {
        let files = self.session.best_files();
        whittle::folder::bundle::encode(files.into_iter().filter_map(|(p, t)| Some((p, t?))))
    }

    #[wasm_bindgen(unchecked_return_type = "Stats")]
    pub fn stats(&self) -> Result<JsValue, JsError> {
        to_js(self.session.stats())
    }
}

session_api!(FolderSession);
