// Drives one reduction in the worker. The engine's Session (or PairSession) hands out
// queries, each one program text of one side ('variant', or a pair's 'seed'); we compile up
// to k of them at once through the endpoint, test that side's property on the answer and
// report the verdict back. The engine decides what to test and in what order (a pair's seed
// only after its variant passed); this loop owns all the waiting, retrying and pausing. A
// replay takes its verdicts from a recording instead and needs no endpoint.
//
// config: {mode: 'single' | 'pair' | 'generator', lang, variant, seed?, files?, strategy, skipPasses, k,
//          property, seedProperty?, generator?, witness?, endpoint, ...}: property is the variant's (the
//          one program's); one program with files beside it is reduced with them, as a folder (the
//          engine's FolderSession: each query a bundle, unpacked here into the compile's source
//          and files; the program named as the endpoint names it, example.c); a pair with witness.autoSeed tests its seed with compilesWithout
//          (property.js) instead of seedProperty. In generator mode the engine's GeneratorSession re-runs the generator
//          module (generator.source, loaded by generator-module.js) and its queries are the
//          outputs, tested as the variant.
//
// Messages out (all carry `run`):
//   {type: 'state', state: 'running' | 'paused' | 'cancelled', message?}
//   {type: 'progress', stats, elapsedMs, engineMs, clientCacheHits, inFlight, best?, replayed?}
//                                      (best: on improvement; replayed: verdicts used by a replay)
//   {type: 'original', result, side}   the endpoint's answer for one side of the original
//   {type: 'generated', original, trace, rngSeed}  generator mode: the free run's output and trace
//                                      (progress with a best, and finished, then carry `trace`,
//                                      the best's trace)
//   {type: 'notice', message}          back-off on 429, a property that threw on a candidate
//   {type: 'finished', state: 'done' | 'failed' | 'cancelled', message?, best, stats, history, verdicts, elapsedMs,
//    flags?, files?}                   (files: a folder's other files as they are in the best,
//                                      progress with a best carries them too)                           (flags: with config.reduceFlags, the fewest that keep the
//                                      property: {main, b?}; progress carries them as they go)
import { Compiler, EndpointError } from './endpoint.js';
import { compilesWithout, makeProperty, PropertyError } from './property.js';
import { LIMITS, sideLabel } from './state.js';
import { engineConfig, loadGenerator, picksOf } from './generator-module.js';
import { unbundle } from './bundle.js';
import { programName } from './files.js';

const PROGRESS_EVERY_MS = 100;
const REPLAY_STEP = 64; // candidates per replay slice: small enough to hear "cancel" at once
const REPLAY_STUCK_SLICES = 200;
const MAX_LIMIT_MS = LIMITS.timeoutS[1] * 1000; // the settings' longest timeout

/** How a run gets its compiler: directly from the endpoint (node's tests), or in the page's
 *  worker through the page (worker.js passes a RemoteCompiler's maker). */
export const directCompilers = (config, onBackoff) => new Compiler(config, onBackoff);

export class Reduction {
  /** @param {any} engine the wasm module @param {any} msg a 'reduce' or 'replay' message
   *  @param {(m: import('./types.js').RunMessage) => void} post
   *  @param {(config: any, onBackoff?: (e: any) => void) => {compile: Function, [k: string]: any}} [compilers] */
  constructor(engine, msg, post, compilers = directCompilers) {
    this.engine = engine;
    this.compilers = compilers;
    this.run = msg.run;
    this.config = msg.config;
    this.recording = msg.type === 'replay' ? msg.verdicts : null;
    this.send = (m) => post({ ...m, run: this.run });
    this.state = 'idle';
    this.inflight = new Map(); // query id -> {query, abort}
    this.retry = []; // queries the endpoint failed to answer; sent again on resume
    this.activeMs = 0;
    // Time spent in the engine's calls (next, report, step): its share of the elapsed time.
    this.engineMs = 0;
    this.runningSince = 0;
    this.lastAccepted = -1;
    this.lastProgress = 0;
    this.progressTimer = 0;
    this.propertyErrors = 0;
    // The time limit of a query: the settings' (limitMs null), or, when they leave it to the
    // run (config.adaptive), one from the original's compiles, set once it is judged.
    this.adaptive = !!msg.config.adaptive;
    this.limitMs = null;
    this.originalMs = 0;
    this.timedOut = 0; // candidates cut at the adaptive limit
    // A flaky property (the original's three tests disagree), or the settings' confirm N:
    // a candidate's yes must hold this many more times, afresh, or its step is undone.
    this.confirm = msg.config.confirm ?? 0;
    this.flaky = false;
    this.undone = 0;
    // After the program, the flags (config.reduceFlags): those left so far, the candidate
    // under test, how many were tried.
    this.flags = null;
    this.flagsTrying = null;
    this.flagsTried = 0;
    this.flagsAbort = null;
  }

  async start() {
    const { lang, variant, seed, strategy, skipPasses, mode } = this.config;
    this.pair = mode === 'pair';
    this.generator = mode === 'generator';
    // (A pair's files, a witness search's, stay as they are: sent with every compile.)
    this.main = mode === 'single' && this.config.files?.length ? programName(lang) : null;
    let Engine = this.pair ? this.engine.PairSession : this.main ? this.engine.FolderSession : this.engine.Session;
    const passes = skipPasses ? { strategy, skip_passes: skipPasses } : { strategy };
    const tree = () => [{ filename: this.main, contents: variant }, ...this.config.files];
    let args = [this.pair ? { lang, seed, variant, ...passes } : this.main ? { files: tree(), ...passes } : { lang, text: variant, ...passes }];
    if (this.generator) {
      try {
        const module = await loadGenerator(this.config.generator.source);
        args = [engineConfig(this.config.generator, module), module.generate];
        this.module = module;
      } catch (e) {
        return this.finish('failed', e.message);
      }
      if (this.isOver()) return; // cancelled while the module loaded
      Engine = this.engine.GeneratorSession;
    }
    try {
      if (this.recording !== null) {
        this.session = Engine.replay(...args, this.recording);
      } else {
        this.properties = { variant: makeProperty(this.config.property, { engine: this.engine }) };
        if (this.pair) {
          // An automatic seed is a witness of the variant: it compiles and lacks the property.
          this.properties.seed = this.config.witness?.autoSeed ? compilesWithout(this.properties.variant) : makeProperty(this.config.seedProperty);
        }
        this.compiler = this.compilers(this.config, (e) =>
          this.send({ type: 'notice', message: `${e.seconds > 0 ? `rate limited (HTTP 429): waiting ${e.seconds} s before the next query` : 'rate limited'}` }));
        this.session = new Engine(...args);
      }
    } catch (e) {
      return this.finish('failed', e.message);
    }
    if (this.generator) {
      this.send({ type: 'generated', original: this.session.original(), trace: this.session.originalTrace(), rngSeed: args[0].rng_seed, picks: picksOf(this.module) });
    }
    this.setState('running');
  }

  pause() {
    if (this.state === 'running') this.setState('paused', 'paused by you');
  }

  resume() {
    if (this.state === 'paused') this.setState('running');
  }

  cancel() {
    // (idle: a generator module still loading)
    if (this.state === 'running' || this.state === 'paused' || this.state === 'idle') this.finish('cancelled', 'cancelled');
  }

  /** Frees the engine's memory for this run (after it is over). */
  dispose() {
    this.session?.free();
    this.session = null;
  }

  setState(state, message) {
    const now = performance.now();
    if (this.state === 'running') this.activeMs += now - this.runningSince;
    if (state === 'running') this.runningSince = now;
    this.state = state;
    this.send({ type: 'state', state, message });
    if (state === 'running') (this.recording !== null ? this.replaySlice() : this.pump());
  }

  elapsedMs() {
    return this.activeMs + (this.state === 'running' ? performance.now() - this.runningSince : 0);
  }

  // --- live reduction ----------------------------------------------------------------------

  /** Keeps up to k queries in flight. Called after every verdict and on resume. */
  pump() {
    if (this.state !== 'running') return;
    const k = Math.max(1, this.config.k | 0);
    try {
      while (this.retry.length && this.inflight.size < k) {
        const query = this.retry.shift();
        if (this.session.wants(query.id)) this.launch(query);
      }
      for (let idle = 0; this.inflight.size < k && !this.session.done(); ) {
        const queries = this.engineCall(() => this.session.next(k - this.inflight.size));
        queries.forEach((q) => this.launch(q));
        if (queries.length > 0) continue;
        if (this.inflight.size > 0 && !this.session.more()) break; // the engine waits for verdicts
        // Nothing new: the engine did a bounded slice of work (e.g. skipped invalid
        // candidates). Go on in a fresh task now and then, so "cancel" gets through.
        if (++idle >= 8) {
          setTimeout(() => this.pump(), 0);
          break;
        }
      }
    } catch (e) {
      return this.finish('failed', `the engine failed: ${e.message}`);
    }
    this.progress();
    if (this.session.done() && this.retry.length === 0 && !this.completing) this.complete();
  }

  /** The program is done: its flags next when asked for, then the end. */
  async complete() {
    this.completing = true;
    const stats = this.session.stats();
    if (this.config.reduceFlags && !this.pair && this.recording === null && stats.original_interesting) await this.reduceFlags();
    this.finish('done');
  }

  /** The compile's flags (and a wrong-code property's build B's), each with its argument tried
   *  away on the result, from the last: a flag goes when the property still holds without it
   *  (the CLI's --reduce-flags). An endpoint that fails ends this early, keeping what is left. */
  async reduceFlags() {
    this.flags = { main: this.config.flags ?? '', ...(this.config.steps?.b ? { b: this.config.steps.b.flags } : {}) };
    const query = { id: -1, candidate: -1, side: 'variant', text: this.session.best(), original: false };
    // (a folder's best is a bundle: compile unpacks it)
    for (const which of Object.keys(this.flags)) {
      for (let i = this.engine.flagCount(this.flags[which]); i-- > 0; ) {
        const candidate = { ...this.flags, [which]: this.engine.withoutFlag(this.flags[which], i) };
        this.flagsTrying = candidate;
        while (this.state === 'paused') await new Promise((resolve) => setTimeout(resolve, 100));
        if (this.isOver()) return;
        this.flagsAbort = new AbortController();
        let verdict;
        try {
          verdict = await this.test(query, this.flagsAbort.signal);
        } catch (e) {
          if (!this.isOver()) this.send({ type: 'notice', message: `the flags were not reduced further: ${e.message}` });
          return;
        } finally {
          this.flagsTrying = null;
        }
        if (this.isOver()) return;
        if (verdict === 'interesting') this.flags = candidate;
        this.flagsTried++;
        this.progress();
      }
    }
  }

  launch(query) {
    const abort = new AbortController();
    this.inflight.set(query.id, { query, abort });
    this.test(query, abort.signal).then(
      (verdict) => this.settle(query, verdict),
      (error) => this.failed(query, error),
    );
  }

  /** Compiles the query's program and tests its side's property on the answer (the original
   *  three times; a yes confirmed when the property is flaky). Under the adaptive limit, a
   *  candidate whose compile passes it is not interesting (counted apart). */
  async test(query, signal) {
    try {
      if (query.original) return await this.original(query, signal);
      const verdict = await this.judge(query, signal);
      return verdict === 'interesting' ? await this.confirmed(query, signal) : verdict;
    } catch (e) {
      if (!e?.timedOut || query.original) throw e;
      // (a slow-compile property's compile cut at its limit: slow)
      if (this.properties[query.side].timedOut?.()) return 'interesting';
      if (this.limitMs === null) throw e;
      this.timedOut++;
      return 'boring';
    }
  }

  /** The original, tested as the engine's rule says (three times), each afresh: a property
   *  whose answers disagree is flaky (the run says so, and confirms every step from then on),
   *  and the adaptive limit is ten times its slowest compile, at least a second. */
  async original(query, signal) {
    const verdicts = [];
    for (let i = 0; i < this.engine.originalRuns(); i++) verdicts.push(await this.judge(query, signal, { again: i > 0, fresh: true }));
    const yes = verdicts.filter((v) => v === 'interesting').length;
    this.confirm = this.engine.confirmations(Uint8Array.from(verdicts, (v) => +(v === 'interesting')), this.confirm || undefined);
    if (yes > 0 && yes < verdicts.length) {
      this.flaky = true;
      this.send({ type: 'notice', message: `the property is flaky: ${yes} of ${verdicts.length} tests of the original ${sideLabel(this.pair, query.side)} said interesting; each step is confirmed ${this.confirm} more times, and undone if it does not hold` });
    }
    if (this.adaptive) this.limitMs = Math.min(MAX_LIMIT_MS, this.engine.adaptiveLimit(Float64Array.of(this.originalMs)));
    return yes > 0 ? 'interesting' : verdicts[0];
  }

  /** A candidate's yes, asked again `confirm` times afresh; one no undoes it (counted). */
  async confirmed(query, signal) {
    for (let i = 0; i < this.confirm; i++) {
      if ((await this.judge(query, signal, { again: true, fresh: true })) !== 'interesting') {
        this.undone++;
        return 'boring';
      }
    }
    return 'interesting';
  }

  /** One of the query's compiles (`step`: another than the first); `fresh`: never from a
   *  cache (the original's, timed for the adaptive limit; a confirmation's). The first is cut
   *  at a slow-compile property's limit, past which it is slow; under a flag reduction each
   *  compile has the candidate's flags. */
  async compile(query, signal, step = null, fresh = false) {
    const started = performance.now();
    const slowAfterMs = step === null && !query.original ? this.properties[query.side].slowAfterMs : null;
    const flags = this.flagsTrying?.[step ?? 'main'] ?? null;
    const { source, files } = this.parts(query.text);
    const result = await this.compiler.compile(source, signal, { step, timeoutMs: slowAfterMs ?? this.limitMs ?? 0, fresh, flags, files });
    if (query.original) this.originalMs = Math.max(this.originalMs, performance.now() - started);
    return result;
  }

  /** A query's program and, for a folder, the files beside it (else null: the run's own). */
  parts(text) {
    return this.main ? unbundle(text, this.main) : { source: text, files: null };
  }

  /** The query's verdict from one test (`again`: a repeat, whose answer the page has seen). */
  async judge(query, signal, { again = false, fresh = false } = {}) {
    const result = await this.compile(query, signal, null, fresh);
    if (query.original && !again) this.send({ type: 'original', result, side: query.side });
    const more = { original: query.original, compile: (step) => this.compile(query, signal, step, fresh) };
    try {
      return (await this.properties[query.side].test(result, this.parts(query.text).source, more)) ? 'interesting' : 'boring';
    } catch (e) {
      if (!(e instanceof PropertyError)) throw e;
      if (query.original) throw e; // nothing to reduce if the original fails
      this.propertyErrors++;
      this.send({ type: 'notice', message: `${e.message} (on ${this.propertyErrors} candidate${this.propertyErrors > 1 ? 's' : ''}; counted as not interesting)` });
      return 'error';
    }
  }

  settle(query, verdict) {
    if (!this.inflight.delete(query.id) || this.isOver()) return;
    try {
      this.engineCall(() => this.session.report(query.id, verdict));
      this.dropStale();
    } catch (e) {
      return this.finish('failed', `the engine failed: ${e.message}`);
    }
    this.pump();
  }

  failed(query, error) {
    if (!this.inflight.delete(query.id) || this.isOver()) return;
    if (error?.name === 'AbortError') return;
    if (error instanceof EndpointError) {
      // Keep the query, keep the best so far, and wait for the person to resume.
      this.retry.push(query);
      if (this.state === 'running') this.setState('paused', error.message);
      return;
    }
    if (error instanceof PropertyError) {
      return this.finish('failed', `on the original ${sideLabel(this.pair, query.side)}, ${error.message}`);
    }
    this.finish('failed', `unexpected error: ${error?.message ?? error}`);
  }

  /** Stops querying what the engine no longer needs (e.g. an earlier candidate was accepted,
   *  or a pair's other side failed). */
  dropStale() {
    for (const [id, { abort }] of this.inflight) {
      if (!this.session.wants(id)) {
        this.inflight.delete(id);
        abort.abort();
      }
    }
  }

  isOver() {
    return this.state === 'done' || this.state === 'failed' || this.state === 'cancelled';
  }

  // --- replay --------------------------------------------------------------------------------

  replaySlice() {
    if (this.state !== 'running') return;
    let stats;
    try {
      stats = JSON.stringify(this.engineCall(() => this.session.step(REPLAY_STEP)));
      this.replaySlices = (this.replaySlices ?? 0) + 1;
    } catch (e) {
      return this.finish('failed', `the replay failed: ${e.message}`);
    }
    // A recording that does not fit the program would leave the replay going nowhere.
    this.stuckSlices = stats === this.lastSliceStats ? (this.stuckSlices ?? 0) + 1 : 0;
    this.lastSliceStats = stats;
    if (this.stuckSlices > REPLAY_STUCK_SLICES) {
      return this.finish('failed', 'the replay makes no progress: the recorded verdicts do not fit this program and strategy');
    }
    this.progress();
    if (this.session.done()) this.finish('done');
    else setTimeout(() => this.replaySlice(), 0);
  }

  // --- reporting -----------------------------------------------------------------------------

  /** Sends progress at most every PROGRESS_EVERY_MS (the last one is never lost). */
  progress() {
    clearTimeout(this.progressTimer);
    const wait = this.lastProgress + PROGRESS_EVERY_MS - performance.now();
    if (wait > 0) {
      this.progressTimer = setTimeout(() => this.progress(), wait);
      return;
    }
    this.lastProgress = performance.now();
    this.send(this.snapshot('progress'));
  }

  /** What every progress message says: the engine's figures and this loop's. */
  figures(type) {
    const stats = this.session.stats();
    const guardRefused = this.properties?.variant?.refused; // (a wrong-code property's)
    const limit = this.limitMs === null ? {} : { limitMs: this.limitMs, timedOut: this.timedOut };
    const confirm = this.confirm ? { confirm: this.confirm, undone: this.undone, flaky: this.flaky } : {};
    const flags = this.flags ? { flags: this.flags, flagsTried: this.flagsTried } : {};
    return { type, stats, elapsedMs: this.elapsedMs(), engineMs: this.engineMs, clientCacheHits: this.compiler?.cacheHits ?? 0, inFlight: this.inflight.size, guardRefused, ...limit, ...confirm, ...flags };
  }

  /** Runs one of the engine's calls, adding its time to `engineMs`. */
  engineCall(f) {
    const started = performance.now();
    try {
      return f();
    } finally {
      this.engineMs += performance.now() - started;
    }
  }

  snapshot(type) {
    const msg = this.figures(type);
    const { stats } = msg;
    if (this.recording !== null) {
      // A replay makes no queries; the chart counts recorded verdicts used (about REPLAY_STEP a slice).
      msg.replayed = stats.done ? this.recording.length : Math.min(this.recording.length, (this.replaySlices ?? 0) * REPLAY_STEP);
    }
    if (stats.accepted !== this.lastAccepted) {
      this.lastAccepted = stats.accepted;
      Object.assign(msg, this.best());
      if (this.generator) msg.trace = this.session.trace();
    }
    return msg;
  }

  /** The best so far: `{best}`, the program; a folder's with `files`, the others left. */
  best() {
    if (!this.main) return { best: this.session.best() };
    const { source, files } = unbundle(this.session.best(), this.main);
    return { best: source, files };
  }

  /** Stops everything under way (timers, requests, properties) as the run ends in `state`;
   *  returns the time it ran. */
  end(state) {
    const elapsedMs = this.elapsedMs();
    this.state = state;
    clearTimeout(this.progressTimer);
    for (const { abort } of this.inflight.values()) abort.abort();
    this.inflight.clear();
    this.flagsAbort?.abort();
    for (const p of Object.values(this.properties ?? {})) p.dispose();
    return elapsedMs;
  }

  finish(state, message) {
    if (this.isOver()) return;
    const elapsedMs = this.end(state);
    if (!this.session) return this.send({ type: 'finished', state, message });
    const stats = this.session.stats();
    if (state === 'done' && stats.original_interesting === false) {
      state = 'failed';
      message = (this.pair
        ? 'the original pair does not have its properties (the variant must have its property and the seed its own), so there is nothing to keep while reducing. '
        : 'the original program does not have the property, so there is nothing to keep while reducing. ') +
        'See the Output tab for what the endpoint answered, and adjust the property.';
    }
    this.send({
      ...this.snapshot('finished'),
      ...this.best(),
      state,
      message,
      elapsedMs,
      history: this.session.history(),
      verdicts: this.recording ?? this.session.verdicts(),
      ...(this.generator ? { trace: this.session.trace() } : {}),
    });
  }
}
