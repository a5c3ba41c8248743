// examples/generators/c-defined.mjs makes only defined programs: over many seeds, every
// program builds, its printf formats match their arguments, it runs clean under gcc's UBSan
// and ASan (no recovery) and prints the same values under gcc -O0 and clang -O0 (and the
// sanitized run prints them too), or, in about one run of ten, prints nothing. The decisions
// come from a seeded pseudo-random `g` in this process, as the page's worker gives them.
// Run: node --test tests/generators/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from '../../examples/generators/c-defined.mjs';
import { random } from '../../scripts/random.mjs';

const SEEDS = 60;
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

/** A `g` drawing from mulberry32(seed); selections taken half the time. */
function seeded(seed) {
  const next = random(seed);
  const counts = {};
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  return {
    int: (_label, lo, hi) => int(lo, hi),
    pick: (_label, list) => list[int(0, list.length - 1)],
    repeat: (_label, min, max, body) => {
      const n = int(min, max);
      for (let i = 0; i < n; i++) body(i);
      return n;
    },
    fresh: (label) => (counts[label] = (counts[label] ?? -1) + 1),
    part: (_label, body) => {
      body();
      return true;
    },
    maybe: (_label, body) => {
      const taken = next() < 0.5;
      if (taken) body();
      return taken;
    },
  };
}

function buildAndRun(dir, cc, flags) {
  const exe = join(dir, `${cc}${flags.length ? '-san' : ''}`);
  const b = spawnSync(cc, ['-O0', '-w', ...flags, join(dir, 'p.c'), '-o', exe], { encoding: 'utf8' });
  assert.equal(b.status, 0, `${cc} ${flags.join(' ')} failed to build ${dir}/p.c:\n${b.stderr}`);
  const r = spawnSync(exe, [], { encoding: 'utf8', timeout: 30_000 });
  return r;
}

test('the generator loads from its text alone, as the page imports it (no imports of its own)', async () => {
  const source = readFileSync(new URL('../../examples/generators/c-defined.mjs', import.meta.url), 'utf8');
  const mod = await import(`data:text/javascript,${encodeURIComponent(source)}`);
  assert.equal(mod.generate(seeded(7)), generate(seeded(7)));
});

test(`${SEEDS} programs: clean under UBSan and ASan, the same values under gcc -O0 and clang -O0`, () => {
  for (const cc of ['gcc', 'clang']) assert.ok(has(cc), `${cc} is not on PATH: run scripts/setup.sh`);
  const root = mkdtempSync(join(tmpdir(), 'c-defined-'));
  const outputs = new Set();
  // A failing program stays on disk (its path is in the message).
  for (let seed = 1; seed <= SEEDS; seed++) {
    const dir = mkdtempSync(join(root, `s${seed}-`));
    const program = generate(seeded(seed));
    writeFileSync(join(dir, 'p.c'), program);
    const formats = spawnSync('gcc', ['-fsyntax-only', '-Wformat', '-Werror=format', join(dir, 'p.c')], { encoding: 'utf8' });
    assert.equal(formats.status, 0, `seed ${seed}: a printf format does not match its argument (${dir}/p.c):\n${formats.stderr}`);
    const san = buildAndRun(dir, 'gcc', ['-fsanitize=undefined,address', '-fno-sanitize-recover=all']);
    assert.equal(san.status, 0, `seed ${seed}: the sanitized run failed (${dir}/p.c):\n${san.stderr}`);
    assert.equal(san.stderr, '', `seed ${seed}: the sanitizers reported (${dir}/p.c)`);
    assert.match(san.stdout, /^(-?\d+\n)*$/, `seed ${seed}`);
    const gcc = buildAndRun(dir, 'gcc', []);
    const clang = buildAndRun(dir, 'clang', []);
    assert.equal(gcc.stdout, san.stdout, `seed ${seed}: gcc -O0 and its sanitized build disagree (${dir}/p.c)`);
    assert.equal(clang.stdout, gcc.stdout, `seed ${seed}: clang -O0 and gcc -O0 disagree (${dir}/p.c)`);
    outputs.add(gcc.stdout);
    rmSync(dir, { recursive: true });
  }
  // The programs differ in what they compute, not only in their text.
  assert.ok(outputs.size > SEEDS / 2, `only ${outputs.size} different outputs`);
  rmSync(root, { recursive: true, force: true });
});
