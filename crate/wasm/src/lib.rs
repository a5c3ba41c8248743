//! The engine's JavaScript API (wasm-bindgen), used by the playground's Web Worker: parsing,
//! language detection, token diffs, the reducers, [`Session`] (one program), [`PairSession`]
//! (a seed and a variant) and [`GeneratorSession`] (a generator's run), and the witness search
//! [`WitnessSearch`] (DiWi). Each hands out queries, `{id, candidate, side, text, original}`,
//! and takes each query's verdict (the witness search: an observation); the engine decides
//! what is asked when. Data crosses as plain JS objects (serde-wasm-bindgen); errors are thrown as JS
//! `Error`s whose message says what to do.

mod folder;
mod generator;
mod pair;
mod recipe;
mod types;
mod witness;

pub use folder::FolderSession;
pub use generator::GeneratorSession;
pub use pair::PairSession;
pub use witness::WitnessSearch;

use serde::Serialize;
use wasm_bindgen::prelude::*;
use whittle::parse_report::ParseReport;
use whittle::reduce::{Settings, Verdict};
use whittle::tree::Parser;
use whittle::{catalog, Lang, Recording};

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

/// A config object from JavaScript; `what` names it in the error.
pub(crate) fn config<T: serde::de::DeserializeOwned>(
    value: JsValue,
    what: &str,
) -> Result<T, JsError> {
    serde_wasm_bindgen::from_value(value)
        .map_err(|e| JsError::new(&format!("bad {what} config: {}", why(&e))))
}

/// What a conversion from JavaScript found wrong (without the "Error: " of its JS form).
pub(crate) fn why(e: &serde_wasm_bindgen::Error) -> String {
    let e = e.to_string();
    e.strip_prefix("Error: ").unwrap_or(&e).to_string()
}

/// A verdict by name: 'interesting', 'boring' or 'error'.
pub(crate) fn verdict(v: &str) -> Result<Verdict, JsError> {
    Verdict::parse(v).ok_or_else(|| {
        JsError::new(&format!(
            "unknown verdict `{v}`: use interesting, boring or error"
        ))
    })
}

pub(crate) fn recording(s: &str) -> Result<Recording, JsError> {
    s.parse().map_err(|e: String| JsError::new(&e))
}

/// The language by name, or detected from the text when `lang` is empty or "auto"; an error
/// for one whose grammar this build leaves out (the page's first download has no C++: the
/// worker asks the page for the full build before it gets here, see `grammars`).
pub(crate) fn lang_or_detect(lang: Option<&str>, text: &str) -> Result<Lang, JsError> {
    let lang = named_or_detected(lang, text)?;
    match lang.available() {
        true => Ok(lang),
        false => Err(JsError::new(&format!(
            "this build of the engine has no {} grammar: reload the page to load the full build",
            lang.name()
        ))),
    }
}

fn named_or_detected(lang: Option<&str>, text: &str) -> Result<Lang, JsError> {
    match lang.filter(|l| !l.is_empty() && *l != "auto") {
        Some(l) => catalog::lang(l).map_err(|e| JsError::new(&e)),
        None => Ok(whittle::grammars::detect(None, text)),
    }
}

/// The languages this build parses (`c`, `cpp`, ...): all but C++ in the build the page
/// loads first.
#[wasm_bindgen]
pub fn grammars() -> Vec<String> {
    Lang::ALL
        .iter()
        .filter(|l| l.available())
        .map(|l| l.name().to_string())
        .collect()
}

/// The language a request names, or detects in `text` when it names none (`auto`), whether
/// or not this build has its grammar.
#[wasm_bindgen(js_name = languageOf)]
pub fn language_of(lang: Option<String>, text: &str) -> Result<String, JsError> {
    Ok(named_or_detected(lang.as_deref(), text)?.name().to_string())
}

/// Settings from a config's optional strategy name (default perses) and the names of the
/// passes it skips (`rename, types`; default none).
pub(crate) fn settings(strategy: Option<&str>, skip: Option<&str>) -> Result<Settings, JsError> {
    let js = |e: String| JsError::new(&e);
    let (skipped, skipped_cross) = catalog::skipped_passes(skip).map_err(js)?;
    Ok(Settings {
        strategy: catalog::strategy(strategy.unwrap_or("perses")).map_err(js)?,
        skipped,
        skipped_cross,
        ..Settings::default()
    })
}

/// Parses `text` (language by name, or detected when `lang` is empty or "auto"):
/// `{lang, tokens, bytes, ok, error: {line, column, byte, what, near} | null, round_trip,
/// parse_ms, tree?: [{kind, field, named, extra, error, missing, start, end, parent,
/// children, first_token, end_token, depth}]}` (byte offsets into the UTF-8 text).
#[wasm_bindgen(unchecked_return_type = "ParseReport")]
pub fn parse(text: &str, lang: Option<String>, want_tree: bool) -> Result<JsValue, JsError> {
    let lang = lang_or_detect(lang.as_deref(), text)?;
    let started = js_sys::Date::now();
    let tree = Parser::new(lang).parse(text);
    let parse_ms = js_sys::Date::now() - started;
    to_js(&ParseReport::of(&tree, text, parse_ms, want_tree))
}

/// The language a file name or, failing that, the text suggests.
#[wasm_bindgen(js_name = detectLang)]
pub fn detect_lang(name: Option<String>, text: &str) -> String {
    whittle::grammars::detect(name.as_deref(), text)
        .name()
        .to_string()
}

#[derive(Serialize)]
struct DiffOp {
    tag: &'static str,
    text: String,
}

/// A token-level diff of two programs: `[{tag: 'equal'|'delete'|'insert', text}]`.
#[wasm_bindgen(unchecked_return_type = "DiffOp[]")]
pub fn diff(a: &str, b: &str) -> Result<JsValue, JsError> {
    let ops: Vec<DiffOp> = whittle::textdiff::token_diff(a, b)
        .into_iter()
        .map(|(tag, text)| DiffOp { tag, text })
        .collect();
    to_js(&ops)
}

/// The methods both reducers share, each a call of the session's own.
macro_rules! session_api {
    ($reducer:ident) => {
        #[wasm_bindgen]
        impl $reducer {
            /// Up to `k` queries to run: `[{id, candidate, side: 'seed' | 'variant', text,
            /// original}]`. Call again after each report: a pair's seed is asked once its
            /// variant passed.
            #[wasm_bindgen(unchecked_return_type = "Query[]")]
            pub fn next(&mut self, k: usize) -> Result<JsValue, JsError> {
                to_js(&self.session.next(k))
            }

            /// The verdict of query `id`: 'interesting', 'boring' or 'error'.
            pub fn report(
                &mut self,
                id: f64,
                #[wasm_bindgen(unchecked_param_type = "VerdictName")] verdict_name: &str,
            ) -> Result<(), JsError> {
                self.session
                    .report(id as u64, $crate::verdict(verdict_name)?);
                Ok(())
            }

            /// Whether query `id` still matters (else its request may be dropped).
            pub fn wants(&self, id: f64) -> bool {
                self.session.wants(id as u64)
            }

            /// Ends the reduction where it is; the best so far stays.
            pub fn stop(&mut self) {
                self.session.stop();
            }

            #[wasm_bindgen(unchecked_return_type = "HistoryStep[]")]
            pub fn history(&self) -> Result<JsValue, JsError> {
                to_js(&self.session.history())
            }

            pub fn done(&self) -> bool {
                self.session.done()
            }

            /// Whether the last `next` stopped for its bounded work (a big program's
            /// proposals), not to await verdicts: call it again soon.
            pub fn more(&self) -> bool {
                self.session.more()
            }

            /// The verdicts consumed so far, as a string of '0' and '1', for replay.
            pub fn verdicts(&self) -> String {
                self.session.recording().to_string()
            }
        }
    };
}
pub(crate) use session_api;

#[derive(serde::Deserialize)]
struct SessionConfig {
    #[serde(default)]
    lang: Option<String>,
    text: String,
    #[serde(default)]
    strategy: Option<String>,
    /// Passes the strategy leaves out, by name: `rename, types` (formerly `skipPasses`).
    #[serde(default, alias = "skipPasses")]
    skip_passes: Option<String>,
    /// Refuse a program the grammar cannot fully parse instead of reducing it tolerantly.
    #[serde(default)]
    strict: bool,
}

fn session_from(
    config: JsValue,
    recording: Option<Recording>,
) -> Result<whittle::reduce::Session, JsError> {
    let cfg: SessionConfig = self::config(config, "reducer")?;
    let lang = lang_or_detect(cfg.lang.as_deref(), &cfg.text)?;
    let settings = Settings {
        strict: cfg.strict,
        ..settings(cfg.strategy.as_deref(), cfg.skip_passes.as_deref())?
    };
    match recording {
        None => whittle::reduce::Session::new(lang, &cfg.text, settings),
        Some(r) => whittle::reduce::Session::replay(lang, &cfg.text, settings, r),
    }
    .map_err(|e| JsError::new(&e.to_string()))
}

/// A reduction of one program in progress.
#[wasm_bindgen]
pub struct Session {
    session: whittle::reduce::Session,
}

#[wasm_bindgen]
impl Session {
    /// `config`: `{lang?, text, strategy?, skip_passes?, strict?}`. Throws if the text does not parse.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "SessionConfig")] config: JsValue,
    ) -> Result<Session, JsError> {
        Ok(Session {
            session: session_from(config, None)?,
        })
    }

    /// A reducer that replays a recorded verdict string ('0'/'1') with `step`, no test needed.
    pub fn replay(
        #[wasm_bindgen(unchecked_param_type = "SessionConfig")] config: JsValue,
        verdicts: &str,
    ) -> Result<Session, JsError> {
        Ok(Session {
            session: session_from(config, Some(recording(verdicts)?))?,
        })
    }

    /// Runs a replay for up to `n` candidates; returns the stats.
    #[wasm_bindgen(unchecked_return_type = "Stats")]
    pub fn step(&mut self, n: usize) -> Result<JsValue, JsError> {
        self.session.step(n);
        to_js(self.session.stats())
    }

    pub fn best(&self) -> String {
        self.session.best().to_string()
    }

    #[wasm_bindgen(unchecked_return_type = "Stats")]
    pub fn stats(&self) -> Result<JsValue, JsError> {
        to_js(self.session.stats())
    }
}

session_api!(Session);
