// A program with a file beside it (a header), end to end in headless chromium against `whittle
// serve` on 127.0.0.1: the file is added in its tab, every compile sends it (the API's
// `files`), the two are reduced together, the result brings back the file left, and a
// permalink carries the file.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeLink, finished, openPage, startServerAndBrowser, stopServerAndBrowser } from './harness.mjs';

const PROGRAM = '#include "util.h"\nint twice(int x) { return 2 * x; }\nint main(void) { return twice(LIMIT); }\n';
// gcc -Wall warns of the header's unused static function, naming the header.
const HEADER = '#define LIMIT 4\nint declared(int a, int b);\nstatic int helper(int v) { return v + LIMIT; }\nstruct spare { int a; int b; };\n';

let env;
before(async () => {
  env = await startServerAndBrowser();
});
after(() => stopServerAndBrowser(env));

test('a header in its own tab goes with every compile, and is reduced with the program', { timeout: 240000 }, async () => {
  const page = await openPage(env.browser, env.server.url, (p) => {
    p.bodies = [];
    p.on('request', (r) => {
      if (new URL(r.url()).pathname.endsWith('/compile')) p.bodies.push(JSON.parse(r.postData() ?? '{}'));
    });
  });
  await page.evaluate((text) => window.whittle.setProgram(text), PROGRAM);
  // A new file, named, with its text.
  await page.click('#file-tabs button:has-text("+ File")');
  await page.fill('#file-name', 'util.h');
  await page.press('#file-name', 'Enter');
  await page.locator('#editor-file .cm-content').fill(HEADER);
  assert.equal(await page.isVisible('#program-editors'), false, 'the file is shown, not the program');
  assert.deepEqual((await page.evaluate(() => window.whittle.state())).files, [{ filename: 'util.h', contents: HEADER }]);
  // A name the endpoint would refuse is not taken.
  await page.fill('#file-name', '../up.h');
  await page.press('#file-name', 'Enter');
  assert.equal((await page.evaluate(() => window.whittle.state())).files[0].filename, 'util.h');
  await page.fill('#file-name', 'util.h');
  // Back to the program: its tab is named as the endpoint names it.
  await page.click('#file-tabs label:has-text("example.c")');
  assert.equal(await page.isVisible('#program-editors'), true);

  await page.selectOption('#endpoint', 'whittle');
  await page.waitForSelector('#compiler option[value="gcc"]', { state: 'attached' });
  await page.selectOption('#compiler', 'gcc');
  await page.fill('#flags', '-O2 -Wall');
  await page.click('.segmented label:has(input[name=prop-kind][value=regex])');
  await page.fill('#prop-regex', 'util\\.h:.*helper. defined but not used');
  for (const s of ['stdout', 'stderr', 'asm', 'run', 'source']) await page.setChecked(`input[name=stream][value=${s}]`, s === 'stderr');
  await page.waitForFunction(() => !document.querySelector('#reduce').disabled, null, { polling: 100 });
  await page.click('#reduce');
  await finished(page, 200000);
  const status = await page.textContent('#status');
  assert.match(status, /^done/, status);

  // Every compile sent a tree: the program as the source, the header (while kept) as a file.
  assert.ok(page.bodies.length > 3 && page.bodies.every((b) => Array.isArray(b.files ?? [])), `${page.bodies.length} compiles`);
  assert.ok(page.bodies[0].files.some((f) => f.filename === 'util.h' && f.contents === HEADER), JSON.stringify(page.bodies[0]));
  // The result shows the program and the header left, each smaller; taken into the editor,
  // the header is the file's tab again.
  const result = await page.textContent('#result');
  assert.match(result, /---- util\.h ----/);
  await page.click('#result-use');
  const after = await page.evaluate(() => window.whittle.state());
  assert.equal(after.files.length, 1, JSON.stringify(after.files));
  assert.match(after.files[0].contents, /helper/);
  assert.ok(after.files[0].contents.length < HEADER.length / 2, after.files[0].contents);
  assert.ok(after.variant.length < PROGRAM.length / 2, after.variant);
  assert.match(after.variant, /#include "util\.h"/);

  // A permalink carries the file; opened, the page shows its tab.
  const url = await page.evaluate(() => window.whittle.shareLink());
  assert.deepEqual(decodeLink(url).files, after.files);
  const opened = await openPage(env.browser, url);
  assert.equal(await opened.textContent('#file-tabs label:nth-of-type(2)'), ' util.h');
  assert.deepEqual(page.errors, []);
  assert.deepEqual(opened.errors, []);
});
