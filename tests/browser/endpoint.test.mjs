// The page's compile-endpoint client (web/src/endpoint.js) and properties (web/src/property.js),
// run in node against a local stand-in for a Compiler Explorer API that misbehaves on demand.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { Compiler, EndpointError, listCompilers, normalize } from '../../web/src/endpoint.js';
import { PropertyError, regexProperty } from '../../web/src/property.js';

let server;
let base;
let behaviour = 'ok'; // what the next compile request gets
const seen = []; // compile request bodies

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.url.startsWith('/api/compilers/c')) {
        res.setHeader('Content-Type', 'application/json');
        return res.end(JSON.stringify([{ id: 'gcc', name: 'x86-64 gcc', lang: 'c' }]));
      }
      seen.push(JSON.parse(body));
      const now = behaviour;
      if (now === '429' || now === '503') {
        behaviour = 'ok'; // once
        res.writeHead(Number(now), { 'Retry-After': '1' });
        return res.end('slow down');
      }
      if (now === '500') {
        res.writeHead(500);
        return res.end('internal error');
      }
      if (now === 'html') return res.end('<html>not json</html>');
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ code: 0, stdout: [], stderr: [{ text: 'warning: w1' }, { text: 'note: n' }], asm: [{ text: 'main:' }] }));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());

const config = (extra = {}) => ({
  endpoint: { kind: 'ce', base },
  compiler: 'gcc',
  flags: '-O2',
  execute: false,
  timeoutMs: 5000,
  ...extra,
});
const signal = () => new AbortController().signal;

test('compiles, normalizes streams to strings, and caches by query', async () => {
  behaviour = 'ok';
  const c = new Compiler(config());
  const before = seen.length;
  const { ms, ...r } = await c.compile('int main;', signal());
  assert.deepEqual(r, { code: 0, stdout: '', stderr: 'warning: w1\nnote: n', asm: 'main:', run: null });
  assert.ok(Number.isFinite(ms) && ms >= 0, `the answer says how long it took: ${ms}`);
  assert.equal(seen[seen.length - 1].options.userArguments, '-O2');
  await c.compile('int main;', signal());
  assert.equal(seen.length, before + 1, 'the second query came from the cache');
  assert.equal(c.cacheHits, 1);
  await new Compiler(config({ flags: '-O1' })).compile('int main;', signal());
  assert.equal(seen.length, before + 2, 'other flags, another query');
});

test('waits out HTTP 429 as Retry-After says, then retries', async () => {
  behaviour = '429';
  const events = [];
  const c = new Compiler(config(), (e) => events.push(e));
  const started = Date.now();
  const r = await c.compile('int retried;', signal());
  assert.equal(r.code, 0);
  assert.ok(Date.now() - started >= 900, 'waited about a second');
  assert.deepEqual(events, [{ type: 'backoff', seconds: 1 }]);
});

test('waits out HTTP 503 with Retry-After (a server at its connection cap) as it does 429', async () => {
  behaviour = '503';
  const events = [];
  const c = new Compiler(config(), (e) => events.push(e));
  const started = Date.now();
  const r = await c.compile('int retried503;', signal());
  assert.equal(r.code, 0);
  assert.ok(Date.now() - started >= 900, 'waited about a second');
  assert.deepEqual(events, [{ type: 'backoff', seconds: 1 }]);
});

test('5xx, malformed JSON and a dead endpoint throw EndpointError with a clear message', async () => {
  behaviour = '500';
  await assert.rejects(new Compiler(config()).compile('int a5;', signal()), (e) => e instanceof EndpointError && /failed: HTTP 500: internal error/.test(e.message));
  behaviour = 'html';
  await assert.rejects(new Compiler(config()).compile('int ah;', signal()), (e) => e instanceof EndpointError && /not JSON/.test(e.message));
  const dead = new Compiler({ ...config(), endpoint: { kind: 'ce', base: 'http://127.0.0.1:1' } });
  await assert.rejects(dead.compile('int ad;', signal()), (e) => e instanceof EndpointError && /cannot reach Compiler Explorer at http:\/\/127\.0\.0\.1:1/.test(e.message));
  behaviour = 'ok';
});

test('lists compilers; "none" needs no endpoint', async () => {
  assert.deepEqual(await listCompilers({ kind: 'ce', base }, 'c'), [{ id: 'gcc', name: 'x86-64 gcc' }]);
  const r = await new Compiler({ ...config(), endpoint: { kind: 'none' } }).compile('x', signal());
  assert.equal(r.code, 0);
});

test('Compiler Explorer execution results become `run`', () => {
  const r = normalize({ code: 0, stdout: [], stderr: [], asm: [], execResult: { code: 3, stdout: [{ text: 'hi' }], stderr: [] } });
  assert.deepEqual(r.run, { code: 3, stdout: 'hi', stderr: '' });
});

test('regex properties: streams, negation, exit codes', async () => {
  const result = { code: 0, stdout: 'out', stderr: 'warning: makes integer from pointer', asm: '', run: { code: 1, stdout: 'ran', stderr: '' } };
  const p = (spec) => regexProperty({ streams: ['stderr'], exitOp: 'any', ...spec }).test(result, 'int x;');
  assert.equal(await p({ regex: 'makes integer' }), true);
  assert.equal(await p({ regex: 'makes integer', negate: true }), false);
  assert.equal(await p({ regex: 'ran', streams: ['run'] }), true);
  assert.equal(await p({ regex: 'int x', streams: ['source'] }), true);
  assert.equal(await p({ regex: 'makes', exitOp: 'eq', exitValue: 0 }), true);
  assert.equal(await p({ regex: 'makes', exitOp: 'ne', exitValue: 0 }), false);
  assert.equal(await p({ regex: '', exitOf: 'run', exitOp: 'eq', exitValue: 1 }), true);
  assert.throws(() => regexProperty({ regex: '(' }), PropertyError);
});

/** A stand-in instance that answers every compile with exit code 0, or `status` when set. */
async function instance(status = 0) {
  const got = [];
  const srv = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      got.push(JSON.parse(body || '{}').source);
      if (status) return res.writeHead(status).end('down');
      res.setHeader('Content-Type', 'application/json');
      setTimeout(() => res.end(JSON.stringify({ code: 0, stdout: [], stderr: [], asm: [] })), 20);
    });
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${srv.address().port}`, got, close: () => new Promise((r) => srv.close(r)) };
}

test('a pool spreads compiles over its instances, and passes over one that fails or is gone', async () => {
  const [a, b] = [await instance(), await instance()];
  const pooled = new Compiler(config({ endpoint: { kind: 'ce', base: a.base, pool: ` ${b.base}/ ` } }));
  await Promise.all(['p1;', 'p2;', 'p3;', 'p4;'].map((s) => pooled.compile(s, signal())));
  assert.equal(a.got.length, 2, 'the fewest in flight first');
  assert.equal(b.got.length, 2);

  const broken = await instance(500);
  const gone = await instance();
  await gone.close();
  const c = new Compiler(config({ endpoint: { kind: 'ce', base: broken.base, pool: `${gone.base} ${b.base}` } }));
  for (const s of ['q1;', 'q2;', 'q3;']) assert.equal((await c.compile(s, signal())).code, 0);
  assert.ok(b.got.includes('q3;'), 'the live instance answers');
  assert.ok(broken.got.length <= 1, `the failing instance is backed off after its failure (${broken.got.length} requests)`);

  // Every instance failing: the query fails, naming the last failure.
  const alone = new Compiler(config({ endpoint: { kind: 'ce', base: broken.base, pool: gone.base } }));
  await assert.rejects(alone.compile('r;', signal()), EndpointError);
  for (const s of [a, b, broken]) await s.close();
});
