// @ts-check
// The engine's Web Worker, inside the sandbox frame (sandbox.js): loads the wasm, parses on
// request, drives reductions, and runs users' JavaScript (generators, JavaScript properties).
// It cannot reach the network: every compile is a request to the page (remote-compiler.js).
//
// Messages in:  {type: 'boot', wasm}: the engine's bytes (the page fetched them)
//               {type: 'parse', seq, key, text, lang, wantTree}  (key: which text: a side)
//               {type: 'reduce', run, config}   {type: 'replay', run, config, verdicts}
//                 (config.mode 'witness': a witness search; 'pair' with witness.autoSeed: its
//                 seed found by one first)
//               {type: 'pause' | 'resume' | 'cancel', run}
//               {type: 'diff', seq, a, b}
//               {type: 'test', seq, property, result, text, answers?}: a property on one compile
//                 answer (answers: a wrong-code property's other compiles, by step)
//               {type: 'read-answer', seq, output, code}: the crash and the errors an answer shows
//               {type: 'generate', seq, generator}: one free run of a generator module
//               {type: 'compiled', id, ...}: the page's answer to a compile request
// Messages out: {type: 'ready', ms, guardFlags} | {type: 'fatal', message}
//               {type: 'needs-grammar', lang, request}: this build lacks the grammar a request
//                 needs (the core build has no C++): the page boots the full one and sends it again
//               {type: 'parsed', seq, report} | {type: 'diffed', seq, chunks}
//               {type: 'tested', seq, verdict} | {type: 'read-answer', seq, signature, errors}
//               {type: 'error', seq, request, message}
//               {type: 'generated', seq, output, trace, rngSeed}
//               {type: 'compile' | 'uncompile', run, id, text?}: see remote-compiler.js
//               reduction messages, see reduction.js (witness-search.js, auto-seed.js)
// (Their types: WorkerRequest, WorkerReply and RunMessage in types.js.)
import init, * as engine from '../pkg/whittle.js';
import { Reduction } from './reduction.js';
import { WitnessSearch } from './witness-search.js';
import { AutoSeededPair } from './auto-seed.js';
import { RemoteCompiler, compiled } from './remote-compiler.js';
import { Compiler } from './endpoint.js';
import { makeProperty } from './property.js';
import { generateOnce } from './generator-module.js';

/**
 * @typedef {import('./types.js').WorkerRequest} WorkerRequest
 * @typedef {import('./types.js').WorkerReply} WorkerReply
 * @typedef {import('./types.js').RunMessage} RunMessage
 */

/** Posts one message to the page. @param {WorkerReply | RunMessage} msg */
const send = (msg) => postMessage(msg);

const started = performance.now();
let ready = false;
/** @type {WorkerRequest[]} */
const queued = [];
let reduction = null;

async function boot(wasm) {
  try {
    await init({ module_or_path: wasm });
  } catch (e) {
    return send({ type: 'fatal', message: `could not load the engine (web/pkg/whittle_bg.wasm): ${e.message}. Run \`npm run build\`.` });
  }
  ready = true;
  // The wrong-code guard's flags are the engine's (the page compiles them: compile-service.js).
  const guardFlags = { warnings: engine.wrongCodeFlags('warnings'), sanitized: engine.wrongCodeFlags('sanitized') };
  send({ type: 'ready', ms: performance.now() - started, guardFlags });
  for (const msg of queued.splice(0)) handle(msg);
}

// A run's compiler: the page's, unless there is no endpoint (nothing to compile, no round trip).
const remoteCompilers = (run) => (config) =>
  config.endpoint?.kind === 'none' ? new Compiler(config) : new RemoteCompiler(run, send);

onmessage = (event) => {
  /** @type {WorkerRequest} */
  const msg = event.data;
  if (msg?.type === 'boot') boot(msg.wasm);
  else if (msg?.type === 'compiled') compiled(msg);
  else if (ready) handle(msg);
  else queued.push(msg);
};

// Only the latest parse request of each text matters: an edit supersedes the previous one.
/** @type {Map<string, WorkerRequest & {type: 'parse'}>} */
const pendingParses = new Map(); // key -> message

/** The language `msg` parses in that this build has no grammar for, or null.
 *  @param {WorkerRequest} msg */
function lacking(msg) {
  let lang, text;
  if (msg.type === 'parse') [lang, text] = [msg.lang, msg.text];
  else if (msg.type === 'reduce' || msg.type === 'replay') [lang, text] = [msg.config?.lang, msg.config?.text ?? msg.config?.variant ?? ''];
  else return null;
  let name;
  try {
    name = engine.languageOf(lang ?? null, text ?? '');
  } catch {
    return null; // an unknown name: the request itself says so
  }
  return engine.grammars().includes(name) ? null : name;
}

/** @param {WorkerRequest} msg */
function handle(msg) {
  const lang = lacking(msg);
  if (lang) return send({ type: 'needs-grammar', lang, request: msg });
  switch (msg.type) {
    case 'parse':
      if (pendingParses.has(msg.key)) send({ type: 'parsed', seq: pendingParses.get(msg.key).seq, superseded: true });
      else setTimeout(() => parseLatest(msg.key), 0);
      pendingParses.set(msg.key, msg);
      break;
    case 'diff':
      reply(msg, () => ({ type: 'diffed', seq: msg.seq, chunks: engine.diff(msg.a, msg.b) }));
      break;
    case 'test':
      test(msg);
      break;
    case 'read-answer':
      reply(msg, () => ({ type: 'read-answer', seq: msg.seq, signature: engine.crashSignature(msg.output, msg.code) ?? null, errors: engine.compileErrors(msg.output) }));
      break;
    case 'generate':
      generateOnce(engine, msg.generator).then(
        (made) => send({ type: 'generated', seq: msg.seq, ...made }),
        (e) => send({ type: 'error', seq: msg.seq, request: msg.type, message: e.message }),
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
/** @param {WorkerRequest & {type: 'reduce' | 'replay'}} msg */
function newRun(msg) {
  const { mode, witness } = msg.config;
  const compilers = remoteCompilers(msg.run);
  if (mode === 'witness') return new WitnessSearch(engine, msg, send, compilers);
  if (mode === 'pair' && witness?.autoSeed && msg.type === 'reduce') return new AutoSeededPair(engine, msg, send, compilers);
  return new Reduction(engine, msg, send, compilers);
}

/** @param {string} key */
function parseLatest(key) {
  const msg = pendingParses.get(key);
  pendingParses.delete(key);
  reply(msg, () => ({ type: 'parsed', seq: msg.seq, report: engine.parse(msg.text, msg.lang, !!msg.wantTree) }));
}

/** Tests a property on one compile answer (the page compiled; Check).
 *  @param {WorkerRequest & {type: 'test'}} msg */
async function test({ seq, property, result, text, answers = {} }) {
  let tester = null;
  // (A check is of the original: the page made every step's compile, `answers`.)
  const more = {
    original: true,
    compile: async (step) => {
      if (!answers[step]) throw new Error(`the check has no answer for the compile step ${step}`);
      return answers[step];
    },
  };
  try {
    tester = makeProperty(property, { engine });
    send({ type: 'tested', seq, verdict: await tester.test(result, text, more) });
  } catch (e) {
    send({ type: 'error', seq, request: 'test', message: e.message });
  } finally {
    tester?.dispose();
  }
}

/** Runs `make` and posts its answer, or the error it threw (tagged with the request's seq).
 *  @param {WorkerRequest & {seq: number}} msg @param {() => WorkerReply} make */
function reply(msg, make) {
  try {
    send(make());
  } catch (e) {
    send({ type: 'error', seq: msg.seq, request: msg.type, message: e.message });
  }
}
