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
