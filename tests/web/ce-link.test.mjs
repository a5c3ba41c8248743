// Compiler Explorer's links (web/src/ce-link.js): its own test fixtures decoded, re-encoded to
// the same text, client state in both forms, short links through a local stand-in for an
// instance, and the links back (a program, a pair) read again as Compiler Explorer would.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { deflateSync } from 'node:zlib';
import * as L from '../../web/src/ce-link.js';

const fixture = (name) => readFileSync(new URL(`../fixtures/compiler-explorer/${name}`, import.meta.url), 'utf8');
const links = JSON.parse(fixture('links.json'));
const only = (sessions) => {
  assert.equal(sessions.length, 1);
  return sessions[0];
};

test('each version of Compiler Explorer full links gives its source, compiler and flags', () => {
  const cases = [
    ['v4-plain', 'int square(int num)', 'g152', ''],
    ['v4-compressed', 'badger', 'g152', '-O2'],
    ['v3-rison', 'std::vector<Widget> vector', 'g7snapshot', '-std=c++1z -O3 '],
    ['v3-sourcez', 'int', 'g474', ''],
    ['v2-json', 'I am a walrus', '/home/mgodbolt/apps/intel-icc-oss/bin/icc', '-O3 -std=c++0x'],
  ];
  for (const [name, text, compiler, flags] of cases) {
    const s = L.settingsOf(only(L.sessionsOfFragment(L.decodeFragment(links[name]))));
    assert.ok(s.source.includes(text), `${name}: ${s.source}`);
    assert.deepEqual([s.lang, s.compiler, s.flags, s.execute], ['cpp', compiler, flags, false], name);
  }
});

test('re-encoding a decoded version-4 fragment gives Compiler Explorer\'s own text back', () => {
  for (const name of ['v4-plain', 'v4-compressed']) {
    // (the browser's address bar writes ' as %27; Compiler Explorer's encoder does not)
    const original = links[name].replace(/%27/g, "'");
    assert.equal(L.encodeFragment(L.decodeFragment(original)), original, name);
  }
  assert.ok(links['v4-compressed'].startsWith('z:'), 'a large state is compressed');
  assert.ok(L.encodeFragment(L.decodeFragment(links['v4-plain'])).startsWith('g:!((g:!('), 'a small one is not');
});

test('a layout with two editors, each with its compiler, keeps both through the fragment', () => {
  const layout = JSON.parse(fixture('twocompilers.layout.json'));
  const sessions = L.sessionsOfFragment(L.decodeFragment(L.encodeFragment(layout)));
  assert.deepEqual(sessions.map((s) => [s.id, s.compilers.map((c) => `${c.compiler} ${c.options}`)]), [[1, ['vc2017_64 -O2']], [2, ['vc2017_32 -O3']]]);
  assert.match(sessions[0].source, /num \* num \+ 3/);
  assert.match(L.describeSession(sessions[1], 1), /^Editor 2 \(c\+\+, vc2017_32\): \/\/ Type your code/);
});

test('client state links, plain and zlib-deflated, in either base64 alphabet', async () => {
  const json = fixture('executor.clientstate.json');
  const forms = [Buffer.from(json).toString('base64'), deflateSync(Buffer.from(json)).toString('base64url')];
  for (const data of forms) {
    const link = L.recognise(`https://godbolt.org/clientstate/${data}`);
    assert.equal(link.kind, 'clientstate');
    const { base, sessions } = await L.readLink(link);
    assert.equal(base, 'https://godbolt.org');
    const s = L.settingsOf(only(sessions));
    assert.deepEqual([s.compiler, s.flags, s.execute, s.others], ['g92', '-O3', true, 0]);
    assert.match(s.source, /return square\(23\)/);
  }
  await assert.rejects(L.readLink({ kind: 'clientstate', base: 'x', data: 'eyJub3QiOg' }), /not JSON: was the link cut short/);
});

test('recognises links by form, and leaves Whittle\'s own permalinks and other text alone', () => {
  assert.deepEqual(L.recognise('https://godbolt.org/z/Ab12_x'), { kind: 'short', base: 'https://godbolt.org', id: 'Ab12_x' });
  assert.deepEqual(L.recognise(' https://godbolt.org/gpu/z/q1 '), { kind: 'short', base: 'https://godbolt.org/gpu', id: 'q1' });
  assert.deepEqual(L.recognise(`http://127.0.0.1:1/#${links['v4-plain']}`), { kind: 'fragment', base: 'http://127.0.0.1:1', fragment: links['v4-plain'] });
  assert.equal(L.recognise('https://example.org/#v1,abc'), null);
  assert.equal(L.recognise('int main(void) { return 0; }'), null);
  assert.equal(L.recognise('https://godbolt.org/'), null);
  assert.throws(() => L.decodeFragment('g:!((g:!('), /neither Compiler Explorer state nor Whittle/);
  assert.throws(() => L.decodeFragment('z:AAAA'), /does not decompress/);
});

// --- short links through a stand-in instance -------------------------------------------------

let server;
let base;
before(async () => {
  server = createServer((req, res) => {
    if (req.url === '/api/shortlinkinfo/good') return res.end(fixture('executor.clientstate.json'));
    if (req.url === '/api/shortlinkinfo/layout') return res.end(JSON.stringify(L.pairLayout({ lang: 'c', seed: 'int a;', variant: 'int b;', compiler: 'cg152', flags: '-O1' })));
    res.writeHead(404);
    res.end('ID could not be found');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());

test('a short link is resolved through the instance\'s /api/shortlinkinfo', async () => {
  const { sessions } = await L.readLink(L.recognise(`${base}/z/good`));
  assert.equal(L.settingsOf(only(sessions)).compiler, 'g92');
  const layout = await L.readLink(L.recognise(`${base}/z/layout`));
  assert.deepEqual(layout.sessions.map((s) => s.source), ['int a;', 'int b;']);
});

test('a short link that cannot be resolved says to paste the full link', async () => {
  await assert.rejects(L.readLink(L.recognise(`${base}/z/gone`)), /answered HTTP 404\. In Compiler Explorer, use Share → Full link, and paste that instead/);
  const unreachable = () => Promise.reject(new Error('refused')); // (fetch's failure, without the network)
  await assert.rejects(L.readLink({ kind: 'short', base, id: 'x' }, unreachable), /did not answer \(refused\)\. In Compiler Explorer, use Share → Full link/);
});

// --- links back ------------------------------------------------------------------------------

test('the link back for a program opens it with the same compiler, flags and execution', async () => {
  const program = { lang: 'c', source: 'int main(void) {\n  return "é"[0];\n}\n', compiler: 'cg152', flags: '-O2 -Wall', execute: true };
  const url = L.clientStateLink('https://godbolt.org/', program);
  assert.match(url, /^https:\/\/godbolt\.org\/clientstate\/[A-Za-z0-9_-]+$/);
  // As Compiler Explorer reads it: base64 (Buffer accepts either alphabet) of JSON.
  const cs = JSON.parse(Buffer.from(url.split('/clientstate/')[1], 'base64').toString());
  assert.equal(cs.sessions[0].language, 'c');
  assert.deepEqual(cs.sessions[0].compilers.map((c) => [c.id, c.options]), [['cg152', '-O2 -Wall']]);
  const back = L.settingsOf(only((await L.readLink(L.recognise(url))).sessions));
  assert.deepEqual(back, { lang: 'c', source: program.source, files: [], compiler: 'cg152', flags: '-O2 -Wall', execute: true, others: 0, second: null });
  assert.deepEqual(L.shortenerBody(program), cs, 'the shortener stores the same state');
});

test('the link back for a pair opens both programs, each with its compiler, and a diff of the sources', () => {
  const url = L.pairLink('https://godbolt.org', { lang: 'cpp', seed: 'int f() { return 1; }', variant: 'int f() { return 2; }', compiler: 'g152', flags: '-O3' });
  const config = L.decodeFragment(L.recognise(url).fragment);
  const sessions = L.sessionsOfFragment(config);
  assert.deepEqual(sessions.map((s) => [s.lang, s.source, s.compilers[0].compiler, s.compilers[0].options]),
    [['c++', 'int f() { return 1; }', 'g152', '-O3'], ['c++', 'int f() { return 2; }', 'g152', '-O3']]);
  const diff = JSON.stringify(config).match(/"componentName":"diff","componentState":(\{[^}]*\})/);
  assert.deepEqual(JSON.parse(diff[1]), { lhs: 'source_1', rhs: 'source_2', lhsdifftype: 16, rhsdifftype: 16 });
});

test('a session Whittle cannot reduce says why', () => {
  const s = { id: 1, lang: 'fortran', source: 'end', compilers: [{ compiler: 'gfortran', options: '', execute: false }], executors: [] };
  assert.throws(() => L.settingsOf(s), /language "fortran", which Whittle does not reduce/);
  assert.throws(() => L.settingsOf({ ...s, lang: 'c', compilers: [] }), /no compiler: add one in Compiler Explorer/);
});

test('a session with a second build (another compiler, or other flags) names it, for wrong code across the two', () => {
  const session = (compilers, executors = []) => ({ lang: 'c', source: 'int x;', compilers, executors });
  const c = (compiler, options, execute = false) => ({ compiler, options, execute });
  assert.deepEqual(L.settingsOf(session([c('g1', '-O0'), c('g1', '-O2')])).second, { compiler: 'g1', flags: '-O2' });
  assert.deepEqual(L.settingsOf(session([c('g1', '-O2')], [c('clang1', '-O2', true)])).second, { compiler: 'clang1', flags: '-O2' });
  assert.equal(L.settingsOf(session([c('g1', '-O2')], [c('g1', ' -O2', true)])).second, null, 'its own executor is no second build');
});

test('a multi-file tree opens as its main source with the files it includes, in client state and in a layout', () => {
  const files = [
    { fileId: 1, isIncluded: true, isOpen: false, isMainSource: true, filename: 'example.cpp', content: '#include "util.h"\nint main() { return f(); }\n', editorId: -1, langId: 'c++' },
    { fileId: 2, isIncluded: true, isOpen: false, isMainSource: false, filename: 'util.h', content: 'inline int f() { return 1; }\n', editorId: -1, langId: 'c++' },
    { fileId: 3, isIncluded: false, isOpen: false, isMainSource: false, filename: 'notes.txt', content: 'left out\n', editorId: -1, langId: '' },
  ];
  const cs = { sessions: [], trees: [{ id: 1, compilerLanguageId: 'c++', files, compilers: [{ id: 'g132', options: '-O2 -Wall' }], executors: [] }] };
  const s = L.settingsOf(only(L.sessionsOfClientState(cs)));
  assert.equal(s.lang, 'cpp');
  assert.match(s.source, /return f\(\)/);
  assert.deepEqual(s.files, [{ filename: 'util.h', contents: 'inline int f() { return 1; }\n' }]);
  assert.deepEqual([s.compiler, s.flags], ['g132', '-O2 -Wall']);
  // In a layout an open file's text is in its editor, and the tree's compiler names the tree.
  const open = files.map((f) => (f.fileId === 2 ? { ...f, isOpen: true, editorId: 7, content: '' } : f));
  const layout = {
    version: 4,
    content: [{ type: 'row', content: [
      { type: 'component', componentName: 'tree', componentState: { id: 1, compilerLanguageId: 'c++', files: open } },
      { type: 'component', componentName: 'codeEditor', componentState: { id: 7, lang: 'c++', source: 'inline int f() { return 2; }\n' } },
      { type: 'component', componentName: 'compiler', componentState: { tree: 1, compiler: 'g132', options: '-O1', lang: 'c++' } },
    ] }],
  };
  const t = L.settingsOf(only(L.sessionsOfFragment(layout)));
  assert.deepEqual(t.files, [{ filename: 'util.h', contents: 'inline int f() { return 2; }\n' }]);
  assert.deepEqual([t.compiler, t.flags], ['g132', '-O1']);
});

test('the link back for a program with files opens them as a tree, and reads back the same', async () => {
  const files = [{ filename: 'util.h', contents: '#define N 3\n' }, { filename: 'inc/more.h', contents: 'int g(void);\n' }];
  const program = { lang: 'c', source: '#include "util.h"\nint f(void) { return N; }\n', compiler: 'cg152', flags: '-O2', execute: false, files };
  const url = L.clientStateLink('https://godbolt.org', program);
  const cs = JSON.parse(Buffer.from(url.split('/clientstate/')[1], 'base64').toString());
  assert.deepEqual(cs.trees[0].files.map((f) => [f.filename, f.isMainSource]), [['example.c', true], ['util.h', false], ['inc/more.h', false]]);
  const back = L.settingsOf(only((await L.readLink(L.recognise(url))).sessions));
  assert.deepEqual([back.source, back.files, back.compiler, back.flags], [program.source, files, 'cg152', '-O2']);
});
