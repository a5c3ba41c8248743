// How fast the playground loads, cold, in headless Chromium against `whittle serve` on
// 127.0.0.1: for each load, in a fresh browser context (empty cache), the time from navigation
// to the page's `data-ready` (engine booted and program parsed: interactive), to the engine's
// boot (the page's `whittle:engine-ready` mark, where it has one), the first contentful paint,
// and the bytes sent over the wire (gzip as served).
//
//   node scripts/bench/page-load.mjs [--runs N] [--root DIR]...
//     N loads (default 7) of each root (default: this checkout; another, such as an older
//     checkout's index.html and web/ with its bundle built, to compare), taken in turns so
//     that all see the same machine load; prints the medians per root.
import { launchBrowser, startServer } from '../../tests/browser/harness.mjs';

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1]) || 7;
const roots = args.flatMap((a, i) => (a === '--root' ? [args[i + 1]] : []));
const targets = roots.length ? roots : ['(this checkout)'];
const servers = [];
for (const root of targets) servers.push(await startServer({ args: roots.length ? ['--root', root] : [] }));
const browser = await launchBrowser();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One cold load of `url`: {ready, engine, fcp, bytes, wasm, requests}. */
async function load(url) {
  const context = await browser.newContext();
  // The moment body[data-ready] appears, seen from inside the page.
  await context.addInitScript(() => {
    new MutationObserver((_, observer) => {
      if (document.body?.dataset.ready === 'true') {
        window.__readyAt = performance.now();
        observer.disconnect();
      }
    }).observe(document, { attributes: true, subtree: true, attributeFilter: ['data-ready'] });
  });
  const page = await context.newPage();
  const responses = [];
  page.on('requestfinished', (r) => responses.push(r));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
  const times = await page.evaluate(() => ({
    ready: window.__readyAt,
    engine: performance.getEntriesByName('whittle:engine-ready')[0]?.startTime ?? NaN,
    fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
  }));
  let bytes = 0;
  let wasm = 0;
  for (const r of responses) {
    const sizes = await r.sizes();
    bytes += sizes.responseBodySize + sizes.responseHeadersSize;
    if (r.url().endsWith('.wasm')) wasm += sizes.responseBodySize;
  }
  await context.close();
  return { ...times, bytes, wasm, requests: responses.length };
}

const rows = targets.map(() => []);
try {
  for (let i = 0; i < runs; i++) {
    for (const [j, server] of servers.entries()) rows[j].push(await load(server.url));
  }
} finally {
  await browser.close();
  for (const s of servers) await s.stop();
}
const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
const ms = (xs) => (Number.isNaN(median(xs)) ? '–' : `${median(xs).toFixed(0)} ms`);
for (const [j, root] of targets.entries()) {
  const r = rows[j];
  console.log(`${root}: ${runs} cold loads, medians: interactive ${ms(r.map((x) => x.ready))} (fastest ${Math.min(...r.map((x) => x.ready)).toFixed(0)} ms), ` +
    `engine booted ${ms(r.map((x) => x.engine))}, first paint ${ms(r.map((x) => x.fcp))}, ` +
    `${kib(median(r.map((x) => x.bytes)))} over the wire (wasm ${kib(median(r.map((x) => x.wasm)))}), ${median(r.map((x) => x.requests))} requests`);
}
