// Issue 30, item 1: each language brings the endpoint's default compiler for it and its
// flags; a compiler that cannot compile the language is never kept silently.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, openPage, startServer } from './harness.mjs';

let server;
let browser;
let defaults; // {lang id: default compiler id}, as the server's /api/languages says
before(async () => {
  server = await startServer();
  browser = await launchBrowser();
  const langs = await (await fetch(`${server.url}api/languages`, { headers: { Accept: 'application/json' } })).json();
  defaults = Object.fromEntries(langs.map((l) => [l.id, l.defaultCompiler]));
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

const RUST = 'use std::collections::HashMap;\nfn main() {\n    let m: HashMap<i32, i32> = HashMap::new();\n    println!("{}", m.len());\n}\n';

/** The compiler select's value once it has settled on `id`, and the flags field. */
async function settled(page, id) {
  await page.waitForFunction((want) => document.querySelector('#compiler').value === want, id, { timeout: 10000 });
  return {
    flags: await page.inputValue('#flags'),
    options: await page.$$eval('#compiler option', (os) => os.map((o) => o.textContent)),
    note: await page.$eval('#compiler-note', (e) => (e.hidden ? '' : e.textContent)),
  };
}

test('choosing Rust brings rustc and its flags; back to C brings gcc and -O2 -Wall', async () => {
  assert.ok(defaults.rust && defaults.c, `this machine's whittle serve lacks a C or Rust compiler (${JSON.stringify(defaults)})`);
  const page = await openPage(browser, server.url);
  await settled(page, defaults.c);
  await page.evaluate((text) => window.whittle.setProgram(text), RUST);
  await page.selectOption('#lang', 'rust');
  const rust = await settled(page, defaults.rust);
  assert.equal(rust.flags, '-C opt-level=2');
  assert.ok(!rust.options.some((o) => /not listed/.test(o)), `no compiler kept unlisted: ${rust.options}`);
  assert.match(rust.note, new RegExp(`${defaults.c} does not compile Rust here: now ${defaults.rust}`));
  assert.equal((await page.evaluate(() => window.whittle.state())).compiler, defaults.rust);
  // The check compiles the Rust program with rustc: it compiles (exit code 0).
  await page.selectOption('#exit-op', 'eq');
  await page.fill('#prop-regex', '');
  await page.click('#check');
  await page.waitForFunction(() => /property|error|cannot/.test(document.querySelector('#check-result').textContent), null, { timeout: 60000 });
  assert.match(await page.textContent('#check-result'), /✓ has the property/);

  await page.selectOption('#lang', 'c');
  const c = await settled(page, defaults.c);
  assert.equal(c.flags, '-O2 -Wall');
  assert.equal((await page.evaluate(() => window.whittle.state())).flags, '-O2 -Wall');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('flags the person wrote stay while the compiler does; auto-detected Rust brings rustc', async () => {
  assert.ok(defaults.rust && defaults['c++'], `this machine's whittle serve lacks a C++ or Rust compiler (${JSON.stringify(defaults)})`);
  const page = await openPage(browser, server.url);
  await settled(page, defaults.c);
  await page.fill('#flags', '-O0 -g');
  await page.selectOption('#lang', 'cpp');
  const cpp = await settled(page, defaults['c++']);
  assert.equal(cpp.flags, '-O2 -Wall', 'a replaced compiler takes the language’s flags');
  await page.fill('#flags', '-O1');
  await page.selectOption('#lang', 'auto');
  await page.evaluate((text) => window.whittle.setProgram(text), RUST);
  const auto = await settled(page, defaults.rust);
  assert.equal(auto.flags, '-C opt-level=2');
  assert.match(auto.note, /does not compile Rust here/);
  assert.deepEqual(page.errors, []);
  await page.close();
});
