// The page's slow-compile template and flag reduction (issue 27), in headless chromium: the
// Output tab offers the compile's time as the property (slower than the same compiler at -O0
// by a factor), the reduction keeps what makes the compile slow, and with "Reduce the flags
// too" the Result tab names the fewest flags that keep it slow. The compiler is a stand-in
// Compiler Explorer instance on 127.0.0.1 that takes a second on `volatile` at -O2, 150 ms on
// anything else, and 100 ms at -O0.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseStandIn, finished, launchBrowser, openPage, startServer, startStandIn } from './harness.mjs';

const PROGRAM = `int jump(int n) {
  int i = 0;
again:
  if (i++ < n) goto again;
  return i;
}
int keep(int x) {
  volatile int v = x;
  return v * 2;
}
int main(void) {
  int a = jump(3);
  int b = keep(a);
  return a + b;
}
`;

/** How long the stand-in takes (ms) on `source` with `flags`. */
function delay(source, flags) {
  if (/(^|\s)-O0(\s|$)/.test(flags)) return 100;
  return /(^|\s)-O2(\s|$)/.test(flags) && source.includes('volatile') ? 1000 : 150;
}

let server;
let instance;
let browser;
const flagsSeen = new Set();
before(async () => {
  server = await startServer();
  instance = await startStandIn([{ id: 'slowcc', name: 'a slow compiler', lang: 'c' }], 'slowcc', ({ source, options }) => {
    flagsSeen.add(options.userArguments);
    const answer = { code: 0, stdout: [], stderr: [], asm: [{ text: 'main:' }] };
    return new Promise((resolve) => setTimeout(() => resolve(answer), delay(source, options.userArguments)));
  });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  instance?.close();
  await server?.stop();
});

test('a slow compile picked in the output is kept, and the fewest flags that keep it are named', async () => {
  const page = await openPage(browser, server.url);
  await page.evaluate((text) => window.whittle.setProgram(text), PROGRAM);
  await chooseStandIn(page, instance, 'slowcc');
  await page.fill('#flags', '-g -O2 -Wall');
  await page.click('#check');
  await page.click('[data-tab=output]');
  const pick = page.locator('#output button', { hasText: 'slow compile' });
  await pick.waitFor();
  assert.match(await page.textContent('#output'), /exit code 0, in 1\.\d\d s/, 'the answer says how long it took');
  await pick.click();
  assert.equal(await page.locator('input[name=prop-kind][value=slow]').isChecked(), true);
  assert.equal(await page.inputValue('#slow-factor'), '5');
  assert.equal(await page.inputValue('#slow-flags'), '-O0');
  await page.check('#reduce-flags');

  await page.waitForFunction(() => !document.querySelector('#reduce').disabled, null, { polling: 100 });
  await page.click('#reduce');
  await finished(page, 150000);
  assert.match(await page.textContent('#status'), /^done/);
  const result = await page.evaluate(() => window.whittle.result());
  assert.match(result, /volatile/, result);
  assert.doesNotMatch(result, /goto|jump/, result);
  assert.ok(result.length < PROGRAM.length / 3, result);
  assert.match(await page.textContent('#result-flags-text'), /Fewest flags that keep the property: -O2$/);
  assert.ok(flagsSeen.has('-O0') && flagsSeen.has('-g -O2'), [...flagsSeen].join(' | '));
  await page.click('#result-flags-use');
  assert.equal(await page.inputValue('#flags'), '-O2');
  assert.deepEqual(page.errors, []);
  await page.close();
});
