// The playground page: the state, the editors, and the panels around the engine worker.
//
// State lives in one object (see DEFAULT_STATE). It is saved to local storage as you edit,
// and Share puts it in the URL fragment (permalink.js). Reductions run in the worker
// (reduction.js); this file shows their progress and keeps their best result.
//
// Two modes: one program, or a pair (PPR): a seed without the behaviour and a variant with it,
// each with its own property. The "sides" are 'program' (the program, or the pair's variant)
// and 'seed'.
import { createEditor } from './editor.js';
import { EngineClient } from './engine-client.js';
import { TreeView } from './tree-view.js';
import { Offsets } from './offsets.js';
import { ProgressView, formatDuration } from './progress.js';
import { renderDiff } from './diff-view.js';
import { renderPair } from './pair-view.js';
import { renderOutput } from './output-view.js';
import { decodeState, encodeState } from './permalink.js';
import * as storage from './storage.js';
import { DEFAULT_JS_PROPERTY, defaultK, fillCompilers, propertyOf, readForm, seedPropertyFrom, showFields, writeForm } from './form.js';
import { listCompilers } from './endpoint.js';
import { SAMPLE_PROGRAM, SAMPLE_SEED } from './sample.js';

const $ = (id) => document.getElementById(id);
const PARSE_DEBOUNCE_MS = 150;
const SAVE_DEBOUNCE_MS = 400;

const DEFAULT_PROPERTY = {
  kind: 'regex',
  regex: 'makes integer from pointer without a cast',
  streams: ['stderr'],
  negate: false,
  exitOf: 'compile',
  exitOp: 'eq',
  exitValue: 0,
  js: DEFAULT_JS_PROPERTY,
};

const DEFAULT_STATE = {
  mode: 'single', // or 'pair'
  lang: 'c',
  program: SAMPLE_PROGRAM, // in pair mode: the variant
  seed: SAMPLE_SEED, // pair mode only
  strategy: 'perses',
  endpoint: { kind: 'whittle', base: '' },
  compiler: '',
  flags: '-O2 -Wall',
  execute: false,
  property: DEFAULT_PROPERTY, // in pair mode: the variant's
  seedProperty: seedPropertyFrom(DEFAULT_PROPERTY),
  settings: { k: defaultK('whittle'), timeoutS: 60, shareVerdicts: true },
};

const params = new URLSearchParams(location.search);
const embed = /\/e\/?$/.test(location.pathname) || params.get('embed') === '1';
if (embed) {
  document.body.classList.add('embed');
  storage.disableWrites();
}

const engine = new EngineClient();
let state = structuredClone(DEFAULT_STATE);
let fromLink = false; // the state came from a permalink (its JavaScript properties are untrusted)
let jsTrusted = true;
let linkVerdicts = null; // the recorded verdicts that came with the link, while still valid
let linkEngine = null; // the engine build that recorded them
let engineId = null; // this page's engine build (a hash of the wasm)
const reports = { program: null, seed: null }; // the last parse report of each side
let activeSide = 'program'; // the side the editor pane shows
let propSide = 'program'; // the side whose property the form shows
let offsets = new Offsets('');
let edits = 0; // counts edits, so that tests can wait for the parse of a given text

const pair = () => state.mode === 'pair';
const textOf = (side) => (side === 'seed' ? state.seed : state.program);
const sideName = (side) => (pair() ? (side === 'seed' ? 'seed' : 'variant') : 'program');

// --- the current reduction -------------------------------------------------------------------

let runId = 0;
/** {id, replay, pair, original: {program, seed}, lang, key, state, verdicts, best, stats} */
let run = null;

// --- editors and the tree --------------------------------------------------------------------

let ignoreCursor = false;
let loadingText = false; // the page itself is filling an editor (not an edit by the person)

function makeEditor(side, el) {
  return createEditor(el, {
    readOnly: embed,
    onChange(text) {
      state[side] = text;
      edits++;
      if (!loadingText) stateChanged({ invalidatesRun: true });
      scheduleParse(side);
    },
    onCursor(index) {
      if (ignoreCursor) return (ignoreCursor = false);
      if (side === activeSide) tree.revealAt(offsets.toByte(index));
    },
  });
}
const editors = { program: makeEditor('program', $('editor')), seed: makeEditor('seed', $('editor-seed')) };
const activeEditor = () => editors[activeSide];

function loadText(side, text) {
  loadingText = true;
  editors[side].setText(text);
  loadingText = false;
}

function setHighlighting(lang) {
  for (const e of Object.values(editors)) e.setLang(lang);
}

const tree = new TreeView($('tree'), {
  onHover: (node) => activeEditor().mark(node && { from: offsets.toIndex(node.start), to: offsets.toIndex(node.end) }),
  onSelect(node) {
    ignoreCursor = true;
    activeEditor().select(offsets.toIndex(node.start), offsets.toIndex(node.end));
  },
});
$('tree-anon').addEventListener('change', () => tree.setShowAnonymous($('tree-anon').checked));

const progress = new ProgressView({
  chart: $('chart'),
  tokens: $('progress-tokens'),
  queries: $('progress-queries'),
  qps: $('progress-qps'),
  cache: $('progress-cache'),
  pass: $('progress-pass'),
  elapsed: $('progress-elapsed'),
  history: $('history'),
});

// Tabs: the tree is parsed only while its tab is shown.
let tab = 'tree';
for (const b of document.querySelectorAll('.tabs button')) b.addEventListener('click', () => showTab(b.dataset.tab));
function showTab(name) {
  tab = name;
  for (const b of document.querySelectorAll('.tabs button')) b.setAttribute('aria-selected', String(b.dataset.tab === name));
  for (const p of document.querySelectorAll('[data-panel]')) p.hidden = p.dataset.panel !== name;
  if (name === 'tree') scheduleParse(activeSide, 0);
  if (name === 'diff') showDiff();
}

// The pair's two programs share the editor pane: one shown at a time.
for (const r of document.querySelectorAll('input[name=side]')) r.addEventListener('change', () => showSide(r.value));
function showSide(side) {
  activeSide = side;
  for (const r of document.querySelectorAll('input[name=side]')) r.checked = r.value === side;
  $('editor').hidden = side !== 'program';
  $('editor-seed').hidden = side !== 'seed';
  if (reports[side]) showParse(reports[side]);
  scheduleParse(side, 0);
}

function applyMode() {
  document.body.classList.toggle('pair', pair());
  if (!pair()) {
    showSide('program');
    propSide = 'program';
  }
  for (const r of document.querySelectorAll('input[name=prop-side]')) r.checked = r.value === propSide;
  $('check').textContent = `Check the ${sideName(propSide)}`;
}

// --- parsing ---------------------------------------------------------------------------------

const parseTimers = {};
function scheduleParse(side = activeSide, delay = PARSE_DEBOUNCE_MS) {
  clearTimeout(parseTimers[side]);
  parseTimers[side] = setTimeout(() => parseNow(side), delay);
}

/** Parses one side; the shown side's report goes to the status line and the tree. */
async function parseNow(side = activeSide) {
  clearTimeout(parseTimers[side]); // this parse covers any scheduled one
  const gen = edits;
  const text = textOf(side);
  let report;
  try {
    report = await engine.parse(text, state.lang, tab === 'tree' && side === activeSide, side);
  } catch (e) {
    reports[side] = { ok: false, error: e.message };
    if (side === activeSide) showParseStatus(reports[side]);
    return;
  }
  if (!report) return; // a newer edit superseded this parse
  reports[side] = report;
  if (state.lang === 'auto' && side === 'program') {
    setHighlighting(report.lang);
    $('lang').options[0].textContent = `auto (${report.lang})`;
  }
  if (side === activeSide) {
    showParse(report, gen);
    if (report.tree) {
      offsets = new Offsets(text);
      tree.setTree(report.tree, positionIn(text));
    }
  }
  updateButtons();
}

function showParse(report, gen) {
  const count = $('token-count');
  count.textContent = String(report.tokens ?? '–');
  count.dataset.parseMs = String(report.parse_ms ?? '');
  if (gen !== undefined) count.dataset.edit = String(gen);
  $('parse-time').textContent = report.parse_ms === undefined ? '' : `parsed in ${report.parse_ms.toFixed(1)} ms`;
  showParseStatus(report);
}

function showParseStatus(report) {
  const el = $('parse-status');
  if (report.ok) {
    el.textContent = report.round_trip ? 'parses' : 'parses (but does not round-trip)';
    el.className = 'parse-status ok';
  } else if (report.error && typeof report.error === 'object') {
    const { line, column, near } = report.error;
    el.textContent = `Syntax error at line ${line}, column ${column}${near ? ` near \`${near}\`` : ''}`;
    el.className = 'parse-status error';
  } else {
    el.textContent = String(report.error ?? 'does not parse');
    el.className = 'parse-status error';
  }
  el.title = el.textContent;
}

/** byte offset -> {line, column} (1-based) in `text`, for the tree's range labels. */
function positionIn(text) {
  const starts = [0];
  const enc = new Offsets(text);
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(enc.toByte(i + 1));
  return (byte) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= byte) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: byte - starts[lo] + 1 };
  };
}

// --- the settings form -----------------------------------------------------------------------

let saveTimer = 0;
/** After any change the person made: save, and forget a link's verdicts if they no longer apply. */
function stateChanged({ invalidatesRun = false } = {}) {
  if (invalidatesRun) linkVerdicts = null;
  if (fromLink && !embed) {
    // The page now shows the person's own work: drop the link from the address bar.
    history.replaceState(null, '', location.pathname + location.search);
  }
  clearTimeout(saveTimer);
  saveTimer = setTimeout(() => storage.saveState(state), SAVE_DEBOUNCE_MS);
  updateButtons();
}

function onFormChange(e) {
  const before = state;
  state = readForm(state, propSide);
  if (e?.target?.id === 'endpoint' && before.settings.k === defaultK(before.endpoint.kind)) {
    // Keep k polite: the default follows the endpoint unless the person chose one.
    state.settings.k = defaultK(state.endpoint.kind);
    $('k').value = String(state.settings.k);
  }
  showFields(state, propSide);
  if (state.mode !== before.mode) {
    applyMode();
    if (pair()) scheduleParse('seed', 0);
  }
  if (state.lang !== before.lang) {
    if (state.lang !== 'auto') setHighlighting(state.lang);
    scheduleParse('program', 0);
    if (pair()) scheduleParse('seed', 0);
  }
  const compilersChanged = state.endpoint.kind !== before.endpoint.kind || state.endpoint.base !== before.endpoint.base || state.lang !== before.lang;
  if (compilersChanged) loadCompilers();
  if (e?.target?.id === 'prop-js') jsTrusted = true; // they wrote or edited it: their own code
  showJsTrust();
  stateChanged({ invalidatesRun: ['mode', 'lang', 'strategy'].some((k) => state[k] !== before[k]) });
}

for (const el of document.querySelectorAll('#sidebar input:not([name=prop-side]), #sidebar select, #sidebar textarea, #lang, #strategy, #mode')) {
  el.addEventListener(el.matches('input[type=text], input[type=url], textarea') ? 'input' : 'change', onFormChange);
}
for (const r of document.querySelectorAll('input[name=prop-side]')) {
  r.addEventListener('change', () => {
    propSide = r.value;
    writeForm(state, propSide);
    $('check').textContent = `Check the ${sideName(propSide)}`;
  });
}

let compilerLoad = 0;
async function loadCompilers() {
  if (state.endpoint.kind === 'none') return;
  const n = ++compilerLoad;
  const errorEl = $('compilers-error');
  errorEl.hidden = true;
  const lang = state.lang === 'auto' ? (reports.program?.lang ?? 'c') : state.lang;
  let list = [];
  try {
    list = await listCompilers(state.endpoint, lang);
    if (list.length === 0) throw new Error(`the endpoint has no compilers for ${lang}`);
  } catch (e) {
    if (n !== compilerLoad) return;
    errorEl.textContent = e.message;
    errorEl.hidden = false;
  }
  if (n !== compilerLoad) return;
  // Prefer the state's compiler; else gcc when listed (what most bug reports use).
  const preferred = state.compiler || list.find((c) => /gcc/.test(c.id))?.id || list[0]?.id || '';
  state.compiler = fillCompilers(list, preferred);
  updateButtons();
}
$('compilers-reload').addEventListener('click', loadCompilers);

const usesJs = () => state.property.kind === 'js' || (pair() && state.seedProperty.kind === 'js');

function showJsTrust() {
  $('js-trust').hidden = jsTrusted || !usesJs();
}
$('js-run').addEventListener('click', () => {
  jsTrusted = true;
  showJsTrust();
  updateButtons();
});

// --- checking and reducing -------------------------------------------------------------------

const propertyConfig = (p) => (p.kind === 'js' ? { kind: 'js', js: p.js } : { ...p, js: undefined });

/** What the worker needs to query the endpoint and evaluate the properties. */
function testConfig() {
  return {
    endpoint: state.endpoint,
    compiler: state.compiler,
    flags: state.flags,
    execute: state.execute,
    property: propertyConfig(state.property),
    seedProperty: pair() ? propertyConfig(state.seedProperty) : undefined,
    timeoutMs: state.settings.timeoutS * 1000,
  };
}

function syntaxBlocker() {
  for (const side of pair() ? ['program', 'seed'] : ['program']) {
    if (!reports[side]) return 'the engine is still loading';
    if (!reports[side].ok) return `the ${sideName(side)} does not parse: fix the syntax error first`;
  }
  return null;
}

function blocker() {
  const syntax = syntaxBlocker();
  if (syntax) return syntax;
  if (usesJs() && !jsTrusted) return 'this link’s JavaScript property has not been allowed: read it and press Run';
  if (state.endpoint.kind !== 'none' && !state.compiler) return 'choose a compiler';
  return null;
}

$('check').addEventListener('click', async () => {
  const why = blocker();
  const out = $('check-result');
  if (why) {
    out.textContent = why;
    out.className = 'check-result err';
    return;
  }
  out.textContent = 'checking…';
  out.className = 'check-result';
  // The side whose property is shown is checked on its program.
  const config = { ...testConfig(), property: propertyConfig(propertyOf(state, propSide)) };
  const answer = await engine.call({ type: 'check', config, text: textOf(propSide) });
  if (answer.result) showOutputs({ [sideName(propSide)]: answer.result }, `the ${sideName(propSide)} as it is now`);
  if (answer.error) {
    out.textContent = answer.error;
    out.className = 'check-result err';
  } else {
    const what = pair() ? `the ${sideName(propSide)} ` : '';
    out.textContent = answer.verdict ? `✓ ${what}has the property` : `✗ ${what}does not have the property`;
    out.className = `check-result ${answer.verdict ? 'yes' : 'no'}`;
  }
});

function startReduction({ replayVerdicts = null } = {}) {
  const why = replayVerdicts ? syntaxBlocker() : blocker();
  if (why) return setStatus(`cannot reduce: ${why}`, 'error');
  const lang = reports.program.lang;
  run = {
    id: ++runId,
    replay: !!replayVerdicts,
    pair: pair(),
    original: { program: state.program, seed: pair() ? state.seed : null },
    lang,
    key: runKey(state),
    state: 'running',
    verdicts: null,
    best: null,
    outputs: {},
  };
  progress.reset();
  clearResult(replayVerdicts ? 'Replaying…' : 'Reducing…');
  const config = {
    mode: state.mode,
    lang,
    text: state.program,
    seed: pair() ? state.seed : undefined,
    strategy: state.strategy,
    k: state.settings.k,
    ...testConfig(),
  };
  engine.post(replayVerdicts
    ? { type: 'replay', run: run.id, config, verdicts: replayVerdicts }
    : { type: 'reduce', run: run.id, config });
  if (tab === 'tree' || tab === 'output') showTab('progress');
  setStatus(replayVerdicts ? 'replaying the recorded reduction…' : 'reducing…', 'running');
  updateButtons();
}

/** Runs are comparable (their verdicts replay) when programs, language and strategy match. */
function runKey(s) {
  return JSON.stringify([s.mode, s.program, s.mode === 'pair' ? s.seed : null, s.lang, s.strategy]);
}

engine.onReduction = (msg) => {
  if (!run || msg.run !== run.id) return;
  switch (msg.type) {
    case 'state':
      run.state = msg.state;
      if (msg.state === 'paused') setStatus(`paused: ${msg.message}`, 'paused');
      else if (msg.state === 'running') setStatus(run.replay ? 'replaying…' : 'reducing…', 'running');
      updateButtons();
      break;
    case 'progress':
      progress.update(msg);
      if (msg.best !== undefined) improved(msg.best, msg.stats, false);
      if (run.state === 'running' && !run.replay) setStatus(`reducing… ${msg.stats.pass}, ${msg.stats.tokens_now} tokens`, 'running');
      break;
    case 'original':
      run.outputs[msg.side ?? 'program'] = msg.result;
      showOutputs(run.outputs, run.pair ? 'the original pair (first queries of the reduction)' : 'the original program (first query of the reduction)');
      break;
    case 'notice':
      showNotice(msg.message);
      break;
    case 'finished':
      finished(msg);
      break;
  }
};

// --- the result ------------------------------------------------------------------------------

function clearResult(info) {
  $('result').textContent = '';
  for (const id of ['result-seed', 'result-variant', 'result-diff', 'result-seed-info', 'result-variant-info', 'result-diff-info']) $(id).textContent = '';
  $('diff').replaceChildren();
  $('result-info').textContent = info;
  $('result-copy').hidden = true;
  $('result-use').hidden = true;
}

function improved(best, stats, finishedRun) {
  run.best = best;
  run.stats = stats;
  showResult(run, finishedRun);
  if (!run.replay) {
    storage.saveBest({
      mode: run.pair ? 'pair' : 'single', best, original: run.original.program, seed: run.original.seed, lang: run.lang,
      stats: pickStats(stats), savedAt: new Date().toISOString(), finished: finishedRun,
    });
  }
  if (tab === 'diff') showDiff();
}

const pickStats = (s) => Object.fromEntries(Object.entries(s).filter(([k]) => /tokens|queries/.test(k)));

let pairDiffSeq = 0;
function showResult(r, finishedRun, restored = false) {
  const s = r.stats;
  const work = r.replay ? 'replayed' : restored ? 'restored' : `${s.queries} queries${finishedRun ? '' : ' so far'}`;
  $('result-info').textContent = `${s.tokens_before} → ${s.tokens_now} tokens (${percent(s)}), ${work}`;
  $('result-copy').hidden = false;
  $('result-use').hidden = embed;
  if (!r.pair) {
    $('result').textContent = r.best;
    return;
  }
  const els = { seed: $('result-seed'), variant: $('result-variant'), diff: $('result-diff') };
  renderPair(r.best, null, els);
  $('result-seed-info').textContent = `${s.seed_tokens_before} → ${s.seed_tokens_after} tokens`;
  $('result-variant-info').textContent = `${s.variant_tokens_before} → ${s.variant_tokens_after} tokens`;
  $('result-diff-info').textContent = `${s.diff_tokens_before} → ${s.diff_tokens_after} tokens`;
  // Mark the differing tokens once the engine has diffed the pair (the latest pair only).
  const seq = ++pairDiffSeq;
  engine.diff(r.best.seed, r.best.variant).then((chunks) => seq === pairDiffSeq && renderPair(r.best, chunks, els), () => {});
}

function finished(msg) {
  run.state = msg.state;
  if (msg.stats) {
    progress.update(msg);
    progress.setHistory(msg.history);
    improved(msg.best, msg.stats, true);
    run.verdicts = msg.verdicts;
  }
  const s = msg.stats;
  const work = run.replay ? `replayed from ${msg.verdicts.length} recorded verdicts, no compiler used` : `${s?.queries} queries`;
  const sizes = s && (run.pair
    ? `seed ${s.seed_tokens_before} → ${s.seed_tokens_after}, variant ${s.variant_tokens_before} → ${s.variant_tokens_after}, diff ${s.diff_tokens_before} → ${s.diff_tokens_after} tokens`
    : `${s.tokens_before} → ${s.tokens_now} tokens`);
  const summary = s ? `${sizes} (${work}) in ${formatDuration(msg.elapsedMs)}` : '';
  if (msg.state === 'done') {
    setStatus(`done: ${summary}`, 'done');
    showTab('result');
  } else if (msg.state === 'cancelled') {
    setStatus(`cancelled: best so far ${summary}`, 'idle');
  } else {
    setStatus(`failed: ${msg.message}`, 'error');
    if (/Output tab/.test(msg.message ?? '')) showTab('output');
  }
  updateButtons();
}

function percent(s) {
  return s.tokens_before ? `${((100 * s.tokens_now) / s.tokens_before).toFixed(1)}%` : '';
}

/** The Diff tab: the original program (a pair's variant) against its reduced form. */
async function showDiff() {
  if (!run?.best) return;
  const target = $('diff');
  if (run.state === 'running' && !run.replay) {
    // Diffing a large program costs the worker time the reduction needs: only between runs.
    target.textContent = 'The diff is shown when the reduction stops.';
    return;
  }
  try {
    renderDiff(target, await engine.diff(run.original.program, run.pair ? run.best.variant : run.best));
  } catch (e) {
    target.textContent = `could not diff: ${e.message}`;
  }
}

const resultText = () => (run?.pair ? `/* seed */\n${run.best.seed}\n/* variant */\n${run.best.variant}` : $('result').textContent);

$('reduce').addEventListener('click', () => (embed && linkVerdicts ? startReduction({ replayVerdicts: linkVerdicts }) : startReduction()));
$('pause').addEventListener('click', () => run && engine.post({ type: 'pause', run: run.id }));
$('resume').addEventListener('click', () => run && engine.post({ type: 'resume', run: run.id }));
$('cancel').addEventListener('click', () => run && engine.post({ type: 'cancel', run: run.id }));
document.addEventListener('keydown', (e) => {
  if ((e.ctrlKey || e.metaKey) && e.key === 'Enter' && !$('reduce').disabled && !$('reduce').hidden) $('reduce').click();
});
$('result-copy').addEventListener('click', () => copy(resultText(), $('result-copy')));
$('result-use').addEventListener('click', () => {
  if (run.pair) {
    editors.seed.setText(run.best.seed);
    editors.program.setText(run.best.variant);
  } else {
    editors.program.setText(run.best);
  }
  setStatus('the result is in the editor: reduce it again, or edit it', 'idle');
});

function updateButtons() {
  const active = run && (run.state === 'running' || run.state === 'paused');
  const why = blocker();
  $('reduce').hidden = active;
  $('reduce').disabled = !!syntaxBlocker();
  $('reduce').title = why ?? 'Reduce while the property holds (Ctrl+Enter)';
  $('pause').hidden = !active || run.state !== 'running';
  $('resume').hidden = !active || run.state !== 'paused';
  $('cancel').hidden = !active;
  if (embed) $('reduce').textContent = linkVerdicts ? 'Replay' : 'Reduce';
}

function setStatus(text, kind) {
  $('status').textContent = text;
  $('status').className = `status ${kind}`;
}

/** The Output tab: the endpoint's answers, by side. */
function showOutputs(bySide, what) {
  const parts = [];
  for (const [side, result] of Object.entries(bySide)) {
    const name = side === 'program' ? sideName('program') : side;
    parts.push(...renderOutput(result, `${what}${Object.keys(bySide).length > 1 ? `: ${name}` : ''}`));
  }
  $('output').replaceChildren(...parts);
}

// --- notices, sharing and embeds -------------------------------------------------------------

function showNotice(text) {
  $('notice-text').textContent = text;
  $('notice').hidden = false;
}
$('notice-close').addEventListener('click', () => ($('notice').hidden = true));

/** The state to share: verdicts included when asked and they belong to this state. */
function shareableState() {
  const s = structuredClone(state);
  if (s.mode !== 'pair') {
    delete s.seed;
    delete s.seedProperty;
  }
  const own = run?.verdicts && run.key === runKey(state);
  const verdicts = own ? run.verdicts : linkVerdicts;
  if (state.settings.shareVerdicts && verdicts) {
    s.verdicts = verdicts;
    s.engine = own ? engineId : linkEngine;
  }
  return s;
}

$('share').addEventListener('click', async () => {
  const s = shareableState();
  const hash = await encodeState(s);
  const base = `${location.origin}${location.pathname.replace(/\/e\/?$/, '/')}`;
  const link = `${base}${hash}`;
  const embedUrl = `${location.origin}${location.pathname.replace(/\/(e\/?)?$/, '/e')}${hash}`;
  history.replaceState(null, '', hash);
  fromLink = false;
  $('share-link').value = link;
  $('share-embed').value = `<iframe src="${embedUrl}" width="100%" height="420" style="border:1px solid #ddd;border-radius:8px" title="Whittle playground" loading="lazy"></iframe>`;
  $('share-info').textContent = `${(link.length / 1024).toFixed(1)} KiB link. ${s.verdicts ? `It replays the reduction (${s.verdicts.length} recorded verdicts) without any compiler.` : 'It holds no recorded reduction: reduce first to include one.'}`;
  $('share-dialog').showModal();
  $('share-link').select();
  copy(link, $('share-copy'));
});
$('share-copy').addEventListener('click', () => copy($('share-link').value, $('share-copy')));
$('share-copy-embed').addEventListener('click', () => copy($('share-embed').value, $('share-copy-embed')));

async function copy(text, button) {
  const label = button.textContent;
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch {
    button.textContent = 'Copy failed: select and copy';
  }
  setTimeout(() => (button.textContent = label), 1500);
}

// --- start-up --------------------------------------------------------------------------------

/** A state from a link or storage over the defaults (older states may lack newer fields). */
function withDefaults(s) {
  const out = { ...structuredClone(DEFAULT_STATE), ...s, settings: { ...DEFAULT_STATE.settings, ...s.settings } };
  out.property = { ...DEFAULT_PROPERTY, ...out.property };
  out.seedProperty = { ...seedPropertyFrom(out.property), ...s.seedProperty };
  return out;
}

async function loadInitialState() {
  if (location.hash.length > 1) {
    try {
      const linked = await decodeState(location.hash);
      if (linked) {
        fromLink = true;
        linkVerdicts = typeof linked.verdicts === 'string' ? linked.verdicts : null;
        linkEngine = linked.engine ?? null;
        delete linked.verdicts;
        delete linked.engine;
        return withDefaults(linked);
      }
    } catch (e) {
      showNotice(`Could not open the link: ${e.message}. Showing your last state instead.`);
    }
  }
  const saved = embed ? null : storage.loadState();
  return saved ? withDefaults(saved) : structuredClone(DEFAULT_STATE);
}

function restoreBest() {
  const saved = storage.loadBest();
  if (!saved?.best || !saved.stats) return;
  const isPair = saved.mode === 'pair';
  run = { id: 0, replay: false, pair: isPair, original: { program: saved.original, seed: saved.seed }, lang: saved.lang, key: null, state: 'restored', verdicts: null, best: saved.best, stats: saved.stats };
  if (isPair !== pair()) {
    state.mode = saved.mode;
    writeForm(state, propSide);
    applyMode();
  }
  showResult(run, saved.finished, true);
  const when = new Date(saved.savedAt).toLocaleString();
  const s = saved.stats;
  showNotice(`Restored the best result of your ${saved.finished ? 'last' : 'unfinished'} reduction (${s.tokens_before} → ${s.tokens_now} tokens, ${when}): see the Result tab.`);
}

async function boot() {
  state = await loadInitialState();
  jsTrusted = !(fromLink && usesJs());
  writeForm(state, propSide);
  applyMode();
  showJsTrust();
  loadText('program', state.program);
  loadText('seed', state.seed);
  edits = 0;
  if (state.lang !== 'auto') setHighlighting(state.lang);
  if (embed) {
    $('lang').disabled = true;
    $('mode').disabled = true;
    const link = $('open-playground');
    link.href = `${location.pathname.replace(/\/e\/?$/, '/')}${location.hash}`;
    link.hidden = false;
  } else if (!fromLink) {
    restoreBest();
  }
  loadCompilers();
  try {
    const info = await engine.ready;
    engineId = info.engineId;
    $('engine-info').textContent = `engine ${engineId} loaded in ${Math.round(info.ms)} ms`;
  } catch (e) {
    return setStatus(e.message, 'error');
  }
  // (A parse superseded by an edit resolves empty: parse until there is a report.)
  while (!reports.program) await parseNow('program');
  while (pair() && !reports.seed) await parseNow('seed');
  document.body.dataset.ready = 'true';
  setStatus('ready', 'idle');
  if (linkVerdicts) {
    // The link carries a whole reduction: replay it. Only the engine that recorded it is sure
    // to make the same candidates from the same verdicts.
    if (linkEngine && linkEngine !== engineId) {
      showNotice(`This link’s reduction was recorded by another build of the engine (${linkEngine}; this page runs ${engineId}), so its replay may end differently. Press Reduce for a fresh result.`);
    }
    startReduction({ replayVerdicts: linkVerdicts });
  }
}

boot();

// Pasting another link into the address bar of an open playground: load it afresh.
window.addEventListener('hashchange', () => location.reload());

// A small hook for tests and the console. side: 'program' (a pair's variant) or 'seed'.
window.whittle = {
  setProgram: (text, side = 'program') => editors[side].setText(text),
  program: (side = 'program') => editors[side].getText(),
  edits: () => edits,
  setCursor: (index) => activeEditor().select(index, index),
  selection: () => activeEditor().selection(),
  state: () => structuredClone(state),
  result: () => structuredClone(run?.best ?? null),
  shareLink: async () => `${location.origin}/${await encodeState(shareableState())}`,
};
