// @ts-check
// The playground page's start-up: it holds the state (state.js), wires the editors, the
// settings form, the parse panel, the run view and sharing together, and talks to the engine
// worker (engine-client.js, which runs reductions with reduction.js).
//
// Four modes: one program; a pair (PPR): a seed without the behaviour and a variant with it,
// each with its own property (or the seed found as a witness of the variant: the automatic
// seed); a generator (GReduce): a JavaScript module whose output is the program, reduced by
// re-running it with fewer loop iterations and optional parts; or witnesses (DiWi): mutants of
// a failing program that compile and lose the property, which rank the compiler's code when
// the endpoint measures its coverage (witness-view.js). The sides are 'variant' (the program,
// the pair's variant, or the generator's output) and 'seed'.
import { createEditor } from './editor.js';
import { FileTabs } from './file-tabs.js';
import { CompileService } from './compile-service.js';
import { Compiler, describe } from './endpoint.js';
import { ParsePanel } from './parse-panel.js';
import { RunView, finishedStatus, resultText } from './run-view.js';
import { enterEmbedMode, isEmbed, setUpSharing } from './share.js';
import { LinkPanel } from './link-panel.js';
import { GeneratorView } from './generator-view.js';
import { WitnessView, changesText, seedingStatus, witnessFinishedStatus } from './witness-view.js';
import { SettingsPanel } from './settings-panel.js';
import { tabKeys } from './tabs-keys.js';
import { describeSetup } from './setup-summary.js';
import { withModeExample } from './mode-examples.js';
import { Waiting, countSeconds } from './waiting.js';
import { setUpSidebarToggle } from './sidebar-toggle.js';
import { decodeState, encodeState } from './permalink.js';
import { setUpCeImport } from './ce-import.js';
import { isCeFragment } from './ce-link.js';
import { describeStep } from './wrong-code.js';
import { CeExport } from './ce-export.js';
import * as storage from './storage.js';
import * as S from './state.js';
import { $, copy, setStatus, showNotice } from './ui.js';

const SAVE_DEBOUNCE_MS = 400;

const embed = isEmbed(location);
if (embed) {
  enterEmbedMode();
  storage.disableWrites(); // an embed is someone else's page
}

setUpSidebarToggle();

// The engine's client: engine-boot.js, which index.html runs first, made it (and bundles it:
// its wasm's address is relative to that bundle).
/** @type {import('./engine-client.js').EngineClient} */
const engine = /** @type {any} */ (globalThis).whittleEngine;
// The engine (in its sandbox) asks the page for each compile; an embed never compiles.
const compiles = new CompileService({
  answer: (msg) => engine.post(msg),
  onNotice: (text) => showRunNotice(text),
  refusal: embed ? 'an embed never compiles' : null,
});
engine.onCompile = (msg) => compiles.handle(msg);
let state = S.defaultState();
let run = null; // the current or last reduction (state.js)
let link = null; // a permalink's recorded reduction, while it fits the state
let fromLink = false; // the state came from a permalink (its JavaScript properties are untrusted)
// The state came from a permalink the person has not allowed yet: the page neither compiles
// nor contacts its endpoint (not even for the compiler list) nor runs its JavaScript property
// until they press Allow (or Run) once. A replay of its recorded verdicts needs none of that.
let untrustedLink = false;
let engineId = null; // this page's engine build (a hash of its wasm builds)
let guardFlags = null; // the wrong-code guard's flags, the engine's (worker.js)
let tab = 'tree';

// --- editors and parsing ---------------------------------------------------------------------

let loadingText = false; // the page itself is filling an editor (not an edit by the person)

function makeEditor(side, el) {
  return createEditor(el, {
    label: side === 'seed' ? 'Seed program' : 'Program',
    readOnly: embed,
    onChange(text) {
      if (!loadingText) changeState(S.setText(state, side, text));
      else state = S.setText(state, side, text);
      parsePanel.edited(side);
    },
    onCursor: (index) => parsePanel.cursorMoved(side, index),
  });
}
const editors = { variant: makeEditor('variant', $('editor')), seed: makeEditor('seed', $('editor-seed')) };

// Generator mode's editor: the generator module's source (JavaScript).
const generatorEditor = createEditor($('editor-generator'), {
  lang: 'javascript',
  label: 'Generator module',
  readOnly: embed,
  onChange(text) {
    if (loadingText) return;
    settings.jsTrusted = true; // they wrote or edited it: their own code
    changeState(S.setGenerator(state, { source: text }));
    settings.showJsTrust();
  },
});

function loadGeneratorFields() {
  const g = state.generator;
  loadingText = true;
  generatorEditor.setText(g.source);
  loadingText = false;
  $('gen-rng-seed').value = String(g.rngSeed ?? '');
  $('gen-align').value = g.align;
  $('gen-trace').value = g.trace;
}

for (const id of ['gen-rng-seed', 'gen-align', 'gen-trace']) {
  $(id).addEventListener(id === 'gen-rng-seed' ? 'input' : 'change', () =>
    changeState(S.setGenerator(state, { rngSeed: $('gen-rng-seed').value.trim(), align: $('gen-align').value, trace: $('gen-trace').value })));
}

function loadText(side, text) {
  loadingText = true;
  editors[side].setText(text);
  loadingText = false;
}

function setHighlighting(lang) {
  for (const e of Object.values(editors)) e.setLang(lang);
}

const parsePanel = new ParsePanel({
  engine,
  editors,
  state: () => state,
  onParsed(side, report) {
    if (state.lang === 'auto' && side === 'variant' && report.lang) {
      setHighlighting(report.lang);
      $('lang').options[0].textContent = `auto (${report.lang})`;
      settings.langSeen(report.lang);
    }
    updateButtons();
  },
});

// The files beside the program (headers, modules): tabs above the editor; every compile
// sends them (the API's `files`).
const fileTabs = new FileTabs({
  bar: $('file-tabs'),
  programEl: $('program-editors'),
  fileEl: $('editor-file'),
  nameInput: /** @type {HTMLInputElement} */ ($('file-name')),
  removeButton: /** @type {HTMLButtonElement} */ ($('file-remove')),
  tools: $('file-tools'),
  readOnly: embed,
  files: () => state.files,
  lang: () => (state.lang === 'auto' ? parsePanel.reports.variant?.lang ?? 'c' : state.lang),
  onChange: (files) => changeState(S.setFiles(state, files)),
});

// Tabs: the tree is parsed only while its tab is shown.
for (const b of document.querySelectorAll('.tabs button')) {
  b.addEventListener('click', () => showTab(/** @type {HTMLElement} */ (b).dataset.tab));
}
const syncTabs = tabKeys(document.querySelector('.tabs'), (name) => showTab(name));
function showTab(name) {
  tab = name;
  for (const b of document.querySelectorAll('.tabs button')) {
    b.setAttribute('aria-selected', String(/** @type {HTMLElement} */ (b).dataset.tab === name));
  }
  syncTabs();
  for (const p of document.querySelectorAll('[data-panel]')) {
    const panel = /** @type {HTMLElement} */ (p);
    panel.hidden = panel.dataset.panel !== name;
  }
  parsePanel.setTreeShown(name === 'tree');
  if (name === 'diff') runView.showDiff(run);
}

// The pair's two programs share the editor pane: one shown at a time.
for (const r of document.querySelectorAll('input[name=side]')) {
  r.addEventListener('change', () => parsePanel.showSide(/** @type {HTMLInputElement} */ (r).value));
}

function applyMode() {
  document.body.classList.toggle('pair', S.isPair(state));
  document.body.classList.toggle('generator', S.isGenerator(state));
  document.body.classList.toggle('witness', S.isWitness(state));
  if (!embed) $('reduce').textContent = S.isWitness(state) ? 'Find witnesses' : 'Reduce';
  if (S.isWitness(state) && ['progress', 'result', 'diff'].includes(tab)) showTab('witnesses');
  if (!S.isWitness(state) && tab === 'witnesses') showTab('progress');
  $('editor-generator').hidden = !S.isGenerator(state);
  if (!S.isPair(state)) parsePanel.showSide('variant');
  settings.modeChanged();
  if (S.isGenerator(state)) {
    $('check').textContent = 'Check the generated program';
    if (tab === 'tree') showTab('result'); // the parse tree is the program's, not the generator's
  }
}

/** A generator's sizes are bytes of output (the engine's `tokens_*` count bytes there). */
const inBytes = (text) => (run?.generator ? text.replace(/\btokens\b/g, 'bytes') : text);

// --- the state -------------------------------------------------------------------------------

let saveTimer = 0;
/** Any change the person made: keep a link's recording only while it fits, drop the link from
 *  the address bar (the page now shows their own work), save. */
function changeState(next) {
  link = S.linkAfterEdit(link, state, next);
  dropStale(state, next);
  state = next;
  if (fromLink && !embed) history.replaceState(null, '', location.pathname + location.search);
  clearTimeout(saveTimer);
  saveTimer = setTimeout(() => storage.saveState(state), SAVE_DEBOUNCE_MS);
  updateButtons();
}

const settings = new SettingsPanel({
  state: () => state,
  variantLang: () => parsePanel.reports.variant?.lang,
  onChange(next) {
    const before = state;
    changeState(next.mode !== before.mode ? withModeExample(before, next) : next);
    if (state.mode !== before.mode) {
      if (state.endpoint.kind !== next.endpoint.kind) {
        // The mode's example brought its own property and endpoint.
        settings.write();
        settings.loadCompilers();
      }
      applyMode();
      if (S.isPair(state)) parsePanel.schedule('seed', 0);
    }
    fileTabs.render(); // (the program's name follows the language; an example has no files)
    if (state.lang !== before.lang) {
      if (state.lang !== 'auto') setHighlighting(state.lang);
      for (const side of S.sidesOf(state)) parsePanel.schedule(side, 0);
    }
  },
  onCompiler: (compiler, flags = state.flags) => {
    if (compiler === state.compiler && flags === state.flags) return updateButtons();
    // (A link's compiler, shown before it is allowed, is no change of the person's.)
    if (state.compiler && !untrustedLink) changeState({ ...state, compiler, flags });
    else state = { ...state, compiler, flags };
    updateButtons();
  },
  onTrust: () => allowLink(),
  mayContact: () => S.mayContactEndpoint(state, { untrustedLink, embed }),
});

const blocker = () => S.blocker(state, { reports: parsePanel.reports, jsTrusted: settings.jsTrusted, untrustedLink, embed });
const consentPending = () => !embed && S.needsConsent(state, { untrustedLink, jsTrusted: settings.jsTrusted });

// --- what belongs to one state ---------------------------------------------------------------

// The check result and a run's notice are of the program and settings they were made for;
// a restored result of its programs (runKey): each goes when what it was made for changes.
let checkKey = null;
let noticeKey = null;

/** A notice about the run (or the restored result) of the state on show. */
function showRunNotice(text) {
  showNotice(text);
  noticeKey = S.runKey(state);
}

function dropStale(before, next) {
  if (checkKey !== null && checkKey !== S.checkKey(next, settings.propSide)) {
    checkKey = null;
    $('check-result').textContent = '';
    $('check-result').className = 'check-result';
  }
  if (S.runKey(next) === S.runKey(before)) return;
  if (noticeKey !== null && noticeKey !== S.runKey(next)) {
    noticeKey = null;
    $('notice').hidden = true;
  }
  if (run?.state === 'restored') {
    run = null;
    runView.reset('No reduction yet.');
  }
}

// --- a link's requests -----------------------------------------------------------------------

const linkPanel = new LinkPanel({ onAllow: () => allowLink() });

/** The person allowed the link: from now on the page acts on the state as on their own (edits
 *  need no new leave), and does what they pressed before allowing, if anything. */
function allowLink() {
  if (embed) return;
  untrustedLink = false;
  settings.jsTrusted = true;
  settings.showJsTrust();
  const action = linkPanel.allowed();
  updateButtons();
  settings.loadCompilers();
  if (action === 'check') $('check').click();
  else if (action === 'reduce' && !S.isActive(run)) startReduction();
  else if (replayWaits && link && !S.isActive(run)) startReduction({ replayVerdicts: link.verdicts });
  replayWaits = false;
}

// A generator link's recorded reduction replays only once its generator may run (mayReplay).
let replayWaits = false;

// --- checking --------------------------------------------------------------------------------

$('check').addEventListener('click', async () => {
  const why = blocker();
  const out = $('check-result');
  if (why) {
    out.textContent = why;
    out.className = 'check-result err';
    if (consentPending()) linkPanel.ask('check');
    return;
  }
  out.textContent = 'checking…';
  out.className = 'check-result';
  checkKey = S.checkKey(state, settings.propSide); // an edit meanwhile clears what this shows
  // The side whose property is shown is checked on its program (a generator's: its output).
  const side = settings.propSide;
  const name = S.sideName(state, side);
  let text = S.textOf(state, side);
  if (S.isGenerator(state)) {
    out.textContent = 'generating…';
    try {
      const made = await engine.call({ type: 'generate', generator: state.generator });
      text = made.output;
      generatorView.showOriginal(made.output, made.trace, made.picks);
      out.textContent = 'checking…';
    } catch (e) {
      out.textContent = e.message;
      out.className = 'check-result err';
      return;
    }
  }
  // The page compiles; the property (maybe JavaScript) runs in the engine's sandbox.
  const config = S.testConfig(state, side, guardFlags);
  // An endpoint that has not answered yet: the seconds count.
  const stopCounting = countSeconds(out, config.endpoint.kind === 'none' ? 'checking…' : `checking… waiting for ${describe(config.endpoint)}:`);
  try {
    // A wrong-code property's check makes every one of its compiles (the builds and the guard's).
    const compiler = new Compiler(config);
    const signal = new AbortController().signal;
    const steps = Object.keys(config.steps ?? {}).filter((step) => step !== 'a'); // (a: the compile itself)
    const [result, ...more] = await Promise.all([compiler.compile(text, signal), ...steps.map((step) => compiler.compile(text, signal, { step }))]).finally(stopCounting);
    const answers = Object.fromEntries(steps.map((step, i) => [step, more[i]]));
    runView.showOutputs({ [side]: result }, `the ${name} as it is now`, S.isPair(state), config.compiler);
    if (showOutputAfterCheck) showTab('output'); // a Compiler Explorer link's first compile: pick its property there
    showOutputAfterCheck = false;
    const verdict = await engine.test(config.property, result, text, answers);
    if (checkKey !== S.checkKey(state, side)) return; // made for a program or settings since changed
    const what = S.isPair(state) ? `the ${name} ` : '';
    out.textContent = verdict ? `✓ ${what}has the property` : `✗ ${what}does not have the property`;
    out.className = `check-result ${verdict ? 'yes' : 'no'}`;
  } catch (e) {
    if (checkKey !== S.checkKey(state, side)) return;
    // (A check has nothing to resume: it is pressed again.)
    out.textContent = e.message.replace(/Resume when it is back\.?/, 'Check again when it is back.').replace(/resume to try again/, 'check again');
    out.className = 'check-result err';
  }
});

// --- reducing --------------------------------------------------------------------------------

const runView = new RunView({ engine, embed, onPick: (side, property, label) => pickProperty(side, property, label) });
const ceExport = new CeExport();
const waiting = new Waiting(); // the seconds while a run has not been heard from

/** A template picked in the Output tab (a diagnostic, the crash) becomes `side`'s property. */
function pickProperty(side, property, label) {
  changeState(S.setProperty(state, side, { ...S.propertyOf(state, side), ...property }));
  settings.write();
  settings.showJsTrust();
  $('check-result').textContent = ''; // (the last check's verdict was another property's)
  setStatus(`the property is now: the ${S.sideName(state, side)} keeps ${label}. Press Reduce.`, 'idle');
}
const generatorView = new GeneratorView();
const witnessView = new WitnessView({ onUseAsSeed: (text) => pairWith(text) });

/** What a run is doing, for the status line. */
const activity = () => (run.replay ? 'replaying…' : run.witness ? 'looking for witnesses…' : run.seeding ? seedingStatus(run.seedSearch) : 'reducing…');

function startReduction({ replayVerdicts = null } = {}) {
  const why = replayVerdicts ? S.syntaxBlocker(state, parsePanel.reports) : blocker();
  if (why) {
    if (!replayVerdicts && consentPending()) linkPanel.ask('reduce');
    return setStatus(`cannot ${S.isWitness(state) ? 'search' : 'reduce'}: ${why}`, 'error');
  }
  const lang = parsePanel.reports.variant.lang;
  if (noticeKey !== null) $('notice').hidden = true; // the last run's notice is not this one's
  noticeKey = null;
  run = { ...S.startRun(state, run, { lang, replay: !!replayVerdicts }), setup: describeSetup(state), compiler: state.compiler };
  runView.reset(replayVerdicts ? 'Replaying…' : run.seeding ? 'Finding a seed…' : 'Reducing…', run.setup);
  // A generator's output is measured in bytes, a program in tokens.
  const unit = run.generator ? 'bytes' : 'tokens';
  $('progress-tokens').previousElementSibling.textContent = unit;
  $('chart').setAttribute('aria-label', `${unit} against queries`);
  generatorView.reset();
  witnessView.reset();
  replayWaits = false;
  const config = S.reduceConfig(state, lang, guardFlags);
  if (replayVerdicts) compiles.stop(); // a replay compiles nothing
  else compiles.start(run.id, config);
  engine.post(replayVerdicts
    ? { type: 'replay', run: run.id, config, verdicts: replayVerdicts }
    : { type: 'reduce', run: run.id, config });
  if (run.witness) showTab('witnesses');
  else if (tab === 'tree' || tab === 'output') showTab('progress');
  waiting.start(run.witness ? 'wit-elapsed' : 'progress-elapsed');
  setStatus(replayVerdicts ? 'replaying the recorded reduction…' : activity(), 'running');
  updateButtons();
}

engine.onReduction = (msg) => {
  if (!run || msg.run !== run.id) return; // a message of an earlier run
  run = S.runMessage(run, msg);
  waiting.heard();
  if (msg.type === 'finished') waiting.stop();
  switch (msg.type) {
    case 'state':
      if (msg.state === 'paused') setStatus(`paused: ${msg.message}`, 'paused');
      else if (msg.state === 'running') setStatus(activity(), 'running');
      updateButtons();
      break;
    case 'seeding':
      runView.progress.seeding(msg.stats, msg.elapsedMs);
      if (run.state === 'running') setStatus(activity(), 'running');
      break;
    case 'seed':
      seedFound(msg);
      break;
    case 'progress':
    case 'finished':
      if (msg.type === 'finished') compiles.stop();
      if (run.witness) witnessesMessage(msg);
      else reductionMessage(msg);
      break;
    case 'generated':
      generatorView.showRun(run);
      break;
    case 'original':
      runView.showOutputs(run.outputs, outputsTitle(), run.pair, run.compiler);
      break;
    case 'notice':
      showRunNotice(msg.message);
      break;
  }
};

/** What the Output tab shows the answers of. */
function outputsTitle() {
  if (run.seeding) return 'the variant (first query of the search for a seed)';
  if (run.pair) return 'the original pair (first queries of the reduction)';
  return `the original program (first query of the ${run.witness ? 'search' : 'reduction'})`;
}

/** A reduction's progress or end. */
function reductionMessage(msg) {
  switch (msg.type) {
    case 'progress':
      runView.update(msg);
      if (msg.best !== undefined) improved(false);
      if (run.state === 'running' && !run.replay) setStatus(`reducing… ${msg.stats.pass}, ${msg.stats.tokens_now} ${run.generator ? 'bytes' : 'tokens'}`, 'running');
      break;
    case 'finished': {
      if (msg.stats) {
        runView.update(msg);
        improved(true);
      }
      const { text, kind } = finishedStatus(run, msg);
      setStatus(inBytes(text), kind);
      if (msg.state === 'done') showTab('result');
      else if (msg.state === 'failed' && /Output tab/.test(msg.message ?? '')) showTab('output');
      updateButtons();
      break;
    }
  }
}

/** A witness search's progress or end. */
function witnessesMessage(msg) {
  witnessView.show(run, msg.elapsedMs);
  if (msg.type === 'progress') {
    if (run.state === 'running') setStatus(`${activity()} ${run.witnesses.length} found, ${msg.stats.queries} of ${msg.stats.budget} tests`, 'running');
    return;
  }
  const { text, kind } = witnessFinishedStatus(msg);
  setStatus(text, kind);
  if (msg.state === 'failed' && /Output tab/.test(msg.message ?? '')) showTab('output');
  updateButtons();
}

/** The automatic seed is found: it goes into the seed editor (and the state, so that the
 *  pair's recorded verdicts belong to it), and the pair's reduction goes on. */
function seedFound(msg) {
  loadText('seed', msg.seed);
  changeState(S.setText(state, 'seed', msg.seed));
  run = { ...run, key: S.runKey(state) };
  showRunNotice(`Seed found after ${msg.stats.queries} tests (${changesText(msg.changes)}): it is in the seed editor. Reducing the pair…`);
  setStatus(activity(), 'running');
}

/** A witness as the seed of a pair with the failing program as its variant. */
function pairWith(text) {
  if (S.isActive(run)) return setStatus('stop the search first (Cancel), then pair with a witness', 'error');
  loadText('seed', text);
  changeState(S.setWitness(S.setMode(S.setText(state, 'seed', text), 'pair'), { autoSeed: false }));
  settings.write();
  applyMode();
  parsePanel.showSide('seed');
  showTab('tree');
  setStatus('pair mode: the witness is the seed, the failing program the variant; set the seed’s property if need be, then press Reduce', 'idle');
}

/** A new best: show it, and keep it in local storage (a replay's is the link's, not ours). */
function improved(finished) {
  runView.showResult(run, finished);
  if (run.generator) {
    generatorView.showRun(run);
    $('result-info').textContent = inBytes($('result-info').textContent);
  }
  if (!run.replay) storage.saveBest(S.bestRecord(run, finished, new Date().toISOString()));
  ceExport.update(run, state);
  if (tab === 'diff') runView.showDiff(run);
}

$('reduce').addEventListener('click', () => {
  if (embed && S.usesGenerator(state)) showRecordedRun();
  else startReduction({ replayVerdicts: embed ? link?.verdicts : null });
});

/** An embed's Replay of a generator link: the outputs the link recorded, since an embed never
 *  runs a link's code. */
function showRecordedRun() {
  if (!link?.outputs) return;
  run = { ...S.recordedRun(state, link.outputs), setup: describeSetup(state) };
  runView.reset('', run.setup);
  generatorView.reset();
  improved(true);
  showTab('result');
  setStatus(`done: ${run.stats.tokens_before} → ${run.stats.tokens_now} bytes (replayed the link’s recorded outputs; an embed does not run the generator)`, 'done');
  updateButtons();
}
for (const action of ['pause', 'resume']) {
  $(action).addEventListener('click', () => run && engine.post({ type: action, run: run.id }));
}
$('cancel').addEventListener('click', () => {
  if (!run) return;
  const id = run.id;
  compiles.stop();
  engine.cancel(id, () => {
    engine.onReduction({ run: id, type: 'finished', state: 'cancelled', message: 'stopped: the run did not give the engine back (a generator that never returns?), so the engine was restarted; the best so far is kept' });
    for (const side of S.sidesOf(state)) parsePanel.schedule(side, 0);
  });
});
document.addEventListener('keydown', (e) => {
  if ((e.ctrlKey || e.metaKey) && e.key === 'Enter' && !$('reduce').disabled && !$('reduce').hidden) $('reduce').click();
});
$('result-copy').addEventListener('click', () => copy(resultText(run), $('result-copy')));
$('result-use').addEventListener('click', () => {
  if (run.pair) {
    editors.seed.setText(run.best.seed);
    editors.variant.setText(run.best.variant);
  } else {
    editors.variant.setText(run.best);
    // A folder's result: the files left beside the program.
    if (run.files) changeState(S.setFiles(state, run.files));
    fileTabs.render();
  }
  setStatus('the result is in the editor: reduce it again, or edit it', 'idle');
});

$('result-flags-use').addEventListener('click', () => {
  const { main, b } = run.flags;
  let next = { ...state, flags: main };
  if (b !== undefined) next = S.setProperty(next, 'variant', { ...state.property, wrongCode: { ...state.property.wrongCode, flags: b } });
  changeState(next);
  settings.write();
  setStatus('the fewest flags are in the settings', 'idle');
});

function updateButtons() {
  const active = S.isActive(run);
  $('reduce').hidden = active;
  $('reduce').disabled = !!S.syntaxBlocker(state, parsePanel.reports);
  $('reduce').title = blocker() ?? (S.isWitness(state) ? 'Find witnesses: mutants that compile and do not have the property (Ctrl+Enter)' : 'Reduce while the property holds (Ctrl+Enter)');
  $('pause').hidden = !active || run.state !== 'running';
  $('resume').hidden = !active || run.state !== 'paused';
  $('cancel').hidden = !active;
  if (embed) {
    // An embed only replays: without a recording there is nothing it may do.
    $('reduce').textContent = 'Replay';
    $('reduce').hidden = active || !link || (S.usesGenerator(state) && !link.outputs);
  }
}

// --- notices and sharing ---------------------------------------------------------------------

$('notice-close').addEventListener('click', () => ($('notice').hidden = true));

const shareable = () => S.shareableState(state, { run, link, engineId });
setUpSharing({ shareable, onShared: () => (fromLink = false) });

// --- Compiler Explorer links ------------------------------------------------------------------

let showOutputAfterCheck = false;

/** A Compiler Explorer link's program, compiler, flags and execution, at its instance `base`:
 *  opened like a permalink (nothing is compiled until the person allows it), then checked once
 *  so that its answer's diagnostics can be picked as the property. */
function openFromCe({ lang, source, files, compiler, flags, execute, others, second }, base) {
  let next = S.setFiles(S.setText(S.setMode(S.setLang(state, lang), 'single'), 'variant', source), files);
  next = S.setSettings({ ...next, endpoint: { kind: 'ce', base, pool: '' }, compiler, flags, execute }, { k: S.defaultK('ce') });
  state = next;
  link = null;
  untrustedLink = true;
  settings.start({ jsTrusted: !S.runsCode(state) });
  applyMode();
  loadText('variant', source);
  fileTabs.render();
  setHighlighting(lang);
  parsePanel.schedule('variant', 0);
  storage.saveState(state);
  linkPanel.show(state, { consent: true, replays: false });
  linkPanel.setPending('check');
  showOutputAfterCheck = true;
  settings.loadCompilers();
  updateButtons();
  // Two builds: wrong code across them is one click in the Output tab.
  const label = second && `wrong code across ${describeStep({ compiler, flags })} and ${describeStep(second)}`;
  runView.setOffers(second ? [{ label, property: { kind: 'wrong-code', wrongCode: { compiler: second.compiler, flags: second.flags, guard: true, guardCompiler: '' } } }] : []);
  const more = second
    ? ` It has a second build (${describeStep(second)}): the Output tab offers ${label} as the property.`
    : others > 0 ? ` It has ${others} more compiler${others > 1 ? 's' : ''}; this page reduces with the first.` : '';
  setStatus(`opened a Compiler Explorer link (${compiler}${flags ? ` ${flags}` : ''}): allow it at the top to compile there once, then click a diagnostic in the Output tab to make it the property.${more}`, 'idle');
}

const ceImport = embed ? null : setUpCeImport({
  open: openFromCe,
  fail: (message) => showNotice(message),
  busy: () => (S.isActive(run) ? 'stop the reduction first (Cancel), then open the Compiler Explorer link' : null),
});

// --- start-up --------------------------------------------------------------------------------

/** The state to open with: a permalink's, else the one saved here, else the default. */
async function loadInitialState() {
  // (Compiler Explorer state as the fragment is opened once the page is up: ceImport.fromAddress)
  if (location.hash.length > 1 && !isCeFragment(location.hash)) {
    try {
      const decoded = await decodeState(location.hash);
      if (decoded) {
        const opened = S.fromLink(decoded);
        fromLink = true;
        untrustedLink = true;
        link = opened.link;
        return opened.state;
      }
    } catch (e) {
      showNotice(`Could not open the link: ${e.message}. Showing your last state instead.`);
    }
  }
  const saved = embed ? null : storage.loadState();
  return saved ? S.withDefaults(saved) : S.defaultState();
}

/** Shows the best result of the last reduction on this machine, kept in local storage. */
function restoreBest() {
  // Only a result of the programs and mode on show (a reload keeps the mode the person chose).
  const saved = storage.loadBest();
  const restored = S.bestBelongsTo(saved, state) && S.restoredRun(saved);
  if (!restored) return;
  run = restored;
  runView.showResult(run, run.finished, true);
  ceExport.update(run, state);
  if (run.generator) {
    generatorView.showRun(run);
    $('result-info').textContent = inBytes($('result-info').textContent);
  }
  const when = new Date(run.savedAt).toLocaleString();
  const s = run.stats;
  showRunNotice(inBytes(`Restored the best result of your ${run.finished ? 'last' : 'unfinished'} reduction (${s.tokens_before} → ${s.tokens_now} tokens, ${when}): see the Result tab.`));
}

async function boot() {
  state = await loadInitialState();
  settings.start({ jsTrusted: !(fromLink && S.runsCode(state)) });
  applyMode();
  loadText('variant', state.variant);
  loadText('seed', state.seed);
  fileTabs.render();
  loadGeneratorFields();
  parsePanel.edits = 0;
  if (state.lang !== 'auto') setHighlighting(state.lang);
  // (A witness search keeps no best; the last reduction's would switch the mode away.)
  if (!embed && !fromLink && !S.isWitness(state)) restoreBest();
  if (fromLink && !embed) linkPanel.show(state, { consent: consentPending(), replays: !!link && !S.usesGenerator(state) });
  if (embed && link && S.usesGenerator(state)) {
    showNotice(link.outputs
      ? 'This embed shows the generator’s recorded run (press Replay); it never runs the generator. Open it in the playground to run it.'
      : 'This link’s generator run carries no recorded outputs, and an embed never runs a generator: open it in the playground to run it.');
  }
  if (embed) {
    // An embed has no settings sidebar: say what the link reduced with, and tested.
    $('setup-line').textContent = `Reduced with ${describeSetup(state)}`;
    $('setup-line').hidden = false;
    $('result-setup').textContent = describeSetup(state);
  }
  if (embed && !link) {
    $('result-info').textContent = 'This link carries no recorded reduction: open it in the playground to reduce it.';
    showNotice('This embed shows the program only: it replays recorded reductions and never compiles. Open it in the playground to reduce it.');
  }
  settings.loadCompilers(); // not from an embed, nor from a link before it is allowed (mayContact)
  try {
    const info = await engine.ready;
    performance.mark('whittle:engine-ready'); // (scripts/bench/page-load.mjs reads these)
    engineId = info.engineId;
    guardFlags = info.guardFlags;
    $('engine-info').textContent = `engine ${engineId} loaded in ${Math.round(info.ms)} ms`;
  } catch (e) {
    return setStatus(e.message, 'error');
  }
  // (A parse superseded by an edit resolves empty: parse until there is a report.)
  for (const side of S.sidesOf(state)) {
    while (!parsePanel.reports[side]) await parsePanel.parseNow(side);
  }
  performance.mark('whittle:ready');
  document.body.dataset.ready = 'true';
  setStatus('ready', 'idle');
  ceImport?.fromAddress();
  if (link) {
    // The link carries a whole reduction: replay it. Only the engine that recorded it is sure
    // to make the same candidates from the same verdicts.
    if (link.engine && link.engine !== engineId) {
      const fresh = embed ? 'Open it in the playground for a fresh result.' : 'Press Reduce for a fresh result.';
      showNotice(`This link’s reduction was recorded by another build of the engine (${link.engine}; this page runs ${engineId}), so its replay may end differently. ${fresh}`);
    }
    // A generator's replay runs the link's JavaScript: only once allowed, and never in an
    // embed (whose Replay shows the recorded outputs).
    if (embed && S.usesGenerator(state)) {
      if (link.outputs) setStatus('press Replay to see the generator’s recorded run', 'idle');
    } else if (S.mayReplay(state, { untrustedLink, jsTrusted: settings.jsTrusted })) {
      startReduction({ replayVerdicts: link.verdicts });
    } else {
      replayWaits = true;
      setStatus('allow the link (at the top of the page) to run its generator and replay its reduction', 'idle');
    }
  }
}

boot();

// Pasting another link into the address bar of an open playground: load it afresh.
window.addEventListener('hashchange', () => location.reload());

// A small hook for tests and the console. side: 'variant' (the program, or a pair's variant) or 'seed'.
/** @type {any} */ (window).whittle = {
  setProgram: (text, side = 'variant') => editors[side].setText(text),
  program: (side = 'variant') => editors[side].getText(),
  edits: () => parsePanel.edits,
  setCursor: (index) => parsePanel.activeEditor().select(index, index),
  selection: () => parsePanel.activeEditor().selection(),
  state: () => structuredClone(state),
  result: () => structuredClone(run?.best ?? null),
  setGenerator: (text) => generatorEditor.setText(text),
  generator: () => generatorEditor.getText(),
  trace: () => structuredClone(run?.trace ?? null),
  witnesses: () => structuredClone(run?.witnesses ?? []),
  ranking: () => structuredClone(run?.ranking ?? null),
  runState: () => run?.state ?? null,
  shareLink: async () => `${location.origin}/${await encodeState(shareable())}`,
  linkRequests: () => S.linkRequests(state),
  linkAllowed: () => !untrustedLink,
};
