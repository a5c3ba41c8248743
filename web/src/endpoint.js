// Compile endpoints: the Compiler Explorer API, served either by Compiler Explorer itself or
// by `whittle serve` (same JSON), or "none" (the property reads the program text only).
//
// Answers are normalized to {code, stdout, stderr, asm, run: {code, stdout, stderr} | null}
// with each stream as one string, plus `coverage` ({file: {function: [line]}}) when the
// endpoint measured the compiler's (whittle serve's `tcc`). Failures a person must act on (dead endpoint, 5xx, 4xx,
// malformed JSON, timeout) throw EndpointError; HTTP 429, and 503 with Retry-After, are waited
// out (Retry-After).

/** Compiler Explorer's language ids for ours. */
const CE_LANG = { c: 'c', cpp: 'c++', rust: 'rust', javascript: 'javascript', java: 'java' };

export const DEFAULT_CE_BASE = 'https://godbolt.org';

export class EndpointError extends Error {}

/** The API's base URL for an endpoint: '' (this origin) for whittle serve. */
export function apiBase(endpoint) {
  if (endpoint.kind !== 'ce') return '';
  return (endpoint.base || DEFAULT_CE_BASE).trim().replace(/\/+$/, '');
}

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
    this.onEvent = onEvent;
    this.cacheHits = 0;
    this.notBefore = 0; // no request before this time (ms), set by a 429
    this.backoffMs = 0;
  }

  /** The answer for `source` of the run's main compile, or of step `step` of its
   *  `steps` (a wrong-code property's builds: wrong-code.js). */
  async compile(source, signal, step = null) {
    const cfg = this.stepConfig(step);
    const { endpoint, compiler, flags, execute } = cfg;
    if (endpoint.kind === 'none') return { code: 0, stdout: '', stderr: '', asm: '', run: null };
    const key = await sha256(JSON.stringify([this.base, compiler, flags, !!execute, source]));
    const cached = cacheGet(key);
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

  async fetchWithBackoff(source, signal, cfg = this.cfg) {
    for (;;) {
      const wait = this.notBefore - Date.now();
      if (wait > 0) await sleep(wait, signal);
      const res = await this.post(source, signal, cfg);
      // 429, or 503 with Retry-After (a server at its connection or body cap): busy, not broken.
      const busy = res.status === 429 || (res.status === 503 && res.headers.get('Retry-After') !== null);
      if (!busy) {
        this.backoffMs = 0;
        return parseAnswer(res, describe(this.cfg.endpoint));
      }
      // Rate limited: wait as told (Retry-After, seconds or a date), else back off exponentially.
      this.backoffMs = Math.min(Math.max(this.backoffMs * 2, 2000), 120000);
      const ms = retryAfterMs(res.headers.get('Retry-After')) ?? this.backoffMs;
      this.notBefore = Math.max(this.notBefore, Date.now() + ms);
      this.onEvent({ type: 'backoff', seconds: Math.ceil(ms / 1000) });
    }
  }

  async post(source, signal, cfg) {
    const { endpoint, compiler, flags, execute, timeoutMs } = cfg;
    const url = `${this.base}/api/compiler/${encodeURIComponent(compiler)}/compile`;
    const body = {
      source,
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
        fetch(`${this.base}/api/cancel/${key}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }).catch(() => {});
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
        throw new EndpointError(`${describe(endpoint)} did not answer within ${Math.round(timeoutMs / 1000)} s. It may be overloaded; resume to try again, or raise the timeout.`);
      }
      throw new EndpointError(`cannot reach ${describe(endpoint)} (${e.message}). Is it running? Resume when it is back.`);
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
