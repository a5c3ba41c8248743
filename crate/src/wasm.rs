//! The engine's JavaScript API (wasm-bindgen), used by the playground's Web Worker.
//!
//! Data crosses as plain JS objects (serde-wasm-bindgen). Errors are thrown as JS `Error`s
//! whose message says what to do.

use crate::tree::Parser;
use crate::unparse::unparse;
use crate::Lang;
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

pub(crate) fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    let ser = serde_wasm_bindgen::Serializer::json_compatible();
    value
        .serialize(&ser)
        .map_err(|e| JsError::new(&e.to_string()))
}

/// A verdict by name: 'interesting', 'boring' or 'error'.
pub(crate) fn verdict(v: &str) -> Result<crate::reduce::Verdict, JsError> {
    crate::reduce::Verdict::parse(v).ok_or_else(|| {
        JsError::new(&format!(
            "unknown verdict `{v}`: use interesting, boring or error"
        ))
    })
}

/// Recorded verdicts as a string of '0' and '1' (permalinks), and back.
pub(crate) fn bits_to_string(bits: &[bool]) -> String {
    bits.iter().map(|&b| if b { '1' } else { '0' }).collect()
}

pub(crate) fn bits_from_string(s: &str) -> Vec<bool> {
    s.chars().map(|c| c == '1').collect()
}

pub(crate) fn lang_or_detect(
    lang: Option<String>,
    name: Option<String>,
    text: &str,
) -> Result<Lang, JsError> {
    match lang.as_deref().filter(|l| !l.is_empty() && *l != "auto") {
        Some(l) => Lang::from_name(l).ok_or_else(|| {
            JsError::new(&format!(
                "unknown language `{l}`: use one of c, cpp, rust, javascript, java"
            ))
        }),
        None => Ok(crate::grammars::detect(name.as_deref(), text)),
    }
}

#[derive(Serialize)]
struct ParseReport<'a> {
    lang: &'static str,
    tokens: usize,
    bytes: usize,
    ok: bool,
    error: &'a Option<crate::tree::SyntaxError>,
    round_trip: bool,
    parse_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    tree: Option<&'a [crate::tree::Node]>,
}

/// Parses `text` (language by name, or detected when `lang` is empty or "auto"):
/// `{lang, tokens, bytes, ok, error: {line, column, byte, what, near} | null, round_trip,
/// parse_ms, tree?: [{kind, field, named, extra, error, missing, start, end, parent,
/// children, first_token, end_token, depth}]}` (byte offsets into the UTF-8 text).
#[wasm_bindgen]
pub fn parse(text: &str, lang: Option<String>, want_tree: bool) -> Result<JsValue, JsError> {
    let lang = lang_or_detect(lang, None, text)?;
    let started = js_sys::Date::now();
    let tree = Parser::new(lang).parse(text);
    let parse_ms = js_sys::Date::now() - started;
    let round_trip = unparse(&tree, &vec![true; tree.tokens.len()]) == text;
    to_js(&ParseReport {
        lang: lang.name(),
        tokens: tree.size(),
        bytes: text.len(),
        ok: !tree.has_error(),
        error: &tree.error,
        round_trip,
        parse_ms,
        tree: want_tree.then_some(tree.nodes.as_slice()),
    })
}

/// The language a file name or, failing that, the text suggests.
#[wasm_bindgen(js_name = detectLang)]
pub fn detect_lang(name: Option<String>, text: &str) -> String {
    crate::grammars::detect(name.as_deref(), text)
        .name()
        .to_string()
}

#[derive(serde::Deserialize)]
struct ReducerConfig {
    #[serde(default)]
    lang: Option<String>,
    text: String,
    #[serde(default)]
    strategy: Option<String>,
}

fn session_from(
    config: JsValue,
    verdicts: Option<Vec<bool>>,
) -> Result<crate::reduce::Session, JsError> {
    use crate::reduce::{Session, Settings, Strategy};
    let cfg: ReducerConfig = serde_wasm_bindgen::from_value(config)
        .map_err(|e| JsError::new(&format!("bad reducer config: {e}")))?;
    let lang = lang_or_detect(cfg.lang, None, &cfg.text)?;
    let strategy = match cfg.strategy.as_deref().unwrap_or("perses") {
        name => Strategy::from_name(name).ok_or_else(|| {
            JsError::new(&format!(
                "unknown strategy `{name}`: use perses, hdd, ddmin-lines or ddmin-tokens"
            ))
        })?,
    };
    let settings = Settings { strategy };
    match verdicts {
        None => Session::new(lang, &cfg.text, settings),
        Some(v) => Session::replay(lang, &cfg.text, settings, v),
    }
    .map_err(|e| JsError::new(&e))
}

/// A reduction in progress: hands out candidates and takes verdicts (see DESIGN.md).
#[wasm_bindgen]
pub struct Reducer {
    session: crate::reduce::Session,
}

#[wasm_bindgen]
impl Reducer {
    /// `config`: `{lang?, text, strategy?}`. Throws if the text does not parse.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<Reducer, JsError> {
        Ok(Reducer {
            session: session_from(config, None)?,
        })
    }

    /// A reducer that replays a recorded verdict string ('0'/'1') with `step`, no test needed.
    pub fn replay(config: JsValue, verdicts: &str) -> Result<Reducer, JsError> {
        Ok(Reducer {
            session: session_from(config, Some(bits_from_string(verdicts)))?,
        })
    }

    /// Up to `k` new candidates: `[{id, text}]`.
    pub fn next(&mut self, k: usize) -> Result<JsValue, JsError> {
        to_js(&self.session.next(k))
    }

    /// `verdict`: 'interesting', 'boring' or 'error'.
    pub fn report(&mut self, id: f64, verdict: &str) -> Result<(), JsError> {
        self.session.report(id as u64, self::verdict(verdict)?);
        Ok(())
    }

    /// Runs a replay for up to `n` candidates; returns the stats.
    pub fn step(&mut self, n: usize) -> Result<JsValue, JsError> {
        self.session.step(n);
        to_js(self.session.stats())
    }

    pub fn best(&self) -> String {
        self.session.best().to_string()
    }

    pub fn stats(&self) -> Result<JsValue, JsError> {
        to_js(self.session.stats())
    }

    pub fn history(&self) -> Result<JsValue, JsError> {
        to_js(&self.session.history())
    }

    pub fn done(&self) -> bool {
        self.session.done()
    }

    /// Whether candidate `id` is out and its verdict still matters (else its request may be dropped).
    pub fn wants(&self, id: f64) -> bool {
        self.session.wants(id as u64)
    }

    /// The verdicts consumed so far, as a string of '0' and '1', for replay.
    pub fn verdicts(&self) -> String {
        bits_to_string(self.session.verdicts())
    }
}

#[derive(Serialize)]
struct DiffOp {
    tag: &'static str,
    text: String,
}

/// A token-level diff of two programs: `[{tag: 'equal'|'delete'|'insert', text}]`.
#[wasm_bindgen]
pub fn diff(a: &str, b: &str) -> Result<JsValue, JsError> {
    let ops: Vec<DiffOp> = crate::textdiff::token_diff(a, b)
        .into_iter()
        .map(|(tag, text)| DiffOp { tag, text })
        .collect();
    to_js(&ops)
}
