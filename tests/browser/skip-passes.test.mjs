// The settings panel's "Skip passes": a link's skipped passes show in the field and leave the
// reduction without them; an unknown name stops the run with the valid ones.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import { decodeLink, launchBrowser, openPage, startServer } from './harness.mjs';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(() => browser?.close());

const encodeHash = (state) => `#v1,${deflateRawSync(Buffer.from(JSON.stringify(state))).toString('base64url')}`;

/** A link reducing a small program in the page: the property is that a function still returns 42. */
const linkState = (skipPasses) => ({
  mode: 'single', lang: 'c', strategy: 'perses', skipPasses,
  variant: 'int keep_me(int unused) { return 42; }\nint other(int x) { return x + 1; }\n',
  endpoint: { kind: 'none', base: '' }, compiler: '', flags: '', execute: false,
  property: { kind: 'js', js: '(result, input) => /\\w\\(.*\\) *\\{ *return 42/.test(input)' },
  settings: { k: 1, timeoutS: 10, shareVerdicts: true },
});

async function reduce(page) {
  await page.click('#js-run');
  await page.click('#reduce');
  await page.waitForFunction(() => /^(done|failed|cannot)/.test(document.querySelector('#status').textContent), null, { polling: 100, timeout: 60000 });
  return page.textContent('#status');
}

test('skipped passes from a link show in the field and are left out of the reduction', async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const page = await openPage(browser, `${server.url}${encodeHash(linkState('rename, types'))}`);
  assert.equal(await page.inputValue('#skip-passes'), 'rename, types');
  const status = await reduce(page);
  assert.match(status, /^done/, status);
  const best = await page.evaluate(() => window.whittle.result());
  assert.match(JSON.stringify(best), /keep_me\(/, 'not renamed');
  // The field is part of the state links carry.
  await page.fill('#skip-passes', 'rename');
  await page.dispatchEvent('#skip-passes', 'change');
  assert.equal((await page.evaluate(() => window.whittle.state())).skipPasses, 'rename');
  assert.equal(decodeLink(await page.evaluate(() => window.whittle.shareLink())).skipPasses, 'rename');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('an unknown pass name stops the run with the valid names', async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const page = await openPage(browser, `${server.url}${encodeHash(linkState('renames'))}`);
  const status = await reduce(page);
  assert.match(status, /unknown pass `renames`: use comments, perses, .*update, .* chunks, unused, bodies, terminators, chains, extensions, roots, clauses, file-scope, bare-field, delete-file, .* or make-flags/, status);
  await page.close();
});
