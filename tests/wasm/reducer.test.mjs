// The wasm engine's single-program API, driven from JavaScript as the playground's worker
// drives it: parse reports, language detection, a Session's queries and verdicts, replay,
// and the errors it throws. Needs web/pkg (`npm run build`). Run: node --test tests/wasm/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import engine, { drive, replay } from './engine.mjs';

const PROGRAM = `int bar(int y) { return y * 2; }
int foo(int x) { return x + 1; }
int main(void) {
  int a = bar(3);
  int b = foo(a);
  return b;
}
`;
const hasFoo = (text) => text.includes('foo(');

test('parse reports tokens, bytes, validity, round trip and time, and the tree when asked', () => {
  const r = engine.parse(PROGRAM, 'c', false);
  assert.equal(r.lang, 'c');
  assert.equal(r.ok, true);
  assert.equal(r.error, null);
  assert.equal(r.round_trip, true);
  assert.equal(r.bytes, Buffer.byteLength(PROGRAM));
  assert.ok(Number.isInteger(r.tokens) && r.tokens > 20 && r.tokens < PROGRAM.length, `tokens: ${r.tokens}`);
  assert.equal(typeof r.parse_ms, 'number');
  assert.ok(!('tree' in r), 'no tree unless asked');

  const withTree = engine.parse(PROGRAM, 'c', true);
  assert.ok(Array.isArray(withTree.tree) && withTree.tree.length > 0);
  assert.ok(withTree.tree.some((n) => n.kind === 'function_definition'));
  assert.equal(withTree.tokens, r.tokens);

  const bad = engine.parse('int main(void) {\n  return (;\n}\n', 'c', false);
  assert.equal(bad.ok, false);
  assert.equal(typeof bad.error.line, 'number');
  assert.equal(typeof bad.error.column, 'number');
  assert.ok(bad.error_tokens > 0 && bad.error_tokens < bad.tokens, 'the share the grammar covers');

  assert.equal(engine.parse(PROGRAM, 'auto', false).lang, 'c', 'auto detects the language');
  assert.throws(() => engine.parse(PROGRAM, 'cobol', false), /unknown language `cobol`/);
});

test('detectLang goes by the file name', () => {
  assert.equal(engine.detectLang('a.c', ''), 'c');
  assert.equal(engine.detectLang('a.cpp', ''), 'cpp');
  assert.equal(engine.detectLang('main.rs', ''), 'rust');
  assert.equal(engine.detectLang('app.js', ''), 'javascript');
  assert.equal(engine.detectLang('Main.java', ''), 'java');
});

test('a Session keeps the property, shrinks the program, and hands out variant queries, the original first', () => {
  const r = new engine.Session({ lang: 'c', text: PROGRAM });
  const queries = drive(r, 3, (q) => hasFoo(q.text));
  assert.ok(queries.length > 1);
  assert.deepEqual(new Set(queries.map((q) => q.side)), new Set(['variant']), 'one program: every query is of the variant side');
  assert.equal(queries[0].original, true, 'the original comes first');
  assert.equal(queries[0].text, PROGRAM);
  assert.equal(queries[0].verdict, 'interesting');
  assert.ok(queries.slice(1).every((q) => q.original === false), 'one original query');
  assert.equal(new Set(queries.map((q) => q.id)).size, queries.length, 'query ids are unique');
  for (const q of queries) assert.equal(typeof q.candidate, 'number');

  const best = r.best();
  assert.equal(typeof best, 'string');
  assert.ok(hasFoo(best), `the result keeps the property:\n${best}`);
  assert.ok(best.length < PROGRAM.length / 2, `the result is small:\n${best}`);
  assert.equal(engine.parse(best, 'c', false).ok, true, 'the result parses');

  const s = r.stats();
  assert.equal(s.done, true);
  assert.equal(s.original_interesting, true);
  assert.ok(s.tokens_now < s.tokens_before);
  assert.equal(s.queries, queries.length, 'stats count the verdicts reported');
  assert.ok(Array.isArray(r.history()) && r.history().length > 0);
  assert.match(r.verdicts(), /^[01]+$/);
});

test("the verdicts replay to the same result, and k does not change it", () => {
  const a = new engine.Session({ lang: 'c', text: PROGRAM });
  drive(a, 1, (q) => hasFoo(q.text));
  const b = new engine.Session({ lang: 'c', text: PROGRAM });
  drive(b, 4, (q) => hasFoo(q.text));
  assert.equal(b.best(), a.best());

  const r = replay(engine.Session.replay({ lang: 'c', text: PROGRAM }, a.verdicts()));
  assert.equal(r.best(), a.best());
  assert.equal(r.stats().done, true);
});

test('an original without the property is reported, and nothing is reduced', () => {
  const r = new engine.Session({ lang: 'c', text: PROGRAM });
  drive(r, 2, () => false);
  assert.equal(r.stats().original_interesting, false);
  assert.equal(r.best(), PROGRAM);
});

test('a program with a syntax error is reduced tolerantly: no query adds an error', () => {
  const text = 'int keep(void) { return 42; }\nint g = @@ 3 @@;\nint drop(void) { return 1; }\n';
  const errorWords = (t) => {
    const report = engine.parse(t, 'c', true);
    const nodes = report.tree;
    const inError = (i) => { for (let n = nodes[i]; n; n = nodes[n.parent]) { if (n.error) return true; if (n.parent == null) return false; } return false; };
    const words = [];
    nodes.forEach((n, i) => { if (!n.children.length && inError(i)) words.push(...t.slice(n.start, n.end).split(/\s+/).filter(Boolean)); });
    return words.sort();
  };
  const original = errorWords(text);
  assert.ok(original.length > 0);
  const r = new engine.Session({ lang: 'c', text });
  drive(r, 2, ({ text: t }) => {
    const words = errorWords(t);
    let i = 0;
    for (const w of words) { while (i < original.length && original[i] !== w) i++; assert.ok(i++ < original.length, `a query added an error: ${t}`); }
    return t.includes('42');
  });
  assert.equal(r.stats().invalid_queries, 0);
  assert.ok(!r.best().includes('drop') && !r.best().includes('@@'), r.best());
});

test('a Session says what is wrong with its input', () => {
  const broken = 'int main(void) {\n  return (;\n}\n';
  assert.throws(() => new engine.Session({ lang: 'c', text: broken, strict: true }), /does not parse.*line \d+/);
  assert.throws(
    () => new engine.Session({ lang: 'c', text: PROGRAM, strategy: 'nope' }),
    /unknown strategy `nope`.*perses.*hdd.*ddmin-lines.*ddmin-tokens/,
  );
  const r = new engine.Session({ lang: 'c', text: PROGRAM });
  const [q] = r.next(1);
  assert.throws(() => r.report(q.id, 'maybe'), /unknown verdict `maybe`/);
});

test('skipped passes are left out, and an unknown one is refused with the valid names', () => {
  const r = new engine.Session({ lang: 'c', text: PROGRAM, skip_passes: 'rename, types' });
  drive(r, 2, (q) => hasFoo(q.text));
  const passes = r.stats().passes.map((p) => p.pass);
  assert.ok(passes.includes('perses') && !passes.includes('rename') && !passes.includes('types'), String(passes));
  assert.throws(
    () => new engine.Session({ lang: 'c', text: PROGRAM, skip_passes: 'renames' }),
    /unknown pass `renames`: use comments, perses, .*update, .* chunks, unused, bodies, terminators, chains, extensions, roots, clauses, file-scope, bare-field, delete-file, .* or make-flags/,
  );
});

test('the engine reads a crash’s signature as the CLI does, for the page’s crash template', async () => {
  const { crashTemplate } = await import('../../web/src/diagnostics.js');
  const { regexProperty } = await import('../../web/src/property.js');
  const ice = 'x.c: In function ‘f’:\nx.c:3:1: internal compiler error: in fold_binary_loc, at fold-const.cc:1234\n0x1234 fold_binary_loc(...)\n';
  const signature = engine.crashSignature(ice, 4);
  assert.deepEqual(signature, { fragments: ['internal compiler error: in fold_binary_loc, at fold-const.cc'], code: null });
  const p = regexProperty(crashTemplate(signature).property);
  const answer = (stderr, code) => ({ code, stdout: '', stderr, asm: '', run: null });
  assert.equal(await p.test(answer('y.c:1:1: internal compiler error: in fold_binary_loc, at fold-const.cc:99', 4), ''), true);
  assert.equal(await p.test(answer('internal compiler error: in expand_expr, at expr.cc:7', 4), ''), false);
  assert.ok(!engine.crashSignature('error: expected ‘;’', 1), 'an ordinary error is no crash');
});

test('a picked diagnostic with “no new compile error”: another error the original did not have is not interesting', async () => {
  const { diagnosticOf, diagnosticProperty } = await import('../../web/src/diagnostics.js');
  const { regexProperty } = await import('../../web/src/property.js');
  const original = "x.c:3:5: error: 'y' undeclared (first use in this function)\nx.c:5:1: error: expected ';' before '}' token\n";
  const errors = engine.compileErrors(original);
  assert.deepEqual(errors, ["error: 'y' undeclared (first use in this function)", "error: expected ';' before '}' token"]);
  const spec = { ...diagnosticProperty(diagnosticOf(original.split('\n')[0]), errors), noNewErrors: true };
  const p = regexProperty(spec, engine);
  const answer = (stderr) => ({ code: 1, stdout: '', stderr, asm: '', run: null });
  assert.equal(await p.test(answer("a.c:1:9: error: 'y' undeclared (first use in this function)"), ''), true);
  assert.equal(await p.test(answer("a.c:1:9: error: 'y' undeclared (first use in this function)\na.c:2:1: error: 'z' undeclared here"), ''), false, 'a new error');
  assert.equal(await regexProperty({ ...spec, noNewErrors: false }, engine).test(answer("a.c:1:9: error: 'y' undeclared (first use in this function)\na.c:2:1: error: unknown type name 'q'"), ''), true, 'unticked: any other error');
  assert.throws(() => regexProperty(spec), /needs the engine/);
});
