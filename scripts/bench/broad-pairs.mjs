// Pairs made from the broad bench's cases, the way PPR's benchmark (and ../shared/bench/pairs)
// made its own: the case's program is the variant (it shows the warning); the seed is it after a
// few random mutations (a constant or an operator changed, a statement deleted or duplicated), of
// which one, made as near the warning's line as one can be, removes the warning. Each mutation is
// kept only if the compiler accepts the seed without the warning. Seeded by the case's name, so
// every machine makes the same pairs. Written under .bench/broad/pairs/NAME/ in the shared
// pairs' layout (seed.EXT, variant.EXT, check-seed.sh, check-variant.sh, case.json).

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkScript, compileLine } from './broad.mjs';
import { apply, hashName, mutations, random, shuffled, tokenize } from './mutate.mjs';

/** How many mutations beside the one that removes the warning. */
const NOISE = 4;
/** Candidates tried for the mutation that removes the warning, and for the noise. */
const KEY_TRIES = 60;
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
  if (seedPasses(text)) return 'check-seed.sh passes on the variant';

  const rand = random(hashName(c.name));
  const all = mutations(text, tokenize(text));
  const line = warningLine(c, folder, names.variant);
  // Nearest the warning first, in a seeded order among equals; anywhere when it names no line.
  const near = shuffled(all, rand)
    .map((m, i) => ({ m, i, d: line == null ? 0 : Math.abs(m.line - line) }))
    .sort((a, b) => a.d - b.d || a.i - b.i)
    .map(({ m }) => m);
  const key = near.slice(0, KEY_TRIES).find((m) => seedPasses(apply(text, m)));
  if (!key) return `none of the ${Math.min(KEY_TRIES, near.length)} mutations nearest the warning removes it`;

  // The noise: mutations apart from the key's, kept while the seed still passes.
  const made = [key];
  const apart = shuffled(all, rand).filter((m) => m.end < key.start || m.start > key.end);
  for (const m of apart.slice(0, NOISE_TRIES)) {
    if (made.length > NOISE) break;
    if (made.some((o) => !(m.end < o.start || m.start > o.end))) continue;
    if (seedPasses(applyAll(text, [...made, m]))) made.push(m);
  }
  writeFileSync(join(folder, names.seed), applyAll(text, made));
  const meta = {
    language: c.program.language,
    seed: names.seed,
    variant: names.variant,
    compiler: c.compiler.command,
    regex: c.regex,
    kind: c.kind,
    origin: `${c.program.origin}; the seed is it after ${made.length} mutations, the first of which removes the warning`,
    mutations: made.map(({ kind, line: at, replacement }) => ({ kind, line: at, replacement })),
  };
  writeFileSync(join(folder, 'case.json'), `${JSON.stringify(meta, null, 2)}\n`);
  return null;
}

/** `text` with every one of `list` made (they do not overlap), the last in the text first. */
function applyAll(text, list) {
  return [...list].sort((a, b) => b.start - a.start).reduce(apply, text);
}

/** The line of `file` the case's warning points to, or null (node's errors name none). */
function warningLine(c, folder, file) {
  const r = spawnSync('sh', ['-c', compileLine(c.compiler, c.program.includes, file)], {
    cwd: folder,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: { ...process.env, LC_ALL: 'C' },
    timeout: 60000,
  });
  const lines = (r.stderr ?? '').split('\n');
  const regex = new RegExp(c.regex);
  const at = lines.findIndex((l) => regex.test(l));
  if (at === -1) return null;
  const where = new RegExp(`${file.replace('.', '\\.')}:(\\d+):`);
  for (const l of lines.slice(at, at + 3)) {
    const m = where.exec(l);
    if (m) return Number(m[1]);
  }
  return null;
}
