// The engine's Web Worker: loads the wasm, parses on request, and drives reductions.
// Everything heavy happens here so that the page stays responsive.
//
// Messages in:  {type: 'parse', seq, key, text, lang, wantTree}  (key: which text: a side)
//               {type: 'reduce', run, config}   {type: 'replay', run, config, verdicts}
//                 (config.mode 'witness': a witness search; 'pair' with witness.autoSeed: its
//                 seed found by one first)
//               {type: 'pause' | 'resume' | 'cancel', run}
//               {type: 'diff', seq, a, b}
//               {type: 'check', seq, config, text}: one query of the program as it is
//               {type: 'generate', seq, generator}: one free run of a generator module
// Messages out: {type: 'ready', ms, engineId} | {type: 'fatal', message}
//               {type: 'parsed', seq, report} | {type: 'diffed', seq, chunks}
//               {type: 'checked', seq, result, verdict: bool | null, error?}
//               {type: 'generated', seq, output, trace, seed}
//               reduction messages, see reduction.js (witness-search.js, auto-seed.js)
import init, * as engine from '../pkg/whittle.js';
import { Reduction } from './reduction.js';
import { WitnessSearch } from './witness-search.js';
import { AutoSeededPair } from './auto-seed.js';
import { Compiler } from './endpoint.js';
import { makeProperty } from './property.js';
import { generateOnce } from './generator-module.js';

const started = performance.now();
let ready = false;
const queued = [];
let reduction = null;

load()
  .then((engineId) => {
    ready = true;
    postMessage({ type: 'ready', ms: performance.now() - started, engineId });
    for (const msg of queued.splice(0)) handle(msg);
  })
  .catch((e) => postMessage({ type: 'fatal', message: `could not load the engine (web/pkg/whittle_bg.wasm): ${e.message}. Run \`npm run build\`.` }));

// Loads the wasm and names this build of the engine by a hash of it: a recorded reduction
// replays exactly only on the engine that recorded it, so permalinks carry this id.
async function load() {
  const res = await fetch(new URL('../pkg/whittle_bg.wasm', import.meta.url));
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const bytes = await res.arrayBuffer();
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  await init({ module_or_path: bytes });
  return Array.from(digest.subarray(0, 6), (b) => b.toString(16).padStart(2, '0')).join('');
}

onmessage = (event) => (ready ? handle(event.data) : queued.push(event.data));

// Only the latest parse request of each text matters: an edit supersedes the previous one.
const pendingParses = new Map(); // key -> message

function handle(msg) {
  switch (msg.type) {
    case 'parse':
      if (pendingParses.has(msg.key)) postMessage({ type: 'parsed', seq: pendingParses.get(msg.key).seq, superseded: true });
      else setTimeout(() => parseLatest(msg.key), 0);
      pendingParses.set(msg.key, msg);
      break;
    case 'diff':
      reply(msg, () => ({ type: 'diffed', seq: msg.seq, chunks: engine.diff(msg.a, msg.b) }));
      break;
    case 'check':
      check(msg);
      break;
    case 'generate':
      generateOnce(engine, msg.generator).then(
        (made) => postMessage({ type: 'generated', seq: msg.seq, ...made }),
        (e) => postMessage({ type: 'error', seq: msg.seq, request: msg.type, message: e.message }),
      );
      break;
    case 'reduce':
    case 'replay':
      reduction?.cancel();
      reduction?.dispose();
      reduction = newRun(msg);
      reduction.start();
      break;
    case 'pause':
    case 'resume':
    case 'cancel':
      if (reduction && reduction.run === msg.run) reduction[msg.type]();
      break;
  }
}

/** The run a 'reduce' or 'replay' message asks for (a replay of a pair needs no search: its
 *  seed is the one the recorded reduction had). */
function newRun(msg) {
  const { mode, witness } = msg.config;
  if (mode === 'witness') return new WitnessSearch(engine, msg, postMessage);
  if (mode === 'pair' && witness?.autoSeed && msg.type === 'reduce') return new AutoSeededPair(engine, msg, postMessage);
  return new Reduction(engine, msg, postMessage);
}

function parseLatest(key) {
  const msg = pendingParses.get(key);
  pendingParses.delete(key);
  reply(msg, () => ({ type: 'parsed', seq: msg.seq, report: engine.parse(msg.text, msg.lang, !!msg.wantTree) }));
}

async function check({ seq, config, text }) {
  let result = null;
  let property = null;
  try {
    result = await new Compiler(config).compile(text, new AbortController().signal);
    property = makeProperty(config.property);
    const verdict = await property.test(result, text);
    postMessage({ type: 'checked', seq, result, verdict });
  } catch (e) {
    postMessage({ type: 'checked', seq, result, verdict: null, error: e.message });
  } finally {
    property?.dispose();
  }
}

// Runs `make` and posts its answer, or the error it threw (tagged with the request's seq).
function reply(msg, make) {
  try {
    postMessage(make());
  } catch (e) {
    postMessage({ type: 'error', seq: msg.seq, request: msg.type, message: e.message });
  }
}
