#!/usr/bin/env node
// Generator-based reduction against reducers of the output, in two parts.
//
// warning: the C generator of examples/generators/c-program.mjs with a gcc warning as the
// property, one seed after another:
//   whittle generate (HDD over the trace, re-align)   GReduce
//   whittle generate --trace ddmin                    ddmin over the flat decision sequence
//   whittle reduce (perses) on the generated program  reducing the output
// Prints tokens (whittle parse), bytes and queries of each.
//
// wrong-code: the generator of programs without undefined behaviour,
// examples/generators/c-defined.mjs; seeds --wc-seeds (a fixed range) are searched for
// programs whose tcc build and gcc -O0 build print different checksums (up to --bugs of them).
// On each: GReduce and ddmin over the decisions, with the wrong-code test without its guard
// (the generator keeps every run defined); `whittle reduce --wrong-code` with the guard and
// without it. Prints tokens, bytes, queries, seconds, whether tcc is still wrong, and an
// independent judge of undefined behaviour: valgrind's memcheck, clang's UBSan and MSan.
//
//   npm run bench:generators [-- --part warning|wrong-code|all] [--seeds 1,2,3,5,6]
//        [--warning Wshift-count-overflow] [--wc-seeds 1-300|24,124] [--bugs 5] [-j 2]
//        [--tools generate,ddmin,reduce,no-guard]   (the wrong-code part's tools)
//        [--limit SECONDS]   (each run is interrupted past it; default 120)
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { formatTable } from './bench/table.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WHITTLE = join(ROOT, 'target', 'release', 'whittle');
const generator = (name) => `node ${join(ROOT, 'examples/generators/run.mjs')} ${join(ROOT, 'examples/generators', name)}`;
const GENERATOR = generator('c-program.mjs');
const DEFINED = generator('c-defined.mjs');

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const seeds = opt('--seeds', '1,2,3,5,6').split(',').map(Number);
const warning = opt('--warning', 'Wshift-count-overflow');
const jobs = opt('-j', '2');
const limitMs = Number(opt('--limit', '120')) * 1000;
const part = opt('--part', 'all');
// A range (`1-300`) searched for bugs, or a list of seeds known to be bugs (`24,124`).
const wcSeeds = opt('--wc-seeds', '1-300');
const [wcFirst, wcLast] = wcSeeds.includes(',') ? [0, -1] : wcSeeds.split('-').map(Number);
const wcList = wcSeeds.includes(',') ? wcSeeds.split(',').map(Number) : [];
// The wrong-code part's tools, by the first word of their row (`generate`, `ddmin`, `reduce`,
// `no-guard`); all by default.
const wcTools = opt('--tools', 'generate,ddmin,reduce,no-guard').split(',');
const maxBugs = Number(opt('--bugs', '5'));

/**
 * Runs a tool, its output to a log file; past the limit it is interrupted with SIGINT, on
 * which whittle keeps its best and still writes its statistics. Resolves to its exit status.
 */
function run(cmd, argv, cwd) {
  return new Promise((ok, fail) => {
    const log = openSync(join(cwd, 'log.txt'), 'a');
    const started = performance.now();
    const child = spawn(cmd, argv, { cwd, stdio: ['ignore', log, log] });
    closeSync(log);
    const timer = setTimeout(() => child.kill('SIGINT'), limitMs);
    child.on('error', fail);
    child.on('exit', (code) => {
      clearTimeout(timer);
      child.seconds = (performance.now() - started) / 1000;
      if (![0, 1, 130].includes(code)) fail(new Error(`${cmd} ${argv.join(' ')} exited ${code}; see ${join(cwd, 'log.txt')}`));
      else ok({ status: code, seconds: child.seconds });
    });
  });
}

function tokens(file) {
  const r = spawnSync(WHITTLE, ['parse', file, '--json'], { encoding: 'utf8' });
  return JSON.parse(r.stdout).tokens;
}

if (part === 'all' || part === 'warning') await warningPart();
if (part === 'all' || part === 'wrong-code') await wrongCodePart();

async function warningPart() {
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
}

/** Runs a shell command in `cwd`; its status and output. */
function sh(cmd, cwd, timeout = 120_000) {
  return spawnSync('sh', ['-c', cmd], { cwd, encoding: 'utf8', timeout });
}

/** The checksum lines of tcc's and gcc -O0's builds of dir/prog.c, when both build. */
function checksums(dir) {
  if (sh('tcc -w prog.c -o t.out && gcc -O0 -w prog.c -o g.out', dir).status !== 0) return null;
  return [sh('timeout 10 ./t.out', dir).stdout, sh('timeout 10 ./g.out', dir).stdout];
}

/** The wrong-code template's test for dir/prog.c (`--print-test`), written to dir/name; false
 *  (and why, on stderr) when whittle refuses the case. */
function printTest(dir, name, extra) {
  const r = spawnSync(WHITTLE, ['reduce', '--wrong-code', 'tcc -w', 'gcc -O0 -w', ...extra, '--print-test', 'prog.c'], { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) {
    console.error(`bench:generators: ${dir} skipped: ${r.stderr.trim().split('\n')[0]}`);
    return false;
  }
  writeFileSync(join(dir, name), r.stdout);
  chmodSync(join(dir, name), 0o755);
  return true;
}

/**
 * The judge of a result, with tools the guard does not use: still wrong (the test without the
 * guard), the guard's verdict, valgrind's memcheck on gcc -O0 -g, clang's UBSan and MSan.
 */
function judge(caseDir, file) {
  const j = mkdtempSync(join(caseDir, 'judge-'));
  writeFileSync(join(j, 'prog.c'), readFileSync(file));
  const v = { wrong: sh(`${join(caseDir, 'wrong.sh')}`, j).status === 0 ? 'yes' : 'no' };
  const g = sh(join(caseDir, 'guarded.sh'), j).status;
  v.guard = g === 0 ? 'passes' : g === 3 ? 'refuses' : `exit ${g}`;
  const bad = [];
  if (sh('gcc -O0 -g -w prog.c -o vg', j).status === 0) {
    const r = sh('timeout 120 valgrind -q --error-exitcode=99 ./vg', j);
    if (r.status === 99 || /==\d+== (Invalid|Conditional|Use of|Process terminating)/.test(r.stderr)) bad.push('valgrind');
  } else bad.push('no gcc build');
  for (const [key, flags] of [['ubsan', '-fsanitize=undefined'], ['msan', '-fsanitize=memory']]) {
    if (sh(`clang -O0 -g -w ${flags} -fno-sanitize-recover=all prog.c -o ${key}`, j).status !== 0) {
      bad.push(`no ${key} build`);
      continue;
    }
    if (/runtime error|Sanitizer/.test(sh(`timeout 120 ./${key}`, j).stderr)) bad.push(key);
  }
  v.ub = bad.length ? bad.join('+') : 'none';
  return v;
}

async function wrongCodePart() {
  const root = mkdtempSync(join(tmpdir(), 'whittle-gen-wrong-code-'));
  console.error(`bench:generators: wrong code, seeds ${wcFirst}-${wcLast} of c-defined.mjs, tcc vs gcc -O0; in ${root}`);
  const bugs = [];
  const candidates = wcList.length ? wcList : Array.from({ length: Math.max(0, wcLast - wcFirst + 1) }, (_, i) => wcFirst + i);
  for (const seed of candidates) {
    if (bugs.length >= maxBugs) break;
    const dir = join(root, `seed-${seed}`);
    mkdirSync(dir);
    await run(WHITTLE, ['generate', '--generator', DEFINED, '--rng-seed', String(seed), '--test', '/bin/false', '-o', 'prog.c', '-q'], dir);
    const c = checksums(dir);
    // A case whittle refuses (tcc's build answering differently from run to run) is skipped.
    if (c && c[0] !== c[1] && printTest(dir, 'guarded.sh', []) && printTest(dir, 'wrong.sh', ['--no-guard'])) {
      bugs.push({ seed, dir });
      console.error(`bench:generators: seed ${seed}: tcc prints ${JSON.stringify(c[0])}, gcc -O0 ${JSON.stringify(c[1])}`);
    } else rmSync(dir, { recursive: true });
  }
  const rows = [];
  for (const { seed, dir } of bugs) {
    const original = join(dir, 'original.c');
    writeFileSync(original, readFileSync(join(dir, 'prog.c')));
    const before = tokens(original);
    const tools = {
      'generate (GReduce)': ['generate', ['generate', '--generator', DEFINED, '--rng-seed', String(seed), '--test', join(dir, 'wrong.sh')]],
      'generate --trace ddmin': ['ddmin', ['generate', '--generator', DEFINED, '--rng-seed', String(seed), '--trace', 'ddmin', '--test', join(dir, 'wrong.sh')]],
      'reduce --wrong-code': ['reduce', ['reduce', '--wrong-code', 'tcc -w', 'gcc -O0 -w', '--no-cache']],
      'reduce --wrong-code --no-guard': ['no-guard', ['reduce', '--wrong-code', 'tcc -w', 'gcc -O0 -w', '--no-guard', '--no-cache']],
    };
    for (const [tool, [key, argv]] of Object.entries(tools)) {
      if (!wcTools.includes(key)) continue;
      const work = join(dir, tool.replace(/\W+/g, '-'));
      mkdirSync(work);
      writeFileSync(join(work, 'prog.c'), readFileSync(original));
      const stats = join(work, 'stats.json');
      const isGenerate = argv[0] === 'generate';
      const r = await run(WHITTLE, [...argv, ...(isGenerate ? ['-o'] : []), 'prog.c', '-j', jobs, '-q', '--stats-json', stats], work);
      let queries = '?';
      try {
        queries = JSON.parse(readFileSync(stats, 'utf8')).queries;
      } catch {}
      const file = join(work, 'prog.c');
      rows.push({
        seed, tool: r.status === 130 ? `${tool} (stopped)` : tool, before, after: tokens(file),
        bytes: readFileSync(file).length, queries, seconds: r.seconds.toFixed(1), ...judge(dir, file),
      });
      console.error(`bench:generators: seed ${seed}, ${tool}: ${JSON.stringify(rows.at(-1))}`);
    }
  }
  console.log(formatTable(
    ['seed', 'tool', 'tokens before', 'tokens after', 'bytes after', 'queries', 'seconds', 'tcc wrong', 'guard', 'UB (valgrind, clang)'],
    rows.map((r) => [r.seed, r.tool, r.before, r.after, r.bytes, r.queries, r.seconds, r.wrong, r.guard, r.ub]),
  ));
}
