// Generator mode with a wrong-code property (issue 29), in headless chromium against `whittle
// serve` on 127.0.0.1: examples/generators/c-defined.mjs, whose every run is a defined C
// program, from a seed whose program tcc 0.9.27 miscompiles (`x = 32767 || (x || 0) &&
// 0xffffffffu` gives 0); the property is tcc's run against gcc -O0's, with no guard, since the
// generator keeps each candidate defined. The page reduces the generator's run, and the result,
// built here, still shows tcc's bug and is clean under UBSan and ASan.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseWrongCode, finished, openPage, ROOT, startServerAndBrowser, stopServerAndBrowser } from './harness.mjs';

const DEFINED = readFileSync(`${ROOT}/examples/generators/c-defined.mjs`, 'utf8');
// A seed whose program tcc and gcc -O0 run differently (found by `npm run bench:generators`).
const SEED = '24';

let env;
before(async () => {
  env = await startServerAndBrowser();
});
after(() => stopServerAndBrowser(env ?? {}));

/** Builds dir/p.c with `cmd` (an array) and runs it: [exit code, stdout, stderr]. */
function buildAndRun(dir, cmd) {
  const built = spawnSync(cmd[0], [...cmd.slice(1), 'p.c', '-o', 'p'], { cwd: dir, encoding: 'utf8' });
  assert.equal(built.status, 0, `${cmd.join(' ')} did not build the result: ${built.stderr}`);
  const run = spawnSync('./p', [], { cwd: dir, encoding: 'utf8', timeout: 10000 });
  return [run.status, run.stdout, run.stderr];
}

test('the defined C generator reduces a tcc wrong-code bug over whittle serve; the result is defined', async () => {
  const list = await (await fetch(`${env.server.url}api/compilers`, { headers: { Accept: 'application/json' } })).json();
  // setup.sh builds tcc: without it this fails rather than passes untested.
  assert.ok(list.some((c) => c.id === 'tcc'), 'whittle serve offers no tcc: run scripts/build-tcc.sh');

  const page = await openPage(env.browser, env.server.url);
  await page.selectOption('#mode', 'generator');
  await page.evaluate((text) => window.whittle.setGenerator(text), DEFINED);
  await page.fill('#gen-rng-seed', SEED);
  await chooseWrongCode(page, { a: ['tcc', ''], b: ['gcc', '-O0'] });

  await page.click('#check');
  await page.waitForFunction(() => /✓|✗|agree|cannot|threw/.test(document.querySelector('#check-result').textContent), null, { polling: 100, timeout: 60000 })
    .catch(async (e) => {
      throw new Error(`${e.message}; the check says: ${await page.textContent('#check-result')}; status: ${await page.textContent('#status')}`);
    });
  assert.match(await page.textContent('#check-result'), /✓/);
  const original = await page.textContent('#generator-original');

  await page.waitForFunction(() => !document.querySelector('#reduce').disabled, null, { polling: 100 });
  await page.click('#reduce');
  await finished(page, 300000);
  const status = await page.textContent('#status');
  assert.match(status, /^done/, status);
  const result = await page.evaluate(() => window.whittle.result());
  assert.ok(result.length < original.length / 10, `reduced ${original.length} -> ${result.length} bytes (${status}; ${await page.textContent('#notice-text')}; ${await page.textContent('#progress-queries')} queries)`);
  console.log(`generator wrong code in the page: ${original.length} -> ${result.length} bytes, ${await page.textContent('#progress-queries')} queries:\n${result}`);

  // Built here: tcc and gcc -O0 still disagree, and the sanitized build runs clean and as gcc's.
  const dir = mkdtempSync(join(tmpdir(), 'whittle-gen-wrong-'));
  try {
    writeFileSync(join(dir, 'p.c'), result);
    const tcc = spawnSync('sh', ['-c', 'command -v tcc'], { encoding: 'utf8' }).status === 0;
    const gcc = buildAndRun(dir, ['gcc', '-O0', '-w']);
    if (tcc) assert.notDeepEqual(buildAndRun(dir, ['tcc', '-w']).slice(0, 2), gcc.slice(0, 2), 'tcc and gcc -O0 still disagree');
    const san = buildAndRun(dir, ['gcc', '-O0', '-w', '-fsanitize=undefined,address', '-fno-sanitize-recover=all']);
    assert.deepEqual(san.slice(0, 2), gcc.slice(0, 2), `the sanitized run is gcc's: ${san[2]}`);
    assert.doesNotMatch(san[2], /runtime error|Sanitizer/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});
