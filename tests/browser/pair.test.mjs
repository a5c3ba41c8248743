// Pairwise mode end to end: a seed and a variant from the bench, reduced through
// `whittle serve` to a small pair whose difference is the bug's trigger; then its permalink.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, decodeLink, launchBrowser, startServer } from './harness.mjs';

const PAIR = join(ROOT, '../shared/bench/pairs/int-conversion');

/** Runs the pair's check script for `side` ('seed' or 'variant') on `program`. */
function passes(side, program) {
  const dir = mkdtempSync(join(tmpdir(), 'whittle-pair-'));
  try {
    writeFileSync(join(dir, `${side}.c`), program);
    copyFileSync(join(PAIR, `check-${side}.sh`), join(dir, 'check.sh'));
    execFileSync('sh', ['check.sh'], { cwd: dir, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const statusMatches = (page, re, timeout) =>
  page.waitForFunction((src) => new RegExp(src).test(document.querySelector('#status').textContent), re.source, { timeout, polling: 250 });

test('pairwise mode reduces seed and variant to a minimal difference', async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');

  await page.selectOption('#mode', 'pair');
  await page.evaluate(([seed, variant]) => {
    window.whittle.setProgram(variant, 'variant');
    window.whittle.setProgram(seed, 'seed');
  }, [readFileSync(join(PAIR, 'seed.c'), 'utf8'), readFileSync(join(PAIR, 'variant.c'), 'utf8')]);
  await page.waitForSelector('#compiler option[value="gcc"]', { state: 'attached' });
  await page.selectOption('#compiler', 'gcc');
  await page.fill('#flags', '-O2 -Wall');
  // The variant's property: the warning, exit 0. The seed's: the same, negated (its default).
  await page.fill('#prop-regex', 'makes integer from pointer without a cast');
  await page.click('#prop-side-switch label:has(input[value=seed])');
  assert.equal(await page.inputValue('#prop-regex'), 'makes integer from pointer without a cast');
  assert.ok(await page.isChecked('#prop-negate'), 'the seed must not match');
  assert.equal(await page.inputValue('#exit-op'), 'eq');

  await page.waitForFunction(() => !document.querySelector('#reduce').disabled, null, { polling: 100 });
  await page.click('#reduce');
  await statusMatches(page, /done|failed|paused/, 5 * 60 * 1000);
  const status = await page.textContent('#status');
  assert.match(status, /^done: seed \d+ → \d+, variant \d+ → \d+, diff \d+ → \d+ tokens/, status);
  console.log(`pair: ${status}`);

  const best = await page.evaluate(() => window.whittle.result());
  assert.ok(passes('seed', best.seed), `the seed passes check-seed.sh:\n${best.seed}`);
  assert.ok(passes('variant', best.variant), `the variant passes check-variant.sh:\n${best.variant}`);
  const diffTokens = Number(status.match(/diff \d+ → (\d+) tokens/)[1]);
  assert.ok(diffTokens <= 5, `the difference is a handful of tokens (${diffTokens})`);
  assert.equal(await page.textContent('#result-variant'), best.variant);
  assert.ok(await page.locator('#result-variant ins').count() > 0, 'the differing tokens are marked');
  assert.match(await page.textContent('#result-diff'), /^--- seed/);

  // The permalink carries both programs and properties and replays the pair.
  await page.click('#share');
  await page.waitForFunction(() => document.querySelector('#share-link').value.includes('#v1,'), null, { polling: 50 });
  const link = await page.inputValue('#share-link');
  const state = decodeLink(link);
  assert.equal(state.mode, 'pair');
  assert.equal(state.seedProperty.negate, true);
  const replay = await browser.newPage();
  await replay.goto(link.replace(server.url, `${server.url}e`));
  await statusMatches(replay, /done|failed/, 60000);
  assert.match(await replay.textContent('#status'), /^done.*replayed/);
  assert.deepEqual(await replay.evaluate(() => window.whittle.result()), best);
});
