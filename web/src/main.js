// The playground page: the state, the editor, and the panels around the engine worker.
//
// State lives in one object (see DEFAULT_STATE). It is saved to local storage as you edit,
// and Share puts it in the URL fragment (permalink.js). Reductions run in the worker
// (reduction.js); this file shows their progress and keeps their best result.
import { createEditor } from './editor.js';
import { EngineClient } from './engine-client.js';
import { TreeView } from './tree-view.js';
import { Offsets } from './offsets.js';
import { ProgressView, formatDuration } from './progress.js';
import { renderDiff } from './diff-view.js';
import { decodeState, encodeState } from './permalink.js';
import * as storage from './storage.js';
import { DEFAULT_JS_PROPERTY, defaultK, fillCompilers, readForm, showFields, writeForm } from './form.js';
import { listCompilers } from './endpoint.js';
import { SAMPLE_PROGRAM } from './sample.js';

const $ = (id) => document.getElementById(id);
const PARSE_DEBOUNCE_MS = 150;
const SAVE_DEBOUNCE_MS = 400;

const DEFAULT_STATE = {
  mode: 'single',
  lang: 'c',
  program: SAMPLE_PROGRAM,
  strategy: 'perses',
  endpoint: { kind: 'whittle', base: '' },
  compiler: '',
  flags: '-O2 -Wall',
  execute: false,
  property: {
    kind: 'regex',
    regex: 'makes integer from pointer without a cast',
    streams: ['stderr'],
    negate: false,
    exitOf: 'compile',
    exitOp: 'eq',
    exitValue: 0,
    js: DEFAULT_JS_PROPERTY,
  },
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
let fromLink = false; // the state came from a permalink (its JavaScript property is untrusted)
let jsTrusted = true;
let linkVerdicts = null; // the recorded verdicts that came with the link, while still valid
let linkEngine = null; // the engine build that recorded them
let engineId = null; // this page's engine build (a hash of the wasm)
let lastReport = null; // the last parse report of the editor's text
let offsets = new Offsets('');
let edits = 0; // counts edits, so that tests can wait for the parse of a given text

// --- the current reduction -------------------------------------------------------------------

let runId = 0;
let run = null; // {id, replay, original, lang, key, state, verdicts, best}

// --- views -----------------------------------------------------------------------------------

const editor = createEditor($('editor'), {
  text: '',
  lang: 'c',
  readOnly: embed,
  onChange(text) {
    state.program = text;
    edits++;
    if (!loadingText) stateChanged({ invalidatesRun: true });
    scheduleParse();
  },
  onCursor(index) {
    if (ignoreCursor) return (ignoreCursor = false);
    tree.revealAt(offsets.toByte(index));
  },
});
let ignoreCursor = false;
let loadingText = false; // the page itself is filling the editor (not an edit by the person)

function loadText(text) {
  loadingText = true;
  editor.setText(text);
  loadingText = false;
}

const tree = new TreeView($('tree'), {
  onHover: (node) => editor.mark(node && { from: offsets.toIndex(node.start), to: offsets.toIndex(node.end) }),
  onSelect(node) {
    ignoreCursor = true;
    editor.select(offsets.toIndex(node.start), offsets.toIndex(node.end));
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
  if (name === 'tree') scheduleParse(0);
  if (name === 'diff') showDiff();
}

// --- parsing ---------------------------------------------------------------------------------

let parseTimer = 0;
function scheduleParse(delay = PARSE_DEBOUNCE_MS) {
  clearTimeout(parseTimer);
  parseTimer = setTimeout(parseNow, delay);
}

async function parseNow() {
  clearTimeout(parseTimer); // this parse covers any scheduled one
  const gen = edits;
  const text = state.program;
  let report;
  try {
    report = await engine.parse(text, state.lang, tab === 'tree');
  } catch (e) {
    return showParseStatus({ ok: false, error: e.message });
  }
  if (!report) return; // a newer edit superseded this parse
  lastReport = report;
  if (state.lang === 'auto') {
    editor.setLang(report.lang);
    $('lang').options[0].textContent = `auto (${report.lang})`;
  }
  const count = $('token-count');
  count.textContent = String(report.tokens);
  count.dataset.parseMs = String(report.parse_ms);
  count.dataset.edit = String(gen);
  $('parse-time').textContent = `parsed in ${report.parse_ms.toFixed(1)} ms`;
  showParseStatus(report);
  if (report.tree) {
    offsets = new Offsets(text);
    tree.setTree(report.tree, positionIn(text));
  }
  updateButtons();
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
  state = readForm(state);
  if (e?.target?.id === 'endpoint' && before.settings.k === defaultK(before.endpoint.kind)) {
    // Keep k polite: the default follows the endpoint unless the person chose one.
    state.settings.k = defaultK(state.endpoint.kind);
    $('k').value = String(state.settings.k);
  }
  showFields(state);
  if (state.lang !== before.lang) {
    if (state.lang !== 'auto') editor.setLang(state.lang);
    scheduleParse(0);
  }
  const compilersChanged = state.endpoint.kind !== before.endpoint.kind || state.endpoint.base !== before.endpoint.base || state.lang !== before.lang;
  if (compilersChanged) loadCompilers();
  if (e?.target?.id === 'prop-js') jsTrusted = true; // they wrote or edited it: their own code
  showJsTrust();
  stateChanged({ invalidatesRun: state.lang !== before.lang || state.strategy !== before.strategy });
}

for (const el of document.querySelectorAll('#sidebar input, #sidebar select, #sidebar textarea, #lang, #strategy')) {
  el.addEventListener(el.matches('input[type=text], input[type=url], textarea') ? 'input' : 'change', onFormChange);
}

let compilerLoad = 0;
async function loadCompilers() {
  if (state.endpoint.kind === 'none') return;
  const n = ++compilerLoad;
  const errorEl = $('compilers-error');
  errorEl.hidden = true;
  const lang = state.lang === 'auto' ? (lastReport?.lang ?? 'c') : state.lang;
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
  const preferred = state.compiler || list.find((c) => /^gcc|^cg|gcc/.test(c.id))?.id || list[0]?.id || '';
  state.compiler = fillCompilers(list, preferred);
  updateButtons();
}
$('compilers-reload').addEventListener('click', loadCompilers);

function showJsTrust() {
  $('js-trust').hidden = jsTrusted || state.property.kind !== 'js';
}
$('js-run').addEventListener('click', () => {
  jsTrusted = true;
  showJsTrust();
  updateButtons();
});

// --- checking and reducing -------------------------------------------------------------------

/** What the worker needs to query the endpoint and evaluate the property. */
function testConfig() {
  const p = state.property;
  return {
    endpoint: state.endpoint,
    compiler: state.compiler,
    flags: state.flags,
    execute: state.execute,
    property: p.kind === 'js' ? { kind: 'js', js: p.js } : { ...p, js: undefined },
    timeoutMs: state.settings.timeoutS * 1000,
  };
}

function blocker() {
  if (!lastReport) return 'the engine is still loading';
  if (!lastReport.ok) return 'the program does not parse: fix the syntax error first';
  if (state.property.kind === 'js' && !jsTrusted) return 'this link’s JavaScript property has not been allowed: read it and press Run';
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
  const answer = await engine.call({ type: 'check', config: testConfig(), text: state.program });
  if (answer.result) renderOutput(answer.result, 'the program as it is now');
  if (answer.error) {
    out.textContent = answer.error;
    out.className = 'check-result err';
  } else {
    out.textContent = answer.verdict ? '✓ has the property' : '✗ does not have the property';
    out.className = `check-result ${answer.verdict ? 'yes' : 'no'}`;
  }
});

function startReduction({ replayVerdicts = null } = {}) {
  const why = replayVerdicts ? (lastReport?.ok ? null : 'the program does not parse') : blocker();
  if (why) return setStatus(`cannot reduce: ${why}`, 'error');
  const lang = lastReport.lang;
  run = {
    id: ++runId,
    replay: !!replayVerdicts,
    original: state.program,
    lang,
    key: runKey(state),
    state: 'running',
    verdicts: null,
    best: state.program,
    startedAt: new Date().toISOString(),
  };
  progress.reset();
  $('result').textContent = '';
  $('diff').replaceChildren();
  $('result-info').textContent = replayVerdicts ? 'Replaying…' : 'Reducing…';
  const config = { lang, text: state.program, strategy: state.strategy, k: state.settings.k, ...testConfig() };
  engine.post(replayVerdicts
    ? { type: 'replay', run: run.id, config, verdicts: replayVerdicts }
    : { type: 'reduce', run: run.id, config });
  if (tab === 'tree' || tab === 'output') showTab('progress');
  setStatus(replayVerdicts ? 'replaying the recorded reduction…' : 'reducing…', 'running');
  updateButtons();
}

/** Runs are comparable (their verdicts replay) when program, language and strategy match. */
function runKey(s) {
  return JSON.stringify([s.program, s.lang, s.strategy]);
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
      renderOutput(msg.result, 'the original program (first query of the reduction)');
      break;
    case 'notice':
      showNotice(msg.message);
      break;
    case 'finished':
      finished(msg);
      break;
  }
};

function improved(best, stats, finishedRun) {
  run.best = best;
  $('result').textContent = best;
  const work = run.replay ? 'replayed' : `${stats.queries} queries${finishedRun ? '' : ' so far'}`;
  $('result-info').textContent = `${stats.tokens_before} → ${stats.tokens_now} tokens (${percent(stats)}), ${work}`;
  $('result-copy').hidden = false;
  $('result-use').hidden = false;
  if (!run.replay) {
    storage.saveBest({
      best, original: run.original, lang: run.lang, tokensBefore: stats.tokens_before, tokensNow: stats.tokens_now,
      queries: stats.queries, savedAt: new Date().toISOString(), finished: finishedRun,
    });
  }
  if (tab === 'diff') showDiff();
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
  const summary = s ? `${s.tokens_before} → ${s.tokens_now} tokens (${work}) in ${formatDuration(msg.elapsedMs)}` : '';
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

async function showDiff() {
  if (!run?.best) return;
  const target = $('diff');
  if (run.state === 'running' && !run.replay) {
    // Diffing a large program costs the worker time the reduction needs: only between runs.
    target.textContent = 'The diff is shown when the reduction stops.';
    return;
  }
  try {
    renderDiff(target, await engine.diff(run.original, run.best));
  } catch (e) {
    target.textContent = `could not diff: ${e.message}`;
  }
}

$('reduce').addEventListener('click', () => startReduction());
$('pause').addEventListener('click', () => run && engine.post({ type: 'pause', run: run.id }));
$('resume').addEventListener('click', () => run && engine.post({ type: 'resume', run: run.id }));
$('cancel').addEventListener('click', () => run && engine.post({ type: 'cancel', run: run.id }));
document.addEventListener('keydown', (e) => {
  if ((e.ctrlKey || e.metaKey) && e.key === 'Enter' && !$('reduce').disabled) startReduction();
});
$('result-copy').addEventListener('click', () => copy($('result').textContent, $('result-copy')));
$('result-use').addEventListener('click', () => {
  editor.setText($('result').textContent);
  setStatus('the result is in the editor: reduce it again, or edit it', 'idle');
});

function updateButtons() {
  const active = run && (run.state === 'running' || run.state === 'paused');
  $('reduce').hidden = active;
  $('reduce').disabled = !lastReport?.ok;
  $('reduce').title = blocker() ?? 'Reduce the program while the property holds (Ctrl+Enter)';
  $('pause').hidden = !active || run.state !== 'running';
  $('resume').hidden = !active || run.state !== 'paused';
  $('cancel').hidden = !active;
  if (embed) $('reduce').textContent = linkVerdicts ? 'Replay' : 'Reduce';
}

function setStatus(text, kind) {
  $('status').textContent = text;
  $('status').className = `status ${kind}`;
}

// --- the Output tab: what the endpoint answered ----------------------------------------------

function renderOutput(result, what) {
  const box = $('output');
  const parts = [h('p', `Answer for ${what}: exit code ${result.code}`, 'muted')];
  const block = (title, text) => text && parts.push(h('h3', title), h('pre', text));
  block('stderr', result.stderr);
  block('stdout', result.stdout);
  if (result.run) {
    parts.push(h('h3', `run: exit code ${result.run.code}`));
    block('run stdout', result.run.stdout);
    block('run stderr', result.run.stderr);
  }
  block('asm', result.asm.length > 20000 ? `${result.asm.slice(0, 20000)}\n…` : result.asm);
  box.replaceChildren(...parts);
}

function h(tag, text, cls) {
  const e = document.createElement(tag);
  e.textContent = text;
  if (cls) e.className = cls;
  return e;
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
        return { ...structuredClone(DEFAULT_STATE), ...linked, settings: { ...DEFAULT_STATE.settings, ...linked.settings } };
      }
    } catch (e) {
      showNotice(`Could not open the link: ${e.message}. Showing your last state instead.`);
    }
  }
  const saved = embed ? null : storage.loadState();
  return saved ? { ...structuredClone(DEFAULT_STATE), ...saved } : structuredClone(DEFAULT_STATE);
}

function restoreBest() {
  const saved = storage.loadBest();
  if (!saved?.best) return;
  run = { id: 0, replay: false, original: saved.original, lang: saved.lang, key: null, state: 'restored', verdicts: null, best: saved.best };
  $('result').textContent = saved.best;
  $('result-info').textContent = `${saved.tokensBefore} → ${saved.tokensNow} tokens, ${saved.queries} queries (restored)`;
  $('result-copy').hidden = false;
  $('result-use').hidden = false;
  const when = new Date(saved.savedAt).toLocaleString();
  showNotice(`Restored the best result of your ${saved.finished ? 'last' : 'unfinished'} reduction (${saved.tokensBefore} → ${saved.tokensNow} tokens, ${when}): see the Result tab.`);
}

async function boot() {
  state = await loadInitialState();
  jsTrusted = !(fromLink && state.property.kind === 'js');
  writeForm(state);
  showJsTrust();
  loadText(state.program);
  edits = 0;
  if (state.lang !== 'auto') editor.setLang(state.lang);
  if (embed) {
    $('lang').disabled = true;
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
  while (!lastReport) await parseNow(); // (a parse superseded by an edit resolves empty)
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

// A small hook for tests and the console.
window.whittle = {
  setProgram: (text) => editor.setText(text),
  program: () => editor.getText(),
  edits: () => edits,
  setCursor: (index) => editor.select(index, index),
  selection: () => editor.selection(),
  state: () => structuredClone(state),
  shareLink: async () => `${location.origin}/${await encodeState(shareableState())}`,
};
