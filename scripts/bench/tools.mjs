// The bench's tool runs: whittle reduce, whittle pair, C-Vise and C-Reduce, each on a fresh
// scratch copy, and the figures measured the same way for all of them (whole-process wall time,
// tokens by `whittle parse --json` and, for C and C++, by clang's lexer, bytes on disk, and
// check.sh run again on the result in a fresh folder).

import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { runWithLimit } from './process.mjs';

/** Seconds check.sh may take when we verify a result (it limits the compiler to 30 s itself). */
const CHECK_LIMIT_SECONDS = 300;

/** Runs a command to make a case; throws with the end of its output if it fails. */
export function run(command, args, options = {}) {
  const r = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 28, ...options });
  if (r.status !== 0) {
    const output = `${r.stderr ?? ''}${r.stdout ?? ''}`.trim().split('\n').slice(-3).join(' | ');
    throw new Error(`${command} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`}): ${output}`);
  }
  return r.stdout;
}

/** One word quoted for sh. */
export function shellQuote(word) {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Cargo's home: its bin folder and its registry of crates' sources. */
export const CARGO_HOME = process.env.CARGO_HOME ?? join(homedir(), '.cargo');

/** The path of `command` on the PATH, else in ~/.cargo/bin (rustc, when PATH lacks it), or null. */
export function findCommand(command) {
  const r = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', command], { encoding: 'utf8' });
  if (r.status === 0) return r.stdout.trim();
  const cargo = join(CARGO_HOME, 'bin', command);
  return existsSync(cargo) ? cargo : null;
}

/**
 * The folders of the crates in the local cargo registry (what `cargo fetch` brought for this
 * repository), oldest version of a crate first: numeric order puts 0.11.10 after 0.11.9.
 */
export function registryCrates() {
  const registry = join(CARGO_HOME, 'registry', 'src');
  if (!existsSync(registry)) return [];
  const crates = readdirSync(registry).flatMap((index) => readdirSync(join(registry, index)).map((c) => join(registry, index, c)));
  return crates.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

/** Copies `from` to `dir/name`, writable (the shared cases are read-only), scripts executable. */
export function place(from, dir, name, executable = false) {
  mkdirSync(dir, { recursive: true });
  const to = join(dir, name);
  copyFileSync(from, to);
  chmodSync(to, executable ? 0o755 : 0o644);
  return to;
}

/** Tokens as our tree-sitter tokenizer counts them, so both tools' results are comparable. */
export function countTokens(whittle, file) {
  const r = spawnSync(whittle, ['parse', file, '--json'], { encoding: 'utf8' });
  try {
    return JSON.parse(r.stdout).tokens ?? null;
  } catch {
    return null;
  }
}

/** clang's language options by file extension: C and C++ only, other files get no clang count. */
const CLANG_LANGUAGES = new Map([
  ['.c', []],
  ['.h', []],
  ['.i', []],
  ['.cc', ['-x', 'c++', '-std=c++17']],
  ['.cpp', ['-x', 'c++', '-std=c++17']],
  ['.cxx', ['-x', 'c++', '-std=c++17']],
  ['.hpp', ['-x', 'c++', '-std=c++17']],
  ['.ii', ['-x', 'c++', '-std=c++17']],
]);

/**
 * Tokens as clang's lexer counts them (`-Xclang -dump-tokens`: one line per token on stderr, the
 * figure C-Reduce's and C-Vise's papers use), or null for other languages. clang goes on lexing
 * past errors (a missing header, a stray character), so what it printed is counted whatever its
 * exit status; null only if it printed no token at all.
 */
export function countClangTokens(file) {
  const language = CLANG_LANGUAGES.get(extname(file).toLowerCase());
  if (!language || !existsSync(file)) return null;
  const r = spawnSync('clang', ['-fsyntax-only', '-Xclang', '-dump-tokens', ...language, file], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // A token's line ends with its location; diagnostics in between do not. The last is `eof`.
  let tokens = 0;
  let eof = false;
  for (const line of (r.stderr ?? '').split('\n')) {
    if (!/\tLoc=<.*>$/.test(line)) continue;
    if (line.startsWith("eof ''")) eof = true;
    else tokens++;
  }
  return tokens || eof ? tokens : null;
}

export function fileBytes(file) {
  return existsSync(file) ? statSync(file).size : null;
}

/** Size of a program: tokens (ours, and clang's for C and C++) and bytes. */
export function measure(whittle, file) {
  return { tokens: countTokens(whittle, file), clangTokens: countClangTokens(file), bytes: fileBytes(file) };
}

/**
 * Runs `check` in a fresh folder `dir` holding `result` under `name` (the name the script
 * reads). True iff it exits 0.
 */
export async function passesCheck(result, name, check, dir) {
  if (!existsSync(result)) return false;
  place(result, dir, name);
  const script = place(check, dir, basename(check), true);
  const r = await runWithLimit(...contained('sh', [script]), {
    cwd: dir,
    logPath: join(dir, 'check.log'),
    limitSeconds: CHECK_LIMIT_SECONDS,
  });
  return r.code === 0 && !r.timedOut;
}

/** "ok", "timeout" or "error (exit N)" for a finished run. */
function status(run) {
  if (run.timedOut) return 'timeout';
  if (run.code === 0) return 'ok';
  return run.signal ? `error (${run.signal})` : `error (exit ${run.code})`;
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * `whittle reduce` on a copy of a case in `dir`. The result is written back to the file.
 * Returns the figures of the run (the check is done by the caller).
 */
/** With `every` seconds, what `runWithLimit` needs to snapshot `file` into `dir`/over-time. */
function snapshotOf(file, dir, every) {
  return every ? { file, every, into: join(dir, 'over-time') } : null;
}

/** Tokens of each snapshot of a run (see `runWithLimit`): [{ seconds, tokens }]. */
function tokensOverTime(whittle, run) {
  return run.snapshots.map((s) => ({ seconds: s.seconds, tokens: countTokens(whittle, s.path) }));
}

export async function runWhittleReduce({ whittle, bench, dir, jobs, strategy, limitSeconds, overTime = null }) {
  const file = place(bench.file, dir, bench.name);
  place(bench.check, dir, basename(bench.check), true);
  const statsPath = join(dir, 'stats.json');
  const args = ['reduce', '--test', `./${basename(bench.check)}`, bench.name, '-j', String(jobs), '--stats-json', statsPath, '--quiet'];
  if (strategy) args.push('--strategy', strategy);
  const snapshot = snapshotOf(file, dir, overTime);
  const run = await runWithLimit(whittle, args, { cwd: dir, logPath: join(dir, 'whittle.log'), limitSeconds, snapshot });
  const stats = readJson(statsPath);
  return {
    tool: 'whittle',
    status: status(run),
    result: file,
    log: join(dir, 'whittle.log'),
    wallSeconds: run.wallSeconds,
    queries: stats?.queries ?? null,
    engineSeconds: stats?.engine_seconds ?? null,
    statsWallSeconds: stats?.wall_seconds ?? null,
    invalidQueries: stats?.invalid_queries ?? null,
    stats,
    after: measure(whittle, file),
    overTime: tokensOverTime(whittle, run),
  };
}

/**
 * The number of tests C-Vise started, from the "total executed" column of the pass statistics
 * it prints at the end; null if it printed none.
 */
export function cviseQueries(log) {
  const text = readLog(log);
  const start = text.indexOf('===< PASS statistics >===');
  if (start < 0) return null;
  let total = 0;
  let found = false;
  for (const line of text.slice(start).split('\n').slice(2)) {
    const m = /\s(\d+)\s+(\d+)\s+(\d+)\s*$/.exec(line);
    if (!m) break;
    total += Number(m[3]);
    found = true;
  }
  return found ? total : null;
}

/**
 * The number of tests C-Reduce ran, from its closing "pass statistics" ("method P worked N times
 * and failed M times"); null if it printed none. Cache hits and the tests of a parallel batch
 * it threw away are not in there, so this slightly undercounts.
 */
export function creduceQueries(log) {
  const text = readLog(log);
  const start = text.indexOf('pass statistics:');
  if (start < 0) return null;
  let total = 0;
  for (const m of text.slice(start).matchAll(/worked (\d+) times and failed (\d+) times/g)) {
    total += Number(m[1]) + Number(m[2]);
  }
  return total;
}

function readLog(log) {
  return existsSync(log) ? readFileSync(log, 'utf8') : '';
}

/**
 * The reducers `--vs` can compare with. Both take `--n JOBS [--not-c] ./check.sh FILE` and reduce
 * the file in place in its folder.
 */
export const REDUCERS = {
  cvise: { command: 'cvise', queries: cviseQueries },
  creduce: { command: 'creduce', queries: creduceQueries },
};

/**
 * `command args` with a /dev of its own, where bubblewrap is at hand: the other reducers run
 * a case's check.sh as root, unsandboxed, and clang deletes a failed compile's `-o /dev/null`
 * (the machine's, which every later spawn needs).
 */
export function contained(command, args) {
  const bwrap = findCommand('bwrap');
  if (!bwrap) return [command, args];
  return [bwrap, ['--dev-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--die-with-parent', '--', command, ...args]];
}

/** `TOOL --n jobs ./check.sh FILE` on a copy of a case in `dir`, TOOL one of REDUCERS. */
export async function runReducer(tool, { whittle, bench, dir, jobs, limitSeconds, overTime = null }) {
  const { command, queries } = REDUCERS[tool];
  const file = place(bench.file, dir, bench.name);
  place(bench.check, dir, basename(bench.check), true);
  const log = join(dir, `${tool}.log`);
  // Their clang passes only parse C and C++: on other languages --not-c spares them the time.
  const notC = CLANG_LANGUAGES.has(extname(bench.name).toLowerCase()) ? [] : ['--not-c'];
  const args = ['--n', String(jobs), ...notC, `./${basename(bench.check)}`, bench.name];
  const run = await runWithLimit(...contained(command, args), { cwd: dir, logPath: log, limitSeconds, snapshot: snapshotOf(file, dir, overTime) });
  return {
    tool,
    status: status(run),
    result: file,
    log,
    wallSeconds: run.wallSeconds,
    queries: queries(log),
    engineSeconds: null,
    invalidQueries: null,
    after: measure(whittle, file),
    overTime: tokensOverTime(whittle, run),
  };
}

export const runCvise = (options) => runReducer('cvise', options);
export const runCreduce = (options) => runReducer('creduce', options);

/** True iff `whittle pair` exists in this build. */
export function hasPairCommand(whittle) {
  return spawnSync(whittle, ['pair', '--help'], { stdio: 'ignore' }).status === 0;
}

/**
 * Where `whittle pair` put the minimized `name`: a path its stats name, else NAME.min.EXT,
 * else the file itself if it was reduced in place (NAME.orig kept beside it).
 */
function pairOutput(dir, name, stats, side) {
  for (const key of [`${side}_output`, `${side}_min`, `${side}_out`, `${side}_path`]) {
    const p = stats?.[key];
    if (typeof p === 'string') {
      const abs = p.startsWith('/') ? p : join(dir, p);
      if (existsSync(abs)) return abs;
    }
  }
  const ext = extname(name);
  const min = join(dir, `${basename(name, ext)}.min${ext}`);
  if (existsSync(min)) return min;
  if (existsSync(join(dir, `${name}.orig`))) return join(dir, name);
  return min;
}

/** `whittle pair` on a copy of a pair in `dir`. */
export async function runWhittlePair({ whittle, pair, dir, jobs, limitSeconds }) {
  place(pair.seed.file, dir, pair.seed.name);
  place(pair.variant.file, dir, pair.variant.name);
  place(pair.seed.check, dir, basename(pair.seed.check), true);
  place(pair.variant.check, dir, basename(pair.variant.check), true);
  const statsPath = join(dir, 'stats.json');
  const args = [
    'pair',
    '--seed', pair.seed.name,
    '--variant', pair.variant.name,
    '--test-seed', `./${basename(pair.seed.check)}`,
    '--test-variant', `./${basename(pair.variant.check)}`,
    '-j', String(jobs),
    '--stats-json', statsPath,
  ];
  const log = join(dir, 'whittle.log');
  const run = await runWithLimit(whittle, args, { cwd: dir, logPath: log, limitSeconds });
  const stats = readJson(statsPath);
  const seedResult = pairOutput(dir, pair.seed.name, stats, 'seed');
  const variantResult = pairOutput(dir, pair.variant.name, stats, 'variant');
  return {
    tool: 'whittle',
    status: status(run),
    log,
    wallSeconds: run.wallSeconds,
    queries: stats?.queries ?? null,
    stats,
    seedResult,
    variantResult,
    seedAfter: measure(whittle, seedResult),
    variantAfter: measure(whittle, variantResult),
    diffTokens: { before: stats?.diff_tokens_before ?? null, after: stats?.diff_tokens_after ?? null },
  };
}
