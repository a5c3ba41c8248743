// The ground truth of the witness bench, end to end for one bug: scripts/tcc-bugs.mjs builds
// the buggy tcc, finds its failing program, and writes scripts that say so. A break in the
// script (it once stopped at once on a fresh clone) fails here, not on a user's machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const missing = [
  [join(ROOT, 'target', 'tcc', 'src'), 'tcc source (scripts/setup.sh fetches it)'],
  [join(ROOT, 'target', 'release', 'whittle'), 'target/release/whittle'],
  ['/usr/include/csmith/csmith.h', 'csmith.h (apt-get install libcsmith-dev)'],
].filter(([path]) => !existsSync(path));

test('tcc-bugs.mjs makes one bug whole: its compiler, failing program and scripts', { timeout: 600_000 }, () => {
  assert.equal(missing.length, 0, `missing ${missing.map((m) => m[1]).join(', ')}: run scripts/setup.sh`);
  const out = mkdtempSync(join(tmpdir(), 'whittle-tcc-bugs-test-'));
  try {
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'tcc-bugs.mjs'), '--only', 'load-movzw', '--seeds', '2', '--out', out], { encoding: 'utf8', timeout: 580_000 });
    assert.equal(r.status, 0, `tcc-bugs.mjs failed:\n${r.stderr.slice(-2000)}`);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    assert.deepEqual(manifest.map((b) => b.id), ['load-movzw']);
    const caseDir = manifest[0].case;
    assert.ok(caseDir.startsWith(out), `${caseDir} is under --out`);
    // Each script in a folder of its own, holding input.c, as the witness search runs them.
    const run = (script) => {
      const dir = mkdtempSync(join(out, 'run-'));
      cpSync(join(caseDir, 'input.c'), join(dir, 'input.c'));
      return spawnSync('sh', [join(caseDir, script)], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
    };
    assert.equal(run('check.sh').status, 0, 'the failing program still shows the bug');
    assert.notEqual(run('witness.sh').status, 0, 'the failing program is no witness');
    const cov = run('cov.sh');
    assert.equal(cov.status, 0, cov.stderr);
    const covered = JSON.parse(cov.stdout);
    assert.ok(covered['x86_64-gen.c']?.load?.length > 0, 'the buggy function ran');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
