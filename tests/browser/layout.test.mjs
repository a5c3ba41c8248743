// Issue 30, item 3: the layout from 360 px wide up. Reduce and Share stay inside the viewport
// (also with the panes scrolled), nothing makes the page wider than the screen, and the
// settings sidebar folds away (folded at first on narrow screens). No screenshots: the
// actions' bounding boxes are measured.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, startServer } from './harness.mjs';

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

/** Whether each of `ids` is shown and wholly inside the viewport. */
const inside = (page, ids) =>
  page.evaluate((list) => Object.fromEntries(list.map((id) => {
    const r = document.getElementById(id).getBoundingClientRect();
    const ok = r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight;
    return [id, ok || `${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.width)}x${Math.round(r.height)} in ${innerWidth}x${innerHeight}`];
  })), ids);

for (const [width, height] of [[360, 640], [800, 600], [1400, 900]]) {
  test(`${width}x${height}: Reduce and Share inside the viewport, the sidebar folds`, async () => {
    const page = await browser.newPage({ viewport: { width, height } });
    await page.goto(server.url);
    await page.waitForSelector('body[data-ready="true"]');
    const actions = ['reduce', 'share', 'sidebar-toggle'];
    assert.deepEqual(await inside(page, actions), { reduce: true, share: true, 'sidebar-toggle': true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);

    const narrow = width <= 1000;
    const sidebarShown = () => page.isVisible('#sidebar');
    assert.equal(await sidebarShown(), !narrow, narrow ? 'folded at first on a narrow screen' : 'open on a wide one');
    assert.equal(await page.getAttribute('#sidebar-toggle', 'aria-expanded'), String(!narrow));
    await page.click('#sidebar-toggle');
    assert.equal(await sidebarShown(), narrow);
    // Scrolled to the far end of the panes, the actions are still there.
    await page.evaluate(() => document.querySelector('.layout').scrollTo(0, 1e6));
    assert.deepEqual(await inside(page, actions), { reduce: true, share: true, 'sidebar-toggle': true });
    await page.click('#sidebar-toggle');
    assert.equal(await sidebarShown(), !narrow);
    if (!narrow) {
      // Folded on a wide screen, the program and the results share the width.
      await page.click('#sidebar-toggle');
      const w = await page.$eval('.source-pane', (e) => e.getBoundingClientRect().width);
      assert.ok(w > width * 0.4, `the program pane is ${w} px wide`);
    }
    await page.close();
  });
}
