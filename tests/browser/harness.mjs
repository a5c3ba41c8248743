// Helpers for real-browser tests: a `whittle serve` on a free port, and headless Chromium.
//
//   import { startServer, launchBrowser } from './harness.mjs';
//   const server = await startServer();            // { url, port, stop() }
//   const browser = await launchBrowser();         // a playwright-core Browser
//   const page = await browser.newPage();
//   await page.goto(server.url);
//   ...
//   await browser.close(); await server.stop();
//
// The server is the native release build (`cargo build --release -p whittle`, which
// scripts/test.sh runs first). The browser is Debian's /usr/bin/chromium (installed by
// scripts/setup.sh), driven by playwright-core; no browser is ever downloaded.
// Environment: WHITTLE_BIN overrides the server binary, CHROMIUM the browser.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';
import { chromium } from 'playwright-core';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const TARGET_DIR = resolve(ROOT, process.env.CARGO_TARGET_DIR || 'target');
export const WHITTLE_BIN = process.env.WHITTLE_BIN || join(TARGET_DIR, 'release', 'whittle');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolvePort(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts `whittle serve --port <port> --host 127.0.0.1` and waits until `/` answers.
 * @param {{port?: number, timeoutMs?: number, args?: string[]}} [opts]
 *   port: default a free one; args: extra arguments for `whittle serve`.
 * @returns {Promise<{url: string, port: number, output: () => string, stop: () => Promise<void>}>}
 *   url ends with `/`; output() is what the server printed so far.
 */
export async function startServer({ port, timeoutMs = 20000, args = [] } = {}) {
  if (!existsSync(WHITTLE_BIN)) {
    throw new Error(`${WHITTLE_BIN} not found: run \`cargo build --release -p whittle\` first`);
  }
  port ??= await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const child = spawn(WHITTLE_BIN, ['serve', '--port', String(port), '--host', '127.0.0.1', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  let exited = null;
  const exit = new Promise((r) => child.on('exit', (code, signal) => r((exited = { code, signal }))));

  const stop = async () => {
    if (!exited) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exit;
      clearTimeout(killer);
    }
  };

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited) {
      throw new Error(`whittle serve exited (${exited.code ?? exited.signal}) before answering:\n${log}`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`whittle serve did not answer ${url} within ${timeoutMs} ms:\n${log}`);
    }
    await sleep(100);
  }
  return { url, port, output: () => log, stop };
}

/**
 * Launches headless Chromium (Debian's, through playwright-core) with a fresh profile.
 * Close it with `await browser.close()`.
 * @param {import('playwright-core').LaunchOptions} [opts] merged over the defaults
 */
export async function launchBrowser(opts = {}) {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} not found: run scripts/setup.sh (it installs Debian's chromium)`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
    ...opts,
  });
}

/**
 * A page of `browser` at `url`, once the playground says it is ready, with the errors it threw
 * in `page.errors`; `watch(page)` runs before it loads (to count its requests, say).
 */
export async function openPage(browser, url, watch = () => {}) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  watch(page);
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

/** The page state a `#v1,` share link carries. */
export const decodeLink = (url) => JSON.parse(inflateRawSync(Buffer.from(url.split('#v1,')[1], 'base64url')).toString());

/** Resolves when the page's (or frame's) status says the run is done or failed. */
export const finished = (page, timeout = 60000) =>
  page.waitForFunction(() => /^(done|failed)/.test(document.querySelector('#status').textContent), null, { polling: 100, timeout });

/** A `whittle serve` and a browser for one test file (its `before`). */
export async function startServerAndBrowser(serverOpts) {
  const server = await startServer(serverOpts);
  const browser = await launchBrowser();
  return { server, browser };
}

/** Closes what `startServerAndBrowser` started (its `after`). */
export async function stopServerAndBrowser({ server, browser }) {
  await browser?.close();
  await server?.stop();
}

/** A stand-in Compiler Explorer instance on 127.0.0.1 (CORS open): it lists `compilers`
 *  ([{id, name, lang}]) for C, and answers a compile of compiler `id` with what
 *  `answer({source, options})` gives (or promises). Returns {base, close()}. */
export async function startStandIn(compilers, id, answer) {
  const srv = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', async () => {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Access-Control-Allow-Headers', 'content-type, accept');
      if (req.method === 'OPTIONS') return res.writeHead(204).end();
      res.setHeader('Content-Type', 'application/json');
      if (req.url.startsWith('/api/compilers/c')) return res.end(JSON.stringify(compilers));
      if (req.url !== `/api/compiler/${id}/compile`) return res.writeHead(404).end('{}');
      res.end(JSON.stringify(await answer(JSON.parse(body))));
    });
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${srv.address().port}`, close: () => srv.close() };
}

/** Points the page's settings at a stand-in instance (startStandIn) and its compiler `id`. */
export async function chooseStandIn(page, instance, id) {
  await page.selectOption('#endpoint', 'ce');
  await page.fill('#ce-base', instance.base);
  await page.waitForSelector(`#compiler option[value="${id}"]`, { state: 'attached' });
  await page.selectOption('#compiler', id);
}

/** Makes the page's property wrong code over whittle serve: build A's compiler and flags
 *  (`a`), build B's (`b`), and the guard's compiler, or no guard. */
export async function chooseWrongCode(page, { a, b, guard = null }) {
  await page.selectOption('#endpoint', 'whittle');
  await page.waitForSelector(`#compiler option[value="${a[0]}"]`, { state: 'attached' });
  await page.selectOption('#compiler', a[0]);
  await page.fill('#flags', a[1]);
  await page.click('.segmented label:has(input[name=prop-kind][value=wrong-code])');
  await page.waitForSelector('#prop-wrong-fields:not([hidden])');
  await page.selectOption('#wrong-b-compiler', b[0]);
  await page.fill('#wrong-b-flags', b[1]);
  await page.setChecked('#wrong-guard', guard !== null);
  if (guard !== null) await page.selectOption('#wrong-guard-compiler', guard);
}
