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

fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    let ser = serde_wasm_bindgen::Serializer::json_compatible();
    value.serialize(&ser).map_err(|e| JsError::new(&e.to_string()))
}

fn lang_or_detect(lang: Option<String>, name: Option<String>, text: &str) -> Result<Lang, JsError> {
    match lang.as_deref().filter(|l| !l.is_empty() && *l != "auto") {
        Some(l) => Lang::from_name(l).ok_or_else(|| {
            JsError::new(&format!("unknown language `{l}`: use one of c, cpp, rust, javascript, java"))
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
    crate::grammars::detect(name.as_deref(), text).name().to_string()
}
