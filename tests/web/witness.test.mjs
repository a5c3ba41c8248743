// Witness mode (DiWi) and pair mode's automatic seed in node: their page state (web/src/state.js:
// defaults, links old and new, what blocks a run, the worker's config, a run's lifecycle), and
// the worker's loops (witness-search.js, auto-seed.js) driving the real wasm engine (web/pkg,
// `npm run build`) with no endpoint: the property reads the program text, so every mutant
// "compiles". Run: node --test tests/web/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as S from '../../web/src/state.js';
import { decodeState, encodeState } from '../../web/src/permalink.js';
import { WitnessSearch, aboutBug, observed } from '../../web/src/witness-search.js';
import { AutoSeededPair } from '../../web/src/auto-seed.js';
import engine, { WITNESS_PROGRAM as PROGRAM } from '../wasm/engine.mjs';


// --- page state ------------------------------------------------------------------------------

test('a regex property says which compiler messages the bug is about; a function or a negated regex does not', () => {
  const about = aboutBug({ kind: 'regex', regex: 'this .if. clause does not guard' });
  assert.equal(about("<source>:3:1: warning: this 'if' clause does not guard..."), true);
  assert.equal(about('<source>:9:5: warning: unused variable'), false);
  assert.equal(aboutBug({ kind: 'js', js: '() => true' }), undefined);
  assert.equal(aboutBug({ kind: 'regex', regex: 'x', negate: true }), undefined);
  assert.equal(aboutBug({ kind: 'regex', regex: '(' }), undefined, 'a broken regex: no focus');
});

test('witness mode: one program, its property, the search’s settings in the state', () => {
  const s = S.setMode(S.defaultState(), 'witness');
  assert.ok(S.isWitness(s));
  assert.ok(!S.isPair(s) && !S.autoSeeded(s));
  assert.deepEqual(S.sidesOf(s), ['variant']);
  assert.equal(S.sideName(s, 'variant'), 'program');
  assert.deepEqual(s.witness, { rngSeed: 1, budget: 200, autoSeed: false });
  const config = S.reduceConfig(s, 'c');
  assert.equal(config.mode, 'witness');
  assert.deepEqual(config.witness, s.witness);
  assert.equal(config.seedProperty, undefined);
  assert.equal(S.reduceConfig(S.defaultState(), 'c').witness, undefined, 'one program’s reduction needs no search');
  assert.ok(S.MODES.includes('witness'));
});

test('the automatic seed: no seed to parse, no seed property of its own, the search settings go along', () => {
  const pair = S.setMode(S.defaultState(), 'pair');
  const auto = S.setWitness(pair, { autoSeed: true });
  assert.ok(S.autoSeeded(auto) && !S.autoSeeded(pair));
  assert.ok(!S.autoSeeded(S.setMode(auto, 'single')), 'only a pair has a seed to find');
  const reports = { variant: { ok: true }, seed: { ok: false } };
  assert.equal(S.syntaxBlocker(pair, reports), null, 'a pair is reduced tolerantly');
  assert.equal(S.syntaxBlocker(auto, reports), null, 'the search writes the seed');
  assert.match(S.syntaxBlocker(auto, { variant: { ok: false } }), /does not parse/, 'the search needs a whole tree');
  assert.equal(S.syntaxBlocker(auto, { variant: { ok: true } }), null);
  // A JavaScript seed property is not run (the seed's property is derived from the variant's).
  const jsSeed = S.setProperty(auto, 'seed', { kind: 'js', js: '() => true' });
  assert.ok(!S.usesJs(jsSeed));
  assert.ok(S.usesJs(S.setWitness(jsSeed, { autoSeed: false })));
  assert.deepEqual(S.propertySides(auto), ['variant']);
  assert.deepEqual(S.reduceConfig(auto, 'c').witness, auto.witness);
  assert.equal(S.reduceConfig(pair, 'c').witness, undefined);
});

test('links keep the mode and the automatic seed; older links without them open with the defaults', async () => {
  const witness = S.setWitness(S.setMode(S.defaultState(), 'witness'), { budget: 60, rngSeed: 9 });
  const shared = S.shareableState(witness);
  assert.equal(shared.mode, 'witness');
  assert.deepEqual(shared.witness, { rngSeed: 9, budget: 60, autoSeed: false });
  assert.ok(!('seed' in shared) && !('generator' in shared));
  const back = S.fromLink(await decodeState(await encodeState(shared)));
  assert.deepEqual(back.state, witness);

  const auto = S.setWitness(S.setMode(S.defaultState(), 'pair'), { autoSeed: true });
  const again = S.fromLink(await decodeState(await encodeState(S.shareableState(auto))));
  assert.equal(again.state.mode, 'pair');
  assert.equal(again.state.witness.autoSeed, true);

  assert.ok(!('witness' in S.shareableState(S.defaultState())), 'one program’s link carries no search settings');
  // A link from before witness mode: no `witness` at all, and a stranger's wrong types.
  const old = S.fromLink({ mode: 'pair', variant: PROGRAM, seed: 'int x;' });
  assert.deepEqual(old.state.witness, S.DEFAULT_WITNESS);
  const odd = S.fromLink({ mode: 'witness', witness: { autoSeed: 'yes', budget: '9', seed: 3, extra: 1 } });
  assert.deepEqual(odd.state.witness, { rngSeed: 3, budget: 200, autoSeed: false });
  assert.equal(S.fromLink({ mode: 'diwi' }).state.mode, 'single', 'an unknown mode');
  // A witness search records nothing: a link's verdicts do not replay in witness mode.
  assert.equal(S.fromLink({ mode: 'witness', verdicts: '101', engine: 'e' }).link, null);
  assert.deepEqual(S.fromLink({ mode: 'single', verdicts: '101', engine: 'e' }).link, { verdicts: '101', engine: 'e' });
});

test('a witness run: witnesses come in with progress, the end brings them all and the ranking', () => {
  const s = S.setMode(S.defaultState(), 'witness');
  let run = S.startRun(s, null, { lang: 'c' });
  assert.equal(run.witness, true);
  assert.deepEqual(run.witnesses, []);
  const stats = (witnesses) => ({ queries: 5, witnesses, failing: 2, passing: witnesses, rejected: 0, budget: 60, done: false, original: 'failing' });
  const w = (index) => ({ index, text: `w${index}`, changes: [], diff: '' });
  run = S.runMessage(run, { type: 'progress', run: run.id, stats: stats(1), witnesses: [w(0)], ranking: null });
  run = S.runMessage(run, { type: 'progress', run: run.id, stats: stats(1) });
  run = S.runMessage(run, { type: 'progress', run: run.id, stats: stats(3), witnesses: [w(1), w(2)], ranking: { files: [], functions: [] } });
  assert.deepEqual(run.witnesses.map((x) => x.index), [0, 1, 2]);
  assert.deepEqual(run.ranking, { files: [], functions: [] });
  assert.equal(run.best, null);
  run = S.runMessage(run, { type: 'finished', run: run.id, state: 'done', stats: { ...stats(3), done: true }, witnesses: [w(0), w(1), w(2)], ranking: null, rules: [] });
  assert.equal(run.state, 'done');
  assert.deepEqual(run.witnesses.map((x) => x.index), [0, 1, 2], 'the end replaces, not appends');
  assert.equal(run.ranking, null);
  assert.equal(S.shareableState(s, { run }).verdicts, undefined);
});

test('a pair run with an automatic seed: seeding, then the seed it found', () => {
  const s = S.setWitness(S.setMode(S.defaultState(), 'pair'), { autoSeed: true });
  let run = S.startRun(s, null, { lang: 'c' });
  assert.equal(run.seeding, true);
  assert.equal(run.original.seed, null, 'the seed is the search’s to find');
  run = S.runMessage(run, { type: 'seeding', run: run.id, stats: { queries: 3 } });
  assert.deepEqual(run.seedSearch, { queries: 3 });
  run = S.runMessage(run, { type: 'seed', run: run.id, seed: 'int x;', changes: [], stats: { queries: 7 } });
  assert.equal(run.seeding, false);
  assert.equal(run.original.seed, 'int x;');
  assert.deepEqual(run.seedSearch, { queries: 7 });
  // A replay takes the state's seed (the one a search found before).
  const replay = S.startRun(s, run, { lang: 'c', replay: true });
  assert.equal(replay.seeding, false);
  assert.equal(replay.original.seed, s.seed);
});

// --- the worker's loops, on the real engine ----------------------------------------------------

const hasBug = { kind: 'regex', regex: 'c > 10', streams: ['source'], negate: false, exitOp: 'any' };
const config = (extra = {}) => ({
  mode: 'witness', lang: 'c', strategy: 'perses', k: 3, variant: PROGRAM,
  endpoint: { kind: 'none', base: '' }, compiler: '', flags: '', execute: false, timeoutMs: 1000,
  property: hasBug, witness: { rngSeed: 1, budget: 40, autoSeed: false }, ...extra,
});

/** Runs `Run` to its 'finished' message; resolves to all the messages it sent. */
function runToEnd(Run, cfg, type = 'reduce') {
  return new Promise((resolve) => {
    const messages = [];
    const r = new Run(engine, { type, run: 3, config: cfg }, (m) => {
      messages.push(m);
      if (m.type === 'finished') setTimeout(() => resolve(messages), 0);
    });
    r.start();
  });
}

test('observed: coverage when the answer has it, else the assembly as a trace', () => {
  assert.deepEqual(observed({ coverage: { 'a.c': { f: [1] } }, asm: 'mov' }), { coverage: { 'a.c': { f: [1] } } });
  assert.deepEqual(observed({ asm: 'mov\nret' }), { trace: 'mov\nret' });
  assert.deepEqual(observed({ asm: '' }), {});
});

test('the witness search: progress with the new witnesses, the end with all of them', { timeout: 20000 }, async () => {
  const messages = await runToEnd(WitnessSearch, config());
  const finished = messages.at(-1);
  assert.equal(finished.state, 'done', finished.message);
  assert.ok(messages.every((m) => m.run === 3));
  assert.deepEqual(messages.filter((m) => m.type === 'original').map((m) => m.side), ['variant']);
  assert.ok(finished.witnesses.length > 0);
  for (const w of finished.witnesses) assert.ok(!/c > 10/.test(w.text), w.text);
  const streamed = messages.filter((m) => m.type === 'progress').flatMap((m) => m.witnesses ?? []);
  assert.deepEqual(streamed, finished.witnesses.slice(0, streamed.length), 'progress brings each witness once, in order');
  assert.equal(finished.stats.queries, finished.stats.failing + finished.stats.passing + finished.stats.rejected + finished.stats.minimize_queries + 1);
  assert.equal(finished.ranking, null, 'no endpoint, no coverage, no ranking');
  assert.ok(Array.isArray(finished.rules));
});

test('a program without the property ends the search with a pointer to the Output tab', { timeout: 5000 }, async () => {
  const messages = await runToEnd(WitnessSearch, config({ variant: PROGRAM.replace('c > 10', 'c >= 10') }));
  const finished = messages.at(-1);
  assert.equal(finished.state, 'failed');
  assert.match(finished.message, /^the program does not have the property.*Output tab/);
});

test('a program that does not parse, or a replay, fails with what to do', { timeout: 5000 }, async () => {
  const [bad] = await runToEnd(WitnessSearch, config({ variant: 'int main( {' }));
  assert.equal(bad.state, 'failed');
  assert.match(bad.message, /the program does not parse as c .*fix it/);
  const [replay] = await runToEnd(WitnessSearch, config(), 'replay');
  assert.match(replay.message, /no recording to replay/);
});

test('the automatic seed: a witness of the variant becomes the seed of the pair reduction', { timeout: 30000 }, async () => {
  const cfg = config({ mode: 'pair', seed: 'int main( {', seedProperty: { ...hasBug, negate: true }, witness: { rngSeed: 1, budget: 100, autoSeed: true } });
  const messages = await runToEnd(AutoSeededPair, cfg);
  const types = messages.map((m) => m.type);
  const seedAt = types.indexOf('seed');
  assert.ok(seedAt > 0, types.join(' '));
  assert.ok(types.slice(0, seedAt).every((t) => t !== 'progress'), 'the search’s progress is “seeding”');
  const { seed, changes, stats } = messages[seedAt];
  assert.ok(!/c > 10/.test(seed), seed);
  assert.ok(changes.length > 0 && changes.every((c) => c.line === 5));
  assert.ok(stats.queries > 0);
  const finished = messages.at(-1);
  assert.equal(finished.state, 'done', finished.message);
  assert.ok(/c > 10/.test(finished.best.variant) && !/c > 10/.test(finished.best.seed), JSON.stringify(finished.best));
  assert.ok(finished.best.diff_tokens <= 2, `a small difference: ${finished.best.diff}`);
  assert.ok(finished.stats.seed_tokens_before > 0);
});

test('the automatic seed: no witness in the budget fails the run with what to do', { timeout: 10000 }, async () => {
  // Every mutant still "fails": the property reads only `int main`.
  const always = { ...hasBug, regex: 'int main' };
  const cfg = config({ mode: 'pair', seed: '', property: always, witness: { rngSeed: 1, budget: 10, autoSeed: true } });
  const messages = await runToEnd(AutoSeededPair, cfg);
  assert.deepEqual(messages.at(-1).state, 'failed');
  assert.match(messages.at(-1).message, /^no seed found in 10 tests \(9 mutants still had the property, 0 did not compile\): raise the witness budget/);
});
