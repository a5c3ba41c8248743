// The page's compiles for the engine. The engine, in its sandbox (engine-client.js), asks for
// each query's compile; the page does it with the settings the person set when the run started
// (never any a message names), only for the run under way, at most k at a time. Whatever the
// sandbox's code sends, it can have no other compile than one the run could make anyway.
import { Compiler, EndpointError } from './endpoint.js';
import { LIMITS } from './state.js';
import { cleanFiles } from './files.js';

/** The longest time limit a query may ask for (the settings' own ceiling). */
const MAX_TIMEOUT_MS = LIMITS.timeoutS[1] * 1000;

export class CompileService {
  /** answer(msg): to the engine; onNotice(text): a back-off to tell the person;
   *  refusal: why this page compiles nothing at all (an embed), or null. */
  constructor({ answer, onNotice, refusal = null }) {
    this.answer = answer;
    this.onNotice = onNotice;
    this.refusal = refusal;
    this.run = null;
    this.inflight = new Map(); // request id -> AbortController
  }

  /** Compiles for run `run` from now on, with `config` (S.reduceConfig). */
  start(run, config) {
    this.stop();
    if (this.refusal) return;
    this.run = run;
    this.k = Math.max(1, config.k | 0);
    this.steps = config.steps ?? {}; // the only other compiles its requests may name
    this.flags = config.flags ?? ''; // the main compile's
    this.compiler = new Compiler(config, (e) =>
      this.onNotice(e.seconds > 0 ? `rate limited (HTTP 429): waiting ${e.seconds} s before the next query` : 'rate limited'));
  }

  /** No more compiles: the run is over (its requests under way are called off). */
  stop() {
    for (const abort of this.inflight.values()) abort.abort();
    this.inflight.clear();
    this.run = null;
  }

  /** A request from the engine: {type: 'compile', run, id, text, step?, timeoutMs?, fresh?, flags?, files?}
   *  or {type: 'uncompile', run, id}. */
  handle(msg) {
    if (msg.type === 'uncompile') {
      this.inflight.get(msg.id)?.abort();
      this.inflight.delete(msg.id);
      return;
    }
    const refuse = (why) => this.answer({ type: 'compiled', id: msg.id, error: `the page compiles nothing here: ${why}`, endpoint: false });
    if (this.refusal) return refuse(this.refusal);
    if (this.run === null || msg.run !== this.run) return refuse('no run of this page asked for it');
    if (typeof msg.text !== 'string') return refuse('the request has no program text');
    if (this.inflight.size >= this.k || this.inflight.has(msg.id)) return refuse(`more than ${this.k} compiles at once`);
    const step = msg.step ?? null;
    if (step !== null && !Object.hasOwn(this.steps, step)) return refuse(`the run has no compile step ${JSON.stringify(step)}`);
    // A flag reduction's candidate: the step's own flags with some left out, nothing added.
    const flags = msg.flags ?? null;
    if (flags !== null && !(typeof flags === 'string' && fewer(flags, step === null ? this.flags : this.steps[step].flags))) {
      return refuse('flags that are not the run’s own with some left out');
    }
    // A folder's candidate: files beside the program with plain names (like its text, any
    // contents; the endpoint's own checks apply to both).
    const files = msg.files ?? null;
    if (files !== null && (!Array.isArray(files) || cleanFiles(files).length !== files.length)) {
      return refuse('files that are not a list of plainly named files');
    }
    const abort = new AbortController();
    this.inflight.set(msg.id, abort);
    const { compiler } = this;
    // A query's own time limit (the run's adaptive one), within the page's ceiling.
    // (0, or none: the run's own setting.)
    const timeoutMs = Number.isFinite(msg.timeoutMs) && msg.timeoutMs > 0 ? Math.min(Math.max(msg.timeoutMs, 100), MAX_TIMEOUT_MS) : 0;
    compiler.compile(msg.text, abort.signal, { step, timeoutMs, fresh: !!msg.fresh, flags, files }).then(
      (result) => !abort.signal.aborted && this.answer({ type: 'compiled', id: msg.id, result, cacheHits: compiler.cacheHits }),
      (e) => !abort.signal.aborted && this.answer({ type: 'compiled', id: msg.id, error: e.message, endpoint: e instanceof EndpointError, timedOut: !!e.timedOut, cacheHits: compiler.cacheHits }),
    ).finally(() => this.inflight.get(msg.id) === abort && this.inflight.delete(msg.id));
  }
}

/** Whether the words of `flags` are those of `of` with some left out (in their order). */
export function fewer(flags, of) {
  const own = String(of).split(/\s+/).filter(Boolean);
  let i = 0;
  return flags.split(/\s+/).filter(Boolean).every((w) => {
    while (i < own.length && own[i] !== w) i++;
    return i++ < own.length;
  });
}
