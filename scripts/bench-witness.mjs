#!/usr/bin/env node
// The witness bench (DiWi): how well `whittle witness` isolates the injected tcc bugs of
// scripts/tcc-bugs.mjs. For every bug of target/tcc-bugs/manifest.json it runs
//
//   whittle witness input.c --test check.sh --test-witness witness.sh --coverage cov.sh
//                   --budget N --rng-seed S --out DIR --stats-json FILE
//
// in three configurations: DiWi (Metropolis-Hastings rule selection, diverse witnesses only),
// random rule selection (--selection random) and no diversity filter (--keep all). It prints
// a markdown table: per bug the witnesses found, the queries, and the rank of the buggy file and
// of the buggy function in whittle's Ochiai ranking (the number of entries whose score is at
// least the buggy one's: ties count against it), then per configuration the mean first rank
// (MFR) and how many bugs land in the top 1, 3 and 5.
//
// With --cases it also runs on the five reduction cases of ../shared/bench/cases, whose "bug" is
// a diagnostic: a witness is a mutant the compiler accepts without it (as the pairs'
// check-seed.sh say); the search focuses on the messages the case's regex matches. Per case:
// `whittle witness` without coverage (witnesses, queries, size of their diffs) and `whittle
// pair --variant FILE --auto-seed` (the seed found by the witness search, then the pair
// reduced: its final diff in tokens). That part is slow.
//
//   npm run bench:witness [-- --budget 150] [--seeds 1] [--only ID[,ID]] [--configs diwi,random,keep-all]
//                         [-j N] [--limit SECONDS] [--cases] [--no-bugs] [--out DIR] [--resume]
//
// Every run's folder (log, stats, witnesses) and results.json go to --out
// (default target/bench-witness). WHITTLE_BIN runs another whittle binary; either way the bench
// runs a copy of it taken at the start, in --out/bin/.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runWithLimit } from './bench/process.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WHITTLE = process.env.WHITTLE_BIN ? resolve(process.env.WHITTLE_BIN) : join(ROOT, 'target/release/whittle');
const MANIFEST = join(ROOT, 'target/tcc-bugs/manifest.json');

const CONFIGS = {
  diwi: { label: 'DiWi', args: ['--selection', 'mh'] },
  random: { label: 'random selection', args: ['--selection', 'random'] },
  'keep-all': { label: 'no diversity filter', args: ['--keep', 'all'] },
};

const USAGE = `usage: npm run bench:witness [-- options]
  --budget N          tests per whittle witness run (default 150)
  --seeds N           runs per configuration and bug, with seeds 1..N (default 1)
  --only ID[,ID]      only these bugs (ids of target/tcc-bugs/manifest.json) and cases
  --configs C[,C]     of diwi, random, keep-all (default all three)
  -j, --jobs N        tests in parallel per run (default: the number of cores)
  --limit S           seconds a run may take before it is stopped (default 1800)
  --cases             also run on ../shared/bench/cases (witness search and pair --auto-seed; slow)
  --cases-dir DIR     the cases (default ../shared/bench/cases)
  --no-bugs           skip the tcc bugs
  --out DIR           where runs and results.json go (default target/bench-witness)
  --resume            keep the runs of --out/results.json that ended well (same budget), run the rest`;

class UsageError extends Error {}

function parseArgs(argv) {
  const opts = {
    budget: 150, seeds: 1, only: null, configs: Object.keys(CONFIGS), jobs: availableParallelism(),
    limit: 1800, cases: false, casesDir: join(ROOT, '..', 'shared', 'bench', 'cases'), bugs: true,
    out: join(ROOT, 'target', 'bench-witness'), resume: false,
  };
  const value = (i, flag) => {
    if (i >= argv.length) throw new UsageError(`${flag} needs a value`);
    return argv[i];
  };
  const number = (text, flag) => {
    const n = Number(text);
    if (!(n > 0) || !Number.isInteger(n)) throw new UsageError(`${flag} needs a positive whole number, not \`${text}\``);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--budget') opts.budget = number(value(++i, a), a);
    else if (a === '--seeds') opts.seeds = number(value(++i, a), a);
    else if (a === '--only') opts.only = value(++i, a).split(',').filter(Boolean);
    else if (a === '--configs') opts.configs = value(++i, a).split(',').filter(Boolean);
    else if (a === '-j' || a === '--jobs') opts.jobs = number(value(++i, a), a);
    else if (a === '--limit') opts.limit = number(value(++i, a), a);
    else if (a === '--cases') opts.cases = true;
    else if (a === '--cases-dir') { opts.casesDir = resolve(value(++i, a)); opts.cases = true; }
    else if (a === '--no-bugs') opts.bugs = false;
    else if (a === '--out') opts.out = resolve(value(++i, a));
    else if (a === '--resume') opts.resume = true;
    else if (a === '-h' || a === '--help') {
      console.log(USAGE);
      process.exit(0);
    } else throw new UsageError(`unknown option \`${a}\``);
  }
  for (const c of opts.configs) {
    if (!CONFIGS[c]) throw new UsageError(`--configs knows ${Object.keys(CONFIGS).join(', ')}, not \`${c}\``);
  }
  return opts;
}

const progress = (msg) => process.stderr.write(`bench-witness: ${msg}\n`);

// --- what the whittle binary offers ----------------------------------------------------------

function help(sub) {
  const r = spawnSync(WHITTLE, [sub, '--help'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout : null;
}

/** Fails with a clear message unless `whittle witness` takes the options this bench passes. */
function requireWitness(withCoverage) {
  if (!existsSync(WHITTLE)) {
    throw new Error(`${WHITTLE} not found: build it with \`cargo build --release -p whittle-cli\``);
  }
  const text = help('witness');
  if (text === null) {
    throw new Error(`${WHITTLE} has no \`witness\` subcommand (\`whittle witness --help\` fails): build a whittle with DiWi's witness mode`);
  }
  const wanted = ['--test', '--test-witness', '--budget', '--rng-seed', '--out', '--stats-json', '--selection', '--keep', '-j', '-q'];
  if (withCoverage) wanted.push('--coverage');
  const missing = wanted.filter((o) => !new RegExp(`(^|[\\s,])${o}([\\s,=<]|$)`, 'm').test(text));
  if (missing.length) throw new Error(`\`whittle witness\` does not take ${missing.join(', ')} (see \`${WHITTLE} witness --help\`)`);
}

/** Whether `whittle pair` takes --auto-seed, and --witness-budget with it. */
function pairOffers() {
  const text = help('pair') ?? '';
  return { autoSeed: /--auto-seed\b/.test(text), witnessBudget: /--witness-budget\b/.test(text) };
}

// --- runs ------------------------------------------------------------------------------------

function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

function freshDir(dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

function place(from, dir, name, executable = false) {
  const to = join(dir, name);
  copyFileSync(from, to);
  chmodSync(to, executable ? 0o755 : 0o644);
  return to;
}

/** The last lines of a run's log, for a failure message. */
function logTail(path, lines = 5) {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/**
 * Runs whittle with `args` in `dir` (log in dir/whittle.log, statistics in dir/stats.json).
 * Resolves to {stats, seconds, status}: status "ok", "stopped at the limit" or "error: ...".
 */
async function runWhittle(args, dir, opts, retry = true) {
  const logPath = join(dir, 'whittle.log');
  const statsPath = join(dir, 'stats.json');
  rmSync(statsPath, { force: true });
  let run;
  try {
    run = await runWithLimit(opts.whittle, [...args, '--stats-json', statsPath, '-q', '-j', String(opts.jobs)], {
      cwd: dir, logPath, limitSeconds: opts.limit, env: { ...process.env, WHITTLE_BIN: opts.whittle },
    });
  } catch (e) {
    run = { code: null, signal: e.message, timedOut: false, wallSeconds: 0 };
  }
  let stats = null;
  try { stats = readJson(statsPath); } catch { /* none written */ }
  let status = 'ok';
  const last = logTail(logPath, 1);
  if (run.timedOut) status = `stopped at the limit (${opts.limit} s)`;
  else if (run.code === 1 && /no seed found/.test(last)) status = 'no seed found';
  else if (run.code !== 0) status = `error: exit ${run.code ?? run.signal}: ${last}`;
  else if (!stats) status = `error: no statistics in ${statsPath}`;
  // This machine is shared: a run or a test that could not even start is tried once more.
  if (retry && status.startsWith('error') && (run.code === null || /could not start|cannot run/.test(last))) {
    progress(`${status}; trying once more`);
    return runWhittle(args, dir, opts, false);
  }
  return { stats, seconds: run.wallSeconds, status };
}

/**
 * A copy of the whittle binary for the whole bench, so that a rebuild while it runs changes
 * nothing (the bugs' cov.sh run $WHITTLE_BIN when it is set).
 */
function snapshot(out) {
  const dir = join(out, 'bin');
  mkdirSync(dir, { recursive: true });
  const to = join(dir, 'whittle');
  rmSync(to, { force: true });
  copyFileSync(WHITTLE, to);
  chmodSync(to, 0o755);
  return to;
}

/**
 * The buggy entry's rank in a ranking (most suspicious first): how many entries score at least
 * as high as it, so ties count against it. null when the entry is not ranked at all.
 */
function rankOf(entries, name) {
  if (!Array.isArray(entries)) return null;
  const me = entries.find((e) => e.name === name);
  if (!me) return null;
  return entries.filter((e) => e.score >= me.score).length;
}

async function benchBug(bug, config, seed, opts) {
  const dir = freshDir(join(opts.out, 'bugs', bug.id, `${config}-seed${seed}`));
  const c = bug.case;
  place(join(c, 'input.c'), dir, 'input.c');
  const args = [
    'witness', 'input.c', '--test', join(c, 'check.sh'), '--test-witness', join(c, 'witness.sh'),
    '--coverage', join(c, 'cov.sh'), '--budget', String(opts.budget), '--rng-seed', String(seed),
    '--out', join(dir, 'witnesses'), ...CONFIGS[config].args,
  ];
  const r = await runWhittle(args, dir, opts);
  const s = r.stats ?? {};
  const files = s.ranking?.files;
  const functions = s.ranking?.functions;
  return {
    bug: bug.id, config, seed, status: r.status, seconds: r.seconds,
    witnesses: Array.isArray(s.witnesses) ? s.witnesses.length : null,
    queries: s.queries ?? null,
    fileRank: rankOf(files, bug.file),
    files: Array.isArray(files) ? files.length : null,
    functionRank: rankOf(functions, `${bug.file}:${bug.function}`),
    functions: Array.isArray(functions) ? functions.length : null,
  };
}

// --- the shared cases ------------------------------------------------------------------------

const shQuote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A case's witness test: the compiler accepts the file and the diagnostic is absent. */
function witnessScript(meta, file) {
  return `#!/bin/sh
# A witness: the compiler accepts ${file} and does not print the diagnostic (as the pairs'
# check-seed.sh say). Written by scripts/bench-witness.mjs.
export LC_ALL=C
out=$(timeout -s KILL 30 ${meta.compiler} -c ${file} -o /dev/null 2>&1) || exit 1
! printf '%s\\n' "$out" | grep -qE ${shQuote(meta.regex)}
`;
}

/** The compiler's report on the file (its diagnostics): the search's trace, and where it starts. */
function traceScript(meta, file) {
  return `#!/bin/sh
export LC_ALL=C
timeout -s KILL 30 ${meta.compiler} -c ${file} -o /dev/null 2>&1
`;
}

/** Lines a unified diff adds or removes. */
function changedLines(diff) {
  return diff.split('\n').filter((l) => /^[+-]/.test(l) && !/^(\+\+\+|---)( |$)/.test(l)).length;
}

/** The size of each witness's diff: from the stats if they carry it, else from the .diff files. */
function witnessDiffs(stats, outDir) {
  const ws = Array.isArray(stats?.witnesses) ? stats.witnesses : [];
  let files = [];
  try { files = readdirSync(outDir).filter((f) => f.endsWith('.diff')).sort(); } catch { /* none */ }
  return ws.map((w, i) => {
    let lines = null;
    if (typeof w.diff === 'number') lines = w.diff;
    else if (typeof w.diff === 'string') lines = changedLines(w.diff);
    else if (files[i]) lines = changedLines(readFileSync(join(outDir, files[i]), 'utf8'));
    const mutations = Array.isArray(w.changes) ? w.changes.length : (w.order ?? null);
    return { lines, mutations };
  });
}

async function benchCase(name, opts, offers) {
  const folder = join(opts.casesDir, name);
  const meta = readJson(join(folder, 'case.json'));
  const file = meta.file ?? 'input.c';
  const check = join(folder, 'check.sh');
  const result = { case: name, file };

  progress(`case ${name}: whittle witness (budget ${opts.budget})`);
  const wdir = freshDir(join(opts.out, 'cases', name, 'witness'));
  place(join(folder, file), wdir, file);
  writeFileSync(join(wdir, 'witness.sh'), witnessScript(meta, file), { mode: 0o755 });
  writeFileSync(join(wdir, 'trace.sh'), traceScript(meta, file), { mode: 0o755 });
  const w = await runWhittle([
    'witness', file, '--test', check, '--test-witness', join(wdir, 'witness.sh'), '--trace', join(wdir, 'trace.sh'),
    ...(meta.regex ? ['--focus', meta.regex] : []),
    '--budget', String(opts.budget), '--rng-seed', '1', '--out', join(wdir, 'witnesses'),
  ], wdir, opts);
  const diffs = witnessDiffs(w.stats, join(wdir, 'witnesses'));
  const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  Object.assign(result, {
    witnessStatus: w.status, witnessSeconds: w.seconds,
    witnesses: Array.isArray(w.stats?.witnesses) ? w.stats.witnesses.length : null,
    queries: w.stats?.queries ?? null,
    diffLines: mean(diffs.map((d) => d.lines).filter((x) => x != null)),
    mutations: mean(diffs.map((d) => d.mutations).filter((x) => x != null)),
  });

  if (!offers.autoSeed) {
    result.pairStatus = 'skipped: this whittle pair has no --auto-seed';
    return result;
  }
  progress(`case ${name}: whittle pair --auto-seed`);
  const pdir = freshDir(join(opts.out, 'cases', name, 'pair'));
  place(join(folder, file), pdir, file);
  writeFileSync(join(pdir, 'witness.sh'), witnessScript(meta, file), { mode: 0o755 });
  writeFileSync(join(pdir, 'trace.sh'), traceScript(meta, file), { mode: 0o755 });
  const p = await runWhittle([
    'pair', '--variant', file, '--auto-seed', '--test-variant', check, '--test-seed', join(pdir, 'witness.sh'),
    '--witness-trace', join(pdir, 'trace.sh'),
    ...(meta.regex ? ['--witness-focus', meta.regex] : []),
    ...(offers.witnessBudget ? ['--witness-budget', String(opts.budget)] : []),
  ], pdir, opts);
  Object.assign(result, {
    pairStatus: p.status, pairSeconds: p.seconds, pairQueries: p.stats?.queries ?? null,
    diffTokensBefore: p.stats?.diff_tokens_before ?? null, diffTokensAfter: p.stats?.diff_tokens_after ?? null,
  });
  return result;
}

// --- tables ----------------------------------------------------------------------------------

/** A markdown table; the first `text` columns left-aligned, the figures right-aligned. */
function markdown(header, rows, text = 1) {
  const esc = (c) => {
    const cell = String(c ?? '-').replace(/\|/g, '\\|');
    return cell.length > 90 ? `${cell.slice(0, 89)}…` : cell;
  };
  return [
    `| ${header.map(esc).join(' | ')} |`,
    `|${header.map((_, i) => (i < text ? '---' : '---:')).join('|')}|`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
}

const meanOf = (xs) => {
  const v = xs.filter((x) => x != null);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
};
const fmt = (x, digits = 1) => (x == null ? '-' : Number.isInteger(x) ? String(x) : x.toFixed(digits));

/** "3/8" (one seed) or "2.5/8" (the mean over seeds); "-" when never ranked. */
function rankCell(runs, rank, total) {
  const r = meanOf(runs.map((x) => x[rank]));
  const t = meanOf(runs.map((x) => x[total]));
  if (r == null) return t == null ? '-' : `absent/${fmt(t, 0)}`;
  return `${fmt(r)}/${fmt(t, 0)}`;
}

function bugTables(bugs, results, opts) {
  const header = ['bug', 'file', 'function'];
  for (const c of opts.configs) {
    const l = CONFIGS[c].label;
    header.push(`${l}: witnesses`, `${l}: queries`, `${l}: file rank`, `${l}: function rank`);
  }
  const rows = bugs.map((bug) => {
    const row = [bug.id, bug.file, bug.function];
    for (const c of opts.configs) {
      const runs = results.filter((r) => r.bug === bug.id && r.config === c);
      const failed = runs.filter((r) => r.status.startsWith('error'));
      if (failed.length === runs.length) {
        row.push('error', '-', '-', '-');
        continue;
      }
      row.push(fmt(meanOf(runs.map((r) => r.witnesses))), fmt(meanOf(runs.map((r) => r.queries))),
        rankCell(runs, 'fileRank', 'files'), rankCell(runs, 'functionRank', 'functions'));
    }
    return row;
  });

  const topN = (runs, key, n) => `${runs.filter((r) => r[key] != null && r[key] <= n).length}/${runs.length}`;
  const summary = opts.configs.map((c) => {
    const runs = results.filter((r) => r.config === c && !r.status.startsWith('error'));
    return [
      CONFIGS[c].label, String(runs.length),
      fmt(meanOf(runs.map((r) => r.witnesses))), fmt(meanOf(runs.map((r) => r.queries))),
      fmt(meanOf(runs.map((r) => r.fileRank))), topN(runs, 'fileRank', 1), topN(runs, 'fileRank', 3), topN(runs, 'fileRank', 5),
      fmt(meanOf(runs.map((r) => r.functionRank))), topN(runs, 'functionRank', 1), topN(runs, 'functionRank', 3), topN(runs, 'functionRank', 5),
      fmt(meanOf(runs.map((r) => r.seconds))),
    ];
  });
  return [
    markdown(header, rows, 3),
    '',
    markdown(['configuration', 'runs', 'witnesses (mean)', 'queries (mean)', 'file MFR', 'file top-1', 'file top-3', 'file top-5',
      'function MFR', 'function top-1', 'function top-3', 'function top-5', 'seconds (mean)'], summary),
  ].join('\n');
}

function caseTable(results) {
  return markdown(
    ['case', 'file', 'witness search', 'witnesses', 'queries', 'diff lines (mean)', 'mutations (mean)', 'pair --auto-seed', 'pair queries', 'diff tokens before → after'],
    results.map((r) => [
      r.case, r.file, r.witnessStatus, fmt(r.witnesses), fmt(r.queries), fmt(r.diffLines), fmt(r.mutations),
      r.pairStatus, fmt(r.pairQueries), r.diffTokensAfter == null ? '-' : `${fmt(r.diffTokensBefore)} → ${fmt(r.diffTokensAfter)}`,
    ]),
    2,
  );
}

// --- main ------------------------------------------------------------------------------------

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`bench-witness: ${e.message}\n${USAGE}`);
    process.exit(2);
  }
  requireWitness(opts.bugs);
  mkdirSync(opts.out, { recursive: true });
  opts.whittle = snapshot(opts.out);
  const all = { budget: opts.budget, seeds: opts.seeds, configs: opts.configs, bugs: [], cases: [] };
  let earlier = [];
  if (opts.resume) {
    try {
      const old = readJson(join(opts.out, 'results.json'));
      if (old.budget === opts.budget) earlier = (old.bugs ?? []).filter((r) => r.status === 'ok');
    } catch { /* nothing to resume */ }
  }
  const save = () => writeFileSync(join(opts.out, 'results.json'), `${JSON.stringify(all, null, 2)}\n`);
  const out = [];

  if (opts.bugs) {
    if (!existsSync(MANIFEST)) throw new Error(`${MANIFEST} not found: run \`node scripts/tcc-bugs.mjs\` first`);
    const bugs = readJson(MANIFEST).filter((b) => !opts.only || opts.only.includes(b.id));
    if (!bugs.length) throw new Error(`no bug of ${MANIFEST} matches --only ${opts.only?.join(',')}`);
    for (const bug of bugs) {
      for (const c of opts.configs) {
        for (let seed = 1; seed <= opts.seeds; seed++) {
          const done = earlier.find((r) => r.bug === bug.id && r.config === c && r.seed === seed);
          if (done) {
            all.bugs.push(done);
            continue;
          }
          progress(`${bug.id}: ${CONFIGS[c].label}, seed ${seed}, budget ${opts.budget}`);
          const r = await benchBug(bug, c, seed, opts);
          if (r.status !== 'ok') progress(`${bug.id}: ${r.status}`);
          all.bugs.push(r);
          save();
        }
      }
    }
    out.push(`## Injected tcc bugs (budget ${opts.budget}, ${opts.seeds} seed${opts.seeds > 1 ? 's' : ''})`, '',
      'Rank: entries scoring at least the buggy one (ties count against it) / entries ranked.', '',
      bugTables(bugs, all.bugs, opts), '');
  }

  if (opts.cases) {
    const offers = pairOffers();
    if (!offers.autoSeed) progress('note: this whittle pair has no --auto-seed; the pair column is skipped');
    const names = readdirSync(opts.casesDir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(opts.casesDir, d.name, 'case.json')))
      .map((d) => d.name).filter((n) => !opts.only || opts.only.includes(n)).sort();
    for (const name of names) {
      all.cases.push(await benchCase(name, opts, offers));
      save();
    }
    out.push(`## Reduction cases (${basename(opts.casesDir)}; budget ${opts.budget})`, '', caseTable(all.cases), '');
  }
  save();
  console.log(out.join('\n'));
  console.log(`Runs and results.json in ${opts.out}`);
}

main().catch((e) => {
  console.error(`bench-witness: ${e.message}`);
  process.exit(1);
});
