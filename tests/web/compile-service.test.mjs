// The page's compile service (web/src/compile-service.js) takes requests from the engine's
// sandbox: a flag reduction's request may leave flags of its step out, never add one.
// Run: node --test tests/web/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompileService, fewer } from '../../web/src/compile-service.js';

test('fewer: the words of the run’s flags with some left out, in their order', () => {
  assert.ok(fewer('-Wall', '-O2 -Wall'));
  assert.ok(fewer('', '-O2'));
  assert.ok(fewer('-I inc -g', '-O2 -I inc -g'));
  assert.ok(!fewer('-Wall -Wall', '-Wall'), 'a flag given twice where the run has it once');
  assert.ok(!fewer('-g -O2', '-O2 -g'), 'another order');
  assert.ok(!fewer('-fplugin=x.so', '-O2'));
});

test('a request’s flags are answered only when they are its step’s with some left out', async () => {
  const answers = [];
  const service = new CompileService({ answer: (m) => answers.push(m), onNotice: () => {} });
  service.start(1, { k: 8, endpoint: { kind: 'none' }, compiler: 'cc', flags: '-O2 -Wall', steps: { b: { compiler: 'cc', flags: '-O0 -g', execute: true } } });
  const ask = (id, more) => service.handle({ type: 'compile', run: 1, id, text: 'int x;', ...more });
  ask(1, { flags: '-Wall' });
  ask(2, { flags: '-Wall -fplugin=evil.so' });
  ask(3, { step: 'b', flags: '-g' });
  ask(4, { step: 'b', flags: '-O2' });
  ask(5, { flags: 5 });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const by = Object.fromEntries(answers.map((a) => [a.id, a]));
  assert.ok(by[1].result, JSON.stringify(by[1]));
  assert.ok(by[3].result, JSON.stringify(by[3]));
  for (const id of [2, 4, 5]) assert.match(by[id].error, /flags that are not the run’s own with some left out/);
});
