// Issue 30, item 6: generator mode's example comes with its property and endpoint (no
// compiler; the output's two lines equal and holding a c), the C samples' setup comes back
// with the other modes, a person's own setup always stays, and the trace shows the values
// drawn (letter = "c"), not only the choice indices.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { finished, launchBrowser, openPage, startServer } from './harness.mjs';

let server;
let browser;
before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

test('the password example checks and reduces as it comes; the trace shows the letters', async () => {
  const page = await openPage(browser, server.url);
  await page.selectOption('#mode', 'generator');
  assert.equal(await page.inputValue('#endpoint'), 'none');
  assert.equal(await page.inputValue('#prop-regex'), '^(\\w*c\\w*)\\n\\1\\n$');
  const state = await page.evaluate(() => window.whittle.state());
  assert.deepEqual(state.property.streams, ['source']);
  assert.equal(state.property.exitOp, 'any');

  await page.click('#check');
  await page.waitForFunction(() => /property/.test(document.querySelector('#check-result').textContent), null, { timeout: 30000 });
  assert.match(await page.textContent('#check-result'), /✓ has the property/);
  const box = await page.$eval('#check-result', (e) => e.scrollWidth <= e.clientWidth + 1);
  assert.ok(box, 'the check result is not clipped');

  await page.click('#reduce');
  await finished(page);
  assert.equal(await page.evaluate(() => window.whittle.result()), 'c\nc\n');
  const letters = await page.$$eval('#generator-trace li[data-kind=int] > .trace-node', (ns) => ns.map((n) => n.textContent));
  assert.deepEqual(letters, ['letter = "a" (choice 0)', 'letter = "b" (choice 1)', 'letter = "c" (choice 2)']);

  // Back to one program: the C sample's setup (gcc's warning over stderr, whittle serve).
  await page.selectOption('#mode', 'single');
  assert.equal(await page.inputValue('#endpoint'), 'whittle');
  assert.equal(await page.inputValue('#prop-regex'), 'makes integer from pointer without a cast');
  await page.waitForFunction(() => document.querySelector('#compiler').options.length > 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a property the person wrote stays when the mode changes', async () => {
  const page = await openPage(browser, server.url);
  await page.fill('#prop-regex', 'my own regex');
  await page.selectOption('#mode', 'generator');
  assert.equal(await page.inputValue('#prop-regex'), 'my own regex');
  assert.equal(await page.inputValue('#endpoint'), 'whittle');
  await page.close();
});
