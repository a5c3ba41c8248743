// The broad bench's JavaScript cases: the driver's errors become properties that hold on the
// program and fail on an empty one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_DRIVER, nodeErrorsAbout, warningKind, warningRegex } from '../../scripts/bench/broad.mjs';

function drive(dir, text) {
  writeFileSync(join(dir, 'input.js'), text);
  return spawnSync(process.execPath, ['-e', NODE_DRIVER, 'input.js'], { cwd: dir, encoding: 'utf8' });
}

test('the driver calls each exported function and its errors become properties', () => {
  const dir = mkdtempSync(join(tmpdir(), 'whittle-broad-test-'));
  try {
    writeFileSync(join(dir, 'package.json'), '{ "type": "commonjs" }\n');
    const r = drive(
      dir,
      "exports.parse = function (s) { if (typeof s !== 'string') throw new TypeError('argument str must be a string'); };\n" +
        'exports.ok = function () { return 1; };\nexports.n = 3;\n',
    );
    assert.equal(r.status, 0, r.stderr);
    const found = nodeErrorsAbout(r.stderr);
    assert.deepEqual(found, [{ message: '`parse`: TypeError: argument str must be a string', flag: 'TypeError' }]);
    assert.equal(warningKind(found[0].message), '`_`: TypeError: argument str must be a string');
    const regex = new RegExp(warningRegex(found[0].message));
    assert.match(r.stderr, regex);
    // An empty module throws nothing: the property fails on it.
    assert.doesNotMatch(drive(dir, '').stderr, regex);
    // A module that does not load is no program (the driver exits non-zero).
    assert.notEqual(drive(dir, 'exports.f = (;\n').status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('mutations change one constant, operator, name or statement, and nothing else', async () => {
  const { apply, mutations, random, shuffled, tokenize } = await import('../../scripts/bench/mutate.mjs');
  const text = 'int f(int a) {\n  /* a <= 1 */ int b = a + 10;\n  return b;\n}\n';
  const tokens = tokenize(text);
  assert.deepEqual(tokens.slice(0, 3).map((t) => text.slice(t.start, t.end)), ['int', 'f', '(']);
  assert.ok(!tokens.some((t) => text.slice(t.start, t.end) === '<='), 'a comment holds no token');
  const made = mutations(text).map((m) => ({ kind: m.kind, line: m.line, text: apply(text, m) }));
  const has = (kind, out) => made.some((m) => m.kind === kind && m.text === out);
  assert.ok(has('constant', text.replace('10', '11')));
  assert.ok(has('operator', text.replace('a + 10', 'a - 10')));
  assert.ok(has('delete', text.replace('int b = a + 10;', '')));
  assert.ok(has('duplicate', text.replace('int b = a + 10;', 'int b = a + 10; int b = a + 10;')));
  assert.ok(has('name', text.replace('return b;', 'return a;')));
  // A keyword is never a name to swap.
  assert.ok(!made.some((m) => m.kind === 'name' && m.text === text.replace('return b', 'int b')));
  assert.ok(made.filter((m) => m.kind === 'delete').every((m) => m.line === 2 || m.line === 3));
  // The same seed, the same order.
  assert.deepEqual(shuffled([1, 2, 3, 4, 5], random(7)), shuffled([1, 2, 3, 4, 5], random(7)));
});

test("Rust's mutations drop a cast or a path's prefix, add a lifetime, delete an item", async () => {
  const { apply, mutations } = await import('../../scripts/bench/mutate.mjs');
  const text = 'use std::fmt;\npub struct S;\nimpl fmt::Debug for S {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { let n = 1u8 as u32; Ok(()) }\n}\nfn unused() {}\n';
  const made = mutations(text, 'rust').map((m) => ({ kind: m.kind, text: apply(text, m) }));
  const has = (kind, out) => made.some((m) => m.kind === kind && m.text === out);
  assert.ok(has('cast', text.replace('1u8 as u32', '1u8')));
  assert.ok(has('path', text.replace('impl fmt::Debug', 'impl Debug')));
  assert.ok(has('lifetime', text.replace('fmt::Formatter)', "fmt::Formatter<'_>)")));
  assert.ok(has('item', text.replace('fn unused() {}', '')));
  assert.ok(has('item', text.replace(/impl fmt::Debug for S \{[^]*?\n\}/, '')));
  // A unit struct has no body to delete; C and JavaScript get none of these.
  assert.ok(!made.some((m) => m.kind === 'item' && !m.text.includes('pub struct S;')));
  assert.ok(!mutations(text, 'c').some((m) => ['cast', 'path', 'lifetime', 'item'].includes(m.kind)));
});

// gcc ships with the Rust image the suite runs on.
test('a pair made from a case: the variant warns, the seed a few mutations away does not', { timeout: 120000 }, async () => {
  const { makeBroadPairs } = await import('../../scripts/bench/broad-pairs.mjs');
  const dir = mkdtempSync(join(tmpdir(), 'whittle-broad-pair-test-'));
  try {
    const program = 'int g(int);\nint f(int a) {\n  int b = a * 2;\n  int c = g(b);\n  int unused = c;\n  c = c + 3;\n  return g(c) + 1;\n}\n';
    mkdirSync(join(dir, 'case'));
    writeFileSync(join(dir, 'case', 'input.c'), program);
    const message = "unused variable 'unused'";
    const c = {
      name: 'tiny-gcc-unused-variable',
      program: { file: 'input.c', language: 'c', includes: [], origin: 'a test' },
      compiler: { name: 'gcc', command: 'gcc -O2 -Wall', args: (f) => `-c ${f} -o ${f}.o` },
      kind: warningKind(message),
      regex: warningRegex(message),
    };
    const { folders, skipped } = makeBroadPairs({ base: dir, made: [{ dir: join(dir, 'case'), case: c }], max: 5 });
    assert.deepEqual(skipped, []);
    assert.equal(folders.length, 1);
    const pair = folders[0];
    const meta = JSON.parse(readFileSync(join(pair, 'case.json'), 'utf8'));
    assert.equal(meta.seed, 'seed.c');
    assert.ok(meta.mutations.length >= 1 && meta.mutations.length <= 5, JSON.stringify(meta.mutations));
    assert.equal(readFileSync(join(pair, 'variant.c'), 'utf8'), program);
    assert.notEqual(readFileSync(join(pair, 'seed.c'), 'utf8'), program);
    const check = (script) => spawnSync('sh', [script], { cwd: pair }).status;
    assert.equal(check('./check-variant.sh'), 0, 'the variant warns');
    assert.equal(check('./check-seed.sh'), 0, 'the seed compiles without the warning');
    // Each script judges its own side: the seed's fails on the variant's text.
    writeFileSync(join(pair, 'seed.c'), program);
    assert.notEqual(check('./check-seed.sh'), 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a JavaScript string in single quotes is one token; in C a quote holds one character", async () => {
  const { tokenize } = await import('../../scripts/bench/mutate.mjs');
  const js = "let s = 'it is // no comment';\nf(s);\n";
  const words = (text, lang) => tokenize(text, lang).map((t) => text.slice(t.start, t.end));
  assert.deepEqual(words(js, 'javascript'), ['let', 's', '=', "'it is // no comment'", ';', 'f', '(', 's', ')', ';']);
  assert.deepEqual(words("char c = 'x'; int d;", 'c'), ['char', 'c', '=', "'x'", ';', 'int', 'd', ';']);
  // A Rust lifetime is no string.
  assert.deepEqual(words("fn f<'a>(x: &'a str) {}", 'rust').slice(0, 6), ['fn', 'f', '<', "'", 'a', '>']);
});
