// Generator mode's pure parts in node: its page state (web/src/state.js: defaults, run keys,
// links, what a generator link asks and when it may run), the seed it starts from, the sample
// generator, and the trace comparison the page draws (web/src/generator-trace.js).
// Run: node --test tests/web/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as S from '../../web/src/state.js';
import { SAMPLE_GENERATOR } from '../../web/src/generator-sample.js';
import { countUnits, markTrace } from '../../web/src/generator-trace.js';

const generatorState = (over = {}) => S.setGenerator(S.setMode(S.defaultState(), 'generator'), over);
const none = (s) => ({ ...s, endpoint: { kind: 'none', base: '' } });

test('the sample generator is examples/generators/password.mjs', () => {
  assert.equal(SAMPLE_GENERATOR, readFileSync(new URL('../../examples/generators/password.mjs', import.meta.url), 'utf8'));
  assert.equal(S.defaultState().generator.source, SAMPLE_GENERATOR);
});

test('generator mode: one side, no syntax to wait for, its own run key', () => {
  const s = generatorState();
  assert.ok(S.isGenerator(s));
  assert.ok(!S.isPair(s));
  assert.deepEqual(S.sidesOf(s), ['variant']);
  assert.equal(S.syntaxBlocker(s, {}), 'the engine is still loading');
  assert.equal(S.syntaxBlocker(s, { variant: { ok: false } }), null, 'the hidden program’s syntax does not matter');
  // The run key follows the generator and its settings, not the program.
  assert.equal(S.runKey(S.setText(s, 'variant', 'x')), S.runKey(s));
  for (const change of [{ source: 'x' }, { rngSeed: '3' }, { align: 'halt' }, { trace: 'ddmin' }]) {
    assert.notEqual(S.runKey(S.setGenerator(s, change)), S.runKey(s), JSON.stringify(change));
  }
  const config = S.reduceConfig(s, 'c');
  assert.equal(config.mode, 'generator');
  assert.deepEqual(config.generator, s.generator);
  assert.equal(S.reduceConfig(S.defaultState(), 'c').generator, undefined);
});

test('the random seed: the state’s, else the module’s, else 0; anything else is an error', () => {
  assert.equal(S.generatorRngSeed('', 482835), 482835);
  assert.equal(S.generatorRngSeed(' 7 ', 482835), 7);
  assert.equal(S.generatorRngSeed(12, undefined), 12);
  assert.equal(S.generatorRngSeed('', undefined), 0);
  assert.throws(() => S.generatorRngSeed('-1'), /whole number/);
  assert.throws(() => S.generatorRngSeed('1e3'), /whole number/);
  assert.throws(() => S.generatorRngSeed('', 'abc'), /whole number/);
  assert.throws(() => S.generatorRngSeed('99999999999999999999'), /whole number/);
});

test('a generator link carries the generator and its verdicts, not a program, and comes back whole', () => {
  const s = generatorState({ rngSeed: '5', align: 'bypass' });
  let run = S.startRun(s, null, { lang: 'c' });
  assert.equal(run.generator, true);
  assert.equal(run.original.variant, null, 'the original is the generator’s output, reported by the worker');
  run = S.runMessage(run, { type: 'generated', run: run.id, original: 'abc\nabc\n', trace: { nodes: [] } });
  assert.equal(run.original.variant, 'abc\nabc\n');
  const stats = { tokens_before: 8, tokens_now: 4, queries: 3, accepted: 1 };
  run = S.runMessage(run, { type: 'finished', run: run.id, state: 'done', best: 'c\nc\n', stats, verdicts: '101', trace: { nodes: [1] } });
  assert.deepEqual(run.trace, { nodes: [1] });
  const shared = S.shareableState(s, { run, engineId: 'e1' });
  assert.equal(shared.verdicts, '101');
  assert.ok(!('variant' in shared));
  assert.deepEqual(shared.generator, s.generator);
  const back = S.fromLink(JSON.parse(JSON.stringify(shared)));
  assert.equal(back.state.mode, 'generator');
  assert.deepEqual(back.state.generator, s.generator);
  assert.equal(S.runKey(back.state), S.runKey(s), 'the link’s verdicts fit the state it opens');
  // Other modes' links carry no generator; old links without one get the default.
  assert.ok(!('generator' in S.shareableState(S.defaultState())));
  assert.deepEqual(S.withDefaults({ mode: 'single' }).generator, S.defaultState().generator);
  assert.equal(S.withDefaults({ mode: 'generator', generator: { seed: '5' } }).generator.rngSeed, '5', 'an older link’s random seed');
  assert.equal(S.withDefaults({ mode: 'sideways' }).mode, 'single');
  // What local storage keeps of the best comes back as a generator run.
  const restored = S.restoredRun(S.bestRecord(run, true, 'now'));
  assert.equal(restored.generator, true);
});

test('a generator link asks first, even to replay; a generator the person edited is theirs', () => {
  const s = none(generatorState());
  const asks = S.linkRequests(s);
  const gen = asks.find((a) => a.key === 'generator');
  assert.ok(gen?.warn, 'the generator is listed as a warning');
  assert.match(gen.text, /in a sandbox.*no network access/);
  assert.ok(!asks.some((a) => a.key === 'nothing'), 'a generator is code that runs');
  assert.equal(S.needsConsent(s, { untrustedLink: true }), true, 'no endpoint, but a generator: ask');
  assert.equal(S.needsConsent(s, { untrustedLink: true, jsTrusted: true }), false);
  assert.equal(S.needsConsent(s, { untrustedLink: false }), false);
  assert.equal(S.mayReplay(s, { untrustedLink: true }), false, 'a generator’s replay runs it');
  assert.equal(S.mayReplay(s, { untrustedLink: true, jsTrusted: true }), true);
  assert.equal(S.mayReplay(none(S.defaultState()), { untrustedLink: true }), true, 'other replays run no code of the link');
  assert.match(S.blocker(s, { reports: { variant: { ok: true } }, jsTrusted: false, untrustedLink: true }), /generator has not been allowed/);
  assert.equal(S.blocker(s, { reports: { variant: { ok: true } }, jsTrusted: true, untrustedLink: true }), null);
  assert.ok(S.runsCode(s));
  assert.ok(!S.runsCode(none(S.defaultState())));
});

// The password generator's traces: "abc" (three iterations) and its reduction to "c".
const letter = (value) => [{ kind: 'int', label: 'letter', value }];
const loop = (...iterations) => ({ nodes: [{ kind: 'loop', label: 'char', iterations }] });

test('the trace comparison strikes out the deleted units', () => {
  const marked = markTrace(loop(letter(0), letter(1), letter(2)), loop(letter(2)));
  assert.equal(marked.exact, true);
  const its = marked.nodes[0].iterations;
  assert.deepEqual(its.map((it) => it.removed), [true, true, false]);
  assert.equal(its[0].nodes[0].removed, true, 'what a deleted unit holds is deleted too');
  assert.deepEqual(countUnits(marked.nodes), { kept: 1, total: 3 });
  // No best yet: everything kept.
  assert.deepEqual(countUnits(markTrace(loop(letter(0), letter(1))).nodes), { kept: 2, total: 2 });
});

test('selections and nested loops: a body not taken any more, an inner iteration gone', () => {
  const orig = {
    nodes: [
      { kind: 'maybe', label: 'head', body: [{ kind: 'int', label: 'n', value: 3 }] },
      { kind: 'maybe', label: 'none', body: null },
      { kind: 'loop', label: 'outer', iterations: [[{ kind: 'loop', label: 'inner', iterations: [letter(1), letter(2)] }], [{ kind: 'loop', label: 'inner', iterations: [letter(3)] }]] },
    ],
  };
  const best = {
    nodes: [
      { kind: 'maybe', label: 'head', body: null },
      { kind: 'maybe', label: 'none', body: null },
      { kind: 'loop', label: 'outer', iterations: [[{ kind: 'loop', label: 'inner', iterations: [letter(2)] }]] },
    ],
  };
  const m = markTrace(orig, best);
  assert.equal(m.exact, true);
  assert.equal(m.nodes[0].body.removed, true);
  assert.equal(m.nodes[1].body, null);
  const outer = m.nodes[2].iterations;
  assert.deepEqual(outer.map((it) => it.removed), [false, true]);
  assert.deepEqual(outer[0].nodes[0].iterations.map((it) => it.removed), [true, false]);
  assert.deepEqual(countUnits(m.nodes), { kept: 2, total: 6 });
});

test('a best that is not the original with units deleted is shown as it is', () => {
  // A re-aligned replay took another value: the comparison gives up and shows the best's tree.
  const m = markTrace(loop(letter(0), letter(1)), loop(letter(5)));
  assert.equal(m.exact, false);
  assert.equal(m.nodes[0].iterations.length, 1);
  assert.equal(m.nodes[0].iterations[0].nodes[0].value, 5);
  assert.deepEqual(countUnits(m.nodes), { kept: 1, total: 1 });
});
