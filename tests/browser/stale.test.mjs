// Issue 30, item 5: no stale state. A check result, a run's notice and a restored result
// belong to the program and settings they were made for; a run that failed on its original
// restores nothing; a reload keeps the mode the person chose.
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

/** No endpoint: the property is a regex over the program text (fast, needs no compiler). */
async function textProperty(page, regex) {
  await page.selectOption('#endpoint', 'none');
  await page.fill('#prop-regex', regex);
  for (const s of ['stdout', 'stderr', 'asm', 'run', 'source']) await page.setChecked(`input[name=stream][value=${s}]`, s === 'source');
  await page.selectOption('#exit-op', 'any');
}

const checkResult = (page) => page.textContent('#check-result');
const notice = (page) => page.$eval('#notice', (n) => (n.hidden ? '' : n.textContent));

test('a check result goes when the program or the property changes', async () => {
  const context = await browser.newContext();
  const page = await openPage(context, server.url);
  await textProperty(page, 'not a number');
  await page.click('#check');
  await page.waitForFunction(() => /property/.test(document.querySelector('#check-result').textContent));
  assert.match(await checkResult(page), /✓ has the property/);
  await page.evaluate(() => window.whittle.setProgram('int main(void) { return 0; }\n'));
  await page.waitForFunction(() => document.querySelector('#check-result').textContent === '');
  await page.click('#check');
  await page.waitForFunction(() => /property/.test(document.querySelector('#check-result').textContent));
  assert.match(await checkResult(page), /✗ does not have the property/);
  await page.fill('#prop-regex', 'return');
  assert.equal(await checkResult(page), '', 'a new property: the old verdict is gone');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('restored results belong to their program; a failed run restores nothing; the mode stays', async () => {
  const context = await browser.newContext();
  let page = await openPage(context, server.url);
  await textProperty(page, 'not a number');
  await page.click('#reduce');
  await finished(page);
  assert.match(await page.textContent('#status'), /^done/);
  await page.waitForTimeout(600); // the state is saved after a short pause

  // A reload shows the run's best, with a notice; an edit of the program takes both away.
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.match(await notice(page), /Restored the best result/);
  assert.notEqual(await page.textContent('#result'), '');
  await page.evaluate(() => window.whittle.setProgram('int main(void) { return "not a number"; }\n'));
  assert.equal(await notice(page), '', 'the restored notice went with the program');
  assert.equal(await page.textContent('#result'), '', 'and so did the restored result');

  // A run that fails on its original: nothing to restore after a reload.
  await page.fill('#prop-regex', 'no such text anywhere');
  await page.click('#reduce');
  await finished(page);
  assert.match(await page.textContent('#status'), /^failed/);
  await page.waitForTimeout(600);
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.doesNotMatch(await notice(page), /Restored/);

  // The mode the person chose survives a reload (not the last run's).
  await page.selectOption('#mode', 'pair');
  await page.waitForTimeout(600);
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.inputValue('#mode'), 'pair');
  assert.ok(await page.evaluate(() => document.body.classList.contains('pair')));
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('a new run takes away the last run’s notice', async () => {
  const context = await browser.newContext();
  const page = await openPage(context, server.url);
  await textProperty(page, 'not a number');
  await page.click('#reduce');
  await finished(page);
  await page.waitForTimeout(600);
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.match(await notice(page), /Restored/);
  await page.fill('#prop-regex', 'no such text anywhere'); // same program: the notice stays
  assert.match(await notice(page), /Restored/);
  await page.click('#reduce');
  await finished(page);
  assert.doesNotMatch(await notice(page), /Restored/);
  await context.close();
});
