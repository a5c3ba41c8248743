// The playground end to end, in headless chromium against `whittle serve` on 127.0.0.1:
// reduce a bench case through the compile API, replay it from its permalink with no
// endpoint, render it embedded, cancel, and survive an endpoint killed mid-run.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { ROOT, decodeLink, freePort, launchBrowser, openPage as open, startServer } from './harness.mjs';

const CASE = join(ROOT, '../shared/bench/cases/int-conversion');
const INPUT = readFileSync(join(CASE, 'input.c'), 'utf8');
const REDUCE_TIMEOUT_MS = 5 * 60 * 1000;

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(() => browser?.close());

/** Runs the case's check.sh on `program` (as input.c in a temp dir); true when it passes. */
function passesCheck(program) {
  const dir = mkdtempSync(join(tmpdir(), 'whittle-check-'));
  try {
    writeFileSync(join(dir, 'input.c'), program);
    execFileSync('sh', [join(CASE, 'check.sh')], { cwd: dir, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Permalinks are `#v1,` + base64url(deflate-raw(JSON)); the tests read and write them too.
const encodeHash = (state) => `#v1,${deflateRawSync(Buffer.from(JSON.stringify(state))).toString('base64url')}`;

/** A page with its /api requests counted. */
const openPage = (url) =>
  open(browser, url, (page) => {
    page.apiRequests = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname.startsWith('/api/compiler/')) page.apiRequests.push(r.url());
    });
  });

/** Sets up the int-conversion case in the form: gcc -O2 -Wall, the regex over stderr, exit 0. */
async function setUpCase(page) {
  await page.evaluate((text) => window.whittle.setProgram(text), INPUT);
  await page.selectOption('#endpoint', 'whittle');
  await page.waitForSelector('#compiler option[value="gcc"]', { state: 'attached' });
  await page.selectOption('#compiler', 'gcc');
  await page.fill('#flags', '-O2 -Wall');
  await page.click('.segmented label:has(input[name=prop-kind][value=regex])');
  await page.fill('#prop-regex', 'makes integer from pointer without a cast');
  for (const s of ['stdout', 'stderr', 'asm', 'run', 'source']) {
    await page.setChecked(`input[name=stream][value=${s}]`, s === 'stderr');
  }
  await page.selectOption('#exit-of', 'compile');
  await page.selectOption('#exit-op', 'eq');
  await page.fill('#exit-value', '0');
  await page.waitForFunction(() => !document.querySelector('#reduce').disabled, null, { polling: 100 });
}

/** Waits until #status matches `re`; on time-out, fails with what it says instead. */
async function statusMatches(page, re, timeout = REDUCE_TIMEOUT_MS) {
  try {
    await page.waitForFunction((src) => new RegExp(src).test(document.querySelector('#status').textContent), re.source, { timeout, polling: 250 });
  } catch (e) {
    const status = await page.textContent('#status').catch(() => '?');
    throw new Error(`#status did not match ${re} within ${timeout} ms; it says: ${status}; queries: ${await page.textContent('#progress-queries').catch(() => '?')}`);
  }
}

const queries = async (page) => Number(await page.textContent('#progress-queries'));

let reduced = null; // (a)'s result and permalink, for (b) and (c)

test('(a) reduces int-conversion with gcc and a regex property; the result passes check.sh', async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const page = await openPage(server.url);
  await setUpCase(page);
  const started = Date.now();
  await page.click('#reduce');
  await statusMatches(page, /done|failed|paused/);
  const status = await page.textContent('#status');
  assert.match(status, /^done/, status);
  const result = await page.textContent('#result');
  const seconds = (Date.now() - started) / 1000;
  console.log(`(a) ${await page.textContent('#progress-tokens')} tokens, ${await queries(page)} queries, ` +
    `${seconds.toFixed(1)} s, ${await page.textContent('#progress-qps')} queries/s (k = 2)`);
  assert.ok(result.length < INPUT.length / 10, `the result is small (${result.length} bytes)`);
  assert.ok(passesCheck(result), `the result passes check.sh:\n${result}`);

  // What each pass did: its queries add up to the run's, and the passes' tokens removed to
  // most of the program's (bodies and unused take the headers in bulk, perses the rest).
  const passes = await page.$$eval('#passes tr', (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.deepEqual(passes[0], ['pass', 'queries', 'accepted', 'tokens removed', 'bytes removed', 's']);
  const perses = passes.find((r) => r[0] === 'perses');
  const removed = passes.slice(1).reduce((n, r) => n + Number(r[3]), 0);
  assert.ok(perses && Number(perses[3]) > 0 && Number(perses[5]) >= 0, JSON.stringify(passes));
  assert.ok(removed > 6000, `tokens removed ${removed}: ${JSON.stringify(passes)}`);
  const sum = passes.slice(1).reduce((n, r) => n + Number(r[1]), 0);
  assert.ok(sum > 0 && sum <= await queries(page), `pass queries ${sum}`);

  // Share, with the recorded verdicts.
  await page.click('#share');
  await page.waitForFunction(() => document.querySelector('#share-link').value.includes('#v1,'), null, { polling: 50 });
  const link = await page.inputValue('#share-link');
  const state = decodeLink(link);
  assert.equal(state.variant, INPUT);
  assert.match(state.verdicts, /^[01]+$/);
  assert.equal(state.compiler, 'gcc');
  assert.equal(state.flags, '-O2 -Wall');
  assert.match(await page.inputValue('#share-embed'), /^<iframe src="http:\/\/127\.0\.0\.1:\d+\/e#v1,/);
  reduced = { result, state };

  // The Diff tab: "Diffing…" at once (the engine's diff of a large program takes a while),
  // then the original against the result, with deletions marked.
  const shown = await page.evaluate(() => {
    document.querySelector('[data-tab=diff]').click();
    return document.querySelector('#diff').textContent;
  });
  assert.equal(shown, 'Diffing…');
  await page.waitForFunction(() => document.querySelector('#diff del, #diff .fold'), null, { polling: 50 });
  assert.doesNotMatch(await page.textContent('#diff'), /^Diffing…$/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('(b) the permalink replays the reduction with the endpoint unreachable', async (t) => {
  assert.ok(reduced, 'needs (a)');
  // The page comes from a fresh server; the link's endpoint is a port nobody listens on.
  const server = await startServer();
  t.after(() => server.stop());
  const dead = await freePort();
  const state = { ...reduced.state, endpoint: { kind: 'ce', base: `http://127.0.0.1:${dead}` } };
  const page = await openPage(`${server.url}${encodeHash(state)}`);
  await statusMatches(page, /done|failed|paused/, 60000);
  assert.match(await page.textContent('#status'), /^done.*replayed/);
  assert.equal(await page.textContent('#result'), reduced.result);
  assert.deepEqual(page.apiRequests, [], 'a replay sends no compile requests');
  await page.close();
});

test('(c) the embed renders read-only with an open-in-playground link, and replays', async (t) => {
  assert.ok(reduced, 'needs (a)');
  const server = await startServer();
  t.after(() => server.stop());
  const hash = encodeHash(reduced.state);
  const page = await openPage(`${server.url}e${hash}`);
  assert.ok(await page.evaluate(() => document.body.classList.contains('embed')));
  const link = page.locator('#open-playground');
  assert.ok(await link.isVisible());
  assert.equal(await link.getAttribute('href'), `/${hash}`);
  assert.equal(await page.getAttribute('#editor .cm-content', 'contenteditable'), 'false');
  assert.ok(!(await page.locator('#sidebar').isVisible()), 'no settings in an embed');
  await statusMatches(page, /done|failed/, 60000);
  assert.equal(await page.textContent('#result'), reduced.result);
  // Embeds never write local storage.
  assert.equal(await page.evaluate(() => localStorage.length), 0);
  await page.close();
});

test('(d) cancel stops the queries', async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const page = await openPage(server.url);
  await setUpCase(page);
  await page.click('#reduce');
  await page.waitForFunction(() => Number(document.querySelector('#progress-queries').textContent) >= 5, null, { polling: 100, timeout: 60000 });
  await page.click('#cancel');
  await statusMatches(page, /cancelled/, 10000);
  const atCancel = page.apiRequests.length;
  await page.waitForTimeout(2000);
  assert.equal(page.apiRequests.length, atCancel, 'no compile request after cancel');
  assert.ok(await page.locator('#reduce').isVisible());
  assert.ok((await page.textContent('#result')).length > 0, 'the best so far is kept');
  await page.close();
});

test('(e) an endpoint killed mid-run pauses with a message; after a restart, Resume finishes', async (t) => {
  const port = await freePort();
  let server = await startServer({ port });
  t.after(() => server.stop());
  const page = await openPage(server.url);
  await setUpCase(page);
  await page.click('#reduce');
  await page.waitForFunction(() => Number(document.querySelector('#progress-queries').textContent) >= 20, null, { polling: 100, timeout: 120000 });
  await server.stop();
  await statusMatches(page, /paused/, 60000);
  const status = await page.textContent('#status');
  assert.match(status, /paused: cannot reach whittle serve/, status);
  assert.ok(await page.locator('#resume').isVisible());
  const before = await queries(page);

  server = await startServer({ port });
  await page.click('#resume');
  await statusMatches(page, /reducing|done/, 10000);
  await statusMatches(page, /done|failed|paused/);
  assert.match(await page.textContent('#status'), /^done/);
  assert.ok(await queries(page) > before);
  const result = await page.textContent('#result');
  assert.ok(passesCheck(result), `the result passes check.sh:\n${result}`);
  if (reduced) assert.equal(result, reduced.result, 'same verdicts, same result as (a)');

  // The best result survives a reload.
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.textContent('#result'), result);
  assert.match(await page.textContent('#notice-text'), /Restored the best result/);
  await page.close();
});

test('a JavaScript property from a link does not run until Run is pressed', async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const state = {
    mode: 'single', lang: 'c', program: 'int main(void) { return 0; }\n', strategy: 'perses',
    endpoint: { kind: 'none', base: '' }, compiler: '', flags: '', execute: false,
    property: { kind: 'js', js: '(result, input) => { throw new Error("ran: " + typeof document) }' },
    settings: { k: 1, timeoutS: 10, shareVerdicts: true },
  };
  const page = await openPage(`${server.url}${encodeHash(state)}`);
  assert.ok(await page.locator('#js-trust').isVisible());
  await page.click('#check');
  assert.match(await page.textContent('#check-result'), /has not been allowed/);
  await page.click('#js-run');
  await page.click('#check');
  await page.waitForFunction(() => /threw/.test(document.querySelector('#check-result').textContent), null, { polling: 100, timeout: 10000 });
  // It ran in the sandbox: no document there, and its error is shown with its message.
  assert.equal(await page.textContent('#check-result'), 'the property threw: ran: undefined');
  await page.close();
});
