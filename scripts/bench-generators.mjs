#!/usr/bin/env node
// Generator-based reduction against reducers of the output, on the C generator of
// examples/generators/c-program.mjs with a gcc warning as the property, one seed after another:
//   whittle generate (HDD over the trace, re-align)   GReduce
//   whittle generate --trace ddmin                    ddmin over the flat decision sequence
//   whittle reduce (perses) on the generated program  reducing the output
// Prints tokens (whittle parse), bytes and queries of each.
//
//   npm run bench:generators [-- --seeds 1,2,3,5,6] [--warning Wshift-count-overflow] [-j 2]
//                            [--limit SECONDS]   (each run is interrupted past it; default 120)
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
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
const limitMs = Number(opt('--limit', '120')) * 1000;

/**
 * Runs a tool, its output to a log file; past the limit it is interrupted with SIGINT, on
 * which whittle keeps its best and still writes its statistics. Resolves to its exit status.
 */
function run(cmd, argv, cwd) {
  return new Promise((ok, fail) => {
    const log = openSync(join(cwd, 'log.txt'), 'a');
    const child = spawn(cmd, argv, { cwd, stdio: ['ignore', log, log] });
    closeSync(log);
    const timer = setTimeout(() => child.kill('SIGINT'), limitMs);
    child.on('error', fail);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (![0, 1, 130].includes(code)) fail(new Error(`${cmd} ${argv.join(' ')} exited ${code}; see ${join(cwd, 'log.txt')}`));
      else ok({ status: code });
    });
  });
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
  const line = (tool, file, r) => {
    const s = JSON.parse(readFileSync(stats, 'utf8'));
    if (r.status === 130) tool += ` (stopped at ${limitMs / 1000} s)`;
    const text = readFileSync(file, 'utf8');
    return { seed, tool, tokens: tokens(file), bytes: text.length, queries: s.queries, passes: spawnSync(check, [], { cwd: dir }).status === 0 ? 'yes' : 'NO' };
  };
  const prog = join(dir, 'prog.c');
  for (const trace of ['hdd', 'ddmin']) {
    const r = await run(WHITTLE, ['generate', '--generator', GENERATOR, '--rng-seed', String(seed), '--trace', trace, '--test', './check.sh', '-o', 'prog.c', '-j', jobs, '-q', '--stats-json', stats], dir);
    rows.push(line(trace === 'hdd' ? 'generate (GReduce)' : 'generate --trace ddmin', prog, r));
  }
  // The generator's original output, reduced as text.
  await run(WHITTLE, ['generate', '--generator', GENERATOR, '--rng-seed', String(seed), '--test', '/bin/false', '-o', 'prog.c', '-q'], dir);
  const before = tokens(prog);
  const r = await run(WHITTLE, ['reduce', '--test', './check.sh', 'prog.c', '-j', jobs, '-q', '--stats-json', stats], dir);
  rows.push(line('reduce (perses)', prog, r));
  for (const r of rows.slice(-3)) r.before = before;
}

console.log(formatTable(
  ['seed', 'tool', 'tokens before', 'tokens after', 'bytes after', 'queries', 'passes check'],
  rows.map((r) => [r.seed, r.tool, r.before, r.tokens, r.bytes, r.queries, r.passes]),
));
