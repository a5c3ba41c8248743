// Permalink decoding (web/src/permalink.js) fed random and damaged fragments, in node: the
// link is a string a stranger hands you, so decodeState must either give back a state object
// or throw an Error that says what is wrong with the link; never hang, never give back
// something that is not a state object, never throw something that is not an Error.
// Inputs come from a small seeded generator (set PERMALINK_FUZZ_SEED to vary them).
// Run: node --test tests/web/permalink-fuzz.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import { MAX_INFLATED_BYTES, decodeState, encodeState } from '../../web/src/permalink.js';
import * as S from '../../web/src/state.js';
import { random } from '../../scripts/random.mjs';

const SEED = Number(process.env.PERMALINK_FUZZ_SEED ?? 0x5eed);
const PER_KIND = 80;
const HANG_MS = 5000;

function gen(seed) {
  const r = random(seed);
  const int = (n) => Math.floor(r() * n);
  const pick = (xs) => xs[int(xs.length)];
  const bytes = (n) => Uint8Array.from({ length: n }, () => int(256));
  const chars = (alphabet, n) => Array.from({ length: n }, () => pick(alphabet)).join('');
  return { r, int, pick, bytes, chars };
}

const b64url = (bytes) => Buffer.from(bytes).toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const link = (bytes) => `#v1,${b64url(bytes)}`;
const linkOfJson = (json) => link(deflateRawSync(Buffer.from(json, 'utf8')));

/** decodeState(hash), or what it threw, within HANG_MS. */
async function decode(hash) {
  let timer;
  const hang = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ hung: true }), HANG_MS);
  });
  try {
    return await Promise.race([
      (async () => {
        try {
          return { value: await decodeState(hash) };
        } catch (error) {
          return { error };
        }
      })(),
      hang,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const show = (hash) => JSON.stringify(hash.length > 120 ? `${hash.slice(0, 120)}… (${hash.length} chars)` : hash);
const isStateObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The contract: a state object, or an Error whose message speaks of the link. */
function assertContract(hash, outcome, what) {
  const where = `${what}: decodeState(${show(hash)}) (seed ${SEED})`;
  assert.ok(!outcome.hung, `${where} did not settle within ${HANG_MS} ms`);
  if ('error' in outcome) {
    const e = outcome.error;
    assert.ok(e instanceof Error, `${where} threw a non-Error: ${String(e)}`);
    assert.equal(typeof e.message, 'string', `${where}: message is not a string`);
    assert.ok(e.message.trim().length > 0, `${where} threw an Error with an empty message`);
    assert.match(e.message, /link/i, `${where} threw an Error that does not mention the link: ${e.message}`);
    return 'error';
  }
  assert.ok(isStateObject(outcome.value), `${where} returned a non-object: ${JSON.stringify(outcome.value)?.slice(0, 200)}`);
  return 'state';
}

async function fuzz(what, inputs) {
  const tally = { state: 0, error: 0 };
  for (const hash of inputs) tally[assertContract(hash, await decode(hash), what)]++;
  return tally;
}

const realState = (g) => ({
  ...S.setText(S.defaultState(), 'variant', `int main(void) { return ${g.int(1000)}; }\n`),
  compiler: 'gcc',
  flags: '-O2 -Wall',
  verdicts: Array.from({ length: g.int(40) }, () => g.pick('01')).join(''),
  engine: 'test',
});

test('random strings are refused with a reason (or read, never anything else)', async () => {
  const g = gen(SEED);
  const alphabet = [...'v1,0123456789abcdefXYZ-_+/=#% \n\t', 'é', '€', '\u0000', '\uffff', '😀'];
  const prefixes = ['', '#', '#v1,', '#v1', '#v2,', '#v0,', '#v,', '#V1,', '#v1,,', '#,', '#v99999999999999999999,'];
  const inputs = [];
  for (let i = 0; i < PER_KIND; i++) inputs.push(g.pick(prefixes) + g.chars(alphabet, g.int(60)));
  const tally = await fuzz('random string', inputs);
  assert.ok(tally.error > PER_KIND / 2, `most random strings are refused: ${JSON.stringify(tally)}`);
});

test('random bytes after #v1, are refused as a damaged link', async () => {
  const g = gen(SEED + 1);
  const inputs = [];
  for (let i = 0; i < PER_KIND; i++) inputs.push(link(g.bytes(g.int(200))));
  // Base64 with padding, stray characters, and lengths no base64 text has.
  for (let i = 0; i < PER_KIND / 4; i++) {
    const body = b64url(g.bytes(1 + g.int(50)));
    inputs.push(`#v1,${body}${'='.repeat(1 + g.int(3))}`, `#v1,${body.slice(0, 4 * g.int(10) + 1)}`, `#v1,${body} ${body}`);
  }
  await fuzz('random bytes', inputs);
});

test('valid deflate of text that is not JSON is refused as a damaged link', async () => {
  const g = gen(SEED + 2);
  const inputs = [];
  for (let i = 0; i < PER_KIND; i++) {
    const kind = g.int(4);
    const raw =
      kind === 0
        ? g.bytes(g.int(300)) // binary, often invalid UTF-8
        : kind === 1
          ? g.chars([...'{}[]":,abc 123\\'], 1 + g.int(80)) // JSON-ish punctuation soup
          : kind === 2
            ? `{"variant": "int main(void) {}", ${g.chars([...'abc:"'], g.int(20))}` // a cut-off object
            : '\ufeff{}'; // a byte-order mark before the JSON
    inputs.push(link(deflateRawSync(Buffer.from(raw))));
  }
  const tally = await fuzz('deflate of non-JSON', inputs);
  assert.ok(tally.error >= PER_KIND / 2, JSON.stringify(tally));
});

test('valid JSON that is not an object is refused; objects come back as they were', async () => {
  const g = gen(SEED + 3);
  const scalars = ['null', 'true', 'false', '0', '-1', '1e308', '"a string"', '""', '[]', '[{}]', '[1,2,3]', '[[[[]]]]'];
  const inputs = scalars.map(linkOfJson);
  for (let i = 0; i < PER_KIND; i++) inputs.push(linkOfJson(JSON.stringify(garbage(g, 4))));
  for (const hash of inputs) {
    const outcome = await decode(hash);
    const kind = assertContract(hash, outcome, 'JSON of the wrong shape');
    const json = new TextDecoder().decode(
      await new Response(
        new Blob([Buffer.from(hash.slice(4).replace(/-/g, '+').replace(/_/g, '/'), 'base64')])
          .stream()
          .pipeThrough(new DecompressionStream('deflate-raw')),
      ).arrayBuffer(),
    );
    const parsed = JSON.parse(json);
    if (isStateObject(parsed)) assert.deepEqual(outcome.value, parsed, `an object comes back as it was: ${json.slice(0, 200)}`);
    else assert.equal(kind, 'error', `a link holding ${json.slice(0, 80)} must be refused`);
  }
});

/** Random JSON: scalars, huge strings, arrays and objects, with state-like keys now and then. */
function garbage(g, depth) {
  const keys = ['variant', 'seed', 'program', 'lang', 'mode', 'strategy', 'settings', 'property', 'seedProperty', 'endpoint', 'verdicts', 'engine', 'flags', '__proto__', 'constructor', 'x'];
  switch (g.int(depth > 0 ? 8 : 5)) {
    case 0: return null;
    case 1: return g.r() < 0.5;
    case 2: return g.pick([0, -1, 1.5, 1e300, -0, 2 ** 53 + 1]);
    case 3: return g.chars([...'ab\u0000"\\é😀\n'], g.int(20));
    case 4: return g.r() < 0.1 ? 'x'.repeat(200_000 + g.int(200_000)) : '';
    case 5: case 6: {
      const o = {};
      for (let i = g.int(6); i > 0; i--) o[g.pick(keys)] = garbage(g, depth - 1);
      return o;
    }
    default: return Array.from({ length: g.int(5) }, () => garbage(g, depth - 1));
  }
}

test('real links cut short or with a character changed are refused or read, nothing else', async () => {
  const g = gen(SEED + 4);
  const inputs = [];
  for (let i = 0; i < PER_KIND / 2; i++) {
    const hash = await encodeState(realState(g));
    inputs.push(hash.slice(0, 1 + g.int(hash.length - 1))); // cut short
    const at = 4 + g.int(hash.length - 4);
    inputs.push(hash.slice(0, at) + g.pick([...'AZaz09-_!.~']) + hash.slice(at + 1)); // one character changed
  }
  const tally = await fuzz('damaged real link', inputs);
  assert.ok(tally.error > 0, JSON.stringify(tally));
});

test('real states survive the round trip, and a huge program too', async () => {
  const g = gen(SEED + 5);
  for (let i = 0; i < PER_KIND / 4; i++) {
    const state = realState(g);
    assert.deepEqual(await decodeState(await encodeState(state)), state);
  }
  const big = { ...realState(g), variant: 'int x;\n'.repeat(100_000) };
  const hash = await encodeState(big);
  const outcome = await decode(hash);
  assertContract(hash, outcome, 'huge program');
  assert.deepEqual(outcome.value, big);
});

test('a link that inflates past the cap is refused, quickly, with what is wrong', async () => {
  // 20 MB of spaces around {} deflates to ~20 KB: decoding stops at MAX_INFLATED_BYTES.
  const hash = linkOfJson(`${' '.repeat(20_000_000)}{}`);
  assert.ok(hash.length < 40_000, `a small link (${hash.length} chars)`);
  const started = performance.now();
  const outcome = await decode(hash);
  const ms = performance.now() - started;
  assert.equal(assertContract(hash, outcome, 'inflating link'), 'error');
  assert.match(outcome.error.message, /link is too large.*more than 8 MiB/);
  assert.ok(ms < 2000, `refused in ${Math.round(ms)} ms`);
  // Just under the cap still opens.
  const under = linkOfJson(`${' '.repeat(MAX_INFLATED_BYTES - 2)}{}`);
  assert.equal(assertContract(under, await decode(under), 'link at the cap'), 'state');
});

// decodeState hands back any object as it is, and the page reads it through fromLink
// (withDefaults in web/src/state.js), which keeps a field only where it has the default's type.
test('fields of the wrong type do not reach the page state', async () => {
  const wrong = [
    { variant: 42 },
    { seed: ['int x;'] },
    { lang: { c: true } },
    { mode: 7 },
    { strategy: null },
    { endpoint: 'http://example.invalid' },
    { settings: 'fast' },
    { settings: { k: 'many' } },
    { property: 'error' },
    { program: 5 },
  ];
  const problems = [];
  for (const fields of wrong) {
    const decoded = await decodeState(linkOfJson(JSON.stringify(fields)));
    const { state } = S.fromLink(decoded);
    const def = S.defaultState();
    for (const key of ['variant', 'seed', 'lang', 'mode', 'strategy', 'flags', 'compiler']) {
      if (typeof state[key] !== typeof def[key]) problems.push(`${JSON.stringify(fields)}: state.${key} is ${JSON.stringify(state[key])}`);
    }
    if (!isStateObject(state.endpoint) || typeof state.endpoint.kind !== 'string') problems.push(`${JSON.stringify(fields)}: state.endpoint is ${JSON.stringify(state.endpoint)}`);
    if (typeof state.settings.k !== 'number') problems.push(`${JSON.stringify(fields)}: state.settings.k is ${JSON.stringify(state.settings.k)}`);
    if (Object.keys(state.settings).some((k) => /^\d+$/.test(k))) problems.push(`${JSON.stringify(fields)}: state.settings has keys ${Object.keys(state.settings)}`);
  }
  assert.deepEqual(problems, []);
});
