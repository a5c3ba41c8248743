//! `WitnessSearch`: DiWi's witness search over a failing program. Its queries are mutants of
//! the program (the first one the program itself); the worker compiles each, tests the
//! property and reports an observation: the outcome (`failing`: the property still holds;
//! `passing`: it does not and the compiler accepts the mutant, a witness; `rejected`:
//! neither), with the compile's coverage or trace when it has one. The search applies
//! verdicts in rounds: every query handed out must be reported before more come.

use crate::{config, lang_or_detect, to_js, why};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use whittle::pair::unified_diff;
use whittle::witness::{
    Change, Coverage, Keep, MutantOutcome, Observation, OriginalState, Selection, Witness,
    WitnessSettings, WitnessStats,
};
use whittle::Queries;

#[derive(Deserialize)]
struct WitnessConfig {
    #[serde(default)]
    lang: Option<String>,
    text: String,
    /// The search's random seed: the same seed, settings and observations give the same
    /// witnesses. Older callers named it `seed`.
    #[serde(default, alias = "seed")]
    rng_seed: Option<u64>,
    /// Tests at most, the original's included.
    #[serde(default)]
    budget: Option<usize>,
    /// Stop after this many witnesses.
    #[serde(default)]
    want: Option<usize>,
    #[serde(default)]
    selection: Option<String>,
    #[serde(default)]
    keep: Option<String>,
}

fn settings(cfg: &WitnessConfig) -> Result<WitnessSettings, JsError> {
    let named = |name: &Option<String>, what: &str, choices: &str| {
        JsError::new(&format!(
            "unknown {what} `{}`: use {choices}",
            name.as_deref().unwrap_or_default()
        ))
    };
    let default = WitnessSettings::default();
    Ok(WitnessSettings {
        rng_seed: cfg.rng_seed.unwrap_or(default.rng_seed),
        budget: cfg.budget.unwrap_or(default.budget).max(2),
        want: cfg.want.filter(|&w| w > 0),
        selection: match cfg.selection.as_deref() {
            None => default.selection,
            Some(s) => Selection::from_name(s)
                .ok_or_else(|| named(&cfg.selection, "selection", "mh or random"))?,
        },
        keep: match cfg.keep.as_deref() {
            None => default.keep,
            Some(k) => {
                Keep::from_name(k).ok_or_else(|| named(&cfg.keep, "keep", "diverse or all"))?
            }
        },
        ..default
    })
}

/// An observation as the worker sends it: `{outcome, coverage?, trace?, about?}` (`about`:
/// the compiler's messages the bug is about, see `WitnessSearch.focusOn`).
#[derive(Deserialize)]
struct JsObservation {
    outcome: String,
    #[serde(default)]
    coverage: Option<Coverage>,
    #[serde(default)]
    trace: Option<String>,
    #[serde(default)]
    about: Option<String>,
}

fn observation(value: JsValue) -> Result<Observation, JsError> {
    let o: JsObservation = serde_wasm_bindgen::from_value(value).map_err(|e| {
        JsError::new(&format!(
            "bad observation: {} (want {{outcome, coverage?: {{file: {{function: [line]}}}}, trace?: string, about?: string}})",
            why(&e)
        ))
    })?;
    let outcome = match o.outcome.as_str() {
        "failing" => MutantOutcome::Failing,
        "passing" => MutantOutcome::Passing,
        "rejected" => MutantOutcome::Rejected,
        other => {
            return Err(JsError::new(&format!(
                "unknown outcome `{other}`: use failing, passing or rejected"
            )))
        }
    };
    Ok(Observation {
        outcome,
        coverage: o.coverage,
        trace: o.trace,
        about: o.about,
    })
}

const fn state_name(s: OriginalState) -> &'static str {
    match s {
        OriginalState::Untested => "untested",
        OriginalState::Failing => "failing",
        OriginalState::NotFailing(MutantOutcome::Passing) => "passing",
        OriginalState::NotFailing(_) => "rejected",
    }
}

#[derive(Serialize)]
struct Stats<'a> {
    #[serde(flatten)]
    stats: &'a WitnessStats,
    budget: usize,
    done: bool,
    /// What the failing program's own test said: 'untested', 'failing', or (nothing to
    /// witness) 'passing' or 'rejected'.
    original: &'static str,
}

/// A witness as the page lists it: the engine's, with its place and its diff.
#[derive(Serialize)]
struct Listed<'a> {
    index: usize,
    text: &'a str,
    changes: &'a [Change],
    order: usize,
    distance: Option<f64>,
    /// The query that found it; null for one a higher-order mutant was shrunk to.
    query: Option<u64>,
    /// A unified diff from the failing program to the witness.
    diff: String,
}

impl<'a> Listed<'a> {
    fn of(index: usize, w: &'a Witness, original: &str) -> Self {
        Listed {
            index,
            text: &w.text,
            changes: &w.changes,
            order: w.order,
            distance: w.distance,
            query: w.query,
            diff: unified_diff(
                original,
                &w.text,
                "failing",
                &format!("witness {}", index + 1),
            ),
        }
    }
}

/// A witness search in progress (DiWi).
#[wasm_bindgen]
pub struct WitnessSearch {
    session: whittle::witness::WitnessSearch,
    budget: usize,
}

#[wasm_bindgen]
impl WitnessSearch {
    /// `config`: `{lang?, text, seed?, budget?, want?, selection?: 'mh' | 'random', keep?:
    /// 'diverse' | 'all'}`. Throws if the text does not parse.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "WitnessSearchConfig")] config_: JsValue,
    ) -> Result<WitnessSearch, JsError> {
        let cfg: WitnessConfig = config(config_, "witness search")?;
        let lang = lang_or_detect(cfg.lang.as_deref(), &cfg.text)?;
        let settings = settings(&cfg)?;
        let budget = settings.budget;
        let session = whittle::witness::WitnessSearch::new(lang, &cfg.text, settings)
            .map_err(|e| JsError::new(&e.to_string()))?;
        Ok(WitnessSearch { session, budget })
    }

    /// Up to `k` mutants to test: `[{id, candidate, side: 'variant', text, original}]`, the
    /// first the program itself. Empty while the round's observations are awaited: report
    /// every query handed out.
    #[wasm_bindgen(unchecked_return_type = "Query[]")]
    pub fn next(&mut self, k: usize) -> Result<JsValue, JsError> {
        to_js(&self.session.next(k))
    }

    /// The observation of query `id`: `{outcome: 'failing' | 'passing' | 'rejected',
    /// coverage?: {file: {function: [line]}}, trace?: string}` (coverage or trace of the
    /// original's and passing mutants' compiles, when the endpoint gives one).
    /// A query reported before, or never handed out, is ignored.
    pub fn report(
        &mut self,
        id: f64,
        #[wasm_bindgen(unchecked_param_type = "Observation")] obs: JsValue,
    ) -> Result<(), JsError> {
        self.session.report(id as u64, observation(obs)?);
        Ok(())
    }

    /// Lines (1-based) the compiler's messages on the failing program point at: most
    /// mutations are then drawn near them.
    pub fn focus(&mut self, lines: Vec<u32>) {
        let lines: Vec<usize> = lines.into_iter().map(|l| l as usize).collect();
        self.session.focus(&lines);
    }

    /// Focuses on the lines of `name` the compiler's messages on the failing program (its
    /// `output`) point at, each weighed by how rare its kind of message is; the lines found.
    /// `about(message)`, when given, says which messages the bug is about (the others do not
    /// count, unless it accepts none); it should not throw (a throw counts as false).
    #[wasm_bindgen(js_name = focusOn)]
    pub fn focus_on(
        &mut self,
        output: &str,
        name: &str,
        #[wasm_bindgen(unchecked_param_type = "((message: string) => boolean) | undefined")] about: Option<js_sys::Function>,
    ) -> usize {
        let lines = whittle::witness::pointed_lines_of(name, output, |m| {
            about.as_ref().is_none_or(|f| {
                f.call1(&JsValue::NULL, &JsValue::from_str(m))
                    .is_ok_and(|v| v.is_truthy())
            })
        });
        self.session.focus_weighted(&lines);
        lines.len()
    }

    /// The lines of `output`'s messages whose first line `about(message)` accepts, with their
    /// notes: an observation's `about`.
    #[wasm_bindgen(js_name = messagesAbout)]
    pub fn messages_about(
        output: &str,
        #[wasm_bindgen(unchecked_param_type = "(message: string) => boolean")]
        about: &js_sys::Function,
    ) -> String {
        whittle::witness::messages_about(output, |m| {
            about
                .call1(&JsValue::NULL, &JsValue::from_str(m))
                .is_ok_and(|v| v.is_truthy())
        })
    }

    /// Whether query `id` is awaited: handed out and not reported yet (the search needs every
    /// one of them).
    pub fn wants(&self, id: f64) -> bool {
        self.session.wants(id as u64)
    }

    /// The budget spent, enough witnesses, nothing left to try, or an original that does not
    /// fail.
    pub fn done(&self) -> bool {
        self.session.done()
    }

    /// Whether the last `next` stopped for its bounded work rather than to await
    /// observations (as a reduction's `more`).
    pub fn more(&self) -> bool {
        self.session.more()
    }

    /// `{queries, failing, passing, rejected, syntax_rejected, not_diverse,
    /// minimize_queries, witnesses, max_order, budget, done, original}`.
    #[wasm_bindgen(unchecked_return_type = "WitnessStats")]
    pub fn stats(&self) -> Result<JsValue, JsError> {
        to_js(&Stats {
            stats: self.session.stats(),
            budget: self.budget,
            done: self.session.done(),
            original: state_name(self.session.original_state()),
        })
    }

    /// The witnesses found from the `from`th on: `[{index, text, changes: [{rule, line,
    /// before, after}], order, distance, query, diff}]`.
    #[wasm_bindgen(unchecked_return_type = "ListedWitness[]")]
    pub fn witnesses(&self, from: usize) -> Result<JsValue, JsError> {
        let original = self.session.original();
        let listed: Vec<Listed> = self
            .session
            .witnesses()
            .iter()
            .enumerate()
            .skip(from)
            .map(|(index, witness)| Listed::of(index, witness, original))
            .collect();
        to_js(&listed)
    }

    /// The compiler's files and functions by Ochiai, most suspicious first: `{files:
    /// [{name, score, statements}], functions: [...]}`, or null without the failing
    /// program's coverage.
    #[wasm_bindgen(unchecked_return_type = "Ranking | null")]
    pub fn ranking(&self) -> Result<JsValue, JsError> {
        to_js(&self.session.ranking())
    }

    /// Each mutation rule's record: `[{rule, sites, selected, accepted, diversity}]`.
    #[wasm_bindgen(unchecked_return_type = "RuleStats[]")]
    pub fn rules(&self) -> Result<JsValue, JsError> {
        to_js(&self.session.rules())
    }

    /// The failing program.
    pub fn original(&self) -> String {
        self.session.original().to_string()
    }
}
