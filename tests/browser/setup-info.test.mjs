// Issue 30, item 7: the Result tab and an embed say what was reduced with (compiler, flags,
// property), and the Output tab shows the command that ran (the answer's compilationOptions).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { finished, openPage, startServerAndBrowser, stopServerAndBrowser } from './harness.mjs';

let server;
let browser;
before(async () => ({ server, browser } = await startServerAndBrowser()));
after(() => stopServerAndBrowser({ server, browser }));

const SETUP = /gcc -O2 -Wall \(whittle serve\); property: stderr matches “makes integer from pointer without a cast”, compiler exit code = 0/;

test('the Result tab, the Output tab and the embed say what ran', async () => {
  const list = await (await fetch(`${server.url}api/compilers/c`, { headers: { Accept: 'application/json' } })).json();
  assert.ok(list.some((c) => c.id === 'gcc'), 'this machine’s whittle serve lists no gcc: install it');
  // The sample program and the default settings: gcc -O2 -Wall, gcc's warning on stderr.
  const page = await openPage(browser, server.url);
  await page.waitForFunction(() => document.querySelector('#compiler').value === 'gcc');
  await page.click('#reduce');
  await finished(page, 120000);
  assert.match(await page.textContent('#status'), /^done/);
  assert.match(await page.textContent('#result-setup'), SETUP);
  assert.equal(await page.isVisible('#result-setup'), true);

  await page.click('.tabs [data-tab=output]');
  const command = await page.textContent('#output pre.command');
  assert.match(command, /^\$ gcc .*-O2 -Wall/, `the command: ${command}`);

  // The setup belongs to the run: changing the flags afterwards does not rewrite it.
  await page.fill('#flags', '-O1');
  await page.click('.tabs [data-tab=result]');
  assert.match(await page.textContent('#result-setup'), SETUP);
  await page.fill('#flags', '-O2 -Wall');

  const link = await page.evaluate(() => window.whittle.shareLink());
  const embed = await openPage(browser, link.replace(/\/#/, '/e#'));
  assert.ok(await embed.evaluate(() => document.body.classList.contains('embed')));
  assert.equal(await embed.isVisible('#setup-line'), true);
  assert.match(await embed.textContent('#setup-line'), SETUP);
  await finished(embed);
  await embed.click('.tabs [data-tab=result]');
  assert.match(await embed.textContent('#result-setup'), SETUP);
  assert.deepEqual([...page.errors, ...embed.errors], []);
  await embed.close();
  await page.close();
});
