// Issue 30, item 4: the keyboard. Every switch is in the Tab order and works with the keys,
// focus is visible, Ctrl+Enter starts a reduction without editing the text, the arrow keys
// move between the tabs, and axe-core finds no serious or critical violation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { finished, launchBrowser, openPage, startServer } from './harness.mjs';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

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

/** Presses Tab until the focused element matches `selector`; fails after `max` presses. */
async function tabTo(page, selector, max = 150) {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s), selector)) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`Tab never reached ${selector}`);
}

/** What the focused element looks like: its outline, or its label's (a hidden radio's). */
const focusRing = (page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    const shown = el.matches('.segmented input') ? el.closest('label') : el;
    const s = getComputedStyle(shown);
    return { style: s.outlineStyle, width: parseFloat(s.outlineWidth) };
  });

test('a reduction set up and started with the keyboard only', async () => {
  const page = await openPage(browser, server.url);
  const original = await page.evaluate(() => window.whittle.program());

  // Endpoint: none (the last option), the property a regex over the program text.
  await tabTo(page, '#endpoint');
  await page.keyboard.press('End');
  await page.waitForFunction(() => window.whittle.state().endpoint.kind === 'none');
  await tabTo(page, 'input[name=prop-kind]:checked');
  assert.equal(await page.evaluate(() => document.activeElement.value), 'regex');
  const ring = await focusRing(page);
  assert.ok(ring.style !== 'none' && ring.width >= 1, `the focused radio shows it: ${JSON.stringify(ring)}`);
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => window.whittle.state().property.kind), 'js', 'the arrow key chose JavaScript');
  assert.equal(await page.isVisible('#prop-js'), true);
  await page.keyboard.press('ArrowLeft');
  assert.equal(await page.evaluate(() => window.whittle.state().property.kind), 'regex');
  await tabTo(page, '#prop-regex');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('not a number');
  for (const stream of ['stderr', 'source']) {
    await tabTo(page, `input[name=stream][value=${stream}]`);
    await page.keyboard.press('Space');
  }
  await tabTo(page, '#exit-op');
  await page.keyboard.press('Home'); // any
  const state = await page.evaluate(() => window.whittle.state());
  assert.deepEqual(state.property.streams, ['source']);
  assert.equal(state.property.exitOp, 'any');

  // Ctrl+Enter in the editor starts the reduction and leaves the text as it was.
  await tabTo(page, '#editor .cm-content');
  await page.keyboard.press('Control+Enter');
  await finished(page);
  assert.match(await page.textContent('#status'), /^done/);
  assert.equal(await page.evaluate(() => window.whittle.program()), original, 'no blank line inserted');
  assert.match(await page.evaluate(() => window.whittle.result()), /not a number/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the arrow keys move between the tabs shown, the ARIA tabs way', async () => {
  const page = await openPage(browser, server.url);
  const selected = () => page.evaluate(() => document.querySelector('.tabs [aria-selected=true]').dataset.tab);
  const focused = () => page.evaluate(() => document.activeElement.dataset.tab);
  await tabTo(page, '.tabs [role=tab]');
  assert.equal(await focused(), 'tree', 'only the selected tab is in the Tab order');
  await page.keyboard.press('ArrowRight');
  assert.equal(await selected(), 'progress', 'the Witnesses tab is hidden in this mode: skipped');
  assert.equal(await focused(), 'progress');
  assert.equal(await page.isVisible('[data-panel=progress]'), true);
  await page.keyboard.press('End');
  assert.equal(await selected(), 'output');
  await page.keyboard.press('ArrowRight');
  assert.equal(await selected(), 'tree', 'round again');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await selected(), 'output');
  const tabindexes = await page.$$eval('.tabs [role=tab]', (ts) => ts.map((t) => t.tabIndex));
  assert.equal(tabindexes.filter((i) => i === 0).length, 1);
  const panel = await page.$eval('[data-panel=output]', (p) => [p.getAttribute('role'), document.getElementById(p.getAttribute('aria-labelledby'))?.dataset.tab]);
  assert.deepEqual(panel, ['tabpanel', 'output']);
  await page.close();
});

test('pair mode: the side switches are reachable and work with the arrow keys', async () => {
  const page = await openPage(browser, server.url);
  await page.selectOption('#mode', 'pair');
  await page.focus('#mode');
  await tabTo(page, 'input[name=side]:checked');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.isVisible('#editor-seed'), true, 'the seed is shown');
  await tabTo(page, 'input[name=prop-side]:checked');
  await page.keyboard.press('ArrowRight');
  assert.match(await page.textContent('#check'), /seed/);
  await page.close();
});

/** axe-core's serious and critical violations on the page as it is. */
async function axeViolations(page) {
  await page.addScriptTag({ content: AXE });
  const found = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations);
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

for (const mode of ['single', 'pair', 'generator', 'witness']) {
  test(`axe-core: no serious or critical violations (${mode} mode, light and dark)`, async () => {
    for (const colorScheme of ['light', 'dark']) {
      // (bypassCSP: the page allows no inline script, and axe-core is injected as one.)
      const context = await browser.newContext({ colorScheme, bypassCSP: true });
      const page = await openPage(context, server.url);
      await page.selectOption('#mode', mode);
      await page.waitForTimeout(300);
      assert.deepEqual(await axeViolations(page), [], `${mode}, ${colorScheme}`);
      await context.close();
    }
  });
}
