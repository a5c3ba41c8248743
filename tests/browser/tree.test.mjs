// The parse tree beside the source: hover and selection are kept in sync both ways.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, startServer } from './harness.mjs';

const PROGRAM = 'int add(int a, int b) {\n  return a + b; // sum\n}\n';

test('tree hover marks the editor; the editor cursor selects the deepest node', async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const browser = await launchBrowser();
  t.after(() => browser.close());
  const page = await browser.newPage();
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]');
  const edit = await page.evaluate((p) => {
    window.whittle.setProgram(p);
    return window.whittle.edits();
  }, PROGRAM);
  await page.waitForSelector(`#token-count[data-edit="${edit}"]`);
  await page.waitForSelector('.tree-row >> text=return_statement');

  // Hover a tree row: its text is marked in the editor.
  await page.hover('.tree-row:has(.tree-kind:text-is("return_statement"))');
  await page.waitForSelector('.cm-node-mark');
  const marked = await page.$$eval('.cm-node-mark', (els) => els.map((e) => e.textContent).join(''));
  assert.equal(marked, 'return a + b;');

  // Click a row: its range is selected in the editor.
  await page.click('.tree-row:has(.tree-kind:text-is("parameter_list")) .tree-kind');
  const selection = await page.evaluate(() => window.whittle.selection());
  assert.equal(selection, '(int a, int b)');

  // Put the editor cursor on `b` in `a + b`: the tree selects that identifier.
  const offset = PROGRAM.indexOf('a + b') + 4;
  await page.evaluate((o) => window.whittle.setCursor(o), offset);
  const selected = page.locator('.tree-row.selected');
  await selected.waitFor();
  assert.equal(await selected.locator('.tree-kind').textContent(), 'identifier');
  assert.match(await selected.textContent(), /right: identifier\s*\[2:14–2:15\]/);
});
