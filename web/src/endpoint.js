// Compile endpoints: the Compiler Explorer API, served either by Compiler Explorer itself or
// by `whittle serve` (same JSON), or "none" (the property reads the program text only).
//
// Answers are normalized to {code, stdout, stderr, asm, run: {code, stdout, stderr} | null, ms}
// with each stream as one string (`ms`: how long the endpoint took to answer, which a
// slow-compile property compares), plus `coverage` ({file: {function: [line]}}) when the
// endpoint measured the compiler's (whittle serve's `tcc`). Failures a person must act on (dead endpoint, 5xx, 4xx,
// malformed JSON, timeout) throw EndpointError; HTTP 429, and 503 with Retry-After, are waited
// out (Retry-After). An endpoint may have a pool of other instances (`endpoint.pool`), as the
// CLI's repeated --endpoint: compiles spread over them, and a failing one is passed over.

/** Compiler Explorer's language ids for ours. */
const CE_LANG = { c: 'c', cpp: 'c++', rust: 'rust', javascript: 'javascript', java: 'java' };

export const DEFAULT_CE_BASE = 'https://godbolt.org';

export class EndpointError extends Error {
  /** `timedOut`: the query passed its time limit (a slow candidate, or a slow endpoint). */
  constructor(message, { timedOut = false } = {}) {
    super(message);
    this.timedOut = timedOut;
  }
}

/** Failed attempts per query and instance of a pool before the query fails (a 429 is no
 *  failure: the query waits as told). */
const FAILURES_PER_ENDPOINT = 4;

/** The API's base URL for an endpoint: '' (this origin) for whittle serve. */
export function apiBase(endpoint) {
  if (endpoint.kind !== 'ce') return '';
  return (endpoint.base || DEFAULT_CE_BASE).trim().replace(/\/+$/, '');
}

/** The pool's other instances (`endpoint.pool`: base URLs separated by spaces or commas),
 *  with the same API and compiler ids as the first. */
export function poolBases(endpoint) {
  if (endpoint.kind === 'none') return [];
  return String(endpoint.pool ?? '').split(/[\s,]+/).map((b) => b.trim().replace(/\/+$/, '')).filter(Boolean);
}

/** Every instance a run compiles on: the endpoint's, then its pool's. */
export const apiBases = (endpoint) => (endpoint.kind === 'none' ? [] : [apiBase(endpoint), ...poolBases(endpoint)]);

/** An instance for messages: whittle serve (this origin) or its URL. */
const describeBase = (endpoint, base) => (base === apiBase(endpoint) ? describe(endpoint) : base);

/** Describes an endpoint for messages: "whittle serve at http://…" etc. */
export function describe(endpoint) {
  if (endpoint.kind === 'none') return 'no endpoint';
  if (endpoint.kind === 'ce') return `Compiler Explorer at ${apiBase(endpoint)}`;
  return `whittle serve at ${globalThis.location?.origin ?? 'this origin'}`;
}

/** The compilers an endpoint offers for a language: [{id, name}]. */
export async function listCompilers(endpoint, lang) {
  const url = `${apiBase(endpoint)}/api/compilers/${encodeURIComponent(CE_LANG[lang] ?? lang)}?fields=id,name,lang`;
  let res;
  try {
    res = await fetch(url, { headers: { Accept: 'application/json' } });
  } catch (e) {
    throw new EndpointError(`cannot reach ${describe(endpoint)} (${e.message}). Is it running, and is the URL right?`);
  }
  if (!res.ok) throw new EndpointError(`${describe(endpoint)} answered HTTP ${res.status} for the compiler list`);
  let list;
  try {
    list = await res.json();
  } catch {
    throw new EndpointError(`${describe(endpoint)} sent a compiler list that is not JSON: is the base URL right?`);
  }
  if (!Array.isArray(list)) throw new EndpointError(`${describe(endpoint)} sent a compiler list that is not an array`);
  return list.map((c) => ({ id: String(c.id), name: String(c.name ?? c.id) }));
}

/**
 * Compiles through one endpoint with fixed settings, with a cache shared by all instances
 * (keyed by endpoint, compiler, flags, execution and source) and a polite back-off on 429.
 */
export class Compiler {
  /**
   * @param {{endpoint, compiler, flags, execute, timeoutMs}} cfg
   * @param {(event) => void} onEvent told about back-offs: {type: 'backoff', seconds}
   */
  constructor(cfg, onEvent = () => {}) {
    this.cfg = cfg;
    this.base = apiBase(cfg.endpoint);
    // The pool: each instance with its compiles in flight and its back-off. A query goes to
    // the one with the fewest in flight that is not backed off; one that fails (no answer,
    // 5xx) is backed off, doubling up to a minute, and the query goes to another.
    this.pool = apiBases(cfg.endpoint).map((base) => ({ base, inFlight: 0, notBefore: 0, backoffMs: 0 }));
    this.onEvent = onEvent;
    this.cacheHits = 0;
  }

  /** The answer for `source` of the run's main compile, or of `step` of its `steps` (a
   *  wrong-code property's builds: wrong-code.js); `timeoutMs`: this query's own limit;
   *  `fresh`: compiled again even when cached (to time it); `flags`: instead of the step's
   *  (a flag reduction's candidate). */
  async compile(source, signal, { step = null, timeoutMs = 0, fresh = false, flags: instead = null, files = null } = {}) {
    const cfg = { ...this.stepConfig(step), ...(timeoutMs > 0 ? { timeoutMs } : {}), ...(typeof instead === 'string' ? { flags: instead } : {}), ...(files ? { files } : {}) };
    const { endpoint, compiler, flags, execute } = cfg;
    if (endpoint.kind === 'none') return { code: 0, stdout: '', stderr: '', asm: '', run: null };
    // (Without files the key is as it was before them: cached answers still match.)
    const beside = cfg.files?.length ? [cfg.files] : [];
    const key = await sha256(JSON.stringify([this.base, compiler, flags, !!execute, source, ...beside]));
    const cached = !fresh && cacheGet(key);
    if (cached) {
      this.cacheHits++;
      return cached;
    }
    const result = await this.fetchWithBackoff(source, signal, cfg);
    cachePut(key, result);
    return result;
  }

  /** The settings of step `step` (null: the main compile); throws for a step the run has not. */
  stepConfig(step) {
    if (step === null || step === undefined) return this.cfg;
    const own = this.cfg.steps?.[step];
    if (!own) throw new Error(`this run has no compile step ${JSON.stringify(step)}`);
    return { ...this.cfg, compiler: own.compiler, flags: own.flags, execute: own.execute };
  }

  /** The answer from one of the pool's instances. With one instance its failure is the
   *  query's (the run pauses, and resumes when it is back); with several, a failing one is
   *  backed off and another tried, until each failed FAILURES_PER_ENDPOINT times. */
  async fetchWithBackoff(source, signal, cfg = this.cfg) {
    let failures = 0;
    for (;;) {
      const e = await this.acquire(signal);
      e.inFlight++;
      let res;
      const started = performance.now();
      try {
        res = await this.post(e.base, source, signal, cfg);
      } catch (err) {
        e.inFlight--;
        if (signal.aborted || this.pool.length === 1 || ++failures >= FAILURES_PER_ENDPOINT * this.pool.length) throw err;
        this.backOff(e);
        continue;
      }
      e.inFlight--;
      // 429, or 503 with Retry-After (a server at its connection or body cap): busy, not broken.
      const busy = res.status === 429 || (res.status === 503 && res.headers.get('Retry-After') !== null);
      if (busy) {
        // Rate limited: wait as told (Retry-After, seconds or a date), else back off exponentially.
        const ms = retryAfterMs(res.headers.get('Retry-After')) ?? this.backOff(e);
        e.notBefore = Math.max(e.notBefore, Date.now() + ms);
        this.onEvent({ type: 'backoff', seconds: Math.ceil(ms / 1000) });
        continue;
      }
      const where = describeBase(cfg.endpoint, e.base);
      if (res.status >= 500 && this.pool.length > 1 && ++failures < FAILURES_PER_ENDPOINT * this.pool.length) {
        this.backOff(e);
        continue;
      }
      e.backoffMs = 0;
      const answer = await parseAnswer(res, where);
      answer.ms = performance.now() - started;
      return answer;
    }
  }

  /** The instance to send to: the fewest in flight among those not backed off; when all are,
   *  waits for the first to come back. */
  async acquire(signal) {
    for (;;) {
      const now = Date.now();
      const ready = this.pool.filter((e) => e.notBefore <= now);
      if (ready.length) return ready.reduce((a, b) => (b.inFlight < a.inFlight ? b : a));
      await sleep(Math.min(...this.pool.map((e) => e.notBefore)) - now, signal);
    }
  }

  /** Backs `e` off (2 s, doubling up to two minutes); returns the wait. */
  backOff(e) {
    e.backoffMs = Math.min(Math.max(e.backoffMs * 2, 2000), 120000);
    e.notBefore = Math.max(e.notBefore, Date.now() + e.backoffMs);
    return e.backoffMs;
  }

  async post(base, source, signal, cfg) {
    const { endpoint, compiler, flags, execute, timeoutMs, files } = cfg;
    const where = describeBase(endpoint, base);
    const url = `${base}/api/compiler/${encodeURIComponent(compiler)}/compile`;
    const body = {
      source,
      // The files beside the source, as Compiler Explorer's API takes them.
      ...(files?.length ? { files } : {}),
      options: {
        userArguments: flags,
        filters: { execute: !!execute, binary: false, labels: true, directives: true, commentOnly: true, demangle: true, intel: true },
        compilerOptions: { executorRequest: false },
        tools: [],
        libraries: [],
      },
      allowStoreCodeDebug: false,
    };
    const timeout = AbortSignal.timeout(timeoutMs);
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
    if (endpoint.kind === 'whittle') {
      // whittle serve cannot see an aborted request: name the job, and call it off by name
      // when the reducer no longer needs it, so its compiler stops and frees a slot.
      const key = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
      headers['X-Whittle-Job'] = key;
      signal.addEventListener('abort', () => {
        fetch(`${base}/api/cancel/${key}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }).catch(() => {});
      }, { once: true });
    }
    try {
      return await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.any([signal, timeout]),
      });
    } catch (e) {
      if (signal.aborted) throw e;
      if (timeout.aborted) {
        const seconds = timeoutMs < 10000 ? (timeoutMs / 1000).toFixed(1) : Math.round(timeoutMs / 1000);
        throw new EndpointError(`${where} did not answer within ${seconds} s. It may be overloaded; resume to try again, or raise the timeout.`, { timedOut: true });
      }
      throw new EndpointError(`cannot reach ${where} (${e.message}). Is it running? Resume when it is back.`);
    }
  }
}

async function parseAnswer(res, where) {
  const text = await res.text();
  if (!res.ok) {
    const detail = text.slice(0, 300).trim();
    const what = res.status >= 500 ? 'failed' : 'refused the request';
    throw new EndpointError(`${where} ${what}: HTTP ${res.status}${detail ? `: ${detail}` : ''}`);
  }
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new EndpointError(`${where} sent an answer that is not JSON (${JSON.stringify(text.slice(0, 80))}…)`);
  }
  if (!json || typeof json !== 'object' || typeof json.code !== 'number') {
    throw new EndpointError(`${where} sent JSON without an exit code (no numeric "code" field): is it a Compiler Explorer API?`);
  }
  return normalize(json);
}

/** Compiler Explorer's answer → {code, stdout, stderr, asm, run, coverage?}. */
export function normalize(json) {
  const run = json.execResult;
  const answer = {
    code: json.code,
    stdout: lines(json.stdout),
    stderr: lines(json.stderr),
    asm: lines(json.asm),
    run: run && (run.didExecute ?? true) ? { code: run.code, stdout: lines(run.stdout), stderr: lines(run.stderr) } : null,
  };
  if (isObject(json.coverage)) answer.coverage = json.coverage;
  // What the compiler was given (Compiler Explorer's and whittle serve's compilationOptions).
  if (Array.isArray(json.compilationOptions)) answer.options = json.compilationOptions.map(String);
  return answer;
}

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

function lines(stream) {
  if (typeof stream === 'string') return stream;
  if (!Array.isArray(stream)) return '';
  return stream.map((l) => (typeof l === 'string' ? l : (l?.text ?? ''))).join('\n');
}

function retryAfterMs(header) {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason);
    }, { once: true });
  });
}

async function sha256(text) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

// The answer cache, shared by every run in this worker: a repeated query is free, even with
// another property. Keyed by a hash of the query; the oldest entries go once it holds more
// than CACHE_CHARS characters of answers.
const CACHE_CHARS = 32 << 20;
const cache = new Map();
let cacheChars = 0;

const answerChars = (r) =>
  r.stdout.length + r.stderr.length + r.asm.length + (r.run ? r.run.stdout.length + r.run.stderr.length : 0) +
  (r.coverage ? JSON.stringify(r.coverage).length : 0) + 64;

function cacheGet(key) {
  return cache.get(key);
}

function cachePut(key, value) {
  if (cache.has(key)) return;
  cache.set(key, value);
  cacheChars += answerChars(value);
  while (cacheChars > CACHE_CHARS && cache.size > 1) {
    const [oldest, old] = cache.entries().next().value;
    cache.delete(oldest);
    cacheChars -= answerChars(old);
  }
}
