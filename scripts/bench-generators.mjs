#!/usr/bin/env node
// Generator-based reduction against reducers of the output, on the C generator of
// examples/generators/c-program.mjs with a gcc warning as the property, one seed after another:
//   whittle generate (HDD over the trace, re-align)   GReduce
//   whittle generate --trace ddmin                    ddmin over the flat decision sequence
//   whittle reduce (perses) on the generated program  reducing the output
// Prints tokens (whittle parse), bytes and queries of each.
//
//   npm run bench:generators [-- --seeds 1,2,3,5,6] [--warning Wshift-count-overflow] [-j 2]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTable } from './bench/table.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WHITTLE = join(ROOT, 'target', 'release', 'whittle');
const GENERATOR = `node ${join(ROOT, 'examples/generators/run.mjs')} ${join(ROOT, 'examples/generators/c-program.mjs')}`;

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const seeds = opt('--seeds', '1,2,3,5,6').split(',').map(Number);
const warning = opt('--warning', 'Wshift-count-overflow');
const jobs = opt('-j', '2');

function run(cmd, argv, cwd) {
  const r = spawnSync(cmd, argv, { cwd, encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 1) throw new Error(`${cmd} ${argv.join(' ')} failed:\n${r.stderr}`);
  return r;
}

function tokens(file) {
  const r = spawnSync(WHITTLE, ['parse', file, '--json'], { encoding: 'utf8' });
  return JSON.parse(r.stdout).tokens;
}

const rows = [];
for (const seed of seeds) {
  const dir = mkdtempSync(join(tmpdir(), `whittle-gen-bench-${seed}-`));
  const check = join(dir, 'check.sh');
  writeFileSync(check, `#!/bin/sh\ngcc -O2 -Wall -Wextra -c prog.c -o /dev/null 2>&1 | grep -q -- '${warning}'\n`);
  chmodSync(check, 0o755);
  const stats = join(dir, 'stats.json');
  const line = (tool, file) => {
    const s = JSON.parse(readFileSync(stats, 'utf8'));
    const text = readFileSync(file, 'utf8');
    return { seed, tool, tokens: tokens(file), bytes: text.length, queries: s.queries, passes: run(check, [], dir).status === 0 ? 'yes' : 'NO' };
  };
  const prog = join(dir, 'prog.c');
  for (const trace of ['hdd', 'ddmin']) {
    run(WHITTLE, ['generate', '--generator', GENERATOR, '--seed', String(seed), '--trace', trace, '--test', './check.sh', '-o', 'prog.c', '-j', jobs, '-q', '--stats-json', stats], dir);
    rows.push(line(trace === 'hdd' ? 'generate (GReduce)' : 'generate --trace ddmin', prog));
    if (trace === 'hdd') rows[rows.length - 1].before = null;
  }
  // The generator's original output, reduced as text.
  run(WHITTLE, ['generate', '--generator', GENERATOR, '--seed', String(seed), '--test', '/bin/false', '-o', 'prog.c', '-q'], dir);
  const before = tokens(prog);
  run(WHITTLE, ['reduce', '--test', './check.sh', 'prog.c', '-j', jobs, '-q', '--stats-json', stats], dir);
  rows.push(line('reduce (perses)', prog));
  for (const r of rows.slice(-3)) r.before = before;
}

console.log(formatTable(
  ['seed', 'tool', 'tokens before', 'tokens after', 'bytes after', 'queries', 'passes check'],
  rows.map((r) => [r.seed, r.tool, r.before, r.tokens, r.bytes, r.queries, r.passes]),
));
