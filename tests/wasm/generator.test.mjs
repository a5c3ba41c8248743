// The wasm engine's generator API (GeneratorSession), driven from JavaScript as the
// playground's worker drives it: the paper's password generator reduces by re-running it,
// the verdicts replay, and a broken generator says what is wrong. Needs web/pkg.
// Run: node --test tests/wasm/generator.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import engine, { drive, replay } from './engine.mjs';
import * as password from '../../examples/generators/password.mjs';

/** Two equal lines that contain c (the paper's property). */
const twoEqualLinesWithC = (t) => {
  const half = t.length / 2;
  return t.endsWith('\n') && t.slice(0, half) === t.slice(half) && t.includes('c');
};

const config = (over = {}) => ({ rng_seed: password.seed, align: 'realign', trace: 'hdd', ...over });

test('the password generator reduces to c by re-running it, for every alignment and trace strategy', () => {
  for (const align of ['halt', 'bypass', 'realign']) {
    for (const trace of ['hdd', 'ddmin']) {
      const r = new engine.GeneratorSession(config({ align, trace }), password.generate);
      assert.equal(r.original(), 'abc\nabc\n', 'the default seed makes the paper\'s output');
      const queries = drive(r, 2, (q) => twoEqualLinesWithC(q.text));
      assert.equal(queries[0].original, true);
      assert.equal(queries[0].text, 'abc\nabc\n');
      assert.deepEqual(new Set(queries.map((q) => q.side)), new Set(['variant']));
      for (const q of queries) assert.match(q.text, /^([a-z]*)\n\1\n$/, 'every candidate is a valid output: two equal lines');
      assert.equal(r.best(), 'c\nc\n', `${align}/${trace}`);
      const s = r.stats();
      assert.equal(s.done, true);
      assert.equal(s.original_interesting, true);
      assert.equal(s.tokens_before, 8);
      assert.equal(s.tokens_now, 4);
      assert.equal(typeof s.failed_runs, 'number');
      if (trace === 'hdd') {
        assert.equal(s.units_before, 3);
        assert.equal(s.units_now, 1);
      }
      assert.match(r.verdicts(), /^[01]+$/);
    }
  }
});

test('the best trace is a tree of labelled decisions', () => {
  const r = new engine.GeneratorSession(config(), password.generate);
  drive(r, 1, (q) => twoEqualLinesWithC(q.text));
  const original = r.originalTrace();
  assert.equal(original.nodes.length, 1);
  assert.equal(original.nodes[0].kind, 'loop');
  assert.equal(original.nodes[0].label, 'char');
  assert.deepEqual(original.nodes[0].iterations.map((it) => it[0].value), [0, 1, 2]);
  const best = r.trace();
  // A pick from named things (the letters) records the name it picked.
  assert.deepEqual(best, { nodes: [{ kind: 'loop', label: 'char', iterations: [[{ kind: 'int', label: 'letter', value: 2, key: 'c' }]] }] });
});

test('the verdicts replay to the same result with no test', () => {
  const a = new engine.GeneratorSession(config(), password.generate);
  drive(a, 1, (q) => twoEqualLinesWithC(q.text));
  const b = new engine.GeneratorSession(config(), password.generate);
  drive(b, 3, (q) => twoEqualLinesWithC(q.text));
  assert.equal(b.best(), a.best(), 'k does not change the result');
  assert.equal(b.verdicts(), a.verdicts());

  const r = replay(engine.GeneratorSession.replay(config(), password.generate, a.verdicts()));
  assert.equal(r.best(), 'c\nc\n');
  assert.equal(r.stats().done, true);
  assert.deepEqual(r.trace(), a.trace());
});

test('selections, ints and nested loops reduce too', () => {
  // A list of items, each maybe with a tail; the property wants an item "b!" somewhere.
  const generate = (g) => {
    let s = '';
    g.repeat('item', 0, 8, () => {
      s += g.pick('letter', ['a', 'b']);
      g.maybe('tail', () => {
        s += '!'.repeat(g.int('bangs', 1, 3));
      });
      s += ' ';
    });
    return `${s.trim()}\n`;
  };
  let seed = 0;
  for (; seed < 1000; seed++) {
    const out = new engine.GeneratorSession({ rng_seed: seed }, generate).original();
    if (/b!/.test(out) && out.length > 10) break;
  }
  const r = new engine.GeneratorSession({ rng_seed: seed }, generate);
  // A config from before rng_seed names it seed: it still reads.
  assert.equal(new engine.GeneratorSession({ seed }, generate).original(), r.original());
  drive(r, 2, (q) => /b!/.test(q.text));
  assert.match(r.best(), /^b!+\n$/);
});

test('a generator that throws, or breaks the rules, says so from the constructor', () => {
  assert.throws(
    () => new engine.GeneratorSession(config(), () => {
      throw new Error('boom');
    }),
    /the generator failed on its first run \(seed 482835\): the generator threw: boom/,
  );
  assert.throws(() => new engine.GeneratorSession(config(), (g) => g.pick('x', [])), /pick x: a non-empty list/);
  assert.throws(() => new engine.GeneratorSession(config(), (g) => g.pick('two words', ['a'])), /one word without spaces/);
  assert.throws(() => new engine.GeneratorSession(config(), (g) => g.int('n', 3, 1)), /empty range/);
  assert.throws(() => new engine.GeneratorSession(config(), () => 42), /must return a string, not number/);
  assert.throws(() => new engine.GeneratorSession(config(), () => undefined), /returned nothing/);
  assert.throws(() => new engine.GeneratorSession(config(), async () => 'x'), /returned a promise/);
  assert.throws(() => new engine.GeneratorSession(config(), () => String(Math.random())), /not deterministic/);
  assert.throws(() => new engine.GeneratorSession({ rng_seed: 1, align: 'sideways' }, password.generate), /unknown align `sideways`/);
  assert.throws(() => new engine.GeneratorSession({ rng_seed: 1, trace: 'nope' }, password.generate), /unknown trace strategy `nope`/);
  assert.throws(() => new engine.GeneratorSession({ seed: -1 }, password.generate), /bad generator reducer config/);
});

test('a g kept past its run cannot reach the engine', () => {
  let kept = null;
  const r = new engine.GeneratorSession({ rng_seed: 1 }, (g) => {
    kept = g;
    return `${g.int('n', 0, 9)}\n`;
  });
  assert.throws(() => kept.int('n', 0, 9), /belongs to a run that is over/);
  // The reducer still works after that.
  drive(r, 1, () => true);
  assert.equal(r.stats().done, true);
});

test('a halt unwinds the generator even when it catches the error', () => {
  // Under align=halt, a replay that leaves the trace halts; a generator that swallows the
  // error must still end that run (it is skipped, not tested).
  const generate = (g) => {
    let s = '';
    g.repeat('item', 0, 6, (i) => {
      try {
        if (g.maybe('odd')) s += 'o';
        s += g.pick(i % 2 ? 'x' : 'y', ['a', 'b', 'c']);
      } catch {
        s += '?';
      }
    });
    return `${s}\n`;
  };
  const r = new engine.GeneratorSession({ rng_seed: 7, align: 'halt' }, generate);
  const queries = drive(r, 1, (q) => q.text.includes('c') || q.text.includes('b'));
  for (const q of queries) assert.doesNotMatch(q.text, /\?/, 'no halted run is ever tested');
  assert.equal(r.stats().done, true);
});
