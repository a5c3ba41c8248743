// @ts-check
// The page's side of the engine. The engine worker (worker.js) lives in a sandbox frame
// (web/sandbox.html, sandbox.js): an opaque origin with no network, where users' JavaScript
// runs. The page fetches the engine's bytes and hands them over, then talks to it by
// postMessage only: request/answer calls (parse, diff, generate, test), a stream of reduction
// events, and the engine's compile requests, which the page answers (onCompile) since the
// page, not the sandbox, compiles. Everything from the frame is data, never code.

/**
 * @typedef {import('./types.js').WorkerRequest} WorkerRequest
 * @typedef {import('./types.js').WorkerReply} WorkerReply
 * @typedef {import('./types.js').RunMessage} RunMessage
 */

// Two builds of the engine: the core one, every grammar but C++'s (the largest tables), which
// the page loads first, and the full one, which it loads when a program is C++ (the worker
// asks for it: 'needs-grammar').
const WASM_URLS = {
  core: new URL('../pkg/whittle_core_bg.wasm', import.meta.url),
  full: new URL('../pkg/whittle_bg.wasm', import.meta.url),
};
const SANDBOX_URL = new URL('../sandbox.html', import.meta.url);
// The engine's build: a hash of both builds' bytes (scripts/bundle-web.mjs). A recorded
// reduction replays exactly only on the engine that recorded it, so permalinks carry it.
const ENGINE_ID = /** @type {any} */ (globalThis).__ENGINE_ID__ ?? 'unbuilt';

export class EngineClient {
  constructor() {
    this.seq = 0;
    this.waiting = new Map(); // seq -> {resolve, reject, msg}
    /** @type {(msg: RunMessage) => void} */
    this.onReduction = () => {};
    /** @type {(request: WorkerReply & {type: 'compile' | 'uncompile'}) => void} */
    this.onCompile = () => {}; // (request) => void: the engine asks for a compile
    // The core build first (index.html preloads it): most programs need no more.
    /** @type {'core' | 'full'} */
    this.build = 'core';
    this.wasm = loadWasm(this.build);
    this.upgrading = null; // the full build's boot, once a request needed it
    // index.html holds the frame, so that it loads while the page's scripts do; it may have
    // said it is ready before this listens: a ping asks again.
    const given = /** @type {HTMLIFrameElement | null} */ (document.getElementById('engine-frame'));
    this.frame = given ?? document.createElement('iframe');
    this.frameReady = new Promise((resolve) => (this.frameLoaded = resolve));
    addEventListener('message', (e) => {
      if (e.source !== this.frame.contentWindow || typeof e.data !== 'object' || e.data === null) return;
      if (e.data.type === 'sandbox-ready') this.frameLoaded();
      else this.heard(e.data);
    });
    if (given) {
      this.frame.contentWindow.postMessage({ type: 'ping' }, '*');
    } else {
      this.frame.sandbox = 'allow-scripts'; // no allow-same-origin: an opaque origin
      this.frame.hidden = true;
      this.frame.title = 'Whittle engine sandbox';
      this.frame.src = SANDBOX_URL.href;
      document.body.append(this.frame);
    }
    this.start();
  }

  /** Boots the engine worker in the frame (a fresh one, if one runs). */
  start() {
    this.expectReady();
    return Promise.all([this.wasm, this.frameReady]).then(
      ([bytes]) => this.frame.contentWindow.postMessage({ type: 'boot', wasm: bytes }, '*'),
      (e) => this.booting.reject(e),
    );
  }

  /** The worker's build lacks the grammar `request` needs: boots the full build, then sends
   *  it the request again, and every call still unanswered (the old worker is gone). */
  needs(request) {
    if (this.build === 'full') {
      // Cannot happen (the full build has every grammar); never loop.
      const waiting = this.waiting.get(request.seq);
      waiting?.reject(new Error('the engine has no grammar for this language'));
      this.waiting.delete(request.seq);
      return;
    }
    if (!this.upgrading) {
      this.build = 'full';
      this.wasm = loadWasm('full');
      this.upgrading = this.start().then(() => {
        for (const { msg } of this.waiting.values()) this.post(msg);
      });
    }
    // A call is in `waiting` and goes again with it; a run's start has no seq.
    if (!('seq' in request)) this.upgrading.then(() => this.post(request));
  }

  /** A worker is starting: `ready` resolves once it says so. */
  expectReady() {
    this.messages = 0; // from this worker, to tell a stuck one
    this.ready = new Promise((resolve, reject) => (this.booting = { resolve, reject }));
    this.ready.catch(() => {}); // (the page reports it where it awaits it)
  }

  /** @param {WorkerReply | RunMessage} msg */
  heard(msg) {
    this.messages++;
    if (msg.type === 'ready') this.booting.resolve({ ...msg, engineId: ENGINE_ID, build: this.build });
    else if (msg.type === 'needs-grammar') this.needs(msg.request);
    else if (msg.type === 'fatal') this.booting.reject(new Error(String(msg.message)));
    else if (msg.type === 'compile' || msg.type === 'uncompile') this.onCompile(msg);
    else this.dispatch(msg);
  }

  /** An answer to a call, or a run's message. @param {Exclude<WorkerReply, {type: 'compile' | 'uncompile'}> | RunMessage} msg */
  dispatch(msg) {
    if ('seq' in msg && this.waiting.has(msg.seq)) {
      const { resolve, reject } = this.waiting.get(msg.seq);
      this.waiting.delete(msg.seq);
      if (msg.type === 'error') reject(new Error(String(msg.message)));
      else resolve(msg);
    } else if ('run' in msg) {
      this.onReduction(msg);
    }
  }

  call(msg) {
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      const sent = { ...msg, seq };
      this.waiting.set(seq, { resolve, reject, msg: sent });
      this.post(sent);
    });
  }

  /** Parses text in the worker; resolves to the engine's parse report, or undefined when a
   *  later parse request superseded this one. */
  async parse(text, lang, wantTree, key = 'variant') {
    return (await this.call({ type: 'parse', key, text, lang, wantTree })).report;
  }

  async diff(a, b) {
    return (await this.call({ type: 'diff', a, b })).chunks;
  }

  /** Whether `property` holds of one compile answer (a wrong-code property's: of `answers`,
   *  each step's): the property runs in the sandbox. */
  async test(property, result, text, answers = undefined) {
    return (await this.call({ type: 'test', property, result, text, answers })).verdict === true;
  }

  /** What the engine reads in a compile answer: the signature of its crash ({fragments,
   *  code} or null) and its error messages. */
  async readAnswer(result) {
    const output = `${result.stdout ?? ''}\n${result.stderr ?? ''}`;
    const { signature, errors } = await this.call({ type: 'read-answer', output, code: result.code | 0 });
    return { signature, errors };
  }

  post(msg) {
    this.frameReady.then(() => this.frame.contentWindow.postMessage(msg, '*'));
  }

  /** Cancels run `run`. A worker busy in a run's own code (a generator that never returns)
   *  cannot hear that: if it says nothing within `graceMs`, it is replaced by a fresh one
   *  (the run's best so far is the page's already) and `onStuck` is called. */
  cancel(run, onStuck, graceMs = 3000) {
    const heard = this.messages;
    this.post({ type: 'cancel', run });
    setTimeout(() => {
      if (this.messages !== heard) return;
      this.expectReady();
      this.post({ type: 'restart' }); // the frame starts a fresh worker with the same bytes
      for (const { reject } of this.waiting.values()) reject(new Error('the engine worker was restarted'));
      this.waiting.clear();
      onStuck();
    }, graceMs);
  }
}

/** The bytes of the engine's `build` ('core' or 'full'). @param {'core' | 'full'} build */
async function loadWasm(build) {
  const url = WASM_URLS[build];
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    throw new Error(`could not load the engine (${url.pathname}): ${e.message}`);
  }
  if (!res.ok) throw new Error(`could not load the engine (${url.pathname}): HTTP ${res.status}. Run \`npm run build\`.`);
  return res.arrayBuffer();
}
