// The page parses in its Web Worker and shows the same token count as `whittle parse`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT, WHITTLE_BIN, launchBrowser, startServer } from './harness.mjs';

const CASES = join(ROOT, '../shared/bench/cases');

function cliParse(file) {
  return JSON.parse(execFileSync(WHITTLE_BIN, ['parse', file, '--json'], { encoding: 'utf8' }));
}

// What the page's JavaScript and wasm weigh, raw and gzipped (as a gzip-serving host sends them).
function logTransferSizes(paths) {
  const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
  const sum = { js: [0, 0], wasm: [0, 0] };
  for (const path of paths) {
    const file = join(ROOT, path);
    if (!existsSync(file)) continue;
    const bytes = readFileSync(file);
    const kind = path.endsWith('.wasm') ? 'wasm' : 'js';
    sum[kind][0] += bytes.length;
    sum[kind][1] += gzipSync(bytes, { level: 9 }).length;
  }
  console.log(`loaded: JavaScript ${kib(sum.js[0])} (${kib(sum.js[1])} gzipped), wasm ${kib(sum.wasm[0])} (${kib(sum.wasm[1])} gzipped)`);
}

// Puts `text` in the editor and resolves to the page's parse report for it.
async function parseInPage(page, text) {
  const edit = await page.evaluate((t) => {
    window.whittle.setProgram(t);
    return window.whittle.edits();
  }, text);
  await page.waitForSelector(`#token-count[data-edit="${edit}"]`, { timeout: 30000 });
  return {
    tokens: Number(await page.textContent('#token-count')),
    status: await page.textContent('#parse-status'),
    parseMs: Number(await page.getAttribute('#token-count', 'data-parse-ms')),
  };
}

test('the worker parses a C program and agrees with `whittle parse`', async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const page = await browser.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const received = []; // their responses, one per path
  const loaded = new Set(); // paths of the page's own JavaScript and wasm (the worker's too)
  page.on('response', (r) => {
    const path = new URL(r.url()).pathname;
    if (/\.(js|wasm)$/.test(path) && !loaded.has(path)) received.push(r);
    if (/\.(js|wasm)$/.test(path)) loaded.add(path);
  });

  const loadStart = Date.now();
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');
  console.log(`page load to interactive (engine loaded, first parse shown): ${Date.now() - loadStart} ms`);
  logTransferSizes(loaded);
  // What the browser actually received from `whittle serve` (its Content-Encoding and body bytes).
  const sent = { js: [0, new Set()], wasm: [0, new Set()] };
  const unreported = [];
  for (const r of received) {
    const kind = new URL(r.url()).pathname.endsWith('.wasm') ? 'wasm' : 'js';
    const size = (await r.request().sizes()).responseBodySize;
    sent[kind][0] += size;
    if (size === 0) unreported.push(new URL(r.url()).pathname); // Chromium reports 0 for worker scripts
    sent[kind][1].add((await r.allHeaders())['content-encoding'] ?? 'identity');
  }
  const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
  console.log(`transferred: JavaScript ${kib(sent.js[0])} (${[...sent.js[1]]}), wasm ${kib(sent.wasm[0])} (${[...sent.wasm[1]]})` +
    (unreported.length ? `; size not reported for ${unreported.join(', ')}` : ''));

  const file = join(CASES, 'int-conversion/input.c');
  const got = await parseInPage(page, readFileSync(file, 'utf8'));
  const want = cliParse(file);
  assert.equal(got.tokens, want.tokens, 'token count in the page vs `whittle parse --json`');
  assert.match(got.status, /^parses/);

  // A syntax error is reported with its line and column.
  const broken = await parseInPage(page, 'int main(void) {\n  return 0 +;\n}\n');
  assert.match(broken.status, /Syntax error at line 2, column \d+/);
  // ... with the share the grammar covers; one program is still reduced (tolerantly).
  assert.match(broken.status, /the grammar covers \d+\.\d% of the tokens/);
  assert.equal(await page.isDisabled('#reduce'), false, 'a syntax error does not block a reduction');

  // The largest bench file: the parse time measured in the worker.
  const big = join(CASES, 'array-bounds/input.c');
  const bigGot = await parseInPage(page, readFileSync(big, 'utf8'));
  const bigWant = cliParse(big);
  assert.equal(bigGot.tokens, bigWant.tokens);
  console.log(`parse of array-bounds/input.c (${bigWant.bytes} bytes, ${bigWant.tokens} tokens): ` +
    `${bigGot.parseMs.toFixed(1)} ms in the browser's worker, ${bigWant.parse_ms.toFixed(1)} ms natively`);

  assert.deepEqual(pageErrors, []);
});
