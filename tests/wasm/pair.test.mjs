// The wasm engine's PairSession, driven from JavaScript as the playground's worker drives it:
// queries of one side each, in the engine's order (a candidate's variant first, its seed only
// after the variant passed), best with the diff, replay. Needs web/pkg (`npm run build`).
// Run: node --test tests/wasm/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import engine, { drive, replay } from './engine.mjs';

// Seed and variant differ in one spot; the variant has the behaviour, the seed must not.
const SEED = `int a(int x) { return x + 1; }
int c(int x) {
  if (x > 3)
    return 1;
  return 0;
}
int main(void) { return a(1) + c(3); }
`;
const VARIANT = SEED.replace('x > 3', 'x < 3');
const variantOk = (t) => /x\s*<\s*3/.test(t);
const seedOk = (t) => !variantOk(t);
const testSide = (q) => (q.side === 'seed' ? seedOk(q.text) : variantOk(q.text));
const config = () => ({ lang: 'c', seed: SEED, variant: VARIANT });

test('PairSession: variant first, the seed only after the variant passed; best has the diff', () => {
  const r = new engine.PairSession(config());
  // Variant verdicts as they are reported, to check each later batch's seed queries against.
  const variantPassed = new Set();
  const variantFailed = new Set();
  const seedQueried = new Set();
  let first = true;
  const reported = drive(r, 2, (q) => {
    const ok = testSide(q);
    if (q.side === 'variant' && !q.original) (ok ? variantPassed : variantFailed).add(q.candidate);
    return ok;
  }, (batch) => {
    if (first && batch.length > 0) {
      first = false;
      const originals = batch.filter((q) => q.original);
      assert.equal(originals.length, 2, "the original's two sides come together");
      assert.deepEqual(originals.map((q) => q.side).sort(), ['seed', 'variant']);
      assert.equal(originals.find((q) => q.side === 'variant').text, VARIANT);
      assert.equal(originals.find((q) => q.side === 'seed').text, SEED);
    }
    for (const q of batch) {
      assert.ok(q.side === 'seed' || q.side === 'variant', `side: ${q.side}`);
      if (q.original || q.side !== 'seed') continue;
      assert.ok(variantPassed.has(q.candidate), `candidate ${q.candidate}: its seed is handed out only after its variant passed`);
      seedQueried.add(q.candidate);
    }
  });
  assert.ok(variantFailed.size > 0, 'some candidates failed on the variant');
  for (const c of variantFailed) assert.ok(!seedQueried.has(c), `candidate ${c}: no seed query after the variant failed`);
  assert.ok(seedQueried.size > 0, 'some seeds were queried');
  assert.equal(new Set(reported.map((q) => q.id)).size, reported.length, 'query ids are unique');
  assert.ok(reported.filter((q) => q.original).every((q) => q.verdict === 'interesting'));

  const best = r.best();
  assert.ok(variantOk(best.variant) && seedOk(best.seed), JSON.stringify(best));
  assert.ok(best.variant.length < VARIANT.length && best.seed.length < SEED.length, JSON.stringify(best));
  assert.equal(typeof best.diff, 'string');
  assert.match(best.diff, /^-.*x\s*>\s*3/m);
  assert.match(best.diff, /^\+.*x\s*<\s*3/m);
  assert.ok(Number.isInteger(best.diff_tokens) && best.diff_tokens > 0, `diff_tokens: ${best.diff_tokens}`);

  const s = r.stats();
  assert.equal(s.done, true);
  assert.equal(s.original_interesting, true);
  assert.equal(s.diff_tokens_after, best.diff_tokens, 'best() and the stats agree on the difference');
  assert.ok(s.diff_tokens_before >= best.diff_tokens);
  assert.equal(s.queries, reported.length, 'stats count the verdicts reported');
  assert.equal(s.seed_queries + s.variant_queries, s.queries);
  assert.equal(s.seed_queries, reported.filter((q) => q.side === 'seed').length);
  assert.equal(s.invalid_queries, 0);
  assert.ok(r.history().length > 0);
  assert.match(r.verdicts(), /^[01]+$/);
});

test('the same pair for any k, and by replay', () => {
  const a = new engine.PairSession(config());
  drive(a, 1, testSide);
  const b = new engine.PairSession(config());
  drive(b, 4, testSide);
  assert.deepEqual(b.best(), a.best());
  const r = replay(engine.PairSession.replay(config(), a.verdicts()));
  assert.deepEqual(r.best(), a.best());
  assert.equal(r.stats().done, true);
});

test('an original pair whose seed fails its property is reported, and nothing is reduced', () => {
  const r = new engine.PairSession(config());
  drive(r, 2, (q) => (q.side === 'seed' ? false : variantOk(q.text)));
  assert.equal(r.stats().original_interesting, false);
  const best = r.best();
  assert.deepEqual({ seed: best.seed, variant: best.variant }, { seed: SEED, variant: VARIANT });
});

test('PairSession says what is wrong with its input', () => {
  assert.throws(() => new engine.PairSession({ lang: 'c', seed: SEED, variant: 'int main( {', strict: true }), /variant does not parse/);
  assert.throws(() => new engine.PairSession({ lang: 'c', seed: 'int main( {', variant: VARIANT, strict: true }), /seed does not parse/);
  // Not strict, a side the grammar cannot fully parse is reduced tolerantly.
  const tolerant = new engine.PairSession({ lang: 'c', seed: SEED, variant: `${VARIANT}\nint main( {\n` });
  assert.ok(tolerant.stats().diff_tokens_before > 0);
  assert.throws(() => new engine.PairSession({ ...config(), strategy: 'nope' }), /unknown strategy `nope`.*perses/);
});
