// The engine's core build (web/pkg/whittle_core_bg.wasm, the page's first download): every
// grammar but C++'s, with the same glue as the full build. It names the languages it has,
// still tells C++ when it sees it (so the page can load the full build), and refuses to parse
// it with a message instead of failing inside.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const GLUE = new URL('../../web/pkg/whittle.js', import.meta.url);
const CORE = new URL('../../web/pkg/whittle_core_bg.wasm', import.meta.url);
const FULL = new URL('../../web/pkg/whittle_bg.wasm', import.meta.url);

const { default: init, ...core } = await import(GLUE);
await init({ module_or_path: readFileSync(CORE) });

test('the core build has every grammar but C++, and is smaller', () => {
  assert.deepEqual(core.grammars(), ['c', 'rust', 'javascript', 'java']);
  assert.ok(readFileSync(CORE).length < readFileSync(FULL).length * 0.75);
});

test('it names C++ where it sees it, and refuses to parse it with what to do', () => {
  const cpp = 'template <typename T> class Box { T v; };\nnamespace n { int f(); }\n';
  assert.equal(core.languageOf('auto', cpp), 'cpp');
  assert.equal(core.languageOf('c++', 'int x;'), 'cpp');
  assert.equal(core.languageOf(null, 'int main(void) { return 0; }'), 'c');
  assert.throws(() => core.parse(cpp, 'cpp', false), /no cpp grammar: reload the page/);
  assert.throws(() => core.languageOf('cobol', 'x'), /cobol/);
  // The languages it has parse as in the full build.
  const c = core.parse('int main(void) { return 0; }\n', 'c', false);
  assert.equal(c.ok, true);
  assert.equal(c.lang, 'c');
});
