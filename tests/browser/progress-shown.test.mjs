// Issue 30, item 8: progress wherever something runs. A Check waiting on an endpoint that has
// not answered counts the seconds, and one that cannot reach it says to check again (there is
// nothing to resume); a run not heard from says for how long, its elapsed time ticking; a
// pair's automatic seed search fills the Progress tab; a witness search with no witness shows
// no ranking of ties.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { freePort, openPage, startServerAndBrowser, stopServerAndBrowser } from './harness.mjs';

let server;
let browser;
before(async () => ({ server, browser } = await startServerAndBrowser()));
after(() => stopServerAndBrowser({ server, browser }));

/**
 * A Compiler Explorer stand-in on 127.0.0.1 whose compiles answer after `delayMs` (never, when
 * null) with exit code 0, `stderr` and a coverage of the compiler.
 */
async function startStandIn({ delayMs = null, stderr = 'boom' } = {}) {
  const pending = new Set();
  const srv = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Access-Control-Allow-Headers', 'content-type, accept, x-whittle-job');
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST');
      if (req.method === 'OPTIONS') return res.writeHead(204).end();
      res.setHeader('Content-Type', 'application/json');
      if (req.url.startsWith('/api/compilers')) return res.end(JSON.stringify([{ id: 'fake', name: 'fake cc', lang: 'c' }]));
      if (req.url.startsWith('/api/languages')) return res.end(JSON.stringify([{ id: 'c', defaultCompiler: 'fake' }]));
      pending.add(res);
      if (delayMs === null) return;
      setTimeout(() => {
        pending.delete(res);
        res.end(JSON.stringify({ code: 0, stdout: [], stderr: [{ text: stderr }], asm: [], coverage: { 'cc.c': { parse: [1, 2, 3] } } }));
      }, delayMs);
    });
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const stop = () => {
    for (const res of pending) res.destroy();
    srv.closeAllConnections();
    return new Promise((r) => srv.close(r));
  };
  return { url: `http://127.0.0.1:${srv.address().port}`, stop };
}

/** The form set to the stand-in at `base`, its fake compiler, stderr matching "boom". */
async function useStandIn(page, base) {
  await page.selectOption('#endpoint', 'ce');
  await page.fill('#ce-base', base);
  await page.waitForFunction(() => document.querySelector('#compiler').value === 'fake');
  await page.fill('#prop-regex', 'boom');
  await page.selectOption('#exit-op', 'any');
}

test('a Check and a run waiting on an endpoint that does not answer count the seconds', async (t) => {
  const standIn = await startStandIn({ delayMs: null });
  t.after(() => standIn.stop());
  const page = await openPage(browser, server.url);
  await useStandIn(page, standIn.url);
  await page.click('#check');
  await page.waitForFunction(() => /\b[3-9] s$/.test(document.querySelector('#check-result').textContent), null, { timeout: 10000 });
  assert.match(await page.textContent('#check-result'), /^checking… waiting for Compiler Explorer at http:\/\/127\.0\.0\.1:\d+: \d s$/);

  await page.click('#reduce');
  await page.waitForFunction(() => /nothing heard for [3-9] s$/.test(document.querySelector('#status').textContent), null, { timeout: 10000 });
  assert.match(await page.textContent('#progress-elapsed'), /[1-9]/, 'the elapsed time ticks');
  await page.click('#cancel');
  await page.waitForFunction(() => !/running/.test(document.querySelector('#status').className));
  await page.waitForTimeout(1500);
  assert.doesNotMatch(await page.textContent('#status'), /nothing heard/, 'no counting after the run');
  await page.close();
});

test("a run shows the engine's share of its time, beside the compiles' share", async (t) => {
  // Every compile takes 30 ms: the engine's share is real and well under all of it.
  const standIn = await startStandIn({ delayMs: 30 });
  t.after(() => standIn.stop());
  const page = await openPage(browser, server.url);
  await useStandIn(page, standIn.url);
  await page.click('#reduce');
  await page.waitForFunction(() => /^(done|failed)/.test(document.querySelector('#status').textContent), null, { polling: 100, timeout: 60000 });
  assert.match(await page.textContent('#status'), /^done/);
  const shown = await page.textContent('#progress-engine');
  const m = /^(\d+(?:\.\d)?)% \((\d+(?:\.\d)?) (ms|s)\)$/.exec(shown);
  assert.ok(m, `the engine's share as "N% (time)": ${shown}`);
  const share = Number(m[1]);
  assert.ok(share > 0 && share < 100, `a share between 0 and 100%: ${shown}`);
  await page.close();
});

test('a Check that cannot reach the endpoint says to check again, not to resume', async () => {
  const page = await openPage(browser, server.url);
  const closed = `http://127.0.0.1:${await freePort()}`;
  await page.selectOption('#endpoint', 'ce');
  await page.fill('#ce-base', closed);
  await page.waitForFunction(() => !document.querySelector('#compilers-error').hidden);
  await page.evaluate(() => {
    // (No list: choose a compiler by hand, as for an endpoint that is down for a moment.)
    document.querySelector('#compiler').append(new Option('fake', 'fake', true, true));
    document.querySelector('#compiler').dispatchEvent(new Event('change', { bubbles: true }));
  });
  await page.click('#check');
  await page.waitForFunction(() => /cannot reach/.test(document.querySelector('#check-result').textContent), null, { timeout: 15000 });
  const text = await page.textContent('#check-result');
  assert.match(text, /Check again when it is back/);
  assert.doesNotMatch(text, /[Rr]esume/);
  await page.close();
});

test('the automatic seed search fills the Progress tab', async (t) => {
  const standIn = await startStandIn({ delayMs: 300 });
  t.after(() => standIn.stop());
  const page = await openPage(browser, server.url);
  await page.selectOption('#mode', 'pair');
  await page.setChecked('#auto-seed', true);
  await useStandIn(page, standIn.url);
  // Every mutant keeps "boom": the search runs through its budget, slowly.
  await page.click('#reduce');
  await page.waitForFunction(() => /^\d+ of 200$/.test(document.querySelector('#progress-queries').textContent), null, { timeout: 15000 });
  assert.equal(await page.textContent('#progress-pass'), 'finding a seed');
  assert.equal(await page.isVisible('#progress-queries'), true, 'the Progress tab is shown');
  await page.click('#cancel');
  await page.close();
});

test('a witness search without a witness ranks nothing', async (t) => {
  const standIn = await startStandIn({ delayMs: 0 });
  t.after(() => standIn.stop());
  const page = await openPage(browser, server.url);
  await page.selectOption('#mode', 'witness');
  await useStandIn(page, standIn.url);
  await page.fill('#wit-budget', '6');
  await page.click('#reduce');
  await page.waitForFunction(() => /^(done|failed)/.test(document.querySelector('#status').textContent), null, { timeout: 60000 });
  assert.equal(await page.evaluate(() => window.whittle.witnesses().length), 0);
  assert.ok(await page.evaluate(() => window.whittle.ranking()), 'the endpoint measured coverage: there is a ranking');
  assert.match(await page.textContent('#ranking-info'), /there is no witness/);
  assert.equal(await page.isVisible('#ranking-files'), false, 'no table of ties');
  await page.close();
});
