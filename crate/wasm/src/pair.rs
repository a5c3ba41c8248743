//! `PairSession`: pairwise reduction (PPR) of a seed and a variant. Its queries name their
//! side; the worker tests each with that side's property.

use crate::{lang_or_detect, recording, session_api, settings, to_js};
use wasm_bindgen::prelude::*;
use whittle::Recording;

#[derive(serde::Deserialize)]
struct PairConfig {
    #[serde(default)]
    lang: Option<String>,
    seed: String,
    variant: String,
    /// The single-program strategy MinCommonality uses (default perses).
    #[serde(default)]
    strategy: Option<String>,
    /// Passes MinCommonality leaves out, by name: `rename, types`.
    #[serde(default, alias = "skipPasses")]
    skip_passes: Option<String>,
    /// Refuse a side the grammar cannot fully parse instead of reducing it tolerantly.
    #[serde(default)]
    strict: bool,
}

fn session_from(
    config: JsValue,
    recording: Option<Recording>,
) -> Result<whittle::pair::PairSession, JsError> {
    let cfg: PairConfig = crate::config(config, "pair reducer")?;
    let lang = lang_or_detect(cfg.lang.as_deref(), &cfg.variant)?;
    let settings = whittle::reduce::Settings {
        strict: cfg.strict,
        ..settings(cfg.strategy.as_deref(), cfg.skip_passes.as_deref())?
    };
    match recording {
        None => whittle::pair::PairSession::new(lang, &cfg.seed, &cfg.variant, settings),
        Some(r) => whittle::pair::PairSession::replay(lang, &cfg.seed, &cfg.variant, settings, r),
    }
    .map_err(|e| JsError::new(&e.to_string()))
}

/// A pairwise reduction in progress (PPR): a seed and a variant reduced together.
#[wasm_bindgen]
pub struct PairSession {
    session: whittle::pair::PairSession,
}

#[wasm_bindgen]
impl PairSession {
    /// `config`: `{lang?, seed, variant, strategy?, skip_passes?, strict?}`. A side the grammar
    /// cannot fully parse is reduced tolerantly; with `strict`, it throws.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "PairSessionConfig")] config: JsValue,
    ) -> Result<PairSession, JsError> {
        Ok(PairSession {
            session: session_from(config, None)?,
        })
    }

    /// A reducer that replays a recorded verdict string ('0'/'1') with `step`, no test needed.
    pub fn replay(
        #[wasm_bindgen(unchecked_param_type = "PairSessionConfig")] config: JsValue,
        verdicts: &str,
    ) -> Result<PairSession, JsError> {
        Ok(PairSession {
            session: session_from(config, Some(recording(verdicts)?))?,
        })
    }

    /// Runs a replay for up to `n` candidates; returns the stats.
    #[wasm_bindgen(unchecked_return_type = "PairStats")]
    pub fn step(&mut self, n: usize) -> Result<JsValue, JsError> {
        self.session.step(n);
        to_js(&self.session.pair_stats())
    }

    /// `{seed, variant, diff, diff_tokens}`: the best pair and its unified diff.
    #[wasm_bindgen(unchecked_return_type = "PairBest")]
    pub fn best(&self) -> Result<JsValue, JsError> {
        to_js(&self.session.best())
    }

    /// The session's stats plus `seed_tokens_before/after`, `variant_tokens_before/after`,
    /// `diff_tokens_before/after`, `seed_queries`, `variant_queries`.
    #[wasm_bindgen(unchecked_return_type = "PairStats")]
    pub fn stats(&self) -> Result<JsValue, JsError> {
        to_js(&self.session.pair_stats())
    }
}

session_api!(PairSession);
