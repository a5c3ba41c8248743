// Property templates read off a compile's answer (web/src/diagnostics.js): a clicked
// diagnostic's property holds for the answer it came from and not for one without it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crashTemplate, diagnosticOf, diagnosticProperty } from '../../web/src/diagnostics.js';
import { regexProperty } from '../../web/src/property.js';

const answer = (stderr, code = 0) => ({ code, stdout: '', stderr, asm: '', run: null });

test('gcc and clang diagnostic lines are read; other lines are not', () => {
  assert.deepEqual(diagnosticOf("<source>:7:7: warning: unused variable 'unused_counter' [-Wunused-variable]"),
    { severity: 'warning', message: "unused variable 'unused_counter'", flag: '-Wunused-variable' });
  assert.deepEqual(diagnosticOf('x.c:3: error: expected ‘;’ before ‘}’ token'), { severity: 'error', message: 'expected ‘;’ before ‘}’ token', flag: null });
  assert.equal(diagnosticOf('    5 |   int unused_counter;'), null);
  assert.equal(diagnosticOf("x.c: In function 'main':"), null);
});

test('a warning\'s property keeps the warning (any name) and the program compiling', async () => {
  const d = diagnosticOf("<source>:7:7: warning: initialization of 'int' from 'char *' makes integer from pointer without a cast [-Wint-conversion]");
  const p = regexProperty(diagnosticProperty(d));
  assert.equal(await p.test(answer("a.c:2:9: warning: initialization of 'long int' from 'char *' makes integer from pointer without a cast [-Wint-conversion]"), ''), true);
  assert.equal(await p.test(answer("a.c:2:9: warning: unused variable 'p'"), ''), false);
  assert.equal(await p.test(answer("a.c:2:9: warning: initialization of 'int' from 'char *' makes integer from pointer without a cast", 1), ''), false, 'not once it fails to compile');
  const e = regexProperty(diagnosticProperty(diagnosticOf("a.c:1:1: error: unknown type name 'foo'")));
  assert.equal(await e.test(answer("b.c:4:2: error: unknown type name 'x'", 1), ''), true, 'an error takes any exit code');
});

test('a crash is offered from its signature: every fragment, in any order, with the signal', async () => {
  const t = crashTemplate({ fragments: ['internal compiler error: in expand_expr, at expr.c', 'gimplify_expr(x)'], code: null });
  assert.match(t.label, /internal compiler error: in expand_expr, at expr\.c.*and 1 more/);
  const p = regexProperty(t.property);
  assert.equal(await p.test(answer('0x1 gimplify_expr(x)\nx.c:9:1: internal compiler error: in expand_expr, at expr.c:77', 1), ''), true, 'another line, the frames first');
  assert.equal(await p.test(answer('internal compiler error: in expand_expr, at expr.c:1', 1), ''), false, 'a fragment missing');
  assert.equal(await p.test(answer('internal compiler error: in expand_expr, at expr.c:1\ngimplify_expr(x)', 0), ''), false, 'no crash without a failure');
  const segv = regexProperty(crashTemplate({ fragments: [], code: 139 }).property);
  assert.equal(await segv.test(answer('', 139), ''), true);
  assert.equal(await segv.test(answer('', 134), ''), false, 'another signal');
  assert.equal(crashTemplate(null), null);
});
