#!/usr/bin/env node
// Stress figures for `whittle serve` (a benchmark that prints numbers, not a test that judges):
//
//  (a) the latency of a normal request (GET /api/compilers) while 200 idle connections are held
//      open (a third silent, a third with half a request head, a third with a body that never
//      comes); goal: under 100 ms;
//  (b) the server's open file descriptors (/proc/<pid>/fd) before and after 1,000 requests
//      refused as too large (413); goal: unchanged;
//  (c) the server's resident memory while it answers a program that prints 64 MiB of output
//      (short lines, the worst case for an answer that is a list of line objects), sampled from
//      /proc/<pid>/status every 20 ms; goal: under 64 MB above idle (needs gcc);
//  (d) how the server ends on SIGTERM (goal: exit status 143);
//  (e) the server's resident memory while 300 clients each send most of a 2 MiB body and then
//      stall (a fresh server, default limits), and after they close; goal: under 100 MB, and
//      back near idle after;
//  (f) how soon a normal compile is answered after 40 clients sent a compile of a program that
//      never ends and hung up (a fresh server, --job-timeout 3 --max-queue 16: 429s are
//      retried); goal: within one job's time (3 s). Both (e) and (f) need gcc.
//
//   node scripts/bench/serve-stress.mjs [--bin target/release/whittle]
//
// It starts its own server on 127.0.0.1 with --port 0 and talks only to it. Every loop is
// bounded in count, and the whole run in time (STOP_AFTER_MS). Build first:
// cargo build --release -p whittle-cli.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import net from 'node:net';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const argBin = process.argv.indexOf('--bin');
const BIN = argBin > 0 ? resolve(process.argv[argBin + 1]) : resolve(ROOT, 'target/release/whittle');
const IDLE_CONNECTIONS = 200;
const LATENCY_SAMPLES = 50;
const REFUSED_REQUESTS = 1000;
const REFUSED_AT_ONCE = 8;
const STOP_AFTER_MS = 300_000;
const SLOW_BODIES = 300;
const ABANDONED = 40;
const HOST = '127.0.0.1';

if (!existsSync(BIN)) {
  console.error(`no ${BIN}: run cargo build --release -p whittle-cli first`);
  process.exit(1);
}

const watchdog = setTimeout(() => {
  console.error(`serve-stress: still running after ${STOP_AFTER_MS / 1000} s; giving up`);
  server?.kill('SIGKILL');
  process.exit(1);
}, STOP_AFTER_MS);

let server;

/** Starts the server; resolves with its port once it printed its address. */
function startServer(args = ['--max-body', '64']) {
  server = spawn(BIN, ['serve', '--host', HOST, '--port', '0', '--root', ROOT, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((ok, fail) => {
    const lines = createInterface({ input: server.stdout });
    lines.once('line', (line) => {
      const m = /^whittle serve: http:\/\/127\.0\.0\.1:(\d+)\/$/.exec(line.trim());
      if (m) ok(Number(m[1]));
      else fail(new Error(`unexpected first line: ${line}`));
      lines.on('line', () => {}); // keep draining
    });
    server.once('exit', (code) => fail(new Error(`the server exited (${code}) before it listened`)));
  });
}

/** The server's resident set, in bytes (VmRSS). */
function rss() {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

function openFds() {
  return readdirSync(`/proc/${server.pid}/fd`).length;
}

/** One raw HTTP/1.1 exchange on a fresh connection: resolves with {status, ms, bytes}. */
function exchange(port, head, body = Buffer.alloc(0), timeoutMs = 10_000) {
  return new Promise((ok, fail) => {
    const start = process.hrtime.bigint();
    const chunks = [];
    const socket = net.connect({ host: HOST, port }, () => {
      socket.write(head);
      if (body.length) socket.write(body, () => {});
    });
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      fail(new Error('no answer in time'));
    });
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', () => {}); // a reset after the answer (we may still be writing) is fine
    socket.on('close', () => {
      const raw = Buffer.concat(chunks);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw.toString('latin1', 0, 16))?.[1] ?? 0);
      ok({ status, ms: Number(process.hrtime.bigint() - start) / 1e6, bytes: raw.length });
    });
  });
}

/** Opens `n` connections that never finish a request; resolves once all are connected. */
async function holdIdle(port, n) {
  const sockets = [];
  for (let i = 0; i < n; i++) {
    sockets.push(
      await new Promise((ok, fail) => {
        const s = net.connect({ host: HOST, port }, () => {
          if (i % 3 === 1) s.write(`GET / HTTP/1.1\r\nHost: ${HOST}\r\n`);
          if (i % 3 === 2) {
            s.write(`POST /api/cancel/k HTTP/1.1\r\nHost: ${HOST}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
          }
          ok(s);
        });
        s.on('error', () => {});
        s.setTimeout(5000, () => fail(new Error('could not connect')));
      }),
    );
  }
  return sockets;
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

async function main() {
  const port = await startServer();
  const get = `GET /api/compilers HTTP/1.1\r\nHost: ${HOST}:${port}\r\nAccept: application/json\r\nConnection: close\r\n\r\n`;
  await exchange(port, get); // warm up

  // (a) latency with 200 idle connections held open.
  const baseline = [];
  for (let i = 0; i < LATENCY_SAMPLES; i++) baseline.push((await exchange(port, get)).ms);
  const idle = await holdIdle(port, IDLE_CONNECTIONS);
  await new Promise((r) => setTimeout(r, 200));
  const fdsWithIdle = openFds();
  const samples = [];
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const r = await exchange(port, get);
    if (r.status !== 200) throw new Error(`GET /api/compilers answered ${r.status}`);
    samples.push(r.ms);
  }
  for (const s of idle) s.destroy();
  baseline.sort((a, b) => a - b);
  samples.sort((a, b) => a - b);
  const f = (x) => `${x.toFixed(2)} ms`;
  console.log(`(a) GET /api/compilers, ${LATENCY_SAMPLES} requests, without idle connections: median ${f(pct(baseline, 50))}, p95 ${f(pct(baseline, 95))}, max ${f(baseline.at(-1))}`);
  console.log(`    with ${IDLE_CONNECTIONS} idle connections held open (server fds then: ${fdsWithIdle}): median ${f(pct(samples, 50))}, p95 ${f(pct(samples, 95))}, max ${f(samples.at(-1))}  (goal < 100 ms: ${samples.at(-1) < 100 ? 'met' : 'NOT met'})`);

  // (b) descriptors before and after 1,000 refused (413) requests.
  await new Promise((r) => setTimeout(r, 1000)); // the idle connections' sockets close
  const before = openFds();
  const oversized = `POST /api/compiler/gcc/compile HTTP/1.1\r\nHost: ${HOST}:${port}\r\nContent-Type: application/json\r\nContent-Length: ${64 << 20}\r\n\r\n`;
  const part = Buffer.alloc(16 << 10, 0x78);
  const statuses = new Map();
  let next = 0;
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: REFUSED_AT_ONCE }, async () => {
      while (next < REFUSED_REQUESTS) {
        next++;
        const r = await exchange(port, oversized, part);
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      }
    }),
  );
  const took = Date.now() - t0;
  let after = openFds();
  for (let i = 0; i < 50 && after > before; i++) {
    await new Promise((r) => setTimeout(r, 100));
    after = openFds();
  }
  const shown = [...statuses].map(([s, n]) => `${n} x ${s}`).join(', ');
  console.log(`(b) ${REFUSED_REQUESTS} oversized requests (${REFUSED_AT_ONCE} at a time, ${took} ms): ${shown}; server fds before ${before}, after ${after} (goal unchanged: ${after <= before ? 'met' : 'NOT met'})`);

  // (c) RSS while answering 64 MiB of program output.
  const idleRss = rss();
  let peak = idleRss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rss());
  }, 20);
  const source = '#include <stdio.h>\nint main(void) { for (long i = 0; i < 32L << 20; i++) fputs("x\\n", stdout); return 0; }\n';
  const body = Buffer.from(JSON.stringify({ source, options: { filters: { execute: true } } }));
  const compile = `POST /api/compiler/gcc/compile HTTP/1.1\r\nHost: ${HOST}:${port}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
  const answer = await exchange(port, compile, body, 60_000);
  clearInterval(sampler);
  console.log(`(c) a program printing 64 MiB (32 Mi lines): answer ${answer.status}, ${answer.bytes} bytes; server RSS idle ${mb(idleRss)}, peak ${mb(peak)}, growth ${mb(peak - idleRss)} (goal < 64 MB: ${peak - idleRss < 64e6 ? 'met' : 'NOT met'})`);

  // (d) SIGTERM.
  const exited = new Promise((r) => server.once('exit', (code, signal) => r(code ?? signal)));
  server.kill('SIGTERM');
  console.log(`(d) on SIGTERM the server exited with ${await exited} (goal 143)`);

  await slowBodies();
  await abandonedJobs();
  clearTimeout(watchdog);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mb = (b) => `${(b / 1e6).toFixed(1)} MB`;

/** Stops the current server (SIGTERM) and waits for it. */
async function stopServer() {
  const exited = new Promise((r) => server.once('exit', r));
  server.kill('SIGTERM');
  await exited;
}

/** (e) RSS under 300 stalled 2 MiB bodies, and after they close. */
async function slowBodies() {
  const port = await startServer([]);
  const get = `GET /api/compilers HTTP/1.1\r\nHost: ${HOST}:${port}\r\nAccept: application/json\r\nConnection: close\r\n\r\n`;
  await exchange(port, get);
  const idleRss = rss();
  const length = 2 << 20;
  const sent = Buffer.alloc(length - (512 << 10), 0x20); // all but the last 512 KiB
  const head = `POST /api/compiler/gcc/compile HTTP/1.1\r\nHost: ${HOST}:${port}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
  const sockets = [];
  const answers = new Map();
  let peak = idleRss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rss());
  }, 20);
  for (let i = 0; i < SLOW_BODIES; i++) {
    const s = net.connect({ host: HOST, port }, () => {
      s.write(head);
      s.write(sent);
    });
    s.on('error', () => {});
    s.once('data', (d) => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(d.toString('latin1', 0, 16))?.[1] ?? '?';
      answers.set(status, (answers.get(status) ?? 0) + 1);
    });
    sockets.push(s);
  }
  await sleep(5000); // the bodies arrive and stall
  const during = rss();
  for (const s of sockets) s.destroy();
  await sleep(3000);
  clearInterval(sampler);
  const after = rss();
  const shown = [...answers].map(([s, n]) => `${n} x ${s}`).join(', ') || 'none';
  console.log(`(e) ${SLOW_BODIES} clients each sent ${mb(sent.length)} of a ${mb(length)} body and stalled (early answers: ${shown}): server RSS idle ${mb(idleRss)}, while stalled ${mb(during)}, peak ${mb(peak)} (goal < 100 MB: ${peak < 100e6 ? 'met' : 'NOT met'}); 3 s after they closed ${mb(after)} (goal near idle: ${after < idleRss + 10e6 ? 'met' : 'NOT met'})`);
  await stopServer();
}

/** (f) A normal compile after 40 abandoned never-ending ones. */
async function abandonedJobs() {
  const port = await startServer(['--job-timeout', '3', '--max-queue', '16']);
  const request = (source) => {
    const body = Buffer.from(JSON.stringify({ source, options: { filters: { execute: true } } }));
    const head = `POST /api/compiler/gcc/compile HTTP/1.1\r\nHost: ${HOST}:${port}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    return [head, body];
  };
  const [loopHead, loopBody] = request('int main(void) { for (;;); }');
  const abandoned = [];
  for (let i = 0; i < ABANDONED; i++) {
    const s = net.connect({ host: HOST, port }, () => s.write(Buffer.concat([Buffer.from(loopHead), loopBody])));
    s.on('error', () => {});
    abandoned.push(s);
  }
  await sleep(500);
  for (const s of abandoned) s.destroy(); // the clients hang up
  const [head, body] = request('int main(void) { return 0; }');
  const t0 = Date.now();
  let refused = 0;
  let answer;
  while (Date.now() - t0 < 120_000) {
    answer = await exchange(port, head, body, 60_000);
    if (answer.status !== 429) break;
    refused++;
    await sleep(1000); // Retry-After: 1
  }
  const took = Date.now() - t0;
  console.log(`(f) after ${ABANDONED} abandoned never-ending jobs, a normal compile was answered ${answer.status} after ${(took / 1000).toFixed(1)} s (${refused} x 429 first; goal within one job's time, 3 s: ${answer.status === 200 && took <= 3000 ? 'met' : 'NOT met'})`);
  await stopServer();
}

main().catch((e) => {
  console.error(`serve-stress: ${e.message}`);
  server?.kill('SIGKILL');
  process.exit(1);
});
