// A permalink is a file a stranger hands you: in headless chromium against `whittle serve` on
// 127.0.0.1, a link's page shows what the link asks (execution, flags, compiler, endpoint,
// JavaScript) and neither compiles, nor contacts the link's endpoint (not even for the
// compiler list), until the person allows it once; an embed only replays and never compiles.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { deflateRawSync } from 'node:zlib';
import { decodeLink, launchBrowser, openPage as open, startServer } from './harness.mjs';

// Permalinks are `#v1,` + base64url(deflate-raw(JSON)).
const encodeHash = (state) => `#v1,${deflateRawSync(Buffer.from(JSON.stringify(state))).toString('base64url')}`;

const PROGRAM = `#include <stdlib.h>
int helper(int x) { return x * 2; }
int other(int y) { return y + 1; }
int main(void) {
  int a = helper(3);
  int b = other(a);
  if (b > 100) abort();
  return 0;
}
`;

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(() => browser?.close());

/** A page with its requests counted: compile requests and compiler lists on any origin, and
 *  every request to `watch` (an origin a link names). */
const openPage = (url, { watch = null } = {}) =>
  open(browser, url, (page) => {
    page.compiles = [];
    page.lists = [];
    page.watched = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname.startsWith('/api/compiler/')) page.compiles.push(r.url());
      if (u.pathname.startsWith('/api/compilers')) page.lists.push(r.url());
      if (watch && u.origin === watch) page.watched.push(`${r.method()} ${r.url()}`);
    });
  });

/** A stand-in for a Compiler Explorer API (on 127.0.0.1) that records every request it gets. */
async function startStandIn() {
  const seen = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}`);
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Access-Control-Allow-Headers', 'content-type, accept, x-whittle-job');
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST');
      if (req.method === 'OPTIONS') {
        res.writeHead(204);
        return res.end();
      }
      res.setHeader('Content-Type', 'application/json');
      if (req.url.startsWith('/api/compilers')) return res.end(JSON.stringify([{ id: 'fake', name: 'fake cc', lang: 'c' }]));
      res.end(JSON.stringify({ code: 0, stdout: [], stderr: [{ text: 'warning: fake' }], asm: [] }));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}`;
  return { url, seen, stop: () => new Promise((r) => server.close(r)) };
}

const regexOverSource = { kind: 'regex', regex: 'abort', streams: ['source'], negate: false, exitOf: 'compile', exitOp: 'any', exitValue: 0 };

/** A link's state: the program, gcc -O2 on this page's whittle serve, execution on. */
const linkState = (extra = {}) => ({
  mode: 'single', lang: 'c', variant: PROGRAM, strategy: 'perses',
  endpoint: { kind: 'whittle', base: '' }, compiler: 'gcc', flags: '-O2', execute: true,
  property: { kind: 'regex', regex: '', streams: ['stderr'], negate: false, exitOf: 'compile', exitOp: 'eq', exitValue: 0 },
  settings: { k: 2, timeoutS: 30, shareVerdicts: true },
  ...extra,
});

const waitCheck = (page, re, timeout = 30000) =>
  page.waitForFunction((src) => new RegExp(src).test(document.querySelector('#check-result').textContent), re.source, { polling: 100, timeout });

test('(a) a link that turns execution on asks before compiling; once allowed, Check compiles', async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const page = await openPage(`${server.url}${encodeHash(linkState())}`);
  // The panel says what the link asks, before anything happens.
  assert.ok(await page.locator('#link-panel').isVisible(), 'the link panel is shown');
  const asks = await page.textContent('#link-requests');
  assert.match(asks, /runs the compiled program/);
  assert.match(asks, /gcc/);
  assert.match(asks, /-O2/);
  assert.match(asks, /this page’s own whittle serve/);
  assert.ok(await page.locator('#link-allow').isVisible());

  await page.click('#check');
  await waitCheck(page, /has not been allowed/, 5000);
  await page.waitForTimeout(1000);
  assert.deepEqual(page.compiles, [], 'no compile request before the link is allowed');
  assert.deepEqual(page.lists, [], 'no compiler list either');
  assert.equal(await page.textContent('#link-allow'), 'Allow and check');
  // Reduce is held back the same way.
  await page.click('#reduce');
  assert.match(await page.textContent('#status'), /cannot reduce: this link has not been allowed/);
  assert.deepEqual(page.compiles, []);

  // Allow once: the action pressed last (Check) runs, and the compiler list loads.
  await page.click('#check');
  await page.click('#link-allow');
  await waitCheck(page, /has the property|does not have the property|threw|cannot|failed|refused/);
  assert.match(await page.textContent('#check-result'), /has the property/, await page.textContent('#check-result'));
  assert.ok(page.compiles.length >= 1, 'Check compiled');
  assert.ok(await page.locator('#link-allow').isHidden(), 'no second confirmation is offered');
  assert.ok(await page.evaluate(() => window.whittle.linkAllowed()));
  for (let i = 0; i < 100 && page.lists.length === 0; i++) await page.waitForTimeout(100);
  assert.ok(page.lists.length >= 1, 'the compiler list loaded once allowed');

  // Editing the state afterwards needs no new confirmation.
  const before = page.compiles.length;
  await page.fill('#flags', '-O1');
  await page.click('#check');
  await waitCheck(page, /has the property/);
  for (let i = 0; i < 50 && page.compiles.length === before; i++) await page.waitForTimeout(100);
  assert.ok(page.compiles.length > before, 'edited flags compile without asking again');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('(b) an embed replays a link with a recording and never compiles nor lists compilers', async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const foreign = await startStandIn();
  t.after(() => foreign.stop());

  // Record a reduction without any endpoint (the property reads the program text).
  const maker = await openPage(server.url);
  await maker.evaluate((text) => window.whittle.setProgram(text), PROGRAM);
  await maker.selectOption('#endpoint', 'none');
  await maker.click('.segmented label:has(input[name=prop-kind][value=regex])');
  await maker.fill('#prop-regex', 'abort');
  for (const s of ['stdout', 'stderr', 'asm', 'run', 'source']) await maker.setChecked(`input[name=stream][value=${s}]`, s === 'source');
  await maker.selectOption('#exit-op', 'any');
  await maker.waitForFunction(() => !document.querySelector('#reduce').disabled && document.querySelector('#reduce').title.startsWith('Reduce while'), null, { polling: 100 });
  await maker.click('#reduce');
  await maker.waitForFunction(() => /^(done|failed)/.test(document.querySelector('#status').textContent), null, { polling: 100, timeout: 60000 });
  assert.match(await maker.textContent('#status'), /^done/);
  const result = await maker.textContent('#result');
  const recorded = decodeLink(await maker.evaluate(() => window.whittle.shareLink()));
  assert.match(recorded.verdicts, /^[01]+$/);
  assert.deepEqual(maker.compiles, []);
  await maker.close();

  // The same recording, with a link that names an outside endpoint and turns execution on.
  const state = { ...recorded, endpoint: { kind: 'ce', base: foreign.url }, compiler: 'fake', execute: true };
  const page = await openPage(`${server.url}e${encodeHash(state)}`, { watch: foreign.url });
  assert.ok(await page.evaluate(() => document.body.classList.contains('embed')));
  await page.waitForFunction(() => /^(done|failed)/.test(document.querySelector('#status').textContent), null, { polling: 100, timeout: 60000 });
  assert.match(await page.textContent('#status'), /^done.*replayed/);
  assert.equal(await page.textContent('#result'), result);
  assert.ok(await page.locator('#link-panel').isHidden(), 'an embed asks nothing: it only replays');
  // Replay again with its button: still nothing leaves the page.
  await page.click('#reduce');
  await page.waitForFunction(() => /^(done|failed)/.test(document.querySelector('#status').textContent), null, { polling: 100, timeout: 60000 });
  await page.waitForTimeout(500);
  assert.deepEqual(page.compiles, [], 'no compile request from an embed');
  assert.deepEqual(page.lists, [], 'no compiler list from an embed');
  assert.deepEqual(page.watched, [], 'no request to the link’s endpoint');
  assert.deepEqual(foreign.seen, [], 'the link’s endpoint heard nothing');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('(b2) an embed of a link without a recording shows the program and points to the playground', async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const page = await openPage(`${server.url}e${encodeHash(linkState())}`);
  assert.ok(await page.locator('#reduce').isHidden(), 'nothing to replay: no Reduce button');
  assert.match(await page.textContent('#notice-text'), /open it in the playground/i);
  assert.match(await page.textContent('#result-info'), /open it in the playground/);
  assert.ok(await page.locator('#open-playground').isVisible());
  assert.match(await page.textContent('#editor .cm-content'), /helper/);
  // Even a scripted Check or Ctrl+Enter does not compile.
  await page.evaluate(() => document.querySelector('#check').click());
  await page.keyboard.press('Control+Enter');
  await page.waitForTimeout(1000);
  assert.deepEqual(page.compiles, []);
  assert.deepEqual(page.lists, []);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('(c) a link naming a Compiler Explorer URL sends it nothing before it is allowed', async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const foreign = await startStandIn();
  t.after(() => foreign.stop());
  const state = linkState({
    endpoint: { kind: 'ce', base: foreign.url }, compiler: 'fake', flags: '-O3', execute: false,
    property: { ...regexOverSource, regex: 'warning: fake', streams: ['stderr'] },
    settings: { k: 1, timeoutS: 10, shareVerdicts: true },
  });
  const page = await openPage(`${server.url}${encodeHash(state)}`, { watch: foreign.url });
  const asks = await page.textContent('#link-requests');
  assert.match(asks, new RegExp(`Compiler Explorer at ${foreign.url.replace(/\./g, '\\.')}`));
  assert.doesNotMatch(asks, /runs the compiled program/, 'execution is off');
  assert.match(await page.textContent('#compilers-error'), /once you allow this link/);
  await page.waitForTimeout(1000);
  await page.click('#reduce');
  await page.click('#check');
  await waitCheck(page, /has not been allowed/, 5000);
  await page.waitForTimeout(1000);
  assert.deepEqual(page.watched, [], 'the page sent the link’s endpoint nothing');
  assert.deepEqual(foreign.seen, [], 'the link’s endpoint heard nothing');
  assert.deepEqual(page.compiles, []);

  // Allowed: the compiler list and the pending check go to the endpoint.
  await page.click('#link-allow');
  await waitCheck(page, /has the property|does not have|cannot|failed|refused/);
  assert.match(await page.textContent('#check-result'), /has the property/, await page.textContent('#check-result'));
  assert.ok(foreign.seen.some((r) => r.startsWith('GET /api/compilers/c')), foreign.seen.join(', '));
  assert.ok(foreign.seen.some((r) => r === 'POST /api/compiler/fake/compile'), foreign.seen.join(', '));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a JavaScript property from a link: the prompt says it runs sandboxed with no network; Run allows the link', async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const state = linkState({
    endpoint: { kind: 'none', base: '' }, compiler: '', execute: false,
    property: { kind: 'js', js: '(result, input) => input.includes("helper")' },
  });
  const page = await openPage(`${server.url}${encodeHash(state)}`);
  assert.match(await page.textContent('#js-trust'), /sandbox.*no network access/s);
  const asks = await page.textContent('#link-requests');
  assert.match(asks, /JavaScript property.*sandbox.*no network access/);
  assert.match(asks, /compiles nothing/);
  await page.click('#check');
  await waitCheck(page, /has not been allowed.*someone else’s code/, 5000);
  await page.click('#js-run'); // one confirmation: the pending check runs
  await waitCheck(page, /has the property/);
  assert.ok(await page.locator('#link-allow').isHidden());
  assert.deepEqual(page.compiles, []);
  await page.close();
});
