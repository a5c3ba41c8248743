// Every script the README tells users to run must at least parse: a stray backquote in a
// template literal once made `node scripts/tcc-bugs.mjs` stop at once on a fresh clone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function scripts(dir) {
  return readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.mjs'))
    .map((e) => join(dir, e.name));
}

test('every script under scripts/ parses', () => {
  const all = [...scripts('scripts'), ...scripts(join('scripts', 'bench'))];
  assert.ok(all.includes(join('scripts', 'tcc-bugs.mjs')), 'tcc-bugs.mjs is among them');
  for (const file of all) {
    const r = spawnSync(process.execPath, ['--check', join(ROOT, file)], { encoding: 'utf8' });
    assert.equal(r.status, 0, `${file} does not parse:\n${r.stderr}`);
  }
});

test("tcc-bugs.mjs writes each bug's scripts whole", async () => {
  const { BUGS, scripts } = await import('../../scripts/tcc-bugs.mjs');
  assert.ok(BUGS.length >= 8);
  for (const bug of BUGS) {
    const made = scripts(bug, '/nonexistent/bug');
    assert.deepEqual(Object.keys(made).sort(), ['check.sh', 'cov.sh', 'witness.sh']);
    for (const [name, text] of Object.entries(made)) assert.match(text, /^#!\/bin\/sh\n/, `${bug.id} ${name}`);
    // The comment that once ended the template literal early, whole, and the command after it.
    assert.match(made['cov.sh'], /Never `-o \/dev\/null`: tcc unlinks/);
    assert.match(made['cov.sh'], /-c input\.c -o input\.o\n$/);
  }
});
