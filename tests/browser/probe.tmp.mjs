import { startServer, launchBrowser } from './harness.mjs';
const server = await startServer();
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  page.on('console', (m) => console.log('console:', m.type(), m.text()));
  page.on('pageerror', (e) => console.log('pageerror:', e.message));
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 }).catch((e) => console.log('not ready', e.message));
  console.log('status:', await page.textContent('#status'), await page.textContent('#engine-info'));
  // JS property with fetch
  await page.selectOption('#endpoint', 'none');
  await page.click('.segmented label:has(input[name=prop-kind][value=js])');
  await page.fill('#prop-js', `async (result, input) => { try { await fetch('${server.url}api/compilers'); return false; } catch (e) { return true; } }`);
  await page.click('#check');
  await page.waitForFunction(() => /✓|✗|threw|not|cannot/.test(document.querySelector('#check-result').textContent), null, { timeout: 20000 }).catch(() => {});
  console.log('check:', await page.textContent('#check-result'));
} finally {
  await browser.close();
  await server.stop();
}
