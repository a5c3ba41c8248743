// What a permalink asks of the machine that opens it (web/src/state.js: linkRequests,
// needsConsent, mayContactEndpoint, blocker's link and embed gates), in node without a DOM.
// Run: node --test tests/web/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as S from '../../web/src/state.js';
import { decodeState, encodeState } from '../../web/src/permalink.js';

const PROGRAM = 'int main(void) { return 0; }\n';
const reports = { variant: { ok: true, lang: 'c' }, seed: { ok: true, lang: 'c' } };

/** A state as a link would bring it (through encodeState, decodeState and fromLink). */
async function viaLink(state) {
  return S.fromLink(await decodeState(await encodeState(S.shareableState(state)))).state;
}

const base = () => ({ ...S.setText(S.defaultState(), 'variant', PROGRAM), compiler: 'gcc', flags: '-O2 -Wall' });
const keys = (asks) => asks.map((a) => a.key);
const textOf = (asks, key) => asks.find((a) => a.key === key)?.text;

test("a link with this page's whittle serve: compiler, flags, execution, parallel requests", async () => {
  const state = await viaLink(base());
  const asks = S.linkRequests(state);
  assert.deepEqual(keys(asks), ['endpoint', 'compiler', 'flags', 'execute', 'parallel']);
  assert.match(textOf(asks, 'endpoint'), /this page’s own whittle serve/);
  assert.doesNotMatch(textOf(asks, 'endpoint'), /https?:/, 'no URL for our own server');
  assert.match(textOf(asks, 'compiler'), /gcc/);
  assert.match(textOf(asks, 'flags'), /-O2 -Wall/);
  assert.doesNotMatch(textOf(asks, 'execute'), /runs the compiled program/, 'execution off reads differently');
  assert.match(textOf(asks, 'execute'), /execution is off/);
  assert.match(textOf(asks, 'parallel'), /up to 2 compile requests/);
  assert.ok(asks.every((a) => typeof a.warn === 'boolean'));
  assert.ok(!asks.some((a) => a.warn), 'nothing here reaches beyond this machine or runs a program');
});

test('a link that turns execution on says it runs the compiled program', async () => {
  const asks = S.linkRequests(await viaLink({ ...base(), execute: true }));
  const run = asks.find((a) => a.key === 'execute');
  assert.match(run.text, /runs the compiled program/);
  assert.match(run.text, /whittle serve/);
  assert.equal(run.warn, true);
});

test("a Compiler Explorer link names the endpoint's URL (the default when it has none)", async () => {
  const ce = await viaLink({ ...base(), endpoint: { kind: 'ce', base: 'http://127.0.0.1:9/ ' }, execute: true, settings: { k: 1, timeoutS: 10, shareVerdicts: true } });
  const asks = S.linkRequests(ce);
  assert.match(textOf(asks, 'endpoint'), /Compiler Explorer at http:\/\/127\.0\.0\.1:9$/);
  assert.equal(asks.find((a) => a.key === 'endpoint').warn, true);
  assert.match(textOf(asks, 'execute'), /runs the compiled program.*Compiler Explorer at http:\/\/127\.0\.0\.1:9/);
  assert.ok(!keys(asks).includes('parallel'), 'one request at a time is not worth a line');
  const godbolt = S.linkRequests({ ...ce, endpoint: { kind: 'ce', base: '' } });
  assert.match(textOf(godbolt, 'endpoint'), /https:\/\/godbolt\.org/);
  const noFlags = S.linkRequests({ ...ce, flags: '  ', compiler: '' });
  assert.match(textOf(noFlags, 'flags'), /no flags/);
  assert.match(textOf(noFlags, 'compiler'), /you choose/);
});

test('a JavaScript property is listed, and it says it runs sandboxed with no network', async () => {
  const js = await viaLink(S.setProperty(base(), 'variant', { kind: 'js', js: '() => true' }));
  const asks = S.linkRequests(js);
  const line = asks.find((a) => a.key === 'js');
  assert.ok(line, 'the JavaScript property is listed');
  assert.match(line.text, /JavaScript property/);
  assert.match(line.text, /sandbox.*no network access/);
  assert.equal(line.warn, true);
  // A pair whose seed alone has one still carries it.
  const pair = S.setProperty(S.setMode(base(), 'pair'), 'seed', { kind: 'js', js: '() => false' });
  assert.match(textOf(S.linkRequests(pair), 'js'), /a JavaScript property/);
  const both = S.setProperty(pair, 'variant', { kind: 'js', js: '() => true' });
  assert.match(textOf(S.linkRequests(both), 'js'), /JavaScript properties/);
});

test('a link with no endpoint and a regex property asks for nothing', () => {
  const none = { ...base(), endpoint: { kind: 'none', base: '' }, execute: true };
  const asks = S.linkRequests(none);
  assert.deepEqual(keys(asks), ['endpoint', 'nothing']);
  assert.match(textOf(asks, 'endpoint'), /compiles nothing/);
  assert.ok(!asks.some((a) => /runs the compiled program/.test(a.text)), 'execute means nothing without an endpoint');
  assert.equal(S.needsConsent(none, { untrustedLink: true }), false, 'nothing to allow');
  // With a JavaScript property it is the property that needs leave, unless they wrote it.
  const js = S.setProperty(none, 'variant', { kind: 'js', js: '() => true' });
  assert.deepEqual(keys(S.linkRequests(js)), ['endpoint', 'js']);
  assert.equal(S.needsConsent(js, { untrustedLink: true, jsTrusted: false }), true);
  assert.equal(S.needsConsent(js, { untrustedLink: true, jsTrusted: true }), false);
});

test('consent: needed for a link that compiles, until allowed; never for the page’s own state', () => {
  const state = base();
  assert.equal(S.needsConsent(state), false, 'not from a link');
  assert.equal(S.needsConsent(state, { untrustedLink: false, jsTrusted: false }), false, 'allowed');
  assert.equal(S.needsConsent(state, { untrustedLink: true, jsTrusted: true }), true, 'whittle serve compiles with the link’s flags');
  const ce = { ...state, endpoint: { kind: 'ce', base: 'http://127.0.0.1:9' } };
  assert.equal(S.needsConsent(ce, { untrustedLink: true, jsTrusted: true }), true);
  // Editing the state after allowing needs no new leave: the gate is the link's, not the state's.
  const edited = { ...ce, flags: '-O0', execute: true, endpoint: { kind: 'ce', base: 'http://127.0.0.1:10' } };
  assert.equal(S.needsConsent(edited, { untrustedLink: false, jsTrusted: true }), false);
});

test('the endpoint may be contacted (compiler list) only when allowed and never from an embed', () => {
  const state = base();
  assert.equal(S.mayContactEndpoint(state), true);
  assert.equal(S.mayContactEndpoint(state, { untrustedLink: true }), false);
  assert.equal(S.mayContactEndpoint(state, { embed: true }), false);
  assert.equal(S.mayContactEndpoint({ ...state, endpoint: { kind: 'none', base: '' } }), false, 'nothing to contact');
});

test('blocker: a link not yet allowed, an embed, and the JavaScript gate', () => {
  const state = base();
  assert.equal(S.blocker(state, { reports, jsTrusted: true }), null);
  assert.match(S.blocker(state, { reports, jsTrusted: true, untrustedLink: true }), /has not been allowed.*Allow/);
  assert.equal(S.blocker(state, { reports, jsTrusted: true, untrustedLink: false }), null);
  assert.match(S.blocker(state, { reports, jsTrusted: true, embed: true }), /embed only replays.*playground/);
  // The link's consent comes before asking for a compiler; syntax errors come first of all.
  assert.match(S.blocker({ ...state, compiler: '' }, { reports, jsTrusted: true, untrustedLink: true }), /has not been allowed/);
  const witness = S.setMode(state, 'witness');
  const bad = { variant: { ok: false } };
  assert.match(S.blocker(witness, { reports: bad, jsTrusted: true, untrustedLink: true }), /does not parse/);
  // The JavaScript prompt says the property is someone else's code.
  const js = S.setProperty(state, 'variant', { kind: 'js', js: '() => true' });
  const why = S.blocker(js, { reports, jsTrusted: false, untrustedLink: true });
  assert.match(why, /JavaScript property has not been allowed/);
  assert.match(why, /someone else’s code/);
  assert.equal(S.blocker(js, { reports, jsTrusted: true, untrustedLink: false }), null);
});

test("a link's numbers are clamped to the settings' ranges", async () => {
  const greedy = {
    ...base(),
    settings: { k: 1_000_000, timeoutS: 1e9, shareVerdicts: true },
    witness: { seed: -5, budget: 1e12, autoSeed: false },
    property: { ...S.DEFAULT_PROPERTY, exitValue: 1e300 },
  };
  const state = await viaLink({ ...greedy, mode: 'witness' });
  assert.equal(state.settings.k, S.LIMITS.k[1]);
  assert.equal(state.settings.timeoutS, S.LIMITS.timeoutS[1]);
  assert.equal(state.witness.budget, S.LIMITS.budget[1]);
  assert.equal(state.witness.rngSeed, 0);
  assert.equal(state.property.exitValue, S.LIMITS.exitValue[1]);
  assert.match(textOf(S.linkRequests(state), 'parallel'), /up to 16 compile requests/);
  // Too small, fractional, or no number at all (JSON has no NaN: a hand-made state may).
  const low = S.withDefaults({ settings: { k: 0, timeoutS: 0.2 }, witness: { budget: 1.6 } });
  assert.deepEqual([low.settings.k, low.settings.timeoutS, low.witness.budget], [1, 0, 2], '(timeout 0: adaptive)');
  const nan = S.withDefaults({ settings: { k: NaN, timeoutS: Infinity } });
  assert.deepEqual([nan.settings.k, nan.settings.timeoutS], [S.defaultState().settings.k, S.defaultState().settings.timeoutS]);
  // What the worker gets follows: at most 16 in flight, a timeout of at most 600 s.
  const config = S.reduceConfig(state, 'c');
  assert.equal(config.k, 16);
  assert.equal(config.timeoutMs, 600_000);
});

test("a generator link records its outputs, which an embed shows instead of running it", async () => {
  const state = S.setMode(base(), 'generator');
  const run = {
    ...S.startRun(state, null, { lang: null }),
    state: 'done', verdicts: '0101', best: 'c\n', original: { variant: 'abc\n', seed: null },
    originalTrace: { nodes: [] }, trace: { nodes: [] },
  };
  const shared = S.shareableState(state, { run, engineId: 'e1' });
  assert.deepEqual(shared.outputs, { original: 'abc\n', best: 'c\n', originalTrace: { nodes: [] }, trace: { nodes: [] } });
  const { link } = S.fromLink(await decodeState(await encodeState(shared)));
  assert.deepEqual(link.outputs, shared.outputs);
  const shown = S.recordedRun(state, link.outputs);
  assert.deepEqual([shown.state, shown.replay, shown.best, shown.stats.tokens_before, shown.stats.tokens_now], ['done', true, 'c\n', 4, 2]);
  // Outputs of the wrong shape are dropped (an embed then has nothing to show), as are
  // verdicts that are not a recording.
  assert.equal(S.fromLink({ ...shared, outputs: { original: 1, best: 'x' } }).link.outputs, undefined);
  assert.equal(S.fromLink({ ...shared, verdicts: '01<script>' }).link, null);
});
