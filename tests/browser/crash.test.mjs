// The page's crash template (issue 27), in headless chromium: the Output tab offers the
// compiler's crash as the property, with the engine's signature (gcc's internal compiler
// error without its line number), so the reduction keeps that crash and not any crash. The
// compiler is a stand-in Compiler Explorer instance on 127.0.0.1 whose `ice` crashes in
// expand_expr on `volatile` and in fold_binary_loc on `goto`, at a line that changes with the
// program, as a real compiler's crash report does.
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

/** The stand-in compiler's answer for `source`: each crash is gcc's shape (exit 4). */
function compileAnswer(source) {
  const at = (where) => ({
    code: 4,
    stdout: [],
    stderr: [
      { text: '<source>: In function ‘f’:' },
      { text: `<source>:${source.length % 97}:1: internal compiler error: in ${where}, at ${where === 'expand_expr' ? 'expr.cc' : 'fold-const.cc'}:${1000 + source.length}` },
      { text: 'Please submit a full bug report, with preprocessed source.' },
    ],
    asm: [],
  });
  if (source.includes('volatile')) return at('expand_expr');
  if (source.includes('goto')) return at('fold_binary_loc');
  return { code: 0, stdout: [], stderr: [], asm: [{ text: 'main:' }] };
}

let server;
let instance;
let browser;
before(async () => {
  server = await startServer();
  instance = await startStandIn([{ id: 'ice', name: 'a crashing gcc', lang: 'c' }], 'ice', ({ source }) => compileAnswer(source));
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  instance?.close();
  await server?.stop();
});

test('the crash in the output becomes the property with its signature; the reduction keeps that crash', async () => {
  const page = await openPage(browser, server.url);
  await page.evaluate((text) => window.whittle.setProgram(text), PROGRAM);
  await chooseStandIn(page, instance, 'ice');
  await page.click('#check');
  await page.click('[data-tab=output]');
  const pick = page.locator('#output button', { hasText: 'compiler crash' });
  await pick.waitFor();
  assert.match(await pick.textContent(), /internal compiler error: in expand_expr, at expr\.cc”/, 'the signature, without the line');
  await pick.click();
  const regex = await page.inputValue('#prop-regex');
  assert.doesNotMatch(regex, /\d{4}/, `no line number in ${regex}`);
  assert.equal(await page.inputValue('#exit-op'), 'ne');

  await page.waitForFunction(() => !document.querySelector('#reduce').disabled, null, { polling: 100 });
  await page.click('#reduce');
  await finished(page, 120000);
  assert.match(await page.textContent('#status'), /^done/);
  const result = await page.evaluate(() => window.whittle.result());
  // Any crash would let `goto` stand in for `volatile`; the signature keeps expand_expr's.
  assert.match(result, /volatile/, result);
  assert.doesNotMatch(result, /goto|jump/, result);
  assert.ok(result.length < PROGRAM.length / 3, result);
  assert.deepEqual(page.errors, []);
  await page.close();
});
