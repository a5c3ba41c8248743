// Witness mode (DiWi) and pair mode's automatic seed in headless chromium against `whittle
// serve` on 127.0.0.1: a small C program whose array is too short for its string (gcc and tcc
// both warn "initializer-string for array ... is too long"). Witness mode lists the mutants
// that compile without the warning, each with its diff; pair mode with an automatic seed finds
// one such mutant as the seed and reduces the pair to a one-token difference; with serve's
// coverage build of tcc (scripts/build-tcc.sh), the compiler's files and functions are ranked.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeLink, launchBrowser, openPage as open, startServer } from './harness.mjs';

const PROGRAM = `#include <stdio.h>

static int twice(int x) { return 2 * x; }

int main(void) {
  char s[3] = "abcd";
  int n = twice(2);
  printf("%s %d\\n", s, n);
  return 0;
}
`;
const WARNING = 'initializer-string for array';

/** gcc -O2 -Wall -c on `program`: {code, warns} (whether it has the warning). */
function gcc(program) {
  const dir = mkdtempSync(join(tmpdir(), 'whittle-witness-'));
  try {
    writeFileSync(join(dir, 'p.c'), program);
    const out = execFileSync('sh', ['-c', 'gcc -O2 -Wall -c p.c -o p.o 2>&1; echo "exit $?"'], { cwd: dir, encoding: 'utf8' });
    return { code: Number(out.match(/exit (\d+)\s*$/)[1]), warns: out.includes(WARNING) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let server;
let browser;
before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

const openPage = (url = server.url) => open(browser, url);

/** The program, the compiler, -Wall, and the warning as the property (exit code 0). */
async function setUp(page, { mode, compiler = 'gcc', budget = '60', autoSeed = false }) {
  await page.selectOption('#mode', mode);
  await page.evaluate((text) => window.whittle.setProgram(text), PROGRAM);
  await page.waitForSelector(`#compiler option[value="${compiler}"]`, { state: 'attached' });
  await page.selectOption('#compiler', compiler);
  await page.fill('#flags', '-Wall');
  await page.fill('#prop-regex', WARNING);
  if (autoSeed) await page.check('#auto-seed'); // (a pair shows the search's settings only then)
  await page.fill('#wit-budget', budget);
}

const start = async (page, label) => {
  await page.waitForFunction((l) => !document.querySelector('#reduce').disabled && document.querySelector('#reduce').title.startsWith(l), label, { polling: 100 });
  await page.click('#reduce');
};

const finished = (page, timeout = 45000) =>
  page.waitForFunction(() => /^(done|failed|cancelled)/.test(document.querySelector('#status').textContent), null, { polling: 100, timeout });

/** Whether `whittle serve` offers its tcc with coverage. */
async function hasTcc() {
  const list = await (await fetch(`${server.url}api/compilers/c?fields=id,name`)).json();
  return list.some((c) => c.id === 'tcc');
}

test('witness mode lists the mutants that compile without the warning, each with its diff', async () => {
  const page = await openPage();
  await setUp(page, { mode: 'witness' });
  assert.equal(await page.textContent('#reduce'), 'Find witnesses');
  assert.ok(await page.locator('[data-tab=witnesses]').isVisible());
  assert.ok(await page.locator('[data-tab=result]').isHidden(), 'no Result tab: a search has no best');
  assert.ok(await page.locator('#strategy').isHidden());

  await start(page, 'Find witnesses');
  await page.waitForSelector('#witness-list .witness', { timeout: 45000 }); // listed as found
  await finished(page);
  const status = await page.textContent('#status');
  assert.match(status, /^done: \d+ witness(es)? in \d+ tests: \d+ still failing, \d+ passing, \d+ rejected/, status);
  assert.match(await page.textContent('#wit-queries'), /^\d+ of 60$/);
  assert.equal(await page.textContent('#wit-witnesses'), String(await page.locator('#witness-list .witness').count()));

  const witnesses = await page.evaluate(() => window.whittle.witnesses());
  assert.ok(witnesses.length >= 1);
  for (const w of witnesses) {
    assert.deepEqual(gcc(w.text), { code: 0, warns: false }, `a witness compiles without the warning:\n${w.text}`);
    assert.ok(w.changes.every((c) => c.line === 6), JSON.stringify(w.changes));
  }
  const first = page.locator('#witness-list .witness').first();
  assert.match(await first.locator('summary').textContent(), /^Witness 1/);
  assert.match(await first.locator('.witness-changes').textContent(), /line 6, constant-[a-z-]+: 3 → \d+/);
  const diff = await first.locator('pre').textContent();
  assert.match(diff, /^--- failing\n\+\+\+ witness 1\n/);
  assert.match(diff, /^- {2}char s\[3\] = "abcd";$/m);
  assert.match(diff, /^\+ {2}char s\[\d+\] = "abcd";$/m);
  assert.equal(await first.locator('pre del').count(), 1, 'the removed line is marked');
  assert.ok(await page.locator('#ranking').isHidden(), 'gcc gives no coverage: no ranking');

  // The link carries the mode and the search's settings, and no verdicts to replay.
  const link = await page.evaluate(() => window.whittle.shareLink());
  const state = decodeLink(link);
  assert.equal(state.mode, 'witness');
  assert.deepEqual(state.witness, { rngSeed: 1, budget: 60, autoSeed: false });
  assert.ok(!('verdicts' in state));
  const opened = await openPage(link);
  assert.equal(await opened.inputValue('#mode'), 'witness');
  assert.equal(await opened.inputValue('#wit-budget'), '60');
  assert.ok(await opened.locator('[data-tab=witnesses]').isVisible());
  assert.ok(await opened.locator('#link-panel').isVisible(), 'a link asks before it compiles');
  assert.equal(await opened.evaluate(() => window.whittle.runState()), null);
  assert.deepEqual([...page.errors, ...opened.errors], []);
  await opened.close();
  await page.close();
});

test('witness mode says what to do: a program that does not parse, a property that throws', async () => {
  const page = await openPage();
  await setUp(page, { mode: 'witness' });
  await page.evaluate(() => window.whittle.setProgram('int main( {'));
  await page.waitForFunction(() => /does not parse: fix the syntax error first/.test(document.querySelector('#reduce').title), null, { polling: 100 });
  assert.ok(await page.locator('#reduce').isDisabled());

  await page.evaluate((text) => window.whittle.setProgram(text), PROGRAM);
  await page.click('.segmented label:has(input[name=prop-kind][value=js])');
  await page.fill('#prop-js', '(result) => { throw new Error("boom"); }');
  await start(page, 'Find witnesses');
  await finished(page);
  assert.match(await page.textContent('#status'), /^failed: on the original program, the property threw: boom/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('pair mode with an automatic seed finds a seed and reduces the pair to a small difference', async () => {
  const page = await openPage();
  await setUp(page, { mode: 'pair', budget: '200', autoSeed: true });
  // The seed editor is not needed: even a seed that does not parse does not block.
  await page.evaluate(() => window.whittle.setProgram('int main( {', 'seed'));
  assert.ok(await page.locator('#prop-side-switch').isHidden(), 'the seed’s property is derived from the variant’s');
  assert.ok(await page.locator('#auto-seed-property').isVisible());
  await start(page, 'Reduce');
  await page.waitForFunction(() => /^finding a seed/.test(document.querySelector('#status').textContent), null, { polling: 50, timeout: 10000 }).catch(() => {});
  await finished(page);
  const status = await page.textContent('#status');
  assert.match(status, /^done: seed \d+ → \d+, variant \d+ → \d+, diff \d+ → (\d+) tokens \(\d+ queries, after \d+ finding the seed\)/, status);
  assert.ok(Number(status.match(/diff \d+ → (\d+) tokens/)[1]) <= 2, status);

  const seed = await page.evaluate(() => window.whittle.program('seed'));
  assert.notEqual(seed, 'int main( {', 'the seed found is in the seed editor');
  assert.deepEqual(gcc(seed), { code: 0, warns: false }, `the seed compiles without the warning:\n${seed}`);
  assert.equal(seed.split('\n').filter((l, i) => l !== PROGRAM.split('\n')[i]).length, 1, 'the seed is the variant with one line changed');
  assert.match(await page.textContent('#notice-text'), /^Seed found after \d+ tests \(line 6: 3 → \d+\)/);

  const best = await page.evaluate(() => window.whittle.result());
  assert.deepEqual(gcc(best.variant).warns, true);
  assert.deepEqual(gcc(best.seed), { code: 0, warns: false });
  assert.match(await page.textContent('#result-diff'), /^--- seed\n\+\+\+ variant\n/);
  assert.ok(await page.locator('#result-variant ins').count() > 0, 'the differing tokens are marked');

  // The link keeps the automatic seed, with the seed it found, and replays the pair.
  const link = await page.evaluate(() => window.whittle.shareLink());
  const state = decodeLink(link);
  assert.equal(state.mode, 'pair');
  assert.equal(state.witness.autoSeed, true);
  assert.equal(state.seed, seed);
  assert.match(state.verdicts, /^[01]+$/);
  const embed = await openPage(link.replace(server.url, `${server.url}e`));
  await finished(embed);
  assert.match(await embed.textContent('#status'), /^done.*replayed/);
  assert.deepEqual(await embed.evaluate(() => window.whittle.result()), best);
  assert.deepEqual([...page.errors, ...embed.errors], []);
  await embed.close();
  await page.close();
});

test('with tcc’s coverage the compiler’s files and functions are ranked', async () => {
  // setup.sh builds tcc's coverage build: without it this fails rather than passes untested.
  assert.ok(await hasTcc(), 'whittle serve offers no tcc: run scripts/build-tcc.sh');
  const page = await openPage();
  await setUp(page, { mode: 'witness', compiler: 'tcc' });
  await start(page, 'Find witnesses');
  await finished(page);
  assert.match(await page.textContent('#status'), /^done: \d+ witness/);
  assert.ok(await page.locator('#ranking').isVisible(), 'the ranking is shown');
  const ranking = await page.evaluate(() => window.whittle.ranking());
  assert.ok(ranking.files.length > 0 && ranking.functions.length > 0);
  assert.ok(ranking.files.every((f) => /\.[ch]$/.test(f.name)), JSON.stringify(ranking.files));
  const rows = await page.locator('#ranking-functions tr').allTextContents();
  assert.ok(rows.length > 1);
  assert.match(rows[1], /^\w+\.[ch]:\w+\d\.\d{3}\d+$/, rows[1]);
  assert.match(await page.textContent('#ranking-info'), /Ochiai.*\d+ witness/);
  assert.deepEqual(page.errors, []);
  await page.close();
});
