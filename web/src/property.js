// Properties: what must stay true of a candidate's compile result.
//
//  - regex: a regular expression over chosen streams (stdout, stderr, asm, run output, the
//    program text), optionally negated, plus an exit-code condition;
//  - js: a function `(result, input) => boolean` (or a promise of one), run in a sandbox
//    with no network.
//
// A property that throws makes PropertyError, with the thrower's message.

export class PropertyError extends Error {}

/** Builds a tester {test(result, input) => Promise<boolean>, dispose()} for a property spec. */
export function makeProperty(spec, { timeoutMs = 10000 } = {}) {
  return spec.kind === 'js' ? new SandboxedProperty(spec.js, timeoutMs) : regexProperty(spec);
}

/**
 * What a pair's automatic seed must be, from the variant's property tester: the compile
 * succeeds (exit code 0) and the variant's property does not hold (what a witness is).
 */
export function compilesWithout(variant) {
  return {
    async test(result, input) {
      return result.code === 0 && !(await variant.test(result, input));
    },
    dispose() {},
  };
}

/** The regex property as a plain function (also used by the page to check a spec). */
export function regexProperty(spec) {
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
      postMessage({ id: m.id, value: !!(await fn(m.result, m.input)) });
    }
  } catch (err) {
    postMessage({ id: m.id, error: (err && err.message) || String(err) });
  }
};`;

let sandboxUrl = null; // one Blob URL for every property worker

class SandboxedProperty {
  constructor(source, timeoutMs) {
    this.source = source;
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

  async test(result, input) {
    await this.ready;
    return this.call({ type: 'test', result, input });
  }

  dispose() {
    this.fail(new PropertyError('the property was replaced'));
  }
}
