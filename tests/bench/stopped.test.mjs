// A bench stopped midway (Ctrl-C, SIGTERM: a long three-tool run cut short) still prints and
// saves the cases it finished, and stops the tool it was running.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WHITTLE = join(ROOT, 'target', 'release', 'whittle');

/** A case folder: `check` is its check.sh's body. */
function writeCase(dir, name, check, shell = '/bin/sh') {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'case.json'), JSON.stringify({ language: 'c', file: 'input.c', compiler: 'gcc' }));
  writeFileSync(join(folder, 'input.c'), 'int unused;\nint x = 1;\nint main(void) { return x; }\n');
  writeFileSync(join(folder, 'check.sh'), `#!${shell}\n${check}\n`, { mode: 0o755 });
}

/**
 * Whether a process named `marker` runs. Tests run in whittle's own pid namespace, so their
 * pids mean nothing here: the slow check names its sleep with a marker only this test uses.
 */
function running(marker) {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] === marker) return true;
    } catch {
      /* gone meanwhile */
    }
  }
  return false;
}

test('a bench stopped by SIGTERM prints and saves the cases it finished', { timeout: 120_000 }, async () => {
  assert.ok(existsSync(WHITTLE), `${WHITTLE} is missing: cargo build --release -p whittle-cli`);
  const dir = mkdtempSync(join(tmpdir(), 'whittle-bench-stopped-'));
  try {
    const started = join(dir, 'slow.started');
    const marker = `whittle-bench-stopped-${process.pid}`;
    writeCase(join(dir, 'cases'), 'a-quick', 'grep -q "x = 1" input.c');
    // The second case's check never ends in time: the bench is stopped while it runs.
    writeCase(join(dir, 'cases'), 'b-slow', `touch ${started}\n(exec -a ${marker} sleep 60)\ngrep -q "x = 1" input.c`, '/bin/bash');
    const bench = spawn(process.execPath, [join(ROOT, 'scripts', 'bench.mjs'), '--cases', join(dir, 'cases'),
      '--no-pairs', '--no-generated', '--no-build', '-j', '1'], { cwd: dir, env: { ...process.env, WHITTLE_BIN: WHITTLE } });
    let stdout = '';
    bench.stdout.on('data', (d) => { stdout += d; });
    bench.stderr.on('data', () => {});
    const ended = new Promise((resolve) => bench.on('exit', (code) => resolve(code)));
    // Stopped once the slow check runs.
    for (let i = 0; i < 600 && !running(marker); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(existsSync(started) && running(marker), 'the slow case started');
    bench.kill('SIGTERM');
    assert.equal(await ended, 143);

    assert.match(stdout, /a-quick\s+whittle/, stdout);
    assert.doesNotMatch(stdout, /b-slow/, stdout);
    const saved = stdout.match(/^Figures: (.+\.json)$/m);
    assert.ok(saved, stdout);
    const results = JSON.parse(readFileSync(join(dir, saved[1]), 'utf8'));
    assert.equal(results.stopped, 'SIGTERM');
    assert.deepEqual(results.cases.map((c) => c.id ?? c.case), ['a-quick']);
    // The slow check went with whittle.
    for (let i = 0; i < 100 && running(marker); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(!running(marker), 'the slow check still runs');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
