// Loads the wasm engine (web/pkg, wasm-bindgen `--target web` output) in node, for the tests
// in this folder, and drives a reducer the way the playground's worker does.
import { existsSync, readFileSync } from 'node:fs';
import assert from 'node:assert/strict';

const GLUE = new URL('../../web/pkg/whittle.js', import.meta.url);
const WASM = new URL('../../web/pkg/whittle_bg.wasm', import.meta.url);

// A missing build fails the tests with what to do (a static import would only say
// "module not found").
if (!existsSync(GLUE) || !existsSync(WASM)) {
  throw new Error('web/pkg/whittle.js or web/pkg/whittle_bg.wasm is missing: run `npm run build` first (it builds the wasm engine into web/pkg)');
}
const { default: init, ...engine } = await import(GLUE);
await init({ module_or_path: readFileSync(WASM) });

export default engine;

export const verdict = (ok) => (ok ? 'interesting' : 'boring');

/**
 * Runs `reducer` to its end as the worker does: up to `k` queries at a time, each answered
 * with `test(query)` (true: interesting) unless the engine no longer wants it. `onBatch`
 * sees each batch before any of it is reported. Returns the queries reported, in order,
 * each with its verdict.
 */
export function drive(reducer, k, test, onBatch = () => {}) {
  const reported = [];
  for (let empty = 0; !reducer.done(); ) {
    const batch = reducer.next(k);
    assert.ok(Array.isArray(batch), 'next(k) returns an array');
    // The original's sides come together, even past k.
    const fresh = batch.filter((q) => !q.original).length;
    assert.ok(fresh <= k, `next(${k}) returned ${fresh} queries besides the original's`);
    onBatch(batch);
    // Nothing is in flight between batches here, so an empty one is a slice of the engine's
    // own work (e.g. candidates that did not parse); it must end.
    empty = batch.length === 0 ? empty + 1 : 0;
    assert.ok(empty < 10000, 'the engine hands out nothing while nothing is in flight');
    for (const query of batch) {
      if (!reducer.wants(query.id)) continue; // the worker aborts these and reports nothing
      const v = verdict(test(query));
      reducer.report(query.id, v);
      reported.push({ ...query, verdict: v });
    }
    assert.ok(reported.length < 20000, 'the reduction should end');
  }
  return reported;
}

/** Replays a recording to its end with step(n), as the worker does. */
export function replay(reducer) {
  for (let slices = 0; !reducer.done(); slices++) {
    assert.ok(slices < 10000, 'the replay should end');
    const stats = reducer.step(64);
    assert.equal(typeof stats, 'object');
  }
  return reducer;
}

/** A failing program for the witness tests: its "bug" is the comparison `c > 10`. */
export const WITNESS_PROGRAM = `int main(void) {
  int a = 3;
  int b = 4;
  int c = a * b;
  if (c > 10)
    c = c - 2;
  return c + 12345;
}
`;
