#!/usr/bin/env node
// Known bugs for the witness mode (DiWi): one-line injections into tcc's source, each built as
// its own compiler with gcc's --coverage, each with the smallest program that shows it.
//
//   node scripts/tcc-bugs.mjs [--seeds 200] [-j N] [--survey] [--only ID[,ID]] [--out DIR]
//
// --only makes just those bugs (a spare still replaces one that no pool program shows);
// --out writes everything under DIR instead of target/tcc-bugs (the test of this script does).
//
// For each bug of BUGS below:
//   target/tcc-bugs/<id>/          a fresh copy of target/tcc/src with the one line changed, built
//                                  in place by scripts/build-tcc.sh --in (tcc, libtcc1.a, .gcno)
//   target/tcc-bugs/<id>/case/     input.c    the failing program
//                                  check.sh   exit 0 iff the buggy tcc still shows the bug on input.c
//                                  witness.sh exit 0 iff input.c passes: the buggy tcc builds it and
//                                             its output is gcc -O0's
//                                  cov.sh     prints the coverage (JSON) of the buggy tcc compiling
//                                             input.c, by `whittle coverage`
//                                  case.json  where the program comes from, how it fails
//   target/tcc-bugs/manifest.json  [{id, file, function, description, dir, case, ...}]
//
// The failing program is the smallest (in bytes) of a pool: csmith programs of fixed seeds
// (1..--seeds, small settings) and the hand-written programs of tests/witness-programs/. A pool
// program is kept only when gcc -O0 and the correct tcc (target/tcc/build) both build it, both
// programs terminate within RUN_TIMEOUT seconds and print the same (for csmith: its checksum
// line). A program fails a buggy tcc when the buggy tcc crashes, rejects it or hangs, or the
// program it builds prints something else, exits otherwise or does not terminate in time.
//
// The programs are not reduced: reducing a csmith program while keeping it free of undefined
// behaviour needs more than a compiler comparison (C-Reduce's people use Frama-C or
// sanitizers), so we take the smallest program of the pool instead.
//
// A bug without a failing program in the pool is replaced by the next spare of BUGS.
// Everything is cached: the pool's verdicts (pool/cache.json, by program content), the builds
// (a stamp of the change in each folder) and the search (case/case.json); a second run only
// checks the scripts. --survey tests every bug, spares too, on the whole pool and prints how
// many programs each one fails (for choosing bugs that only some programs show).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync,
  statSync, writeFileSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'target/tcc/src');
const REF = join(ROOT, 'target/tcc/build');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const OUT = resolve(opt('--out', join(ROOT, 'target/tcc-bugs')));
const ONLY = opt('--only', '').split(',').filter(Boolean);
const POOL = join(OUT, 'pool');
const HAND = join(ROOT, 'tests/witness-programs');
const WHITTLE = join(ROOT, 'target/release/whittle');
const BUILD_TCC = join(ROOT, 'scripts/build-tcc.sh');
const CSMITH_INCLUDE = '/usr/include/csmith';
const CSMITH_OPTS = ['--max-funcs', '2', '--max-block-depth', '2', '--no-argc', '--no-packed-struct'];
const CFLAGS = [`-I${CSMITH_INCLUDE}`, '-w'];
const RUN_TIMEOUT = 2; // seconds a built program may run
const COMPILE_TIMEOUT = 20; // seconds a compile may take

/**
 * The injections. `find` must occur exactly once in `file` and is replaced by `replace`, inside
 * one line. `function` is the enclosing function as gcov names it (checked against the source).
 * Spares stand in, in order, for bugs that no program of the pool shows.
 *
 * Each bug is one that only some programs show (`--survey` with 200 seeds: load-movzw fails 78
 * of 192 pool programs, bitfield-unsigned 50, csti-zext and gen-op-ule 6, combine-unsigned 4,
 * the others 1). Tried and dropped: && and || of constants in expr_landor (tcc's own #if
 * evaluation uses it, so the build of libtcc1.a already fails), __VA_ARGS__ in
 * macro_subst_tok (likewise), an 8-bit immediate range in gen_opi and 64-bit constant shift
 * counts (more than 90% of programs fail), and constant casts to short, folding of <= and
 * unsigned-to-double conversion (no program of the pool fails).
 */
export const BUGS = [
  {
    id: 'load-movzw',
    file: 'x86_64-gen.c',
    function: 'load',
    find: 'b = 0xbf0f;   /* movswl */',
    replace: 'b = 0xb70f;   /* movswl */',
    description: 'code generation: a signed short loaded from memory is zero-extended (movzwl instead of movswl)',
  },
  {
    id: 'csti-zext',
    file: 'x86_64-gen.c',
    function: 'gen_cvt_csti',
    find: 'sz = !(t & VT_UNSIGNED);',
    replace: 'sz = (t & VT_BTYPE) == VT_SHORT && !(t & VT_UNSIGNED);',
    description: 'code generation: a value in a register converted to signed char is zero-extended, not sign-extended',
  },
  {
    id: 'opic-and-mask',
    file: 'tccgen.c',
    function: 'gen_opic',
    find: '(l2 == 0xFFFFFFFF && t2 != VT_LLONG))))) {',
    replace: '(l2 == 0xFFFFFFFF))))) {',
    description: 'constant folding: x & 0xFFFFFFFF is dropped as a no-op for 64-bit x too',
  },
  {
    id: 'opif-sub',
    file: 'tccgen.c',
    function: 'gen_opif',
    find: "case '-': f1 -= f2; break;",
    replace: "case '-': f1 = f2 - f1; break;",
    description: 'constant folding: a floating-point subtraction of two constants swaps its operands',
  },
  {
    id: 'combine-unsigned',
    file: 'tccgen.c',
    function: 'combine_types',
    find: '(t2 & (VT_BTYPE | VT_UNSIGNED | VT_BITFIELD)) == (VT_INT | VT_UNSIGNED))',
    replace: '0)',
    description: 'usual arithmetic conversions: int op unsigned stays int when only the right operand is unsigned',
  },
  {
    id: 'bitfield-unsigned',
    file: 'tccgen.c',
    function: 'gv',
    find: 'type.t = vtop->type.t & VT_UNSIGNED;',
    replace: 'type.t = VT_UNSIGNED;',
    description: 'type handling: a signed bit-field is read as unsigned (no sign extension)',
  },
  {
    id: 'gcase-pivot',
    file: 'tccgen.c',
    function: 'gcase',
    find: 'p = base[len/2];',
    replace: 'p = base[len/2 + 1];',
    description: 'switch lowering: the binary search over more than 8 cases skips the case below its pivot',
  },
  {
    id: 'octal-literal',
    file: 'tccpp.c',
    function: 'parse_number',
    find: "if (b == 10 && *q == '0') {",
    replace: "if (b == 8 && *q == '0') {",
    description: 'lexer: an integer literal with a leading 0 is read as decimal, not octal',
  },
  // Spares.
  {
    id: 'hex-escape',
    file: 'tccpp.c',
    function: 'parse_escape_string',
    find: 'n = n * 16 + c;',
    replace: 'n = n * 10 + c;',
    description: 'lexer: a \\x escape in a character or string literal accumulates its digits in base 10',
  },
  {
    id: 'gen-op-ule',
    file: 'tccgen.c',
    function: 'gen_op',
    find: 'op = TOK_ULE;',
    replace: 'op = TOK_LE;',
    description: 'semantics: <= on unsigned operands compares them as signed',
  },
  {
    id: 'ul-literal-signed',
    file: 'tccpp.c',
    function: 'parse_number',
    find: 'if (ucount)',
    replace: 'if (ucount && lcount != 1)',
    description: 'lexer: an integer literal with suffix UL gets type long, not unsigned long',
  },
  {
    id: 'hex-literal-signed',
    file: 'tccpp.c',
    function: 'parse_number',
    find: 'else if (n >= 0x80000000U)',
    replace: 'else if (n >= 0x80000000U && b != 16)',
    description: 'lexer: a hex literal of 0x80000000..0xFFFFFFFF without suffix gets type int, not unsigned int',
  },
  {
    id: 'shift-imm-mask',
    file: 'x86_64-gen.c',
    function: 'gen_opi',
    find: 'g(vtop->c.i & (ll ? 63 : 31));',
    replace: 'g(vtop->c.i & 31);',
    description: 'code generation: a 64-bit shift by a constant count of 32 or more shifts by count mod 32',
  },
];

const PRIMARY = 8; // how many bugs the benchmark has; BUGS after these are spares

// ---------------------------------------------------------------------------------------------

const SEEDS = Number(opt('--seeds', '200'));
const JOBS = Number(opt('-j', String(availableParallelism())));
const SURVEY = args.includes('--survey');

const say = (msg) => process.stderr.write(`tcc-bugs: ${msg}\n`);
function die(msg) {
  say(`error: ${msg}`);
  process.exit(1);
}

const SCRATCH = mkdtempSync(join(tmpdir(), 'whittle-tcc-bugs-'));
process.on('exit', () => rmSync(SCRATCH, { recursive: true, force: true }));
process.on('SIGINT', () => process.exit(130));
// The tccs are built with --coverage: their counters go to the scratch folder, not into the
// build folders (whittle coverage collects its own, under its own prefix).
const TCC_ENV = { ...process.env, GCOV_PREFIX: join(SCRATCH, 'gcov'), LC_ALL: 'C' };

const sha = (text) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/** Runs a command; resolves to {code, signal, stdout, stderr, timedOut}. Never rejects. */
function run(cmd, argv, { cwd = SCRATCH, timeout = COMPILE_TIMEOUT, env = TCC_ENV } = {}) {
  return new Promise((done) => {
    const child = spawn(cmd, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d) => { if (stdout.length < 1 << 16) stdout += d; });
    child.stderr.on('data', (d) => { if (stderr.length < 1 << 16) stderr += d; });
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, timeout * 1000);
    child.on('error', (err) => { clearTimeout(timer); done({ code: 127, signal: null, stdout, stderr: String(err), timedOut }); });
    child.on('close', (code, signal) => { clearTimeout(timer); done({ code, signal, stdout, stderr, timedOut }); });
  });
}

/** Runs `tasks` (functions returning promises) at most `jobs` at a time; results in order. */
async function parallel(tasks, jobs = JOBS) {
  const results = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, tasks.length) }, worker));
  return results;
}

/** A run's observable behaviour, as check.sh compares it: its output and how it ended. */
const behaviour = (r) => (r.timedOut ? 'timeout' : `${r.stdout}exit ${r.signal ?? r.code}`);

const gccArgs = (file, exe) => ['-O0', ...CFLAGS, file, '-o', exe, '-lm'];
const tccArgs = (dir, file, exe) => [`-B${dir}`, `-I${dir}/include`, ...CFLAGS, file, '-o', exe, '-lm'];

let scratchCount = 0;
const scratchFile = (name) => join(SCRATCH, `${scratchCount++}-${name}`);

// --- the pool --------------------------------------------------------------------------------

function prerequisites() {
  for (const [tool, hint] of [['gcc', 'apt-get install gcc'], ['csmith', 'apt-get install csmith'], ['timeout', 'coreutils']]) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) die(`${tool} not found (${hint})`);
  }
  if (!existsSync(join(CSMITH_INCLUDE, 'csmith.h'))) die(`${CSMITH_INCLUDE}/csmith.h not found: apt-get install libcsmith-dev`);
  const r = spawnSync('bash', [BUILD_TCC], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) die('scripts/build-tcc.sh failed');
  if (!existsSync(join(REF, 'tcc'))) die(`no ${REF}/tcc after scripts/build-tcc.sh`);
}

/** The reference verdict on one program: {ok, expected, why}. */
async function judge(file, csmith) {
  const gexe = scratchFile('gcc.out');
  const g = await run('gcc', gccArgs(file, gexe));
  if (g.code !== 0) return { ok: false, why: 'gcc rejects it' };
  const gr = await run(gexe, [], { timeout: RUN_TIMEOUT });
  if (gr.timedOut) return { ok: false, why: 'gcc -O0 program does not terminate in time' };
  if (gr.code !== 0) return { ok: false, why: `gcc -O0 program exits ${gr.signal ?? gr.code}` };
  if (csmith && !/^checksum = [0-9A-F]+\n$/.test(gr.stdout)) return { ok: false, why: 'output is not a checksum' };
  const texe = scratchFile('tcc.out');
  const t = await run(join(REF, 'tcc'), tccArgs(REF, file, texe));
  if (t.code !== 0) return { ok: false, why: 'the correct tcc rejects it' };
  const tr = await run(texe, [], { timeout: RUN_TIMEOUT });
  if (behaviour(tr) !== behaviour(gr)) return { ok: false, why: 'gcc and the correct tcc disagree' };
  return { ok: true, expected: behaviour(gr) };
}

function csmithVersion() {
  return spawnSync('csmith', ['--version'], { encoding: 'utf8' }).stdout.trim().replace(/\s+/g, ' ');
}

/** The pool, sorted smallest first: [{name, origin, path, bytes, hash, expected}]. */
async function buildPool() {
  mkdirSync(join(POOL, 'csmith'), { recursive: true });
  const version = csmithVersion();
  const cachePath = join(POOL, 'cache.json');
  let cache = {};
  try { cache = JSON.parse(readFileSync(cachePath, 'utf8')); } catch { /* first run */ }
  // A verdict holds for one program text under one correct tcc and one gcc.
  const refStamp = `${statSync(join(REF, 'tcc')).mtimeMs}`;
  const opts = `${CSMITH_OPTS.join(' ')} / ${CFLAGS.join(' ')} / ${RUN_TIMEOUT} s`;
  if (cache.refStamp !== refStamp || cache.version !== version || cache.opts !== opts) {
    cache = { refStamp, version, opts, verdicts: {} };
  }
  const programs = [];
  for (let seed = 1; seed <= SEEDS; seed++) {
    const path = join(POOL, 'csmith', `seed-${seed}.c`);
    if (!existsSync(path)) {
      const r = spawnSync('csmith', ['--seed', String(seed), ...CSMITH_OPTS, '-o', path], { encoding: 'utf8' });
      if (r.status !== 0) die(`csmith --seed ${seed} failed: ${r.stderr}`);
      // csmith names its own options and output file in a comment; keep the path out of it.
      writeFileSync(path, readFileSync(path, 'utf8').replace(/ -o \S+/, ''));
    }
    programs.push({ name: `csmith-${seed}`, origin: `csmith ${CSMITH_OPTS.join(' ')} --seed ${seed}`, path, csmith: true });
  }
  for (const f of readdirSync(HAND).filter((f) => f.endsWith('.c')).sort()) {
    programs.push({ name: basename(f, '.c'), origin: `tests/witness-programs/${f}`, path: join(HAND, f), csmith: false });
  }
  for (const p of programs) {
    const text = readFileSync(p.path, 'utf8');
    p.bytes = Buffer.byteLength(text);
    p.hash = sha(text);
  }
  const todo = programs.filter((p) => !cache.verdicts[p.hash]);
  if (todo.length) say(`judging ${todo.length} pool programs with gcc -O0 and the correct tcc`);
  await parallel(todo.map((p) => async () => { cache.verdicts[p.hash] = await judge(p.path, p.csmith); }));
  writeFileSync(cachePath, JSON.stringify(cache));
  const pool = programs.filter((p) => cache.verdicts[p.hash].ok).map((p) => ({ ...p, expected: cache.verdicts[p.hash].expected }));
  pool.sort((a, b) => a.bytes - b.bytes || a.name.localeCompare(b.name));
  const dropped = programs.length - pool.length;
  say(`pool: ${pool.length} programs (${pool.filter((p) => p.csmith).length} csmith, ${pool.filter((p) => !p.csmith).length} hand-written; ${dropped} dropped), ${pool[0]?.bytes}..${pool.at(-1)?.bytes} bytes`);
  return pool;
}

// --- the buggy compilers ---------------------------------------------------------------------

function srcVersion() {
  return readFileSync(join(SRC, 'debian/changelog'), 'utf8').split('\n')[0];
}

/** Checks the injection against the pristine source: `find` exactly once, within one line. */
function validate(bug) {
  for (const key of ['id', 'file', 'function', 'find', 'replace', 'description']) {
    if (!bug[key]) die(`bug ${bug.id ?? '?'}: no ${key}`);
  }
  if (bug.find.includes('\n') || bug.replace.includes('\n')) die(`bug ${bug.id}: find and replace must be one line each`);
  const text = readFileSync(join(SRC, bug.file), 'utf8');
  const count = text.split(bug.find).length - 1;
  if (count !== 1) die(`bug ${bug.id}: ${JSON.stringify(bug.find)} occurs ${count} times in ${bug.file}, not once`);
  // The function gcov reports for the changed line: the last function definition above it (a
  // line that starts in column 0 with a declaration and names a function, not ending in ';').
  const above = text.slice(0, text.indexOf(bug.find)).split('\n').reverse();
  const head = above.find((l) => /^[A-Za-z_][\w \t*]*\(/.test(l) && !/[;,]\s*$/.test(l));
  const fn = head?.match(/([A-Za-z_]\w*)\s*\(/)[1];
  if (fn !== bug.function) die(`bug ${bug.id}: the change is in function ${fn} of ${bug.file}, not ${bug.function}`);
}

/** Builds the buggy tcc of `bug` in OUT/<id> unless it is up to date; returns its folder. */
function buildBug(bug) {
  const dir = join(OUT, bug.id);
  const stamp = JSON.stringify({ file: bug.file, find: bug.find, replace: bug.replace, src: srcVersion() });
  const stampPath = join(dir, '.whittle-bug.json');
  const upToDate = existsSync(stampPath) && readFileSync(stampPath, 'utf8') === stamp
    && existsSync(join(dir, 'tcc')) && existsSync(join(dir, 'libtcc1.a'));
  if (!upToDate) {
    say(`${bug.id}: copying the source and changing ${bug.file}`);
    rmSync(dir, { recursive: true, force: true });
    cpSync(SRC, dir, { recursive: true, preserveTimestamps: true });
    const path = join(dir, bug.file);
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.replace(bug.find, () => bug.replace));
  }
  const r = spawnSync('bash', [BUILD_TCC, '--in', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) return { dir, error: `the build failed: ${r.stderr.trim().split('\n').at(-1)}` };
  writeFileSync(stampPath, stamp);
  return { dir, stamp };
}

/** How `bug`'s tcc (in `dir`) does on pool program `p`: null if like gcc, else what differs. */
async function failure(dir, p) {
  const exe = scratchFile('bug.out');
  const c = await run(join(dir, 'tcc'), tccArgs(dir, p.path, exe));
  if (c.timedOut) return 'the compiler hangs';
  if (c.signal) return `the compiler crashes (${c.signal})`;
  if (c.code !== 0) return `the compiler rejects it: ${c.stderr.trim().split('\n')[0]}`;
  const r = await run(exe, [], { timeout: RUN_TIMEOUT });
  const got = behaviour(r);
  if (got === p.expected) return null;
  if (r.timedOut) return 'the program does not terminate';
  if (r.signal) return `the program crashes (${r.signal})`;
  return 'the program prints something else';
}

/** The smallest failing program of the pool: {program, how, tried}, or null. */
async function search(dir, pool) {
  for (let i = 0; i < pool.length; i += JOBS) {
    const window = pool.slice(i, i + JOBS);
    const verdicts = await parallel(window.map((p) => () => failure(dir, p)));
    const k = verdicts.findIndex((v) => v !== null);
    if (k >= 0) return { program: window[k], how: verdicts[k], tried: i + k + 1 };
  }
  return null;
}

// --- the case folder -------------------------------------------------------------------------

const sh = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

export function scripts(bug, dir) {
  const head = (what) => `#!/bin/sh
# Bug ${bug.id} (${bug.file}, ${bug.function}): ${bug.description}.
# ${what}
# Runs in a folder that holds input.c. Written by scripts/tcc-bugs.mjs.
export LC_ALL=C
BUG=${sh(dir)}
REF=${sh(REF)}
CFLAGS=${sh(CFLAGS.join(' '))}
# The tccs are built with --coverage: keep their counters out of their build folders.
export GCOV_PREFIX="$PWD/.gcov"
# How a program ends: the first 64 KiB of its output, then "exit N" (137: killed after ${RUN_TIMEOUT} s).
behaviour() {
  (timeout -s KILL ${RUN_TIMEOUT} "$1" 2>/dev/null; echo "exit $?" >"$1.status") | head -c 65536
  cat "$1.status"
}
# gcc -O0 must build the program, and its program must terminate.
timeout -s KILL ${COMPILE_TIMEOUT} gcc -O0 $CFLAGS input.c -o gcc.out -lm >/dev/null 2>&1 || exit 1
expected=$(behaviour ./gcc.out)
case "$expected" in *"exit 137") exit 1 ;; esac
`;
  const check = `${head('Exit 0 iff the buggy tcc still shows the bug on input.c: gcc -O0 and the correct tcc agree\n# on the program, and the buggy tcc crashes, rejects it or hangs, or its program prints something\n# else, ends otherwise or does not terminate.')}timeout -s KILL ${COMPILE_TIMEOUT} "$REF/tcc" -B"$REF" -I"$REF/include" $CFLAGS input.c -o ref.out -lm >/dev/null 2>&1 || exit 1
[ "$(behaviour ./ref.out)" = "$expected" ] || exit 1
timeout -s KILL ${COMPILE_TIMEOUT} "$BUG/tcc" -B"$BUG" -I"$BUG/include" $CFLAGS input.c -o bug.out -lm >/dev/null 2>&1 || exit 0
[ "$(behaviour ./bug.out)" != "$expected" ]
`;
  const witness = `${head('Exit 0 iff input.c is a witness: the buggy tcc builds it and the program prints what\n# gcc -O0\'s prints and ends the same way.')}timeout -s KILL ${COMPILE_TIMEOUT} "$BUG/tcc" -B"$BUG" -I"$BUG/include" $CFLAGS input.c -o bug.out -lm >/dev/null 2>&1 || exit 1
[ "$(behaviour ./bug.out)" = "$expected" ]
`;
  const cov = `#!/bin/sh
# Bug ${bug.id}: prints the coverage of the buggy tcc compiling input.c, as JSON
# ({"tccgen.c": {"gen_op": [lines]}, ...}). Runs in a folder that holds input.c.
# $WHITTLE_BIN, when set, is the whittle to run. Never \`-o /dev/null\`: tcc unlinks its
# output file before writing it, and as root that replaces /dev/null with a plain file.
BUG=${sh(dir)}
exec "\${WHITTLE_BIN:-${WHITTLE}}" coverage --objects "$BUG" -- "$BUG/tcc" -B"$BUG" ${CFLAGS.join(' ')} -c input.c -o input.o
`;
  return { 'check.sh': check, 'witness.sh': witness, 'cov.sh': cov };
}

/** Runs a case script in a fresh folder holding `input`; resolves to its exit status. */
async function tryScript(script, input) {
  const dir = mkdtempSync(join(SCRATCH, 'try-'));
  writeFileSync(join(dir, 'input.c'), input);
  const r = await run('sh', [script], { cwd: dir, timeout: 4 * COMPILE_TIMEOUT, env: { ...process.env } });
  return r.code;
}

async function writeCase(bug, dir, found) {
  const caseDir = join(dir, 'case');
  mkdirSync(caseDir, { recursive: true });
  const input = readFileSync(found.program.path, 'utf8');
  // Files already right are left alone: a bench may be running the scripts.
  const put = (name, text, mode) => {
    const path = join(caseDir, name);
    if (!existsSync(path) || readFileSync(path, 'utf8') !== text) writeFileSync(path, text);
    chmodSync(path, mode);
  };
  put('input.c', input, 0o644);
  for (const [name, text] of Object.entries(scripts(bug, dir))) put(name, text, 0o755);
  const [check, witness] = await Promise.all([tryScript(join(caseDir, 'check.sh'), input), tryScript(join(caseDir, 'witness.sh'), input)]);
  if (check !== 0) die(`${bug.id}: case/check.sh exits ${check} on the failing program, not 0`);
  if (witness === 0) die(`${bug.id}: case/witness.sh accepts the failing program`);
  return caseDir;
}

// --- main ------------------------------------------------------------------------------------

function table(header, rows) {
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => String(c).padEnd(widths[i])).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

async function survey(pool) {
  const rows = [];
  for (const bug of BUGS) {
    validate(bug);
    const built = buildBug(bug);
    if (built.error) { rows.push([bug.id, bug.function, built.error, '', '']); continue; }
    const verdicts = await parallel(pool.map((p) => () => failure(built.dir, p)));
    const failing = pool.filter((_, i) => verdicts[i] !== null);
    const names = failing.map((p) => p.name);
    rows.push([bug.id, `${bug.file}:${bug.function}`, `${failing.length}/${pool.length}`,
      failing[0] ? `${failing[0].name} (${failing[0].bytes} B)` : '-', names.filter((n) => !n.startsWith('csmith')).join(' ')]);
    say(`${bug.id}: fails ${failing.length} of ${pool.length}`);
  }
  console.log(table(['bug', 'where', 'failing', 'smallest', 'hand-written failing'], rows));
}

async function main() {
  const started = performance.now();
  prerequisites();
  mkdirSync(OUT, { recursive: true });
  for (const bug of BUGS) validate(bug);
  if (new Set(BUGS.map((b) => b.id)).size !== BUGS.length) die('two bugs share an id');
  const pool = await buildPool();
  const poolKey = sha(pool.map((p) => p.hash).join(' '));
  if (SURVEY) return survey(pool);

  const chosen = [];
  const spares = BUGS.slice(PRIMARY);
  const unknown = ONLY.filter((id) => !BUGS.some((b) => b.id === id));
  if (unknown.length) die(`no bug named ${unknown.join(', ')}: the bugs are ${BUGS.map((b) => b.id).join(', ')}`);
  const queue = ONLY.length ? BUGS.filter((b) => ONLY.includes(b.id)) : BUGS.slice(0, PRIMARY);
  while (queue.length) {
    const bug = queue.shift();
    const replace = (why) => {
      // The next spare in a function no other bug of the benchmark changes.
      const taken = new Set([...chosen.map((c) => c.bug), ...queue].map((b) => `${b.file}:${b.function}`));
      while (spares.length && taken.has(`${spares[0].file}:${spares[0].function}`)) spares.shift();
      const spare = spares.shift();
      if (!spare) die(`${bug.id}: ${why}, and no spare bug is left`);
      say(`${bug.id}: ${why}; taking spare ${spare.id} instead`);
      queue.unshift(spare);
    };
    const built = buildBug(bug);
    if (built.error) { replace(built.error); continue; }
    const casePath = join(built.dir, 'case', 'case.json');
    let info = null;
    try { info = JSON.parse(readFileSync(casePath, 'utf8')); } catch { /* not searched yet */ }
    let found = null;
    if (info && info.stamp === built.stamp && info.pool === poolKey) {
      const program = pool.find((p) => p.name === info.program);
      if (program) found = { program, how: info.how, tried: info.tried };
    }
    if (!found) {
      say(`${bug.id}: searching the pool, smallest first`);
      found = await search(built.dir, pool);
      if (!found) { replace(`no program of the pool (${pool.length}) fails`); continue; }
    }
    const caseDir = await writeCase(bug, built.dir, found);
    info = {
      id: bug.id, stamp: built.stamp, pool: poolKey, program: found.program.name, origin: found.program.origin,
      bytes: found.program.bytes, how: found.how, tried: found.tried, expected: found.program.expected,
    };
    const infoText = `${JSON.stringify(info, null, 2)}\n`;
    if (!existsSync(casePath) || readFileSync(casePath, 'utf8') !== infoText) writeFileSync(casePath, infoText);
    chosen.push({ bug, dir: built.dir, caseDir, info });
    say(`${bug.id}: ${found.program.name} (${found.program.bytes} bytes): ${found.how}`);
  }

  const manifest = chosen.map(({ bug, dir, caseDir, info }) => ({
    id: bug.id, file: bug.file, function: bug.function, description: bug.description, dir, case: caseDir,
    find: bug.find, replace: bug.replace, program: info.origin, bytes: info.bytes, how: info.how,
  }));
  const manifestText = `${JSON.stringify(manifest, null, 2)}\n`;
  const manifestPath = join(OUT, 'manifest.json');
  if (!existsSync(manifestPath) || readFileSync(manifestPath, 'utf8') !== manifestText) writeFileSync(manifestPath, manifestText);
  console.log(table(['bug', 'file', 'function', 'failing program', 'bytes', 'how it fails'],
    chosen.map(({ bug, info }) => [bug.id, bug.file, bug.function, info.program, info.bytes, info.how])));
  console.log(`\n${chosen.length} bugs in ${join(OUT, 'manifest.json')} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}

// Run as a script; imported (by a test), it only defines.
if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
