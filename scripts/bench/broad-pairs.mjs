// Pairs made from the broad bench's cases, the way PPR's benchmark (and ../shared/bench/pairs)
// made its own: the case's program is the variant (it shows the warning); the seed is it after a
// few random mutations (a constant or an operator changed, a statement deleted or duplicated, a
// name for another; in Rust also a cast or a path's prefix dropped, a lifetime added, an item
// deleted): first those that take the warning away, each as near a line it is reported
// on as can be (usually one; more where it is reported in several places), then a few anywhere
// else, each kept only if the compiler accepts the seed without the warning. Seeded by the case's name, so
// every machine makes the same pairs. Written under .bench/broad/pairs/NAME/ in the shared
// pairs' layout (seed.EXT, variant.EXT, check-seed.sh, check-variant.sh, case.json).

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkScript, compileLine } from './broad.mjs';
import { apply, hashName, mutations, random, shuffled } from './mutate.mjs';

/** How many mutations beside those that take the warning away, and how many of those. */
const NOISE = 4;
const KEYS = 5;
/** Candidates tried for the mutation that removes the warning, and for the noise. */
const KEY_TRIES = 150;
const NOISE_TRIES = 16;

/**
 * A pair for each of `made` (makeBroadCases' cases) that has one, at most `max`, under
 * `base`/pairs. Resolves to { folders, skipped }.
 */
export function makeBroadPairs({ base, made, max, progress = () => {} }) {
  const root = join(base, 'pairs');
  rmSync(root, { recursive: true, force: true });
  const folders = [];
  const skipped = [];
  for (const { dir, case: c } of made) {
    if (folders.length >= max) break;
    const folder = join(root, c.name);
    const reason = makePair(c, readFileSync(join(dir, c.program.file), 'utf8'), folder);
    if (reason) {
      rmSync(folder, { recursive: true, force: true });
      skipped.push({ name: c.name, reason });
      progress(`broad pair ${c.name}: skipped, ${reason}`);
    } else folders.push(folder);
  }
  progress(`broad bench: ${folders.length} pairs of ${made.length} cases in ${root}`);
  return { folders, skipped };
}

/** Writes the pair of case `c` into `folder`; null, or why there is none. */
function makePair(c, text, folder) {
  const ext = c.program.file.replace(/^[^.]*/, '');
  const names = { seed: `seed${ext}`, variant: `variant${ext}` };
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, names.variant), text);
  writeFileSync(join(folder, 'check-variant.sh'), checkScript(c, names.variant, true), { mode: 0o755 });
  writeFileSync(join(folder, 'check-seed.sh'), checkScript(c, names.seed, false), { mode: 0o755 });
  const seedPasses = (candidate) => {
    writeFileSync(join(folder, names.seed), candidate);
    return spawnSync('sh', ['./check-seed.sh'], { cwd: folder, stdio: 'ignore', timeout: 60000 }).status === 0;
  };
  const warned = (candidate) => {
    writeFileSync(join(folder, names.seed), candidate);
    return warnings(c, folder, names.seed);
  };
  const rand = random(hashName(c.name));

  // The key: mutations nearest the warning, each taking away one of its reports, till none is
  // left (a name declared in several functions is warned about in each).
  let seed = text;
  const made = [];
  let now = warned(seed);
  if (!now?.length) return 'the compiler does not warn on the variant';
  while (now.length) {
    if (made.length === KEYS) return `${KEYS} mutations leave the warning`;
    const line = now[0];
    // Nearest the warning first, in a seeded order among equals; anywhere when it names no line.
    const near = shuffled(mutations(seed, c.program.language), rand)
      .map((m, i) => ({ m, i, d: line == null ? 0 : Math.abs(m.line - line) }))
      .sort((a, b) => a.d - b.d || a.i - b.i)
      .map(({ m }) => m);
    let key = null;
    for (const m of near.slice(0, KEY_TRIES)) {
      const after = warned(apply(seed, m));
      if (after && after.length < now.length) {
        key = m;
        now = after;
        break;
      }
    }
    if (!key) return `none of the ${Math.min(KEY_TRIES, near.length)} mutations nearest the warning takes a report of it away`;
    seed = apply(seed, key);
    made.push(key);
  }
  if (!seedPasses(seed)) return 'check-seed.sh fails on the seed the mutations made';

  // The noise: mutations on other lines, kept while the seed still passes.
  const keyLines = new Set(made.map((m) => m.line));
  const apart = shuffled(mutations(seed, c.program.language), rand).filter((m) => !keyLines.has(m.line));
  const noise = [];
  for (const m of apart.slice(0, NOISE_TRIES)) {
    if (noise.length === NOISE) break;
    if (noise.some((o) => !(m.end < o.start || m.start > o.end))) continue;
    if (seedPasses(applyAll(seed, [...noise, m]))) noise.push(m);
  }
  writeFileSync(join(folder, names.seed), applyAll(seed, noise));
  const meta = {
    language: c.program.language,
    seed: names.seed,
    variant: names.variant,
    compiler: c.compiler.command,
    regex: c.regex,
    kind: c.kind,
    origin: `${c.program.origin}; the seed is it after ${made.length + noise.length} mutations, the first ${made.length} of which take the warning away`,
    mutations: [...made, ...noise].map(({ kind, line: at, replacement }) => ({ kind, line: at, replacement })),
  };
  writeFileSync(join(folder, 'case.json'), `${JSON.stringify(meta, null, 2)}\n`);
  return null;
}

/** `text` with every one of `list` made (they do not overlap), the last in the text first. */
function applyAll(text, list) {
  return [...list].sort((a, b) => b.start - a.start).reduce(apply, text);
}

/**
 * The lines of `file` the case's warning points to, one per report (null for a report that
 * names none: node's errors), or null when the compiler refuses the file.
 */
function warnings(c, folder, file) {
  const r = spawnSync('sh', ['-c', compileLine(c.compiler, c.program.includes, file)], {
    cwd: folder,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: { ...process.env, LC_ALL: 'C' },
    timeout: 60000,
  });
  if (r.status !== 0) return null;
  const lines = `${r.stdout ?? ''}\n${r.stderr ?? ''}`.split('\n');
  const regex = new RegExp(c.regex);
  const where = new RegExp(`(^|[ /])${file.replace(/\./g, '\\.')}:(\\d+):`);
  const found = [];
  lines.forEach((l, i) => {
    if (!regex.test(l)) return;
    const at = lines.slice(i, i + 3).map((x) => where.exec(x)).find(Boolean);
    found.push(at ? Number(at[2]) : null);
  });
  return found;
}
