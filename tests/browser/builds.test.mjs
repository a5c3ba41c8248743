// Issue 30, loading faster: the page downloads the engine's core build (every grammar but
// C++'s), and the full build only once a program is C++; parsing and reducing C++ then work
// as before, with nothing lost on the way.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { finished, openPage, startServerAndBrowser, stopServerAndBrowser } from './harness.mjs';

let server;
let browser;
let both;
before(async () => ({ server, browser } = both = await startServerAndBrowser()));
after(() => stopServerAndBrowser(both));

const CPP = `namespace util {
template <typename T> class Box {
public:
  T value;
  T get() const { return value; }
};
}
int needle(int x) { return x + 1; }
int main() {
  util::Box<int> b{41};
  return needle(b.get()) - 42;
}
`;

/** The engine builds the page fetched, by file name. */
const wasmFetched = (page) => page.wasm.map((u) => new URL(u).pathname.split('/').pop());

test('a C program needs only the core build; C++ loads the full one, and reduces', async () => {
  const page = await openPage(browser, server.url, (p) => {
    p.wasm = [];
    p.on('request', (r) => r.url().endsWith('.wasm') && p.wasm.push(r.url()));
  });
  assert.deepEqual(wasmFetched(page), ['whittle_core_bg.wasm']);
  assert.match(await page.textContent('#parse-status'), /^parses/);

  await page.evaluate((text) => window.whittle.setProgram(text), CPP);
  await page.selectOption('#lang', 'cpp');
  await page.waitForFunction(() => /^parses/.test(document.querySelector('#parse-status').textContent) &&
    document.querySelector('#tree')?.textContent.includes('template_declaration'), null, { timeout: 30000, polling: 100 });
  assert.deepEqual(wasmFetched(page), ['whittle_core_bg.wasm', 'whittle_bg.wasm']);

  // Reduce it: the property reads the program (no compiler), which must keep `needle`.
  await page.selectOption('#endpoint', 'none');
  await page.click('.segmented label:has(input[name=prop-kind][value=regex])');
  await page.fill('#prop-regex', 'needle');
  for (const s of ['stdout', 'stderr', 'asm', 'run', 'source']) {
    await page.setChecked(`input[name=stream][value=${s}]`, s === 'source');
  }
  await page.selectOption('#exit-op', 'any');
  await page.waitForFunction(() => !document.querySelector('#reduce').disabled, null, { polling: 100 });
  await page.click('#reduce');
  await finished(page);
  assert.match(await page.textContent('#status'), /^done/);
  const result = await page.textContent('#result');
  assert.match(result, /needle/);
  assert.ok(result.length < CPP.length / 4, result);
  // The full build was fetched once.
  assert.deepEqual(wasmFetched(page), ['whittle_core_bg.wasm', 'whittle_bg.wasm']);
  assert.deepEqual(page.errors, []);
  await page.close();
});
