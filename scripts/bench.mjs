#!/usr/bin/env node
// The benchmark: runs `whittle reduce` on every case of ../shared/bench/cases and `whittle pair`
// on every pair of ../shared/bench/pairs, each on a fresh scratch copy, checks that every result
// still passes its check script, and prints wall time, queries, tokens and bytes before and
// after. With `--vs cvise` it runs C-Vise on a separate copy too, one tool after the other with
// the same parallelism, and prints the ratios. All figures also go to .bench/results-*.json.
//
//   npm run bench [-- --vs cvise] [--cases DIR] [--pairs DIR] [-j N] [--only NAME[,NAME]]
//                 [--strategy S] [--no-pairs] [--limit SECONDS] [--no-build]
//
// Exit status 0 when the bench ran (a result failing its check prints a FAIL line), 1 when the
// harness itself failed.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAfter, count, formatTable, percent, ratio, seconds } from './bench/table.mjs';
import {
  hasPairCommand,
  measure,
  passesCheck,
  runCvise,
  runWhittlePair,
  runWhittleReduce,
} from './bench/tools.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// WHITTLE_BIN runs another binary (with --no-build), e.g. to try the harness on a stand-in.
const WHITTLE = process.env.WHITTLE_BIN ? resolve(process.env.WHITTLE_BIN) : join(ROOT, 'target', 'release', 'whittle');

const USAGE = `usage: npm run bench [-- options]
  --vs cvise        also run C-Vise on a copy of each case (and of each pair's variant)
  --cases DIR       the cases (default ../shared/bench/cases)
  --pairs DIR       the pairs (default ../shared/bench/pairs)
  -j, --jobs N      tests in parallel, for both tools (default 2)
  --only NAME[,..]  only the cases and pairs with these names
  --strategy S      whittle reduce's strategy (default: whittle's own)
  --no-pairs        skip the pairs
  --limit S         seconds each tool run may take before it is killed (default 1800)
  --no-build        do not run cargo build first`;

function parseArgs(argv) {
  const opts = {
    vs: null,
    cases: join(ROOT, '..', 'shared', 'bench', 'cases'),
    pairs: join(ROOT, '..', 'shared', 'bench', 'pairs'),
    jobs: 2,
    only: null,
    strategy: null,
    noPairs: false,
    limit: 1800,
    build: true,
  };
  const value = (i, flag) => {
    if (i >= argv.length) throw new UsageError(`${flag} needs a value`);
    return argv[i];
  };
  const number = (text, flag) => {
    const n = Number(text);
    if (!(n > 0)) throw new UsageError(`${flag} needs a positive number, not \`${text}\``);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--vs') opts.vs = value(++i, a);
    else if (a === '--cases') opts.cases = resolve(value(++i, a));
    else if (a === '--pairs') opts.pairs = resolve(value(++i, a));
    else if (a === '-j' || a === '--jobs') opts.jobs = Math.floor(number(value(++i, a), a));
    else if (a === '--only') opts.only = value(++i, a).split(',').filter(Boolean);
    else if (a === '--strategy') opts.strategy = value(++i, a);
    else if (a === '--no-pairs') opts.noPairs = true;
    else if (a === '--limit') opts.limit = number(value(++i, a), a);
    else if (a === '--no-build') opts.build = false;
    else if (a === '-h' || a === '--help') {
      console.log(USAGE);
      process.exit(0);
    } else throw new UsageError(`unknown option \`${a}\``);
  }
  if (opts.vs !== null && opts.vs !== 'cvise') throw new UsageError(`--vs knows only cvise, not \`${opts.vs}\``);
  return opts;
}

class UsageError extends Error {}

function progress(msg) {
  process.stderr.write(`${msg}\n`);
}

/** `cargo build --release -p whittle-cli`, quietly; its output is shown only if it fails. */
function build() {
  progress('building whittle (cargo build --release -p whittle-cli) ...');
  const env = { ...process.env, PATH: `${join(process.env.HOME ?? '', '.cargo', 'bin')}:${process.env.PATH}` };
  const r = spawnSync('cargo', ['build', '--release', '-p', 'whittle-cli'], { cwd: ROOT, env, encoding: 'utf8' });
  if (r.status !== 0) {
    process.stderr.write(r.stderr ?? String(r.error));
    throw new Error('cargo build --release -p whittle-cli failed (its output is above)');
  }
}

function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** Sub-folders of `dir` holding a case.json, filtered by --only. */
function benchFolders(dir, only) {
  if (!existsSync(dir)) throw new Error(`no such folder: ${dir}`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'case.json')))
    .map((d) => d.name)
    .filter((name) => !only || only.includes(name))
    .sort();
}

function loadCase(dir, name) {
  const folder = join(dir, name);
  const meta = readJson(join(folder, 'case.json'));
  const file = meta.file ?? 'input.c';
  return { id: name, name: file, file: join(folder, file), check: join(folder, 'check.sh'), meta };
}

function loadPair(dir, name) {
  const folder = join(dir, name);
  const meta = readJson(join(folder, 'case.json'));
  const side = (file, check) => ({ name: file, file: join(folder, file), check: join(folder, check) });
  const pair = {
    id: name,
    seed: side(meta.seed ?? 'seed.c', 'check-seed.sh'),
    variant: side(meta.variant ?? 'variant.c', 'check-variant.sh'),
    meta,
  };
  // The check scripts read a fixed file name; results must be checked under that name.
  for (const s of [pair.seed, pair.variant]) {
    if (!readFileSync(s.check, 'utf8').includes(s.name)) {
      progress(`note: ${relative(ROOT, s.check)} does not mention ${s.name}; its check may read another file`);
    }
  }
  return pair;
}

/** A one-line summary of a finished run, for the progress log. */
function describeRun(run) {
  const check = run.passes ? 'passes its check' : 'FAILS its check';
  return `  ${run.tool}: ${run.status}, ${seconds(run.wallSeconds)} s, ${count(run.queries)} queries, ${run.after?.tokens ?? '?'} tokens, ${check}`;
}

// ---------------------------------------------------------------------------------------------
// Cases

async function benchCase(bench, opts, scratch) {
  const entry = { case: bench.id, before: measure(WHITTLE, bench.file), runs: [] };
  const tools = opts.vs === 'cvise' ? ['whittle', 'cvise'] : ['whittle'];
  for (const tool of tools) {
    progress(`running ${tool} on ${bench.id} ...`);
    const dir = join(scratch, 'cases', bench.id, tool);
    const common = { whittle: WHITTLE, bench, dir, jobs: opts.jobs, limitSeconds: opts.limit };
    const run = tool === 'whittle' ? await runWhittleReduce({ ...common, strategy: opts.strategy }) : await runCvise(common);
    run.passes = await passesCheck(run.result, bench.name, bench.check, `${dir}-check`);
    progress(describeRun(run));
    entry.runs.push(run);
  }
  entry.vsCvise = versus(entry.runs, (r) => r.after.tokens);
  return entry;
}

/** whittle / cvise ratios of wall time and of a size, or null without a C-Vise run. */
function versus(runs, size) {
  const [w, c] = [runs.find((r) => r.tool === 'whittle'), runs.find((r) => r.tool === 'cvise')];
  if (!w || !c) return null;
  const r = (a, b) => (a == null || !b ? null : a / b);
  return { wall: r(w.wallSeconds, c.wallSeconds), tokens: r(size(w), size(c)) };
}

function caseRows(entries) {
  const rows = [];
  for (const e of entries) {
    for (const r of e.runs) {
      rows.push([
        e.case,
        r.tool,
        seconds(r.wallSeconds),
        count(r.queries),
        beforeAfter(e.before.tokens, r.after.tokens),
        beforeAfter(e.before.bytes, r.after.bytes),
        r.passes ? 'yes' : 'NO',
        r.tool === 'whittle' ? percent(r.engineSeconds, r.statsWallSeconds) : '-',
        count(r.invalidQueries),
        r.status,
      ]);
    }
  }
  return rows;
}

function printCases(entries) {
  const header = ['case', 'tool', 'wall s', 'queries', 'tokens', 'bytes', 'passes check', 'engine', 'invalid q', 'run'];
  console.log(`\nCases\n\n${formatTable(header, caseRows(entries))}`);
  const ratios = entries
    .filter((e) => e.vsCvise)
    .map((e) => `  ${e.case}: wall ${ratio(e.vsCvise.wall, 1)}, tokens ${ratio(e.vsCvise.tokens, 1)}`);
  if (ratios.length) console.log(`\nwhittle / cvise\n${ratios.join('\n')}`);
}

function caseFailures(entries) {
  const lines = [];
  for (const e of entries) {
    for (const r of e.runs) {
      if (r.status !== 'ok') lines.push(`FAIL: ${r.tool} on ${e.case}: ${r.status} (log: ${r.log})`);
      if (!r.passes) lines.push(`FAIL: ${r.tool} on ${e.case}: the result does not pass check.sh (${r.result})`);
      if (r.invalidQueries) lines.push(`FAIL: whittle on ${e.case}: ${r.invalidQueries} syntactically invalid queries`);
    }
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------
// Pairs

async function benchPair(pair, opts, scratch) {
  const entry = {
    pair: pair.id,
    before: { seed: measure(WHITTLE, pair.seed.file), variant: measure(WHITTLE, pair.variant.file) },
    runs: [],
  };
  progress(`running whittle pair on ${pair.id} ...`);
  const dir = join(scratch, 'pairs', pair.id, 'whittle');
  const w = await runWhittlePair({ whittle: WHITTLE, pair, dir, jobs: opts.jobs, limitSeconds: opts.limit });
  w.seedPasses = await passesCheck(w.seedResult, pair.seed.name, pair.seed.check, `${dir}-check-seed`);
  w.variantPasses = await passesCheck(w.variantResult, pair.variant.name, pair.variant.check, `${dir}-check-variant`);
  w.passes = w.seedPasses && w.variantPasses;
  w.after = w.variantAfter;
  progress(describeRun(w));
  entry.runs.push(w);

  if (opts.vs === 'cvise') {
    progress(`running cvise on ${pair.id}'s variant ...`);
    const cdir = join(scratch, 'pairs', pair.id, 'cvise');
    const c = await runCvise({ whittle: WHITTLE, bench: pair.variant, dir: cdir, jobs: opts.jobs, limitSeconds: opts.limit });
    c.passes = c.variantPasses = await passesCheck(c.result, pair.variant.name, pair.variant.check, `${cdir}-check`);
    c.variantAfter = c.after;
    progress(describeRun(c));
    entry.runs.push(c);
  }
  entry.vsCvise = versus(entry.runs, (r) => r.variantAfter.tokens);
  return entry;
}

function pairChecks(r) {
  if (r.tool === 'cvise') return r.variantPasses ? 'yes' : 'NO';
  if (r.passes) return 'yes';
  return `NO (${[!r.seedPasses && 'seed', !r.variantPasses && 'variant'].filter(Boolean).join(', ')})`;
}

function printPairs(entries) {
  const header = ['pair', 'tool', 'wall s', 'queries', 'seed tokens', 'variant tokens', 'diff tokens', 'passes checks', 'run'];
  const rows = [];
  for (const e of entries) {
    for (const r of e.runs) {
      const whittle = r.tool === 'whittle';
      rows.push([
        e.pair,
        whittle ? 'whittle pair' : 'cvise (variant)',
        seconds(r.wallSeconds),
        count(r.queries),
        whittle ? beforeAfter(e.before.seed.tokens, r.seedAfter.tokens) : '-',
        beforeAfter(e.before.variant.tokens, r.variantAfter.tokens),
        whittle ? beforeAfter(r.diffTokens.before, r.diffTokens.after) : '-',
        pairChecks(r),
        r.status,
      ]);
    }
  }
  console.log(`\nPairs\n\n${formatTable(header, rows)}`);
  const ratios = entries
    .filter((e) => e.vsCvise)
    .map((e) => `  ${e.pair}: wall ${ratio(e.vsCvise.wall, 1)}, variant tokens ${ratio(e.vsCvise.tokens, 1)}`);
  if (ratios.length) console.log(`\nwhittle pair / cvise on the variant\n${ratios.join('\n')}`);
}

function pairFailures(entries) {
  const lines = [];
  for (const e of entries) {
    for (const r of e.runs) {
      const what = r.tool === 'whittle' ? 'whittle pair' : 'cvise';
      if (r.status !== 'ok') lines.push(`FAIL: ${what} on pair ${e.pair}: ${r.status} (log: ${r.log})`);
      if (r.tool === 'whittle' && !r.seedPasses) lines.push(`FAIL: whittle pair on ${e.pair}: the seed result does not pass check-seed.sh (${r.seedResult})`);
      if (!r.variantPasses) lines.push(`FAIL: ${what} on pair ${e.pair}: the variant result does not pass check-variant.sh (${r.variantResult ?? r.result})`);
    }
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------

function gitRevision() {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout?.trim();
  return head || null;
}

function writeResults(results) {
  const dir = join(ROOT, '.bench');
  mkdirSync(dir, { recursive: true });
  const stamp = results.started.replace(/[:.]/g, '-');
  const path = join(dir, `results-${stamp}.json`);
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`);
  return path;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const results = {
    started: new Date().toISOString(),
    revision: gitRevision(),
    machine: { cpus: cpus().length, node: process.version },
    options: opts,
    cases: [],
    pairs: [],
  };
  if (opts.build) build();
  if (!existsSync(WHITTLE)) throw new Error(`${WHITTLE} is missing: run cargo build --release -p whittle-cli`);
  const scratch = mkdtempSync(join(tmpdir(), 'whittle-bench-'));
  progress(`scratch folders under ${scratch}`);

  for (const name of benchFolders(opts.cases, opts.only)) {
    results.cases.push(await benchCase(loadCase(opts.cases, name), opts, scratch));
  }
  if (results.cases.length) printCases(results.cases);
  else console.log(`\nCases: none${opts.only ? ` named ${opts.only.join(', ')}` : ''} in ${opts.cases}`);

  if (opts.noPairs) {
    results.pairsSkipped = '--no-pairs';
  } else if (!hasPairCommand(WHITTLE)) {
    results.pairsSkipped = '`whittle pair --help` failed: this build has no pair command';
    console.log(`\nPairs: skipped, ${results.pairsSkipped}`);
  } else {
    for (const name of benchFolders(opts.pairs, opts.only)) {
      results.pairs.push(await benchPair(loadPair(opts.pairs, name), opts, scratch));
    }
    if (results.pairs.length) printPairs(results.pairs);
    else console.log(`\nPairs: none${opts.only ? ` named ${opts.only.join(', ')}` : ''} in ${opts.pairs}`);
  }

  const failures = [...caseFailures(results.cases), ...pairFailures(results.pairs)];
  results.failures = failures;
  results.finished = new Date().toISOString();
  const ran = results.cases.length + results.pairs.length > 0;
  if (failures.length) console.log(`\n${failures.join('\n')}`);
  else if (ran) console.log('\nAll results pass their checks.');
  console.log(`\nFigures: ${relative(process.cwd(), writeResults(results)) || '.'}`);
  console.log(`Scratch folders (results, logs): ${scratch}`);
}

main().catch((err) => {
  if (err instanceof UsageError) {
    process.stderr.write(`bench: ${err.message}\n\n${USAGE}\n`);
  } else {
    process.stderr.write(`bench: the harness failed: ${err.stack ?? err}\n`);
  }
  process.exit(1);
});
