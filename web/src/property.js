// Properties: what must stay true of a candidate's compile result.
//
//  - regex: a regular expression over chosen streams (stdout, stderr, asm, run output, the
//    program text), optionally negated, plus an exit-code condition;
//  - js: a function `(result, input, answers) => boolean` (or a promise of one), run in a
//    sandbox with no network; `answers` holds `result` and then the answers of the
//    property's other compiles (`compiles`, the run's steps);
//  - wrong-code: the builds of wrong-code.js disagree and the guard passes, as the engine
//    judges (it needs the engine: `makeProperty(spec, {engine})`);
//  - slow: the compile is slower than a reference compile by a factor (slow-compile.js), as
//    the engine judges.
//
// A tester's test(result, input, {compile, original}) gets the first compile's answer;
// `compile(step)` makes another of the run's compiles (the wrong-code property's steps), and
// `original` says the program is the original (which a wrong-code or slow property calibrates
// on).
// A property that throws makes PropertyError, with the thrower's message.

import { describeStep, STEPS } from './wrong-code.js';

export class PropertyError extends Error {}

/** Builds a tester {test(result, input) => Promise<boolean>, dispose()} for a property spec. */
export function makeProperty(spec, { timeoutMs = 10000, engine = null } = {}) {
  if (spec.kind === 'wrong-code') return new WrongCodeProperty(engine, spec);
  if (spec.kind === 'slow') return new SlowProperty(engine, spec);
  return spec.kind === 'js' ? new SandboxedProperty(spec.js, timeoutMs, spec.compiles) : regexProperty(spec, engine);
}

/** The wrong-code property's tester: the engine says which step it needs next, then judges. */
class WrongCodeProperty {
  /** @param {any} engine the wasm module @param {{steps: Record<string, any>}} spec */
  constructor(engine, spec) {
    if (!engine || !spec.steps) throw new PropertyError('the wrong-code property needs the engine and its builds');
    this.engine = engine;
    this.steps = spec.steps;
    this.guard = 'warnings' in spec.steps;
    this.reference = undefined; // 'A' | 'B' | null (no guard), once calibrated on the original
    this.refused = 0; // candidates whose builds disagreed and the guard refused
  }

  async test(first, input, { compile, original }) {
    const answers = [first];
    if (original) {
      for (const step of STEPS.slice(1, this.guard ? 4 : 2)) answers.push(await compile(step));
      const s = this.steps;
      try {
        // (no reference without a guard: the engine gives undefined, which means not calibrated here)
        this.reference = this.engine.wrongCodeCalibrate(answers.map(plain), this.guard, describeStep(s.a), describeStep(s.b), s.warnings?.compiler ?? '') ?? null;
      } catch (e) {
        throw new PropertyError(e.message);
      }
      return true;
    }
    if (this.reference === undefined) throw new PropertyError('the wrong-code property judges candidates only after the original');
    for (;;) {
      const next = this.engine.wrongCodeNext(answers.map(plain), this.reference ?? null);
      if ('verdict' in next) {
        if (!next.verdict && answers.length > 2) this.refused++;
        return next.verdict;
      }
      answers.push(await compile(next.need));
    }
  }

  dispose() {}
}

/** The slow-compile property's tester: times the candidate's compile against its reference's
 *  (answers carry `ms`, endpoint.js), calibrated on the original. */
class SlowProperty {
  /** @param {any} engine the wasm module @param {{factor: number, steps: Record<string, any>, compile: string}} spec */
  constructor(engine, spec) {
    if (!engine || !spec.steps?.reference) throw new PropertyError('the slow-compile property needs the engine and its reference compile');
    this.engine = engine;
    this.spec = spec;
    this.code = null; // the original's exit code, once calibrated
    // Past this a compile is slow at once (the run cuts the compile there: reduction.js).
    this.slowAfterMs = null;
  }

  async test(first, input, { compile, original }) {
    let reference;
    try {
      reference = await compile('reference');
    } catch (e) {
      if (e?.timedOut && !original) return false; // the reference is what was slow
      throw e;
    }
    if (original) {
      try {
        this.slowAfterMs = this.engine.slowCalibrate(this.spec.factor, first.ms, reference.ms, first.code, this.spec.compile, describeStep(this.spec.steps.reference));
      } catch (e) {
        throw new PropertyError(e.message);
      }
      this.code = first.code;
      return true;
    }
    if (this.code === null) throw new PropertyError('the slow-compile property judges candidates only after the original');
    return this.engine.slowVerdict(this.spec.factor, this.code, first.ms, first.code, reference.ms);
  }

  /** A candidate's compile cut at `slowAfterMs`: slow. */
  timedOut() {
    return this.slowAfterMs !== null;
  }

  dispose() {}
}

/** An answer as the engine reads it. */
const plain = (r) => ({ code: r.code, run: r.run ? { code: r.run.code, stdout: r.run.stdout, stderr: r.run.stderr } : null });

/**
 * What a pair's automatic seed must be, from the variant's property tester: the compile
 * succeeds (exit code 0) and the variant's property does not hold (what a witness is).
 */
export function compilesWithout(variant) {
  return {
    async test(result, input, more) {
      return result.code === 0 && !(await variant.test(result, input, more));
    },
    dispose() {},
  };
}

/** The regex property as a plain function; with `noNewErrors` it needs the engine (which reads
 *  the errors as the CLI's --no-new-errors does). */
export function regexProperty(spec, engine = null) {
  if (spec.noNewErrors && !engine) throw new PropertyError('“no new compile error” needs the engine');
  const allowed = new Set(Array.isArray(spec.allowedErrors) ? spec.allowedErrors.map(String) : []);
  let re = null;
  if (spec.regex) {
    try {
      re = new RegExp(spec.regex, 'm');
    } catch (e) {
      throw new PropertyError(`the regex does not compile: ${e.message}`);
    }
  }
  const streams = spec.streams?.length ? spec.streams : ['stderr'];
  const exitValue = Number(spec.exitValue ?? 0);
  return {
    async test(result, input) {
      if (re) {
        const text = streams.map((s) => streamText(result, input, s)).join('\n');
        if (re.test(text) === !!spec.negate) return false;
      }
      if (spec.noNewErrors && !engine.compileErrors(`${result.stdout ?? ''}\n${result.stderr ?? ''}`).every((e) => allowed.has(e))) return false;
      if (spec.exitOp === 'any' || !spec.exitOp) return true;
      const code = spec.exitOf === 'run' ? result.run?.code : result.code;
      if (typeof code !== 'number') return false; // the program did not run
      return spec.exitOp === 'eq' ? code === exitValue : code !== exitValue;
    },
    dispose() {},
  };
}

function streamText(result, input, stream) {
  switch (stream) {
    case 'source':
      return input;
    case 'run':
      return result.run ? `${result.run.stdout}\n${result.run.stderr}` : '';
    default:
      return result[stream] ?? '';
  }
}

// The property runs in a worker of its own (so that one that loops for ever can be killed),
// made from a Blob inside the engine's worker, which lives in the sandbox frame (sandbox.js):
// an opaque origin whose CSP lets no code fetch anything.
const SANDBOX_SOURCE = `
let fn = null;
onmessage = async (e) => {
  const m = e.data;
  try {
    if (m.type === 'init') {
      fn = (0, eval)('(' + m.source + '\\n)');
      if (typeof fn !== 'function') throw new Error('the property must be a function (result, input) => boolean');
      postMessage({ id: m.id, value: true });
    } else {
      postMessage({ id: m.id, value: !!(await fn(m.result, m.input, m.answers)) });
    }
  } catch (err) {
    postMessage({ id: m.id, error: (err && err.message) || String(err) });
  }
};`;

let sandboxUrl = null; // one Blob URL for every property worker

class SandboxedProperty {
  /** `compiles`: the steps whose answers the function gets after the first's. */
  constructor(source, timeoutMs, compiles = []) {
    this.source = source;
    this.compiles = compiles;
    this.timeoutMs = timeoutMs;
    this.seq = 0;
    this.waiting = new Map();
    this.start();
  }

  start() {
    sandboxUrl ??= URL.createObjectURL(new Blob([SANDBOX_SOURCE], { type: 'text/javascript' }));
    this.worker = new Worker(sandboxUrl);
    this.worker.onmessage = (e) => {
      const w = this.waiting.get(e.data.id);
      if (!w) return;
      this.waiting.delete(e.data.id);
      clearTimeout(w.timer);
      if ('error' in e.data) w.reject(new PropertyError(`the property threw: ${e.data.error}`));
      else w.resolve(e.data.value);
    };
    this.worker.onerror = (e) => {
      e.preventDefault();
      this.fail(new PropertyError(`the property's sandbox failed: ${e.message || 'unknown error'}`));
    };
    this.ready = this.call({ type: 'init', source: this.source });
  }

  call(msg) {
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        // A property that loops forever: kill the sandbox and start a fresh one.
        this.waiting.delete(id);
        reject(new PropertyError(`the property did not return within ${this.timeoutMs / 1000} s`));
        this.fail(new PropertyError('the property sandbox was restarted'));
        this.start();
      }, this.timeoutMs);
      this.waiting.set(id, { resolve, reject, timer });
      this.worker.postMessage({ ...msg, id });
    });
  }

  fail(error) {
    this.worker.terminate();
    for (const w of this.waiting.values()) {
      clearTimeout(w.timer);
      w.reject(error);
    }
    this.waiting.clear();
  }

  async test(result, input, more = null) {
    const answers = [result];
    if (this.compiles.length && !more) throw new PropertyError('the property’s other compiles are made only in a reduction or a check');
    for (const step of this.compiles) answers.push(await more.compile(step));
    await this.ready;
    return this.call({ type: 'test', result, input, answers });
  }

  dispose() {
    this.fail(new PropertyError('the property was replaced'));
  }
}
