// The page's wrong-code property tester (web/src/property.js) with the real wasm engine's
// judge, in node: answers stand in for the endpoint's. Without a guard the engine calibrates to
// no reference, which must still count as calibrated. Run: node --test tests/web/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeProperty } from '../../web/src/property.js';

const { default: engine } = await import('../wasm/engine.mjs');

/** An endpoint's answer: the compile's exit code and the run's output. */
const answer = (stdout, code = 0) => ({ code: 0, run: { code, stdout, stderr: '' } });

/** The property's tester over fixed answers for build A (the first) and build B. */
function tester(spec) {
  const property = makeProperty({ kind: 'wrong-code', steps: spec }, { engine });
  return (a, b, original = false) =>
    property.test(a, 'int main() {}', { original, compile: async (step) => ({ b }[step]) });
}

test('a wrong-code property without a guard: calibrated on the original, then builds that disagree are interesting', async () => {
  const test = tester({ a: { compiler: 'tcc', flags: '' }, b: { compiler: 'gcc', flags: '-O0' } });
  await assert.rejects(test(answer('0\n'), answer('1\n')), /only after the original/);
  assert.equal(await test(answer('0\n'), answer('1\n'), true), true);
  assert.equal(await test(answer('0\n'), answer('1\n')), true, 'the runs print different values');
  assert.equal(await test(answer('', 139), answer('')), true, 'one run crashes');
  assert.equal(await test(answer('1\n'), answer('1\n')), false, 'the runs agree');
});
