// Issue 27, flaky tests in the page: the original is tested three times; when its verdicts
// disagree the run says so, confirms each step afresh, undoes the ones that do not hold, and
// the Progress tab counts them. The result still has the property.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { finished, openPage, startServerAndBrowser, stopServerAndBrowser } from './harness.mjs';

let server;
let browser;
let both;
before(async () => ({ server, browser } = both = await startServerAndBrowser()));
after(() => stopServerAndBrowser(both));

const PROGRAM = 'int unrelated(int a) { return a * 2; }\nint needle(void) { return 7; }\nint main(void) { return unrelated(needle()); }\n';

// Every third test says no, whatever the program: the original's three say yes, yes, no.
const FLAKY = '(result, input) => { globalThis.n = (globalThis.n ?? 0) + 1; return input.includes("needle") && globalThis.n % 3 !== 0; }';

test('a flaky property is said so; steps are confirmed, undone ones counted; the result holds', async () => {
  const page = await openPage(browser, server.url);
  await page.evaluate((text) => window.whittle.setProgram(text), PROGRAM);
  await page.selectOption('#endpoint', 'none');
  await page.click('.segmented label:has(input[name=prop-kind][value=js])');
  await page.fill('#prop-js', FLAKY);
  await page.waitForFunction(() => !document.querySelector('#reduce').disabled, null, { polling: 100 });
  await page.click('#reduce');
  await finished(page);
  assert.match(await page.textContent('#status'), /^done/);
  assert.match(await page.textContent('#notice-text'), /the property is flaky: 2 of 3 tests of the original program said interesting; each step is confirmed 2 more times/);
  const result = await page.textContent('#result');
  assert.match(result, /needle/);
  assert.ok(result.length < PROGRAM.length, result);
  assert.equal(await page.isVisible('#progress-undone-row'), false, 'the row is on the Progress tab');
  await page.click('button[role=tab][data-tab=progress]');
  assert.match(await page.textContent('#progress-undone'), /^[1-9]\d* \(each step confirmed 2 more times\)$/);
  assert.deepEqual(page.errors, []);
  await page.close();
});
