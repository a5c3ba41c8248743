// Generator mode (GReduce) in headless chromium against `whittle serve` on 127.0.0.1: the
// paper's password generator (the default generator) with a property over the program text and
// no endpoint reduces "abc\nabc\n" to "c\nc\n" by re-running the generator; its share link
// replays the same result in an embed, with no compile request, once Replay is pressed; and in
// the playground a generator link runs nothing until the person allows it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decodeLink, launchBrowser, openPage as open, ROOT, startServer, finished } from './harness.mjs';

const PASSWORD = readFileSync(`${ROOT}/examples/generators/password.mjs`, 'utf8');

let browser;
let server;
before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

const openPage = (url) =>
  open(browser, url, (page) => {
    page.compiles = []; // compile requests
    page.lists = []; // compiler lists
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname.startsWith('/api/compiler/')) page.compiles.push(r.url());
      if (u.pathname.startsWith('/api/compilers')) page.lists.push(r.url());
    });
  });


let shareLink = null;

test('generator mode reduces the password generator to c by re-running it', async () => {
  const page = await openPage(server.url);
  await page.selectOption('#mode', 'generator');
  assert.ok(await page.evaluate(() => document.body.classList.contains('generator')));
  assert.equal(await page.evaluate(() => window.whittle.generator()), PASSWORD, 'the default generator is examples/generators/password.mjs');
  assert.ok(await page.locator('#editor-generator').isVisible());
  assert.ok(await page.locator('#editor').isHidden());

  // No endpoint: a regex over the program text (two equal lines that contain c).
  await page.selectOption('#endpoint', 'none');
  await page.click('.segmented label:has(input[name=prop-kind][value=regex])');
  await page.fill('#prop-regex', '^(\\w*c\\w*)\\n\\1\\n$');
  for (const s of ['stdout', 'stderr', 'asm', 'run', 'source']) await page.setChecked(`input[name=stream][value=${s}]`, s === 'source');
  await page.selectOption('#exit-op', 'any');

  // Check runs the generator once and tests its output.
  await page.click('#check');
  await page.waitForFunction(() => /✓|✗|threw|not/.test(document.querySelector('#check-result').textContent), null, { polling: 100, timeout: 30000 });
  assert.match(await page.textContent('#check-result'), /✓/);
  assert.equal(await page.textContent('#generator-original'), 'abc\nabc\n');

  await page.waitForFunction(() => !document.querySelector('#reduce').disabled && document.querySelector('#reduce').title.startsWith('Reduce while'), null, { polling: 100 });
  await page.click('#reduce');
  await finished(page);
  assert.match(await page.textContent('#status'), /^done/);
  assert.equal(await page.evaluate(() => window.whittle.result()), 'c\nc\n');
  assert.equal(await page.textContent('#result'), 'c\nc\n');
  assert.equal(await page.textContent('.label:has(+ #progress-tokens)'), 'bytes', 'the progress view counts bytes');
  assert.equal(await page.textContent('#generator-original'), 'abc\nabc\n', 'the original output is shown');
  // The trace: the loop's three iterations, two of them struck out.
  assert.equal(await page.locator('#generator-trace li.unit').count(), 3);
  assert.equal(await page.locator('#generator-trace li.unit.removed').count(), 2);
  assert.match(await page.textContent('#generator-trace-info'), /1 of 3 units kept/);
  assert.deepEqual(await page.evaluate(() => window.whittle.trace()), {
    nodes: [{ kind: 'loop', label: 'char', iterations: [[{ kind: 'int', label: 'letter', value: 2, key: 'c' }]] }],
  });

  shareLink = await page.evaluate(() => window.whittle.shareLink());
  const state = decodeLink(shareLink);
  assert.equal(state.mode, 'generator');
  assert.equal(state.generator.source, PASSWORD);
  assert.match(state.verdicts, /^[01]+$/);
  assert.ok(!('variant' in state), 'a generator link carries the generator, not a program');
  assert.deepEqual(page.compiles, [], 'no compile request without an endpoint');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('its share link replays in an embed, once Replay is pressed, with no compile request', async () => {
  assert.ok(shareLink, 'the first test made the link');
  const hash = shareLink.slice(shareLink.indexOf('#'));
  const page = await openPage(`${server.url}e${hash}`);
  assert.ok(await page.evaluate(() => document.body.classList.contains('embed')));
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.whittle.runState()), null, 'the link’s generator does not run unasked');
  assert.match(await page.textContent('#notice-text'), /generator/);
  await page.click('#reduce'); // Replay
  await finished(page);
  assert.match(await page.textContent('#status'), /^done.*replayed/);
  assert.equal(await page.evaluate(() => window.whittle.result()), 'c\nc\n');
  assert.equal(await page.textContent('#result'), 'c\nc\n');
  assert.deepEqual(page.compiles, [], 'no compile request from an embed');
  assert.deepEqual(page.lists, [], 'no compiler list either');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('in the playground, a generator link asks first, then replays once allowed', async () => {
  const hash = shareLink.slice(shareLink.indexOf('#'));
  const page = await openPage(`${server.url}${hash}`);
  assert.ok(await page.locator('#link-panel').isVisible());
  assert.match(await page.textContent('#link-requests'), /carries a generator/);
  assert.ok(await page.locator('#link-allow').isVisible());
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.whittle.runState()), null, 'nothing runs before Allow');
  await page.click('#link-allow');
  await finished(page);
  assert.match(await page.textContent('#status'), /^done.*replayed/);
  assert.equal(await page.evaluate(() => window.whittle.result()), 'c\nc\n');
  assert.deepEqual(page.compiles, []);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('Cancel stops a generator that never returns: the engine is restarted and works again', async () => {
  const page = await openPage(server.url);
  await page.selectOption('#mode', 'generator');
  await page.selectOption('#endpoint', 'none');
  await page.click('.segmented label:has(input[name=prop-kind][value=regex])');
  await page.fill('#prop-regex', 'x');
  for (const s of ['stdout', 'stderr', 'asm', 'run', 'source']) await page.setChecked(`input[name=stream][value=${s}]`, s === 'source');
  await page.selectOption('#exit-op', 'any');
  // The first run returns "x"; every later one loops for ever, holding the worker.
  await page.evaluate(() => window.whittle.setGenerator(
    'let runs = 0;\nexport function generate(g) {\n  if (runs++ > 0) for (;;) {}\n  let w = "";\n  g.repeat("c", 0, 3, () => { w += "x"; });\n  return w + "x";\n}\n'));
  await page.waitForFunction(() => !document.querySelector('#reduce').disabled && document.querySelector('#reduce').title.startsWith('Reduce while'), null, { polling: 100 });
  await page.click('#reduce');
  await page.waitForFunction(() => !document.querySelector('#cancel').hidden, null, { polling: 100 });
  await page.waitForTimeout(500);
  await page.click('#cancel');
  await page.waitForFunction(() => /engine was restarted/.test(document.querySelector('#status').textContent), null, { polling: 100, timeout: 15000 });
  assert.ok(await page.locator('#reduce').isVisible(), 'a new run may start');
  // The fresh engine answers: the password generator reduces as before.
  await page.evaluate((src) => window.whittle.setGenerator(src), PASSWORD);
  await page.fill('#prop-regex', '^(\\w*c\\w*)\\n\\1\\n$');
  await page.waitForFunction(() => !document.querySelector('#reduce').disabled, null, { polling: 100 });
  await page.click('#reduce');
  await finished(page);
  assert.equal(await page.evaluate(() => window.whittle.result()), 'c\nc\n');
  assert.deepEqual(page.errors, []);
  await page.close();
});
