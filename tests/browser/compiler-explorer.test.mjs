// Compiler Explorer in and out, in headless chromium against `whittle serve` on 127.0.0.1: a
// Compiler Explorer link (its own encoding: tests/fixtures/compiler-explorer/links.json) with a
// C program, gcc and -O2 -Wall is pasted; the page fills in everything, asks before compiling
// at the link's instance, compiles once; the warning clicked in the output becomes the
// property; the reduction's "Open in Compiler Explorer" link decodes to the reduced program
// with the same compiler and flags. The instance is a stand-in in this test that speaks
// Compiler Explorer's API (compiler `cg152`) by passing compiles on to whittle serve's gcc.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { finished, launchBrowser, openPage, ROOT, startServer } from './harness.mjs';
import { clientStateLink, decodeFragment, readLink, recognise, sessionsOfFragment, settingsOf } from '../../web/src/ce-link.js';

const links = JSON.parse(readFileSync(`${ROOT}/tests/fixtures/compiler-explorer/links.json`, 'utf8'));

let server;
let instance;
let browser;
before(async () => {
  server = await startServer();
  instance = await startInstance(server.url);
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  instance?.close();
  await server?.stop();
});

/** A stand-in Compiler Explorer instance: lists `cg152` for C, compiles with whittle serve's
 *  gcc, resolves the short link /z/known, and records what it is asked. */
async function startInstance(whittle) {
  const seen = [];
  const srv = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', async () => {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Access-Control-Allow-Headers', 'content-type, accept');
      if (req.method === 'OPTIONS') return res.writeHead(204).end();
      seen.push(`${req.method} ${req.url}`);
      res.setHeader('Content-Type', 'application/json');
      if (req.url === '/api/shortlinkinfo/two') return res.end(JSON.stringify(TWO_EDITORS));
      if (req.url === '/api/shortlinkinfo/builds') return res.end(JSON.stringify(TWO_BUILDS));
      if (req.url.startsWith('/api/compilers/c')) return res.end(JSON.stringify([{ id: 'cg152', name: 'x86-64 gcc 15.2', lang: 'c' }]));
      if (req.url === '/api/compiler/cg152/compile') {
        const answer = await fetch(new URL('api/compiler/gcc/compile', whittle), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
        return res.writeHead(answer.status).end(await answer.text());
      }
      res.writeHead(404).end('{}');
    });
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const kill = () => {
    srv.close();
    srv.closeAllConnections();
  };
  return { base: `http://127.0.0.1:${srv.address().port}`, seen, close: () => srv.close(), kill };
}

/** Client state with two C editors, as /api/shortlinkinfo answers. */
const TWO_EDITORS = {
  sessions: [
    { id: 1, language: 'c', source: 'int first;\n', compilers: [{ id: 'cg152', options: '-O1', filters: { execute: false } }], executors: [] },
    { id: 2, language: 'c', source: 'int main(void) { return 2; }\n', compilers: [], executors: [{ compiler: { id: 'cg152', options: '-O3 -Wextra' }, arguments: '' }] },
  ],
  trees: [],
};

/** Client state with one C editor and two builds of it that disagree: -ffast-math lets gcc
 *  fold (x + y) - x to y, which is 0 without it. */
const TWO_BUILDS = {
  sessions: [{
    id: 1,
    language: 'c',
    source: '#include <stdio.h>\nstatic int twice(int a) { return 2 * a; }\nint main(void) {\n  int t = twice(21);\n  double x = 1e16, y = 1.0;\n  printf("%g %d\\n", (x + y) - x, t > 100);\n  return 0;\n}\n',
    compilers: [{ id: 'cg152', options: '-O0', filters: { execute: true } }, { id: 'cg152', options: '-O2 -ffast-math', filters: { execute: true } }],
    executors: [],
  }],
  trees: [],
};

const ORIGINAL = settingsOf(sessionsOfFragment(decodeFragment(links['c-warning']))[0]);

test('a pasted Compiler Explorer link fills the page in; the clicked warning is reduced; the result opens in Compiler Explorer', async (t) => {
  const page = await openPage(browser, server.url);
  const link = `${instance.base}/#${links['c-warning']}`;
  await page.fill('#ce-link', link);
  await page.press('#ce-link', 'Enter');

  // Everything from the link, and nothing sent to the instance before the person allows it.
  await page.waitForSelector('#link-allow:visible');
  assert.equal(await page.textContent('#link-allow'), 'Allow and check');
  assert.equal(await page.evaluate(() => window.whittle.program()), ORIGINAL.source);
  assert.deepEqual(await page.evaluate(() => {
    const s = window.whittle.state();
    return [s.lang, s.endpoint.kind, s.endpoint.base, s.compiler, s.flags, s.execute];
  }), ['c', 'ce', instance.base, 'cg152', '-O2 -Wall', false]);
  assert.match(await page.textContent('#link-requests'), /sends the program to an outside endpoint: Compiler Explorer at http:\/\/127\.0\.0\.1/);
  assert.deepEqual(instance.seen, [], 'nothing asked of the instance before Allow');

  // Allow: one compile there; its warning, clicked, becomes the property.
  await page.click('#link-allow');
  const warning = page.locator('#output .diag.warning');
  await warning.waitFor();
  assert.match(await warning.textContent(), /unused variable .unused_counter./);
  assert.equal(instance.seen.filter((r) => r.startsWith('POST /api/compiler/cg152/compile')).length, 1, 'compiled once');
  await warning.click();
  // (the variable's name is left free: reducing renames)
  assert.match(await page.inputValue('#prop-regex'), /^warning: unused variable (['‘])\.\*(['’])$/);
  assert.equal(await page.inputValue('#exit-op'), 'eq', 'a warning keeps the program compiling');
  // The picked answer's errors (none) are what "no new compile error" allows.
  await page.setChecked('#prop-no-new-errors', true);
  assert.deepEqual(await page.evaluate(() => {
    const p = window.whittle.state().property;
    return [p.noNewErrors, p.allowedErrors];
  }), [true, []]);

  await page.click('#reduce');
  await finished(page, 120000);
  assert.match(await page.textContent('#status'), /^done/);
  const reduced = await page.evaluate(() => window.whittle.result());
  assert.ok(reduced.length < ORIGINAL.source.length / 2, `reduced: ${reduced}`);
  assert.match(reduced, /int\s+\w+\s*;/, 'the unused variable is kept');
  t.diagnostic(`${ORIGINAL.source.length} → ${reduced.length} bytes: ${JSON.stringify(reduced)}; ${await page.textContent('#status')}`);

  // Open in Compiler Explorer: the reduced program, the same compiler and flags, at the instance.
  const href = await page.getAttribute('#result-ce', 'href');
  assert.ok(href.startsWith(`${instance.base}/clientstate/`), href);
  const back = settingsOf((await readLink(recognise(href))).sessions[0]);
  assert.deepEqual(back, { lang: 'c', source: reduced, files: [], compiler: 'cg152', flags: '-O2 -Wall', execute: false, others: 0, second: null });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('?ce= with a short link: resolved through the instance, the person picks one of its two editors', async () => {
  const page = await openPage(browser, `${server.url}?ce=${encodeURIComponent(`${instance.base}/z/two`)}`);
  const choices = page.locator('#ce-pick-list button');
  await choices.first().waitFor();
  assert.deepEqual(await choices.allTextContents(), ['Editor 1 (c, cg152): int first;', 'Editor 2 (c, cg152): int main(void) { return 2; }']);
  await choices.nth(1).click();
  await page.waitForSelector('#link-allow:visible');
  assert.equal(await page.evaluate(() => window.whittle.program()), TWO_EDITORS.sessions[1].source);
  assert.deepEqual(await page.evaluate(() => {
    const s = window.whittle.state();
    return [s.compiler, s.flags, s.execute];
  }), ['cg152', '-O3 -Wextra', true], 'an executor runs the program');
  assert.match(await page.textContent('#link-requests'), /runs the compiled program/);
  assert.equal(new URL(page.url()).search, '', '?ce= is taken out of the address');

  // A short link the instance does not know: say what to do instead.
  await page.fill('#ce-link', `${instance.base}/z/unknown`);
  await page.press('#ce-link', 'Enter');
  await page.waitForSelector('#notice:visible');
  assert.match(await page.textContent('#notice-text'), /could not be resolved: .* answered HTTP 404\. In Compiler Explorer, use Share → Full link, and paste that instead/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('Compiler Explorer state pasted as the page\'s own fragment opens as godbolt.org\'s, contacting nothing before Allow', async () => {
  const outside = [];
  const page = await openPage(browser, `${server.url}#${links['v4-compressed']}`, (p) => {
    p.on('request', (r) => /^https?:/.test(r.url()) && !r.url().startsWith(server.url) && outside.push(r.url()));
  });
  await page.waitForSelector('#link-allow:visible');
  assert.equal(await page.evaluate(() => window.whittle.program()), '// badger badger badger');
  assert.deepEqual(await page.evaluate(() => {
    const s = window.whittle.state();
    return [s.lang, s.endpoint.base, s.compiler, s.flags];
  }), ['cpp', 'https://godbolt.org', 'g152', '-O2']);
  assert.equal(new URL(page.url()).hash, '', 'the fragment is taken out of the address');
  assert.equal(await page.isVisible('#notice'), false, 'no “not Whittle playground state” notice');
  assert.deepEqual(outside, []);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a /clientstate/ link dropped on the page opens; other dropped text in no field is refused, the page kept', async () => {
  const page = await openPage(browser, server.url);
  const drop = async (selector, text) => {
    const data = await page.evaluateHandle((t) => {
      const dt = new DataTransfer();
      dt.setData('text/uri-list', t);
      return dt;
    }, text);
    await page.dispatchEvent(selector, 'drop', { dataTransfer: data });
  };
  await drop('.output-pane', 'https://example.org/not-compiler-explorer');
  await page.waitForSelector('#notice:visible');
  assert.match(await page.textContent('#notice-text'), /not a Compiler Explorer link/);
  const program = { lang: 'cpp', source: 'int f(int x) { return x / 0; }\n', compiler: 'cg152', flags: '-O1 -Wdiv-by-zero', execute: false };
  await drop('.output-pane', clientStateLink(instance.base, program));
  await page.waitForSelector('#link-allow:visible');
  assert.equal(await page.evaluate(() => window.whittle.program()), program.source);
  assert.deepEqual(await page.evaluate(() => {
    const s = window.whittle.state();
    return [s.lang, s.endpoint.base, s.compiler, s.flags];
  }), ['cpp', instance.base, 'cg152', '-O1 -Wdiv-by-zero']);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a link with two builds offers wrong code across them; the page reduces it, guarded, at the instance', async () => {
  const page = await openPage(browser, `${server.url}?ce=${encodeURIComponent(`${instance.base}/z/builds`)}`);
  await page.waitForSelector('#link-allow:visible');
  assert.match(await page.textContent('#status'), /second build \(cg152 -O2 -ffast-math\)/);
  assert.match(await page.textContent('#link-requests'), /runs the compiled program/);
  await page.click('#link-allow');
  const offer = page.locator('#output button', { hasText: 'wrong code across cg152 -O0 and cg152 -O2 -ffast-math' });
  await offer.waitFor();
  await offer.click();
  assert.deepEqual(await page.evaluate(() => window.whittle.state().property.wrongCode), { compiler: 'cg152', flags: '-O2 -ffast-math', guard: true, guardCompiler: '' });
  assert.equal(await page.isVisible('#prop-wrong-fields'), true);
  await page.click('#check');
  await page.waitForFunction(() => /✓|✗/.test(document.querySelector('#check-result').textContent), null, { polling: 100, timeout: 60000 });
  assert.match(await page.textContent('#check-result'), /✓/);
  await page.click('#reduce');
  await finished(page, 240000);
  assert.match(await page.textContent('#status'), /^done/);
  const reduced = await page.evaluate(() => window.whittle.result());
  assert.ok(!reduced.includes('twice') && reduced.includes('printf'), `reduced: ${reduced}`);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a pool of two instances: compiles go to both; one killed mid-run, the reduction finishes on the other', async () => {
  const second = await startInstance(server.url);
  const page = await openPage(browser, server.url);
  await page.evaluate((text) => window.whittle.setProgram(text), ORIGINAL.source);
  await page.selectOption('#endpoint', 'ce');
  await page.fill('#ce-base', instance.base);
  await page.fill('#pool', second.base);
  await page.waitForSelector('#compiler option[value="cg152"]', { state: 'attached' });
  await page.selectOption('#compiler', 'cg152');
  await page.fill('#flags', '-O2 -Wall');
  await page.fill('#prop-regex', 'unused variable');
  await page.waitForFunction(() => !document.querySelector('#reduce').disabled, null, { polling: 100 });
  const compiles = (i) => i.seen.filter((r) => r.startsWith('POST /api/compiler/cg152/compile')).length;
  const before = compiles(instance);
  await page.click('#reduce');
  await page.waitForFunction(() => Number(document.querySelector('#progress-queries').textContent) >= 6, null, { polling: 50, timeout: 60000 });
  assert.ok(compiles(second) > 0 && compiles(instance) > before, `both instances compile (${compiles(instance) - before} and ${compiles(second)})`);
  second.kill();
  const killedAt = compiles(second);
  await finished(page, 120000);
  assert.match(await page.textContent('#status'), /^done/);
  const reduced = await page.evaluate(() => window.whittle.result());
  assert.match(reduced, /int\s+\w+\s*;/, `the unused variable is kept: ${reduced}`);
  assert.equal(compiles(second), killedAt, 'nothing reached the killed instance');
  assert.deepEqual(page.errors, []);
  await page.close();
});
