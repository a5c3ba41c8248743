// Issue 30, item 2: the editors follow prefers-color-scheme. In the dark, the gutter is dark
// and every highlighted token and line number reads at 4.5:1 or better against what is behind
// it (computed colours, read in the browser); the light theme stays as readable.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, startServerAndBrowser, stopServerAndBrowser } from './harness.mjs';

let server;
let browser;
before(async () => ({ server, browser } = await startServerAndBrowser()));
after(() => stopServerAndBrowser({ server, browser }));

/** Each text colour in the editor (tokens and line numbers) with its contrast ratio against
 *  the first opaque background behind it, and the gutter's background luminance. */
const colours = (page) =>
  page.evaluate(() => {
    const rgb = (c) => c.match(/[\d.]+/g).map(Number);
    const lum = ([r, g, b]) => {
      const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const background = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const c = rgb(getComputedStyle(e).backgroundColor);
        if (c.length < 4 || c[3] === 1) return c.slice(0, 3);
      }
      return [255, 255, 255];
    };
    const ratio = (a, b) => {
      const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
      return (hi + 0.05) / (lo + 0.05);
    };
    const editor = document.querySelector('#editor');
    const texts = [...editor.querySelectorAll('.cm-line span, .cm-line, .cm-gutterElement')].filter((e) => e.textContent.trim() && e.getClientRects().length);
    const seen = new Map();
    for (const e of texts) {
      const fg = rgb(getComputedStyle(e).color).slice(0, 3);
      const key = `${fg} on ${background(e)}`;
      if (!seen.has(key)) seen.set(key, { text: e.textContent.trim().slice(0, 20), ratio: ratio(fg, background(e)) });
    }
    const include = [...editor.querySelectorAll('.cm-line span')].find((s) => s.textContent === '#include');
    return {
      tokens: [...seen.entries()].map(([key, v]) => ({ key, ...v })),
      gutter: lum(background(editor.querySelector('.cm-gutters'))),
      include: include && getComputedStyle(include).color,
      spans: editor.querySelectorAll('.cm-line span').length,
    };
  });

for (const colorScheme of ['dark', 'light']) {
  test(`${colorScheme}: the editor's tokens and gutter read at 4.5:1 or better`, async () => {
    const context = await browser.newContext({ colorScheme });
    const page = await openPage(context, server.url);
    await page.waitForFunction(() => document.querySelectorAll('#editor .cm-line span').length > 10); // highlighted
    const c = await colours(page);
    const poor = c.tokens.filter((t) => t.ratio < 4.5).map((t) => `${t.text}: ${t.key} (${t.ratio.toFixed(2)})`);
    assert.deepEqual(poor, [], 'every colour reads at 4.5:1');
    assert.ok(c.tokens.length >= 5, `several token colours: ${JSON.stringify(c.tokens)}`);
    if (colorScheme === 'dark') {
      assert.ok(c.gutter < 0.05, `the gutter is dark (luminance ${c.gutter.toFixed(3)})`);
      assert.notEqual(c.include, 'rgb(64, 71, 64)', '#include is not the light theme’s dark grey');
    } else {
      assert.ok(c.gutter > 0.8, `the gutter is light (luminance ${c.gutter.toFixed(3)})`);
    }
    await context.close();
  });
}

test('the editor follows a change of the system setting without a reload', async () => {
  const context = await browser.newContext({ colorScheme: 'light' });
  const page = await openPage(context, server.url);
  await page.waitForFunction(() => document.querySelectorAll('#editor .cm-line span').length > 10);
  assert.ok((await colours(page)).gutter > 0.8);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForFunction(() => document.querySelector('#editor .cm-editor').matches('.cm-editor') && getComputedStyle(document.querySelector('#editor .cm-gutters')).backgroundColor !== 'rgb(255, 255, 255)');
  // The syntax colours follow the gutter in a later update: wait for them (up to 5 s).
  let c = await colours(page);
  for (const end = Date.now() + 5000; c.tokens.some((t) => t.ratio < 4.5) && Date.now() < end;) {
    await page.waitForTimeout(100);
    c = await colours(page);
  }
  assert.ok(c.gutter < 0.05);
  assert.deepEqual(c.tokens.filter((t) => t.ratio < 4.5), []);
  await context.close();
});
