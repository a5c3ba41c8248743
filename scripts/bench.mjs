#!/usr/bin/env node
// The benchmark: runs `whittle reduce` on every case of ../shared/bench/cases and on the cases in
// other languages that scripts/bench/make-cases.mjs makes under .bench/generated (their programs
// are third-party code or built from ours, so never committed), and `whittle pair` on every pair
// of ../shared/bench/pairs, each on a fresh scratch copy. It checks that every result still
// passes its check script, and prints wall time, queries, tokens and bytes before and after.
// With `--vs cvise --vs creduce` it runs those reducers on separate copies too, one tool after
// the other with the same parallelism, and prints the ratios. All figures also go to
// .bench/results-*.json.
//
//   npm run bench [-- --vs cvise [--vs creduce]] [--cases DIR] [--pairs DIR] [-j N]
//                 [--only NAME[,NAME]] [--strategy S] [--no-pairs] [--no-generated]
//                 [--limit SECONDS] [--settle SECONDS] [--no-build]
//   npm run bench -- --broad [--max N] [--lang c,cpp] [--vs cvise ...]   (scripts/bench/broad.mjs)
//
// Exit status 0 when the bench ran (a result failing its check prints a FAIL line), 1 when the
// harness itself failed.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAfter, count, formatTable, percent, ratio, seconds } from './bench/table.mjs';
import { GENERATED_CASES, makeCases } from './bench/make-cases.mjs';
import { BROAD_LANGUAGES, makeBroadCases, totalsAndShares } from './bench/broad.mjs';
import { makeBroadPairs } from './bench/broad-pairs.mjs';
import { whenStopped } from './bench/process.mjs';
import {
  REDUCERS,
  findCommand,
  hasPairCommand,
  measure,
  passesCheck,
  runReducer,
  runWhittlePair,
  runWhittleReduce,
} from './bench/tools.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// WHITTLE_BIN runs another binary (with --no-build), e.g. to try the harness on a stand-in.
const WHITTLE = process.env.WHITTLE_BIN ? resolve(process.env.WHITTLE_BIN) : join(ROOT, 'target', 'release', 'whittle');

const USAGE = `usage: npm run bench [-- options]
  --vs TOOL         also run TOOL (cvise or creduce) on a copy of each case (and of each
                    pair's variant); give it once per tool: --vs cvise --vs creduce
  --cases DIR       the cases (default ../shared/bench/cases)
  --pairs DIR       the pairs (default ../shared/bench/pairs)
  -j, --jobs N      tests in parallel, for every tool (default 2)
  --only NAME[,..]  only the cases (shared or generated) and pairs with these names
  --strategy S      whittle reduce's strategy (default: whittle's own)
  --no-pairs        skip the pairs
  --no-generated    skip the cases made at bench time in .bench/generated:
                    ${GENERATED_CASES.join(', ')}
  --limit S         seconds each tool run may take before it is killed (default 1800)
  --settle S        the other tools get S seconds a case (at most --limit), or twice whittle's
                    time and 30 s if that is more: a timeout still settles whether whittle took
                    at most half their time, and whittle may run to the end (up to --limit)
  --over-time S     every S seconds, copy each tool's best so far; print each case's tokens
                    over time (the result file all three tools keep in place)
  --no-build        do not run cargo build first
  --broad           only the broad bench: cases made at bench time from csmith programs and
                    Debian sources, one per program and compiler warning kind
                    (scripts/bench/broad.mjs); prints totals and shares at the end; then a
                    pair made from each case (scripts/bench/broad-pairs.mjs) unless --no-pairs
  --max N           the broad bench's number of cases, and of pairs (default 40)
  --lang L[,..]     the broad bench's languages (default ${BROAD_LANGUAGES.join(',')})`;

function parseArgs(argv) {
  const opts = {
    vs: [],
    cases: join(ROOT, '..', 'shared', 'bench', 'cases'),
    pairs: join(ROOT, '..', 'shared', 'bench', 'pairs'),
    jobs: 2,
    only: null,
    strategy: null,
    noPairs: false,
    generated: true,
    limit: 1800,
    settle: null,
    overTime: null,
    build: true,
    broad: false,
    max: 40,
    lang: BROAD_LANGUAGES,
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
    if (a === '--vs') opts.vs.push(value(++i, a));
    else if (a === '--cases') opts.cases = resolve(value(++i, a));
    else if (a === '--pairs') opts.pairs = resolve(value(++i, a));
    else if (a === '-j' || a === '--jobs') opts.jobs = Math.floor(number(value(++i, a), a));
    else if (a === '--only') opts.only = value(++i, a).split(',').filter(Boolean);
    else if (a === '--strategy') opts.strategy = value(++i, a);
    else if (a === '--no-pairs') opts.noPairs = true;
    else if (a === '--no-generated') opts.generated = false;
    else if (a === '--limit') opts.limit = number(value(++i, a), a);
    else if (a === '--settle') opts.settle = number(value(++i, a), a);
    else if (a === '--over-time') opts.overTime = number(value(++i, a), a);
    else if (a === '--no-build') opts.build = false;
    else if (a === '--broad') opts.broad = true;
    else if (a === '--max') opts.max = Math.floor(number(value(++i, a), a));
    else if (a === '--lang') opts.lang = value(++i, a).split(',').filter(Boolean);
    else if (a === '-h' || a === '--help') {
      console.log(USAGE);
      process.exit(0);
    } else throw new UsageError(`unknown option \`${a}\``);
  }
  const known = Object.keys(REDUCERS);
  for (const tool of opts.vs) {
    if (!known.includes(tool)) throw new UsageError(`--vs knows ${known.join(' and ')}, not \`${tool}\``);
  }
  opts.vs = [...new Set(opts.vs)];
  for (const l of opts.lang) {
    if (!BROAD_LANGUAGES.includes(l)) throw new UsageError(`--lang knows ${BROAD_LANGUAGES.join(' and ')}, not \`${l}\``);
  }
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

/** A case folder: its program (case.json's `file`), check.sh and case.json. */
function loadCase(folder) {
  const meta = readJson(join(folder, 'case.json'));
  const file = meta.file ?? 'input.c';
  return { id: basename(folder), name: file, file: join(folder, file), check: join(folder, 'check.sh'), meta };
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

/** ": LINE", the last line a failed run logged (usually why), or "" if it logged nothing. */
function lastLogLine(log) {
  const text = existsSync(log) ? readFileSync(log, 'utf8').trim() : '';
  const line = text.slice(text.lastIndexOf('\n') + 1).trim();
  return line ? `: ${line.length > 160 ? `${line.slice(0, 160)}...` : line}` : '';
}

/** A one-line summary of a finished run, for the progress log. */
function describeRun(run) {
  const check = run.passes ? 'passes its check' : 'FAILS its check';
  const clang = run.after?.clangTokens == null ? '' : ` (${run.after.clangTokens} by clang)`;
  return `  ${run.tool}: ${run.status}, ${seconds(run.wallSeconds)} s, ${count(run.queries)} queries, ${run.after?.tokens ?? '?'} tokens${clang}, ${check}`;
}

// ---------------------------------------------------------------------------------------------
// Cases

async function benchCase(bench, opts, scratch) {
  const entry = { case: bench.id, before: measure(WHITTLE, bench.file), runs: [] };
  for (const tool of ['whittle', ...opts.vs]) {
    progress(`running ${tool} on ${bench.id} ...`);
    const dir = join(scratch, 'cases', bench.id, tool);
    const limitSeconds = tool === 'whittle' ? opts.limit : othersLimit(opts, entry.runs[0]);
    const common = { whittle: WHITTLE, bench, dir, jobs: opts.jobs, limitSeconds, overTime: opts.overTime };
    const run = tool === 'whittle' ? await runWhittleReduce({ ...common, strategy: opts.strategy }) : await runReducer(tool, common);
    run.passes = await passesCheck(run.result, bench.name, bench.check, `${dir}-check`);
    run.limitSeconds = limitSeconds;
    progress(describeRun(run));
    entry.runs.push(run);
  }
  entry.vs = versus(entry.runs, (r) => r.after);
  return entry;
}

/**
 * The limit of another tool on a case: with --settle S, S seconds or, when whittle took longer
 * than half that, twice whittle's time and half a minute, so that even a timeout settles whether
 * whittle took at most half the other's time; never more than --limit.
 */
function othersLimit(opts, whittleRun) {
  if (opts.settle == null || !whittleRun) return opts.limit;
  return Math.min(opts.limit, Math.max(opts.settle, Math.ceil(2 * whittleRun.wallSeconds) + 30));
}

/**
 * whittle / TOOL ratios of wall time and of the result's size (our tokens, clang's) for each
 * other tool that ran, keyed by its name; null when only whittle ran.
 */
function versus(runs, after) {
  const w = runs.find((r) => r.tool === 'whittle');
  const others = runs.filter((r) => r.tool !== 'whittle');
  if (!w || !others.length) return null;
  const r = (a, b) => (a == null || !b ? null : a / b);
  const ratios = {};
  for (const o of others) {
    ratios[o.tool] = {
      wall: r(w.wallSeconds, o.wallSeconds),
      tokens: r(after(w)?.tokens, after(o)?.tokens),
      clangTokens: r(after(w)?.clangTokens, after(o)?.clangTokens),
    };
  }
  return ratios;
}

/** The ratios, one block per other tool: "  NAME: wall 0.50, tokens 1.10, clang tokens 1.05". */
function printRatios(entries, key, sizeLabel) {
  const lines = [];
  for (const e of entries.filter((e) => e.vs)) {
    for (const [tool, v] of Object.entries(e.vs)) {
      const clang = v.clangTokens == null ? '' : `, clang ${sizeLabel} ${ratio(v.clangTokens, 1)}`;
      lines.push({ tool, text: `  ${e[key]}: wall ${ratio(v.wall, 1)}, ${sizeLabel} ${ratio(v.tokens, 1)}${clang}` });
    }
  }
  for (const tool of new Set(lines.map((l) => l.tool))) {
    const what = key === 'pair' ? `whittle pair / ${tool} on the variant` : `whittle / ${tool}`;
    console.log(`\n${what}\n${lines.filter((l) => l.tool === tool).map((l) => l.text).join('\n')}`);
  }
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
        beforeAfter(e.before.clangTokens, r.after.clangTokens),
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
  const header = ['case', 'tool', 'wall s', 'queries', 'tokens', 'clang tokens', 'bytes', 'passes check', 'engine', 'invalid q', 'run'];
  console.log(`\nCases\n\n${formatTable(header, caseRows(entries))}`);
  printRatios(entries, 'case', 'tokens');
  printOverTime(entries);
}

/** Each case's tokens over time (`--over-time`): a row per tool, a column per snapshot. */
function printOverTime(entries) {
  for (const e of entries) {
    const runs = e.runs.filter((r) => r.overTime?.length);
    if (!runs.length) continue;
    const times = [...new Set(runs.flatMap((r) => r.overTime.map((s) => s.seconds)))].sort((a, b) => a - b);
    const header = ['tool', ...times.map((t) => `${t} s`)];
    const rows = runs.map((r) => {
      const at = new Map(r.overTime.map((s) => [s.seconds, s.tokens]));
      // Past its end a run's tokens are its result's.
      return [r.tool, ...times.map((t) => count(at.get(t) ?? (t > r.wallSeconds ? r.after?.tokens : null)))];
    });
    console.log(`\nTokens over time: ${e.case} (from ${count(e.before?.tokens)})\n\n${formatTable(header, rows)}`);
  }
}

function caseFailures(entries) {
  const lines = [];
  for (const e of entries) {
    for (const r of e.runs) {
      if (r.status !== 'ok') lines.push(`FAIL: ${r.tool} on ${e.case}: ${r.status}${lastLogLine(r.log)} (log: ${r.log})`);
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

  for (const tool of opts.vs) {
    progress(`running ${tool} on ${pair.id}'s variant ...`);
    const cdir = join(scratch, 'pairs', pair.id, tool);
    const c = await runReducer(tool, { whittle: WHITTLE, bench: pair.variant, dir: cdir, jobs: opts.jobs, limitSeconds: opts.limit });
    c.passes = c.variantPasses = await passesCheck(c.result, pair.variant.name, pair.variant.check, `${cdir}-check`);
    c.variantAfter = c.after;
    progress(describeRun(c));
    entry.runs.push(c);
  }
  entry.vs = versus(entry.runs, (r) => r.variantAfter);
  return entry;
}

function pairChecks(r) {
  if (r.tool !== 'whittle') return r.variantPasses ? 'yes' : 'NO';
  if (r.passes) return 'yes';
  return `NO (${[!r.seedPasses && 'seed', !r.variantPasses && 'variant'].filter(Boolean).join(', ')})`;
}

function printPairs(entries) {
  const header = ['pair', 'tool', 'wall s', 'queries', 'seed tokens', 'variant tokens', 'variant clang tokens', 'diff tokens', 'passes checks', 'run'];
  const rows = [];
  for (const e of entries) {
    for (const r of e.runs) {
      const whittle = r.tool === 'whittle';
      rows.push([
        e.pair,
        whittle ? 'whittle pair' : `${r.tool} (variant)`,
        seconds(r.wallSeconds),
        count(r.queries),
        whittle ? beforeAfter(e.before.seed.tokens, r.seedAfter.tokens) : '-',
        beforeAfter(e.before.variant.tokens, r.variantAfter.tokens),
        beforeAfter(e.before.variant.clangTokens, r.variantAfter.clangTokens),
        whittle ? beforeAfter(r.diffTokens.before, r.diffTokens.after) : '-',
        pairChecks(r),
        r.status,
      ]);
    }
  }
  console.log(`\nPairs\n\n${formatTable(header, rows)}`);
  printRatios(entries, 'pair', 'variant tokens');
}

/**
 * The share of pairs whose minimized diff is at most 3 tokens (what issue 34 asks of the broad
 * pairs): a run that failed or whose results fail their checks counts as not.
 */
function smallDiffShare(entries) {
  const runs = entries.map((e) => e.runs.find((r) => r.tool === 'whittle'));
  const small = runs.filter((r) => r?.status === 'ok' && r.passes && r.diffTokens?.after != null && r.diffTokens.after <= 3).length;
  const total = runs.reduce((s, r) => s + (r?.diffTokens?.after ?? 0), 0);
  return `\nPairs whose minimized diff is at most 3 tokens: ${small}/${entries.length} (${percent(small, entries.length)}); diff tokens in total ${total}`;
}

function pairFailures(entries) {
  const lines = [];
  for (const e of entries) {
    for (const r of e.runs) {
      const what = r.tool === 'whittle' ? 'whittle pair' : r.tool;
      if (r.status !== 'ok') lines.push(`FAIL: ${what} on pair ${e.pair}: ${r.status}${lastLogLine(r.log)} (log: ${r.log})`);
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
  for (const tool of opts.vs) {
    if (!findCommand(REDUCERS[tool].command)) throw new Error(`--vs ${tool}: \`${REDUCERS[tool].command}\` is not on the PATH`);
  }
  const scratch = mkdtempSync(join(tmpdir(), 'whittle-bench-'));
  progress(`scratch folders under ${scratch}`);

  let broadMade = [];
  const folders = opts.broad ? [] : benchFolders(opts.cases, opts.only).map((name) => join(opts.cases, name));
  if (opts.broad) {
    const made = await makeBroadCases({ root: ROOT, max: opts.max, languages: opts.lang, only: opts.only, progress });
    broadMade = made.made;
    folders.push(...made.folders);
    results.generatedSkipped = made.skipped;
  } else if (opts.generated) {
    const made = await makeCases({ root: ROOT, only: opts.only, progress });
    folders.push(...made.folders);
    results.generatedSkipped = made.skipped;
  }
  // Stopped midway, the bench still prints and saves the cases and pairs it finished.
  whenStopped((sig) => {
    results.stopped = sig;
    if (results.cases.length) printCaseFigures(results.cases, opts);
    if (results.pairs.length) printPairFigures(results.pairs, opts);
    finish(results, scratch);
  });
  for (const folder of folders) {
    results.cases.push(await benchCase(loadCase(folder), opts, scratch));
  }
  if (results.cases.length) printCaseFigures(results.cases, opts);
  else console.log(`\nCases: none${opts.only ? ` named ${opts.only.join(', ')}` : ''} in ${opts.cases}${opts.generated ? ' or generated' : ''}`);
  for (const { name, reason } of results.generatedSkipped ?? []) console.log(`generated case ${name}: skipped, ${reason}`);

  if (opts.noPairs) {
    results.pairsSkipped = '--no-pairs';
  } else if (opts.broad) {
    const made = makeBroadPairs({ base: join(ROOT, '.bench', 'broad'), made: broadMade, max: opts.max, progress });
    results.pairsSkipped = made.skipped;
    for (const folder of made.folders) {
      results.pairs.push(await benchPair(loadPair(dirname(folder), basename(folder)), opts, scratch));
    }
    if (results.pairs.length) printPairFigures(results.pairs, opts);
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

  finish(results, scratch);
}

function printCaseFigures(cases, opts) {
  printCases(cases);
  if (opts.broad) console.log(totalsAndShares(cases));
}

function printPairFigures(pairs, opts) {
  printPairs(pairs);
  if (opts.broad) console.log(smallDiffShare(pairs));
}

/** The failures, and where the figures and the tools' folders are. */
function finish(results, scratch) {
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
