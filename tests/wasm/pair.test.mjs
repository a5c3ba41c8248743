// The wasm engine's PairReducer, driven from JavaScript as the playground's worker drives it:
// candidates of two sides, per-side and whole-pair reports, stats, best, replay.
// Needs web/pkg (scripts/build-wasm.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const wasm = await import(join(ROOT, 'web', 'pkg', 'whittle.js'));
wasm.initSync({ module: readFileSync(join(ROOT, 'web', 'pkg', 'whittle_bg.wasm')) });

const SEED = `int a(int x) { return x + 1; }
int c(int x) {
  if (x > 3)
    return 1;
  return 0;
}
int main(void) { return a(1) + c(3); }
`;
const VARIANT = SEED.replace('x + 1', 'x - 1').replace('x > 3', 'x < 3').replace('a(1)', 'a(2)');
const seedOk = (t) => !t.includes('x < 3') && t.includes('c(');
const variantOk = (t) => t.includes('x < 3') && t.includes('c(');

/** Runs a reducer to its end, `k` candidates at a time; `perSide` reports each side. */
function drive(r, k, perSide) {
  const v = (ok) => (ok ? 'interesting' : 'boring');
  let queries = 0;
  while (!r.done()) {
    const batch = r.next(k);
    for (const c of batch) {
      assert.equal(typeof c.seed, 'string');
      assert.equal(typeof c.variant, 'string');
      if (perSide) {
        if (c.test_variant) r.reportSide(c.id, 'variant', v(variantOk(c.variant)));
        if (c.test_seed && r.wantsSide(c.id, 'seed')) r.reportSide(c.id, 'seed', v(seedOk(c.seed)));
      } else {
        r.report(c.id, v((!c.test_seed || seedOk(c.seed)) && (!c.test_variant || variantOk(c.variant))));
      }
      queries += 1;
    }
    assert.ok(queries < 10000, 'the reduction should end');
  }
  return r;
}

test('PairReducer minimizes both programs and their difference', () => {
  const r = drive(new wasm.PairReducer({ lang: 'c', seed: SEED, variant: VARIANT }), 2, true);
  const best = r.best();
  assert.ok(seedOk(best.seed) && variantOk(best.variant), JSON.stringify(best));
  assert.equal(best.variant, best.seed.replace('x > 3', 'x < 3'));
  assert.equal(best.diff_tokens, 2);
  assert.match(best.diff, /^-.*x > 3/m);
  const s = r.stats();
  assert.equal(s.diff_tokens_after, 2);
  assert.ok(s.diff_tokens_before > 2);
  assert.equal(s.seed_queries + s.variant_queries, s.queries);
  assert.equal(s.invalid_queries, 0);
  assert.ok(r.history().length > 0);
});

test('the same pair for per-side and whole-pair reports, and by replay', () => {
  const a = drive(new wasm.PairReducer({ seed: SEED, variant: VARIANT }), 1, true);
  const b = drive(new wasm.PairReducer({ seed: SEED, variant: VARIANT }), 4, false);
  assert.deepEqual(b.best(), a.best());
  assert.equal(b.verdicts(), a.verdicts());
  const r = wasm.PairReducer.replay({ seed: SEED, variant: VARIANT }, a.verdicts());
  while (!r.done()) r.step(20);
  assert.deepEqual(r.best(), a.best());
});

test('PairReducer says what is wrong with its input', () => {
  assert.throws(() => new wasm.PairReducer({ lang: 'c', seed: SEED, variant: 'int main( {' }), /variant does not parse/);
  const r = new wasm.PairReducer({ lang: 'c', seed: SEED, variant: VARIANT });
  assert.throws(() => r.reportSide(1, 'left', 'interesting'), /unknown side/);
});
