//! The pairwise reducer's JavaScript API (wasm-bindgen): `PairReducer` mirrors `Reducer`
//! (see wasm.rs) with candidates of two sides. The worker tests a candidate's variant with
//! the variant's property and its seed with the seed's, and reports per side
//! (`reportSide`) or once for the pair (`report`).

use crate::pair::{PairSession, PairSettings, Side};
use crate::reduce::Strategy;
use crate::wasm::{bits_from_string, bits_to_string, lang_or_detect, to_js, verdict};
use wasm_bindgen::prelude::*;

#[derive(serde::Deserialize)]
struct PairConfig {
    #[serde(default)]
    lang: Option<String>,
    seed: String,
    variant: String,
    /// The single-program strategy MinCommonality uses (default perses).
    #[serde(default)]
    strategy: Option<String>,
}

fn session_from(config: JsValue, verdicts: Option<Vec<bool>>) -> Result<PairSession, JsError> {
    let cfg: PairConfig = serde_wasm_bindgen::from_value(config)
        .map_err(|e| JsError::new(&format!("bad pair reducer config: {e}")))?;
    let lang = lang_or_detect(cfg.lang, None, &cfg.variant)?;
    let name = cfg.strategy.as_deref().unwrap_or("perses");
    let strategy = Strategy::from_name(name).ok_or_else(|| {
        JsError::new(&format!(
            "unknown strategy `{name}`: use perses, hdd, ddmin-lines or ddmin-tokens"
        ))
    })?;
    let settings = PairSettings { strategy };
    match verdicts {
        None => PairSession::new(lang, &cfg.seed, &cfg.variant, settings),
        Some(v) => PairSession::replay(lang, &cfg.seed, &cfg.variant, settings, v),
    }
    .map_err(|e| JsError::new(&e))
}

fn side(s: &str) -> Result<Side, JsError> {
    match s {
        "seed" => Ok(Side::Seed),
        "variant" => Ok(Side::Variant),
        _ => Err(JsError::new(&format!(
            "unknown side `{s}`: use seed or variant"
        ))),
    }
}

/// A pairwise reduction in progress (PPR): a seed and a variant reduced together.
#[wasm_bindgen]
pub struct PairReducer {
    session: PairSession,
}

#[wasm_bindgen]
impl PairReducer {
    /// `config`: `{lang?, seed, variant, strategy?}`. Throws if either program does not parse.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<PairReducer, JsError> {
        Ok(PairReducer {
            session: session_from(config, None)?,
        })
    }

    /// A reducer that replays a recorded verdict string ('0'/'1') with `step`, no test needed.
    pub fn replay(config: JsValue, verdicts: &str) -> Result<PairReducer, JsError> {
        Ok(PairReducer {
            session: session_from(config, Some(bits_from_string(verdicts)))?,
        })
    }

    /// Up to `k` new candidates: `[{id, seed, variant, test_seed, test_variant}]`; the
    /// `test_*` flags say which sides need a test (the others' verdicts are known).
    pub fn next(&mut self, k: usize) -> Result<JsValue, JsError> {
        to_js(&self.session.next(k))
    }

    /// The verdict for the pair as a whole (every side that needed a test was tested):
    /// 'interesting', 'boring' or 'error'.
    pub fn report(&mut self, id: f64, verdict_name: &str) -> Result<(), JsError> {
        self.session.report(id as u64, verdict(verdict_name)?);
        Ok(())
    }

    /// The verdict of one side ('seed' or 'variant') of candidate `id`.
    #[wasm_bindgen(js_name = reportSide)]
    pub fn report_side(
        &mut self,
        id: f64,
        side_name: &str,
        verdict_name: &str,
    ) -> Result<(), JsError> {
        self.session
            .report_side(id as u64, side(side_name)?, verdict(verdict_name)?);
        Ok(())
    }

    /// Runs a replay for up to `n` candidates; returns the stats.
    pub fn step(&mut self, n: usize) -> Result<JsValue, JsError> {
        self.session.step(n);
        to_js(&self.session.pair_stats())
    }

    /// `{seed, variant, diff, diff_tokens}`: the best pair and its unified diff.
    pub fn best(&self) -> Result<JsValue, JsError> {
        to_js(&self.session.best())
    }

    /// The session's stats plus `seed_tokens_before/after`, `variant_tokens_before/after`,
    /// `diff_tokens_before/after`, `seed_queries`, `variant_queries`.
    pub fn stats(&self) -> Result<JsValue, JsError> {
        to_js(&self.session.pair_stats())
    }

    pub fn history(&self) -> Result<JsValue, JsError> {
        to_js(&self.session.history())
    }

    pub fn done(&self) -> bool {
        self.session.done()
    }

    /// Whether candidate `id` is out and its verdict still matters.
    pub fn wants(&self, id: f64) -> bool {
        self.session.wants(id as u64)
    }

    /// Whether side `side` of candidate `id` still needs a test whose verdict matters.
    #[wasm_bindgen(js_name = wantsSide)]
    pub fn wants_side(&self, id: f64, side_name: &str) -> Result<bool, JsError> {
        Ok(self.session.wants_side(id as u64, side(side_name)?))
    }

    /// The verdicts consumed so far, as a string of '0' and '1', for replay.
    pub fn verdicts(&self) -> String {
        bits_to_string(self.session.verdicts())
    }
}
