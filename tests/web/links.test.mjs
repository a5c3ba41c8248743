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

test('a JavaScript property is listed, and it says it can reach the network', async () => {
  const js = await viaLink(S.setProperty(base(), 'variant', { kind: 'js', js: '() => true' }));
  const asks = S.linkRequests(js);
  const line = asks.find((a) => a.key === 'js');
  assert.ok(line, 'the JavaScript property is listed');
  assert.match(line.text, /JavaScript property/);
  assert.match(line.text, /can reach the network/);
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
  const pair = S.setMode(state, 'pair');
  const bad = { variant: { ok: true }, seed: { ok: false } };
  assert.match(S.blocker(pair, { reports: bad, jsTrusted: true, untrustedLink: true }), /does not parse/);
  // The JavaScript prompt says the property can reach the network.
  const js = S.setProperty(state, 'variant', { kind: 'js', js: '() => true' });
  const why = S.blocker(js, { reports, jsTrusted: false, untrustedLink: true });
  assert.match(why, /JavaScript property has not been allowed/);
  assert.match(why, /network/);
  assert.equal(S.blocker(js, { reports, jsTrusted: true, untrustedLink: false }), null);
});
