// The page's wrong-code property (issue 27), in headless chromium against `whittle serve` on
// 127.0.0.1: two builds of a program (gcc -O0 against gcc -O2 -ffast-math) whose runs
// disagree, guarded against undefined behaviour. The page reduces it, and the result still
// shows the bug and passes the guard when built here; an original whose builds agree is
// refused, saying so; the guard refuses candidates on the way (counted in the progress).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseWrongCode, finished, openPage, startServerAndBrowser, stopServerAndBrowser } from './harness.mjs';

// -ffast-math lets gcc fold (x + y) - x to y; without it the sum rounds to x: 0, not 1. The
// rest is noise to remove; `unset` is read uninitialized where it is printed, which a
// reduction without the guard could keep as a (false) disagreement.
const PROGRAM = `#include <stdio.h>
static int helper(int a, int b) { return a * b + 3; }
struct pair { int first; int second; };
static int sum(struct pair p) { return p.first + p.second; }
int main(void) {
  int k = helper(2, 3);
  struct pair p = { k, 4 };
  double x = 1e16, y = 1.0;
  double s = (x + y) - x;
  printf("%g\\n", s);
  printf("%d\\n", sum(p) > 100);
  return 0;
}
`;

let env;
before(async () => {
  env = await startServerAndBrowser();
});
after(() => stopServerAndBrowser(env ?? {}));

/** Builds `program` with gcc `flags` and runs it: [exit code, stdout], or null if it did not build. */
function buildAndRun(dir, program, flags) {
  writeFileSync(join(dir, 'p.c'), program);
  const built = spawnSync('gcc', [...flags, 'p.c', '-o', 'p', '-lm'], { cwd: dir, encoding: 'utf8' });
  if (built.status !== 0) return null;
  const run = spawnSync('./p', [], { cwd: dir, encoding: 'utf8', env: { ...process.env, ASAN_OPTIONS: 'detect_leaks=0' }, timeout: 10000 });
  return [run.status, run.stdout, run.stderr];
}

async function setUp(page, program, { bFlags }) {
  await page.evaluate((text) => window.whittle.setProgram(text), program);
  await chooseWrongCode(page, { a: ['gcc', '-O0'], b: ['gcc', bFlags], guard: 'gcc' });
  await page.waitForFunction(() => !document.querySelector('#reduce').disabled, null, { polling: 100 });
}

test('a wrong-code property reduces over whittle serve; the result shows the bug and passes the guard', async () => {
  const page = await openPage(env.browser, env.server.url);
  await setUp(page, PROGRAM, { bFlags: '-O2 -ffast-math' });
  assert.deepEqual(await page.evaluate(() => window.whittle.state().property.wrongCode), { compiler: 'gcc', flags: '-O2 -ffast-math', guard: true, guardCompiler: 'gcc' });

  // The check makes all four compiles and calibrates: the builds disagree, the guard accepts.
  await page.click('#check');
  await page.waitForFunction(() => /✓|✗|guard|agree|cannot/.test(document.querySelector('#check-result').textContent), null, { polling: 100, timeout: 60000 });
  assert.match(await page.textContent('#check-result'), /✓/);

  await page.click('#reduce');
  await finished(page, 240000);
  const status = await page.textContent('#status');
  assert.match(status, /^done/, status);
  const result = await page.evaluate(() => window.whittle.result());
  assert.ok(result.length < PROGRAM.length / 2 && !result.includes('helper'), `reduced: ${result}`);
  const refused = await page.textContent('#progress-guard');
  assert.equal(await page.$eval('#progress-guard-row', (e) => e.hidden), false, 'the guard’s refusals are shown');
  console.log(`wrong code in the page: ${PROGRAM.length} -> ${result.length} bytes, ${await page.textContent('#progress-queries')} queries, guard refused ${refused}:\n${result}`);

  // Built here, the result still shows the bug, and passes the guard: the warnings that flag
  // undefined behaviour as errors, and a sanitized run that prints what -O0's run prints.
  const dir = mkdtempSync(join(tmpdir(), 'whittle-wrong-'));
  try {
    const a = buildAndRun(dir, result, ['-O0']);
    const b = buildAndRun(dir, result, ['-O2', '-ffast-math']);
    assert.ok(a && b, 'both builds build');
    assert.notDeepEqual(a.slice(0, 2), b.slice(0, 2), 'the builds still disagree');
    const warnings = execFileSync('sh', ['-c', 'gcc -O2 -Werror=uninitialized -Werror=maybe-uninitialized -Werror=return-type -Werror=implicit-function-declaration -Werror=int-conversion -c p.c -o p.o && echo ok'], { cwd: dir, encoding: 'utf8' });
    assert.match(warnings, /ok/);
    const s = buildAndRun(dir, result, ['-O0', '-g', '-fsanitize=undefined,address', '-fno-sanitize-recover=all']);
    assert.ok(s, 'the sanitized build builds');
    assert.deepEqual(s.slice(0, 2), a.slice(0, 2), `the sanitized run prints what -O0's does: ${s[2]}`);
    assert.doesNotMatch(s[2], /runtime error|Sanitizer/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('an original whose two builds agree is refused, saying so', async () => {
  const page = await openPage(env.browser, env.server.url);
  await setUp(page, 'int main(void) { return 0; }\n', { bFlags: '-O2' });
  await page.click('#check');
  await page.waitForFunction(() => /agree/.test(document.querySelector('#check-result').textContent), null, { polling: 100, timeout: 60000 });
  assert.match(await page.textContent('#check-result'), /the two builds agree on the original/);
  await page.click('#reduce');
  await finished(page);
  assert.match(await page.textContent('#status'), /^failed.*agree on the original/s);
  await page.close();
});

test('a JavaScript property given another compile’s answer: the runs of -O0 and -O2 -ffast-math differ', async () => {
  const page = await openPage(env.browser, env.server.url);
  await page.evaluate((text) => window.whittle.setProgram(text), PROGRAM);
  await page.selectOption('#endpoint', 'whittle');
  await page.waitForSelector('#compiler option[value="gcc"]', { state: 'attached' });
  await page.selectOption('#compiler', 'gcc');
  await page.fill('#flags', '-O0');
  await page.setChecked('#execute', true);
  await page.click('.segmented label:has(input[name=prop-kind][value=js])');
  // (the values the two builds compute, not just any difference: an argument printf reads
  // from nowhere differs too, from run to run)
  await page.fill('#prop-js', '(result, input, [a, b]) => !!(a.run && b && b.run) && a.run.stdout.startsWith("0\\n") && b.run.stdout.startsWith("1\\n")');
  await page.fill('#prop-js-compiles', 'run gcc -O2 -ffast-math');
  assert.deepEqual(await page.evaluate(() => window.whittle.state().property.compiles), [{ compiler: 'gcc', flags: '-O2 -ffast-math', execute: true }]);
  await page.waitForFunction(() => !document.querySelector('#reduce').disabled, null, { polling: 100 });
  await page.click('#check');
  await page.waitForFunction(() => /✓|✗|cannot|error/.test(document.querySelector('#check-result').textContent), null, { polling: 100, timeout: 60000 });
  assert.match(await page.textContent('#check-result'), /✓/);

  await page.click('#reduce');
  await finished(page, 240000);
  assert.match(await page.textContent('#status'), /^done/);
  const result = await page.evaluate(() => window.whittle.result());
  assert.ok(result.length < PROGRAM.length / 2 && !result.includes('helper'), `reduced: ${result}`);
  // Built here, the two builds still print different things.
  const dir = mkdtempSync(join(tmpdir(), 'whittle-js-compiles-'));
  try {
    const [a, b] = [['-O0'], ['-O2', '-ffast-math']].map((flags) => buildAndRun(dir, result, flags));
    assert.ok(a && b && a[1].startsWith('0\n') && b[1].startsWith('1\n'), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});
