//! `GeneratorSession`: generator-based reduction (GReduce) of a JavaScript generator. The
//! generator is a function `(g) => string` that makes every random choice through `g`
//! (`int`, `pick`, `repeat`, `maybe`: the API of examples/generators/client.mjs); the engine
//! re-runs it with reduced traces, and its queries are the outputs, tested like a single
//! program's.
//!
//! `g` is a [`Decisions`] object whose methods call into the engine's [`Source`] of the run in
//! progress. That source is a `&mut Source` that lives only for one call of
//! [`Generator::run`]; `g` reaches it through a raw pointer in a cell both sides share. The
//! safety argument:
//!
//! * the pointer is set right before the generator is called and set back to null right after
//!   it returns or throws, while `run` still holds the `&mut Source` it came from, and `run`
//!   does not touch the source itself in between;
//! * JavaScript calls are synchronous: every method of `g` runs on this thread, nested inside
//!   that one call of the generator (a generator that keeps `g`, or is async and uses it after
//!   an `await`, finds the pointer null and gets an error: it never reaches a dead source);
//! * each method turns the pointer into a `&mut Source` only for one call of a source method
//!   and drops it before it calls back into JavaScript (a `repeat`'s or `maybe`'s body), so two
//!   such references never exist at once, even when bodies nest.
//!
//! A [`Halt`] from the source (a replay that left the reduced trace, say) must end the run: the
//! method throws a JavaScript `Error`, which unwinds the generator, and the halt is kept in the
//! shared cell, so that `run` returns it even if the generator caught the error. Any other
//! exception out of the generator ends the run as `Halt("the generator threw: ...")`.

use crate::{recording, session_api, to_js};
use serde::Serialize;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use whittle::generator::{Generator, GeneratorSettings, Halt, Source};
use whittle::reduce::Stats;
use whittle::{catalog, Recording};

/// What `g` and the run share: the source of the run in progress (null between runs), and the
/// halt that ended it, if one did.
#[derive(Default)]
struct Shared {
    source: Cell<*mut Source>,
    halt: RefCell<Option<Halt>>,
}

impl Shared {
    /// Calls `f` with the source of the run in progress; its halt becomes a JS error (and is
    /// kept, so that the run ends with it).
    fn with<T>(&self, f: impl FnOnce(&mut Source) -> Result<T, Halt>) -> Result<T, JsValue> {
        if let Some(Halt(why)) = self.halt.borrow().as_ref() {
            return Err(js_error(&format!(
                "this run has halted ({why}): the generator must not go on"
            )));
        }
        let ptr = self.source.get();
        if ptr.is_null() {
            return Err(js_error(
                "this g belongs to a run that is over: use g only while generate(g) runs, synchronously",
            ));
        }
        // SAFETY: non-null only while `JsGenerator::run` holds the `&mut Source` it points to
        // and waits for the synchronous call of the generator this method is nested in (see the
        // module's documentation); the reference is dropped before this function returns.
        let source = unsafe { &mut *ptr };
        f(source).map_err(|halt| {
            let err = js_error(&format!("the run halted: {}", halt.0));
            *self.halt.borrow_mut() = Some(halt);
            err
        })
    }
}

fn js_error(message: &str) -> JsValue {
    js_sys::Error::new(message).into()
}

/// A label: one word (as the generator protocol of `whittle generate` needs, so that a module
/// runs the same in the page and under the CLI).
fn label(value: &JsValue) -> Result<String, JsValue> {
    let s = match value.as_string() {
        Some(s) => s,
        None => match value.as_f64() {
            Some(n) => format!("{n}"),
            None => return Err(js_error("a label is a string (one word, no spaces)")),
        },
    };
    if s.is_empty() || s.chars().any(char::is_whitespace) {
        return Err(js_error(&format!(
            "a label is one word without spaces, not {s:?}"
        )));
    }
    Ok(s)
}

/// An integer argument (`what` names it in the error).
fn integer(value: &JsValue, what: &str, label: &str) -> Result<i64, JsValue> {
    const SAFE: f64 = 9_007_199_254_740_991.0;
    match value.as_f64() {
        Some(n) if n.fract() == 0.0 && n.abs() <= SAFE => Ok(n as i64),
        _ => Err(js_error(&format!("{label}: {what} must be an integer"))),
    }
}

/// The names of a pick's choices, when each has one and they are distinct (a string, or the
/// `name` of an object or function), as examples/generators/client.mjs reads them.
fn names(list: &js_sys::Array) -> Option<Vec<String>> {
    let keys: Vec<String> = list
        .iter()
        .map(|x| {
            x.as_string().or_else(|| {
                let name = js_sys::Reflect::get(&x, &JsValue::from_str("name")).ok()?;
                name.as_string().filter(|n| !n.is_empty())
            })
        })
        .collect::<Option<_>>()?;
    let distinct: std::collections::HashSet<&String> = keys.iter().collect();
    (distinct.len() == keys.len()).then_some(keys)
}

fn count(value: &JsValue, what: &str, label: &str) -> Result<u32, JsValue> {
    let n = integer(value, what, label)?;
    u32::try_from(n).map_err(|_| {
        js_error(&format!(
            "{label}: {what} must be an integer from 0 to {}",
            u32::MAX
        ))
    })
}

/// The `g` a JavaScript generator makes its decisions through: `int(label, lo, hi)`,
/// `pick(label, list)`, `repeat(label, min, max, body)`, `maybe(label, body?)`,
/// `part(label, body?)`, `fresh(label)`.
#[wasm_bindgen(js_name = GeneratorDecisions)]
pub struct Decisions {
    shared: Rc<Shared>,
}

#[wasm_bindgen(js_class = GeneratorDecisions)]
impl Decisions {
    /// An integer in `lo..=hi`.
    pub fn int(&self, label_: JsValue, lo: JsValue, hi: JsValue) -> Result<f64, JsValue> {
        let l = label(&label_)?;
        let (lo, hi) = (integer(&lo, "lo", &l)?, integer(&hi, "hi", &l)?);
        Ok(self.shared.with(|s| s.int(&l, lo, hi))? as f64)
    }

    /// One element of a non-empty array.
    pub fn pick(&self, label_: JsValue, list: JsValue) -> Result<JsValue, JsValue> {
        let l = label(&label_)?;
        let list = match list.dyn_into::<js_sys::Array>() {
            Ok(a) if a.length() > 0 => a,
            _ => return Err(js_error(&format!("pick {l}: a non-empty list, please"))),
        };
        let i = match names(&list) {
            Some(keys) => {
                let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
                self.shared.with(|s| s.pick_named(&l, &keys))?
            }
            None => self.shared.with(|s| s.pick(&l, list.length() as usize))?,
        };
        Ok(list.get(i as u32))
    }

    /// A number for a new name, which a reduced run keeps (deleting one variable renames no
    /// other).
    pub fn fresh(&self, label_: JsValue) -> Result<f64, JsValue> {
        let l = label(&label_)?;
        Ok(self.shared.with(|s| s.fresh(&l))? as f64)
    }

    /// A reducible loop: runs `body(i)` for `i` in `0..n`, `n` in `min..=max`; returns `n`.
    pub fn repeat(
        &self,
        label_: JsValue,
        min: JsValue,
        max: JsValue,
        body: JsValue,
    ) -> Result<u32, JsValue> {
        let l = label(&label_)?;
        let (min, max) = (count(&min, "min", &l)?, count(&max, "max", &l)?);
        let body: js_sys::Function = body
            .dyn_into()
            .map_err(|_| js_error(&format!("repeat {l}: the body must be a function")))?;
        let n = self.shared.with(|s| s.begin_loop(&l, min, max))?;
        for i in 0..n {
            self.shared.with(|s| s.iteration())?;
            body.call1(&JsValue::UNDEFINED, &JsValue::from(i))?;
        }
        self.shared.with(|s| s.end())?;
        Ok(n)
    }

    /// A reducible selection: whether to run `body()` (which it then runs); without a body, a
    /// plain reducible yes/no.
    pub fn maybe(&self, label_: JsValue, body: JsValue) -> Result<bool, JsValue> {
        self.selection(label_, body, false)
    }

    /// A part of the output: runs `body()` in every free run, with no draw; a reduced run may
    /// drop it. Returns whether it ran.
    pub fn part(&self, label_: JsValue, body: JsValue) -> Result<bool, JsValue> {
        self.selection(label_, body, true)
    }
}

impl Decisions {
    fn selection(&self, label_: JsValue, body: JsValue, part: bool) -> Result<bool, JsValue> {
        let l = label(&label_)?;
        let body = if body.is_undefined() || body.is_null() {
            None
        } else {
            Some(
                body.dyn_into::<js_sys::Function>()
                    .map_err(|_| js_error(&format!("maybe {l}: the body must be a function")))?,
            )
        };
        let taken = self
            .shared
            .with(|s| if part { s.part(&l) } else { s.maybe(&l) })?;
        if !taken {
            return Ok(false);
        }
        if let Some(body) = body {
            body.call0(&JsValue::UNDEFINED)?;
        }
        self.shared.with(|s| s.end())?;
        Ok(true)
    }
}

/// A JavaScript function `(g) => string` as a [`Generator`].
pub struct JsGenerator {
    generate: js_sys::Function,
}

/// What a thrown value says.
fn thrown(e: &JsValue) -> String {
    if let Some(err) = e.dyn_ref::<js_sys::Error>() {
        return String::from(err.message());
    }
    if let Some(s) = e.as_string() {
        return s;
    }
    js_sys::JSON::stringify(e)
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

impl Generator for JsGenerator {
    fn run(&mut self, source: &mut Source) -> Result<String, Halt> {
        let shared = Rc::new(Shared::default());
        shared.source.set(source as *mut Source);
        let g = JsValue::from(Decisions {
            shared: shared.clone(),
        });
        let result = self.generate.call1(&JsValue::UNDEFINED, &g);
        // The run is over: `g` must not reach the source any more (see the module's docs).
        shared.source.set(std::ptr::null_mut());
        // (g's Rust half is freed when the JS object is collected; freeing it here would make a
        // kept g trap in wasm instead of throwing a plain error.)
        if let Some(halt) = shared.halt.borrow_mut().take() {
            return Err(halt);
        }
        match result {
            Err(e) => Err(Halt(format!("the generator threw: {}", thrown(&e)))),
            Ok(v) => match v.as_string() {
                Some(s) => Ok(s),
                None if v.has_type::<js_sys::Promise>() => Err(Halt(
                    "generate(g) returned a promise: it must be synchronous and return the text"
                        .into(),
                )),
                None if v.is_undefined() || v.is_null() => Err(Halt(
                    "generate(g) returned nothing: it must return the generated text (a string)"
                        .into(),
                )),
                None => Err(Halt(format!(
                    "generate(g) must return a string, not {}",
                    v.js_typeof().as_string().unwrap_or_default()
                ))),
            },
        }
    }
}

#[derive(serde::Deserialize)]
struct GeneratorConfig {
    /// The free run's random seed; older callers named it `seed`.
    #[serde(default, alias = "seed")]
    rng_seed: Option<u64>,
    #[serde(default)]
    align: Option<String>,
    #[serde(default)]
    trace: Option<String>,
}

fn settings_from(config: JsValue) -> Result<GeneratorSettings, JsError> {
    let cfg: GeneratorConfig = serde_wasm_bindgen::from_value(config).map_err(|e| {
        JsError::new(&format!(
            "bad generator reducer config: {e} (rng_seed: a non-negative integer)"
        ))
    })?;
    let named = |name: Option<&str>, default: &str| {
        name.filter(|n| !n.is_empty())
            .unwrap_or(default)
            .to_string()
    };
    let js = |e: String| JsError::new(&e);
    Ok(GeneratorSettings {
        rng_seed: cfg.rng_seed.unwrap_or(0),
        align: catalog::align(&named(cfg.align.as_deref(), "realign")).map_err(js)?,
        trace: catalog::trace_strategy(&named(cfg.trace.as_deref(), "hdd")).map_err(js)?,
    })
}

/// A generator-based reduction in progress: its queries are the generator's outputs.
#[wasm_bindgen]
pub struct GeneratorSession {
    session: whittle::generator::GeneratorSession<JsGenerator>,
}

#[derive(Serialize)]
struct GeneratorStats<'a> {
    #[serde(flatten)]
    stats: &'a Stats,
    /// Re-runs of the generator that halted or threw (not tested).
    failed_runs: u64,
    /// Units (loop iterations and taken selections) of the original's trace and the best's.
    units_before: usize,
    units_now: usize,
}

fn build(
    config: JsValue,
    generate: js_sys::Function,
    recording: Option<Recording>,
) -> Result<GeneratorSession, JsError> {
    let settings = settings_from(config)?;
    let failed = |Halt(why): Halt| {
        JsError::new(&format!(
            "the generator failed on its first run (seed {}): {why}",
            settings.rng_seed
        ))
    };
    let generator = JsGenerator { generate };
    let session = match recording {
        None => whittle::generator::GeneratorSession::new(generator, settings),
        Some(r) => whittle::generator::GeneratorSession::replay(generator, settings, r),
    }
    .map_err(failed)?;
    Ok(GeneratorSession { session })
}

#[wasm_bindgen]
impl GeneratorSession {
    /// `config`: `{seed?, align?: 'halt' | 'bypass' | 'realign', trace?: 'hdd' | 'ddmin'}`;
    /// `generate(g)`: the generator, returning its output. Throws if its first (free) run fails.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "GeneratorSessionConfig")] config: JsValue,
        #[wasm_bindgen(unchecked_param_type = "GenerateFn")] generate: js_sys::Function,
    ) -> Result<GeneratorSession, JsError> {
        build(config, generate, None)
    }

    /// A reducer that replays a recorded verdict string ('0'/'1') with `step`, no test needed
    /// (the generator runs again; the tests do not).
    pub fn replay(
        #[wasm_bindgen(unchecked_param_type = "GeneratorSessionConfig")] config: JsValue,
        #[wasm_bindgen(unchecked_param_type = "GenerateFn")] generate: js_sys::Function,
        verdicts: &str,
    ) -> Result<GeneratorSession, JsError> {
        build(config, generate, Some(recording(verdicts)?))
    }

    /// Runs a replay for up to `n` candidates; returns the stats.
    #[wasm_bindgen(unchecked_return_type = "GeneratorStats")]
    pub fn step(&mut self, n: usize) -> Result<JsValue, JsError> {
        self.session.step(n);
        self.stats()
    }

    /// The smallest interesting output so far.
    pub fn best(&self) -> String {
        self.session.best().to_string()
    }

    /// The free run's output (the original).
    pub fn original(&self) -> String {
        self.session.original().0.to_string()
    }

    /// The session's stats (sizes in bytes of output: `tokens_*` and `bytes_*` agree) plus
    /// `failed_runs`, `units_before`, `units_now`.
    #[wasm_bindgen(unchecked_return_type = "GeneratorStats")]
    pub fn stats(&self) -> Result<JsValue, JsError> {
        let units = self.session.trace().units().len();
        to_js(&GeneratorStats {
            stats: self.session.stats(),
            failed_runs: self.session.failed_runs(),
            units_before: self.session.original().1.units().len(),
            units_now: units,
        })
    }

    /// The trace the best output was made from: `{nodes: [node]}`, a node being
    /// `{kind: 'int', label, value}`, `{kind: 'loop', label, iterations: [[node]]}` or
    /// `{kind: 'maybe', label, body: [node] | null}`.
    #[wasm_bindgen(unchecked_return_type = "Trace")]
    pub fn trace(&self) -> Result<JsValue, JsError> {
        to_js(self.session.trace())
    }

    /// The free run's trace, in the same form.
    #[wasm_bindgen(js_name = originalTrace)]
    #[wasm_bindgen(unchecked_return_type = "Trace")]
    pub fn original_trace(&self) -> Result<JsValue, JsError> {
        to_js(self.session.original().1)
    }
}

session_api!(GeneratorSession);
