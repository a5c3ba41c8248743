// The worker's reduction loop (web/src/reduction.js) against a scripted stand-in for the wasm
// engine that speaks the query protocol: the engine hands out queries (one side's text each)
// in its own order, and the loop only compiles, tests that side's property and reports.
// The endpoint is 'none' (the property reads the program text), so no server is needed.
// Run: node --test tests/web/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Reduction } from '../../web/src/reduction.js';
import { Compiler, EndpointError } from '../../web/src/endpoint.js';

// The recipe rules are the engine's own (the wasm build); the session is the fake below.
const { default: wasm } = await import('../wasm/engine.mjs');
const RECIPES = Object.fromEntries(['originalRuns', 'confirmations', 'adaptiveLimit', 'flagCount', 'withoutFlag', 'slowCalibrate', 'slowVerdict'].map((f) => [f, wasm[f]]));

/**
 * A fake (Pair)Session. `candidates`: [{seed?, variant}] after the original; each candidate's
 * variant query comes first, its seed query (pairs) only after the variant was reported
 * interesting; a variant reported boring makes its seed query (if out) unwanted, as the
 * engine does.
 */
function fakeEngine({ pair, candidates }) {
  const log = { configs: [], handedOut: [], reports: [], freed: 0 };
  class Fake {
    constructor(config) {
      log.configs.push(config);
      this.pair = pair;
      this.nextId = 1;
      this.queue = [];
      this.out = new Map(); // id -> query
      this.dropped = new Set();
      this.best_ = pair ? { seed: config.seed, variant: config.variant, diff: '', diff_tokens: 3 } : config.text;
      this.accepted = 0;
      this.originalInteresting = null;
      this.pendingCandidates = candidates.map((c, i) => ({ ...c, candidate: i + 1 }));
      const original = pair ? { candidate: 0, seed: config.seed, variant: config.variant } : { candidate: 0, variant: config.text };
      this.queue.push(this.query(original, 'variant', true));
      if (pair) this.queue.push(this.query(original, 'seed', true));
      this.waitingFor = 0; // the original's queries
      this.results = new Map(); // candidate -> {variant?, seed?}
    }
    query(cand, side, original = false) {
      return { id: this.nextId++, candidate: cand.candidate, side, text: cand[side], original, cand };
    }
    next(k) {
      const batch = this.queue.splice(0, k);
      for (const q of batch) this.out.set(q.id, q);
      log.handedOut.push(...batch.map(({ cand, ...q }) => q));
      return batch.map(({ cand, ...q }) => q);
    }
    wants(id) {
      return this.out.has(id) && !this.dropped.has(id);
    }
    report(id, verdict) {
      const q = this.out.get(id);
      assert.ok(q, `report of a query that is not out: ${id}`);
      assert.ok(!this.dropped.has(id), `report of a query the engine no longer wants: ${id}`);
      this.out.delete(id);
      log.reports.push({ id, side: q.side, candidate: q.candidate, verdict });
      if (q.side === 'variant' && verdict !== 'interesting') {
        for (const [other, o] of this.out) if (o.candidate === q.candidate) this.dropped.add(other);
      }
      const r = this.results.get(q.candidate) ?? {};
      r[q.side] = verdict === 'interesting';
      this.results.set(q.candidate, r);
      const complete = !this.pair || !r.variant || r.seed !== undefined;
      if (q.candidate === 0) {
        if (complete) this.originalInteresting = !!(r.variant && (!this.pair || r.seed));
        if (complete && this.originalInteresting) this.queueNext();
        return;
      }
      if (this.pair && q.side === 'variant' && verdict === 'interesting') return this.queue.push(this.query(q.cand, 'seed'));
      if (complete) {
        if (r.variant && (!this.pair || r.seed)) {
          this.accepted++;
          this.best_ = this.pair ? { seed: q.cand.seed, variant: q.cand.variant, diff: '', diff_tokens: 1 } : q.cand.variant;
        }
        this.queueNext();
      }
    }
    queueNext() {
      const c = this.pendingCandidates.shift();
      if (c) this.queue.push(this.query(c, 'variant'));
      else this.finished = true;
    }
    done() {
      return this.originalInteresting === false || (!!this.finished && this.out.size === 0);
    }
    more() {
      return false; // every next() here hands out what there is
    }
    stats() {
      return { queries: log.reports.length, cache_hits: 0, tokens_before: 10, tokens_now: 5, accepted: this.accepted, pass: 'fake', round: 0, done: this.done(), original_interesting: this.originalInteresting };
    }
    best() {
      return this.best_;
    }
    history() {
      return [];
    }
    verdicts() {
      return log.reports.map((r) => (r.verdict === 'interesting' ? '1' : '0')).join('');
    }
    free() {
      log.freed++;
    }
  }
  return { engine: { ...RECIPES, ...(pair ? { PairSession: Fake } : { Session: Fake }) }, log };
}

const hasBug = { kind: 'regex', regex: 'x < 3', streams: ['source'], negate: false, exitOp: 'any' };
const config = (pair, extra = {}) => ({
  mode: pair ? 'pair' : 'single', lang: 'c', strategy: 'perses', k: 2,
  variant: 'int c(int x) { return x < 3; }', seed: pair ? 'int c(int x) { return x > 3; }' : undefined,
  endpoint: { kind: 'none', base: '' }, compiler: '', flags: '', execute: false, timeoutMs: 1000,
  property: hasBug, seedProperty: pair ? { ...hasBug, negate: true } : undefined, ...extra,
});

/** Runs a reduction to its 'finished' message; returns all messages sent. `onMessage(m, r)`
 *  sees each message first. */
function runToEnd(engine, cfg, onMessage = () => {}) {
  return new Promise((resolve) => {
    const messages = [];
    const r = new Reduction(engine, { type: 'reduce', run: 7, config: cfg }, (m) => {
      messages.push(m);
      onMessage(m, r);
      if (m.type === 'finished') resolve(messages);
    });
    r.start();
  });
}

test('a pair: each query is tested with its side’s property and reported by id; originals are shown by side', { timeout: 5000 }, async () => {
  const { engine, log } = fakeEngine({
    pair: true,
    candidates: [
      { variant: 'int c(int x) { return 0; }', seed: 'int c(int x) { return 0; }' }, // the variant fails
      { variant: 'x < 3', seed: 'x > 3' }, // both pass
      { variant: 'x < 3', seed: 'x < 3' }, // the seed fails
    ],
  });
  const messages = await runToEnd(engine, config(true));
  assert.deepEqual(log.configs, [{ lang: 'c', seed: config(true).seed, variant: config(true).variant, strategy: 'perses' }]);
  assert.deepEqual(messages.filter((m) => m.type === 'original').map((m) => m.side).sort(), ['seed', 'variant']);
  assert.ok(messages.every((m) => m.run === 7));
  assert.deepEqual(log.reports.map((r) => `${r.candidate}:${r.side}:${r.verdict}`), [
    '0:variant:interesting', '0:seed:interesting',
    '1:variant:boring',
    '2:variant:interesting', '2:seed:interesting',
    '3:variant:interesting', '3:seed:boring',
  ]);
  const finished = messages.at(-1);
  assert.equal(finished.state, 'done', finished.message);
  assert.deepEqual(finished.best, { seed: 'x > 3', variant: 'x < 3', diff: '', diff_tokens: 1 });
  assert.equal(finished.verdicts, '1101110');
});

test('one program: queries of the variant side, the reducer gets the text', { timeout: 5000 }, async () => {
  const { engine, log } = fakeEngine({ pair: false, candidates: [{ variant: 'int y;' }, { variant: 'x < 3;' }] });
  const messages = await runToEnd(engine, config(false));
  assert.deepEqual(log.configs, [{ lang: 'c', text: config(false).variant, strategy: 'perses' }]);
  assert.deepEqual(messages.filter((m) => m.type === 'original').map((m) => m.side), ['variant']);
  assert.deepEqual(log.reports.map((r) => r.verdict), ['interesting', 'boring', 'interesting']);
  assert.equal(messages.at(-1).state, 'done');
  assert.equal(messages.at(-1).best, 'x < 3;');
});

test('queries the engine stops wanting are dropped, never reported', { timeout: 5000 }, async () => {
  // The original pair's two sides are out together (k = 2); the variant fails, so the seed's
  // verdict no longer matters.
  const { engine, log } = fakeEngine({ pair: true, candidates: [] });
  const messages = await runToEnd(engine, config(true, { variant: 'int c(int x) { return 0; }' }));
  assert.deepEqual(log.handedOut.map((q) => `${q.id}:${q.side}`), ['1:variant', '2:seed']);
  assert.deepEqual(log.reports.map((r) => r.id), [1], 'query 2 was dropped');
  assert.deepEqual(messages.filter((m) => m.type === 'original').map((m) => m.side), ['variant', 'seed']);
  assert.equal(messages.at(-1).state, 'failed');
});

test('an endpoint error pauses the run; on resume the failed query is sent again', { timeout: 5000 }, async (t) => {
  const compile = Compiler.prototype.compile;
  t.after(() => (Compiler.prototype.compile = compile));
  let failures = 0;
  Compiler.prototype.compile = function (source, signal) {
    if (source === 'x < 3;' && failures++ === 0) return Promise.reject(new EndpointError('cannot reach whittle serve'));
    return compile.call(this, source, signal);
  };
  const { engine, log } = fakeEngine({ pair: false, candidates: [{ variant: 'x < 3;' }] });
  const messages = await runToEnd(engine, config(false), (m, r) => {
    if (m.type === 'state' && m.state === 'paused') setTimeout(() => r.resume(), 10);
  });
  const states = messages.filter((m) => m.type === 'state').map((m) => `${m.state}${m.message ? `: ${m.message}` : ''}`);
  assert.deepEqual(states, ['running', 'paused: cannot reach whittle serve', 'running']);
  assert.deepEqual(log.handedOut.map((q) => q.id), [1, 2], 'the engine handed the query out once');
  assert.deepEqual(log.reports.map((r) => `${r.id}:${r.verdict}`), ['1:interesting', '2:interesting']);
  assert.equal(messages.at(-1).state, 'done');
  assert.equal(messages.at(-1).best, 'x < 3;');
});

test('an original without its property fails the run with a pointer to the Output tab', { timeout: 5000 }, async () => {
  const { engine } = fakeEngine({ pair: true, candidates: [{ variant: 'x < 3', seed: 'x > 3' }] });
  const messages = await runToEnd(engine, config(true, { seed: 'x < 3 too' }));
  const finished = messages.at(-1);
  assert.equal(finished.state, 'failed');
  assert.match(finished.message, /original pair does not have its properties.*Output tab/);
});

test('an engine that refuses its input fails the run with its message', { timeout: 5000 }, async () => {
  const engine = { Session: class { constructor() { throw new Error('the program does not parse as c (line 2, column 3: …)'); } } };
  const messages = await runToEnd(engine, config(false));
  assert.deepEqual(messages, [{ type: 'finished', state: 'failed', message: 'the program does not parse as c (line 2, column 3: …)', run: 7 }]);
});

test('an adaptive limit: ten times the original’s compile; a candidate past it is not interesting, counted apart, the run goes on', { timeout: 10000 }, async () => {
  // A stand-in compiler: the original takes 150 ms, 'loop' never ends (until its limit).
  const asked = [];
  const compilers = () => ({
    cacheHits: 0,
    compile(text, signal, { timeoutMs = 0, fresh = false } = {}) {
      asked.push({ text, timeoutMs, fresh });
      if (text.includes('loop')) {
        return new Promise((_, reject) => setTimeout(() => reject(new EndpointError(`no answer within ${timeoutMs} ms`, { timedOut: true })), Math.min(timeoutMs, 50)));
      }
      return new Promise((resolve) => setTimeout(() => resolve({ code: 0, stdout: '', stderr: '', asm: '', run: null }), text.includes('int c') ? 150 : 1));
    },
  });
  const { engine, log } = fakeEngine({ pair: false, candidates: [{ variant: 'x < 3; loop' }, { variant: 'x < 3;' }] });
  const messages = await new Promise((resolve) => {
    const all = [];
    new Reduction(engine, { type: 'reduce', run: 7, config: config(false, { adaptive: true, timeoutMs: 60000 }) }, (m) => {
      all.push(m);
      if (m.type === 'finished') resolve(all);
    }, compilers).start();
  });
  const finished = messages.at(-1);
  assert.equal(finished.state, 'done');
  assert.deepEqual(log.reports.map((r) => r.verdict), ['interesting', 'boring', 'interesting']);
  assert.equal(finished.timedOut, 1);
  // (A timer of 150 ms may fire a fraction of a millisecond early by performance.now().)
  assert.ok(finished.limitMs >= 1400 && finished.limitMs < 5000, `limit ${finished.limitMs}`);
  assert.deepEqual(asked.map((a) => [a.timeoutMs > 0, a.fresh]), [[false, true], [false, true], [false, true], [true, false], [true, false]], 'the original timed afresh, three times; the others under the limit');
  assert.ok(!messages.some((m) => m.type === 'state' && m.state === 'paused'), 'a slow candidate pauses nothing');
});

test('a flaky property: the original’s three tests disagree, the run says so, and a step whose yes does not hold again is undone', { timeout: 10000 }, async () => {
  // A stand-in compiler whose stdout says "yes" on a schedule: the original twice of three,
  // the first candidate once and then no more (a flake), the second always.
  const said = new Map();
  const schedule = { 'x < 3;': [true, false], 'int c(int x) { return x < 3; }': [true, false, true] };
  const compilers = () => ({
    cacheHits: 0,
    compile(text, signal, { fresh = false } = {}) {
      const n = said.get(text) ?? 0;
      said.set(text, n + 1);
      const yes = (schedule[text] ?? [true])[n] ?? true;
      assert.ok(n === 0 || fresh, 'a test asked again is never answered from a cache');
      return Promise.resolve({ code: 0, stdout: yes ? 'yes' : 'no', stderr: '', asm: '', run: null });
    },
  });
  const { engine, log } = fakeEngine({ pair: false, candidates: [{ variant: 'x < 3;' }, { variant: 'x < 3' }] });
  const property = { kind: 'regex', regex: 'yes', streams: ['stdout'], negate: false, exitOp: 'any' };
  const messages = await new Promise((resolve) => {
    const all = [];
    new Reduction(engine, { type: 'reduce', run: 7, config: config(false, { property }) }, (m) => {
      all.push(m);
      if (m.type === 'finished') resolve(all);
    }, compilers).start();
  });
  const finished = messages.at(-1);
  assert.equal(finished.state, 'done');
  assert.ok(messages.some((m) => m.type === 'notice' && /flaky: 2 of 3 tests of the original/.test(m.message)), JSON.stringify(messages));
  // The original holds (2 of 3); the first candidate's yes does not hold again: undone.
  assert.deepEqual(log.reports.map((r) => r.verdict), ['interesting', 'boring', 'interesting']);
  assert.equal(finished.undone, 1);
  assert.equal(finished.confirm, 2);
  assert.equal(finished.flaky, true);
  assert.equal(said.get('x < 3'), 3, 'a yes confirmed twice more');
  assert.equal(messages.filter((m) => m.type === 'original').length, 1, 'the page sees the original’s answer once');
});

test('a property that holds every time is not confirmed: one test per candidate', { timeout: 10000 }, async () => {
  const asked = [];
  const compilers = () => ({ cacheHits: 0, compile: (text) => (asked.push(text), Promise.resolve({ code: 0, stdout: '', stderr: '', asm: '', run: null })) });
  const { engine } = fakeEngine({ pair: false, candidates: [{ variant: 'x < 3;' }, { variant: 'y;' }] });
  const messages = await new Promise((resolve) => {
    const all = [];
    new Reduction(engine, { type: 'reduce', run: 7, config: config(false) }, (m) => {
      all.push(m);
      if (m.type === 'finished') resolve(all);
    }, compilers).start();
  });
  assert.equal(messages.at(-1).state, 'done');
  assert.equal(messages.at(-1).undone, undefined);
  assert.deepEqual(asked.slice(3), ['x < 3;', 'y;']);
});


/** Runs a reduction with a stand-in compiler to its end; returns its messages. */
function runWith(engine, cfg, compilers) {
  return new Promise((resolve) => {
    const all = [];
    new Reduction(engine, { type: 'reduce', run: 7, config: cfg }, (m) => {
      all.push(m);
      if (m.type === 'finished') resolve(all);
    }, compilers).start();
  });
}

test('the flags after the program: each tried away on the result, the fewest that keep the property reported', { timeout: 10000 }, async () => {
  // The "warning" needs -Wall, nothing else.
  const asked = [];
  const compilers = (cfg) => ({
    cacheHits: 0,
    compile(text, signal, { flags = null } = {}) {
      const f = flags ?? cfg.flags;
      asked.push({ text, flags });
      const answer = { code: 0, stdout: '', stderr: / -Wall( |$)/.test(` ${f}`) && text.includes('x < 3') ? 'warning: x' : '', asm: '', run: null };
      // (a flag's test takes a while, as a compile does: progress is sent every 100 ms)
      return new Promise((resolve) => setTimeout(() => resolve(answer), flags === null ? 0 : 60));
    },
  });
  const { engine } = fakeEngine({ pair: false, candidates: [{ variant: 'x < 3;' }] });
  const property = { kind: 'regex', regex: 'warning', streams: ['stderr'], negate: false, exitOp: 'any' };
  const messages = await runWith(engine, config(false, { property, flags: '-O2 -Wall -I inc -g', reduceFlags: true }), compilers);
  const finished = messages.at(-1);
  assert.equal(finished.state, 'done');
  assert.deepEqual(finished.flags, { main: '-Wall' });
  assert.equal(finished.flagsTried, 4);
  const tried = asked.filter((a) => a.flags !== null);
  assert.ok(tried.every((a) => a.text === 'x < 3;'), 'the flags are tried on the result');
  assert.deepEqual(tried.map((a) => a.flags), ['-O2 -Wall -I inc', '-O2 -Wall', '-O2', '-Wall']);
  assert.ok(messages.some((m) => m.type === 'progress' && m.flagsTried !== undefined && m.flags), 'progress while trying flags');
});

test('no flag reduction unless asked: the run ends with the program', { timeout: 10000 }, async () => {
  const compilers = () => ({ cacheHits: 0, compile: (text, signal, { flags = null } = {}) => (assert.equal(flags, null), Promise.resolve({ code: 0, stdout: '', stderr: '', asm: '', run: null })) });
  const { engine } = fakeEngine({ pair: false, candidates: [{ variant: 'x < 3;' }] });
  const finished = (await runWith(engine, config(false, { flags: '-O2 -Wall' }), compilers)).at(-1);
  assert.equal(finished.state, 'done');
  assert.equal(finished.flags, undefined);
});

test('a slow compile: kept while the compile is over the factor against its reference; cut at its limit it is slow', { timeout: 10000 }, async () => {
  // Times (ms) of the main compile per program; the reference (-O0) takes 20 ms each time.
  const mainMs = { 'int c(int x) { return x < 3; }': 300, 'x < 3;': 200, 'x;': 50, 'hang;': Infinity };
  const asked = [];
  const compilers = () => ({
    cacheHits: 0,
    compile(text, signal, { step = null, timeoutMs = 0 } = {}) {
      asked.push({ text, step, timeoutMs });
      if (step === 'reference') return Promise.resolve({ code: 0, stdout: '', stderr: '', asm: '', run: null, ms: 20 });
      if (mainMs[text] === Infinity) return Promise.reject(new EndpointError('no answer in time', { timedOut: true }));
      return Promise.resolve({ code: 0, stdout: '', stderr: '', asm: '', run: null, ms: mainMs[text] });
    },
  });
  const { engine, log } = fakeEngine({ pair: false, candidates: [{ variant: 'x;' }, { variant: 'hang;' }, { variant: 'x < 3;' }] });
  const steps = { reference: { compiler: 'cc', flags: '-O0', execute: false } };
  const property = { kind: 'slow', steps, factor: 5, compile: 'cc -O2' };
  const messages = await runWith(engine, config(false, { property, steps, endpoint: { kind: 'whittle', base: '' }, compiler: 'cc', flags: '-O2' }), compilers);
  const finished = messages.at(-1);
  assert.equal(finished.state, 'done', JSON.stringify(finished));
  // 300 / 20 on the original; 50 / 20 is not over 5; cut at the limit is slow; 200 / 20 is.
  assert.deepEqual(log.reports.map((r) => r.verdict), ['interesting', 'boring', 'interesting', 'interesting']);
  const hang = asked.find((a) => a.text === 'hang;' && a.step === null);
  assert.ok(Math.abs(hang.timeoutMs - 1600) < 1, `the limit: twice the original's slowest and a second (${hang.timeoutMs})`);
});

test('a slow compile the original does not have: the run fails saying how slow it was', { timeout: 10000 }, async () => {
  const compilers = () => ({ cacheHits: 0, compile: (text, signal, { step = null } = {}) => Promise.resolve({ code: 0, stdout: '', stderr: '', asm: '', run: null, ms: step ? 100 : 150 }) });
  const { engine } = fakeEngine({ pair: false, candidates: [{ variant: 'x;' }] });
  const steps = { reference: { compiler: 'cc', flags: '-O0', execute: false } };
  const finished = (await runWith(engine, config(false, { property: { kind: 'slow', steps, factor: 5, compile: 'cc -O2' }, steps }), compilers)).at(-1);
  assert.equal(finished.state, 'failed');
  assert.match(finished.message, /takes 0\.15 s, only 1\.5 times the 0\.10 s of `cc -O0`: give a factor below that/);
});

test('one program with files beside it is reduced with them: each compile gets its candidate tree, the result its files', { timeout: 30000 }, async () => {
  const program = '#include "util.h"\n#include "spare.h"\nint f(int x) { int unused = 3; return x + N; }\nint g(void) { return 1; }\n';
  const files = [
    { filename: 'util.h', contents: '#define N 5\nint helper(int);\nint other(void);\n' },
    { filename: 'spare.h', contents: 'int spare_a;\nint spare_b;\n' },
    { filename: 'notes.txt', contents: 'nothing needs these notes\n' },
  ];
  // A stand-in compiler: it warns when the program uses N and a file it is given defines it.
  const compiled = [];
  const compilers = () => ({
    cacheHits: 0,
    async compile(source, _signal, { files: beside = null } = {}) {
      compiled.push({ source, files: beside });
      const defined = (beside ?? []).some((f) => /#define N\b/.test(f.contents));
      return { code: 0, stdout: '', stderr: defined && /\bN\b/.test(source) ? 'warning: N is used' : '', asm: '', run: null };
    },
  });
  const property = { kind: 'regex', regex: 'N is used', streams: ['stderr'], negate: false, exitOf: 'none', exitOp: 'eq', exitValue: 0 };
  const messages = await new Promise((resolve) => {
    const seen = [];
    const cfg = { ...config(false, { property }), variant: program, files };
    const r = new Reduction(wasm, { type: 'reduce', run: 7, config: cfg }, (m) => {
      seen.push(m);
      if (m.type === 'finished') resolve(seen);
    }, compilers);
    r.start();
  });
  const end = messages.at(-1);
  assert.equal(end.state, 'done', end.message);
  // Every compile got a whole candidate tree: the program apart, the others as files.
  assert.ok(compiled.length > 5 && compiled.every((c) => Array.isArray(c.files)), JSON.stringify(compiled.slice(0, 2)));
  assert.ok(compiled.some((c) => c.files.length < files.length), 'some candidates lost a file');
  // The result: the program and the one file it needs, each smaller.
  assert.match(end.best, /\bN\b/);
  assert.ok(end.best.length < program.length / 2, end.best);
  assert.deepEqual(end.files.map((f) => f.filename), ['util.h']);
  assert.match(end.files[0].contents, /#define N/);
  assert.ok(end.files[0].contents.length < files[0].contents.length, end.files[0].contents);
});
