// The wrong-code bench (issue 27): a real miscompilation reduced by Whittle's --wrong-code
// template, and by C-Vise and C-Reduce given the same test (`whittle reduce --print-test`),
// each with the same -j and time limit; every final program judged by tools the guard did not
// use (valgrind's memcheck, clang's UBSan and MSan), and checked to still show the bug. Also
// Whittle with the guard off, to measure what the guard is worth.
//
// The case is made here, never committed: Debian's tcc 0.9.27 miscompiles the csmith program
// of seed 5017 (`--no-packed-struct --max-expr-complexity 20`); gcc -O0 is the reference.
//
//   npm run bench:wrong-code [-- --limit 900 --jobs 2 --only whittle,no-guard,cvise,creduce --out DIR]

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync, chmodSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { findCommand, measure, place, runReducer } from './tools.mjs';
import { buildWhittle, csmithProgram, need, option, runTemplate } from './template-run.mjs';
import { formatTable, seconds } from './table.mjs';

const root = resolve(new URL('../..', import.meta.url).pathname);
const args = process.argv.slice(2);
const limit = Number(option(args, '--limit', '900'));
const jobs = Number(option(args, '--jobs', '2'));
const only = option(args, '--only', 'whittle,no-guard,cvise,creduce').split(',');
const out = option(args, '--out', null) ?? mkdtempSync(join(tmpdir(), 'whittle-bench-wrong-code-'));
mkdirSync(out, { recursive: true });

const SEED = 5017;
const INC = '-I/usr/include/csmith';
const A = `tcc -w ${INC} {} -o {out} -lm`;
const B = `gcc -O0 -w ${INC} {} -o {out} -lm`;
const GUARD = `gcc ${INC}`;
const NAME = 'p.c';

function sh(cmd, cwd) {
  return spawnSync('sh', ['-c', cmd], { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
}

const NEED = 'bench:wrong-code';
need(NEED, 'csmith', 'apt-get install -y csmith');
need(NEED, 'tcc', 'apt-get install -y tcc');
need(NEED, 'valgrind', 'apt-get install -y valgrind');
need(NEED, 'clang', 'apt-get install -y clang');
const whittle = buildWhittle(root);

// The case.
const caseDir = join(out, 'case');
mkdirSync(caseDir, { recursive: true });
const program = join(caseDir, NAME);
writeFileSync(program, csmithProgram(SEED));
const printTest = (extra) => {
  const r = spawnSync(whittle, ['reduce', '--wrong-code', A, B, '--guard-cc', GUARD, ...extra, '--print-test', NAME], {
    cwd: caseDir,
    encoding: 'utf8',
  });
  if (r.status !== 0) {
    console.error(`bench:wrong-code: the case is not a wrong-code case here:\n${r.stderr}`);
    process.exit(1);
  }
  return r.stdout;
};
const check = join(caseDir, 'check.sh');
writeFileSync(check, printTest([]));
chmodSync(check, 0o755);
// Whether tcc is still wrong, without the guard: the judges below say the rest.
const wrong = join(caseDir, 'wrong.sh');
writeFileSync(wrong, printTest(['--no-guard']));
chmodSync(wrong, 0o755);
const bench = { file: program, name: NAME, check };
console.error(`bench:wrong-code: csmith seed ${SEED}, ${readFileSync(program).length} bytes; in ${out}`);

async function runWhittle(dir, extra) {
  const flags = ['--wrong-code', A, B, '--guard-cc', GUARD, ...extra];
  const run = await runTemplate({ whittle, program, name: NAME, dir, flags, jobs, limit });
  return { ...run, recipe: run.stats?.recipe ?? null };
}

/** What a judge said: "clean" or its first report line. */
function judge(dir, result) {
  const j = join(dir, 'judge');
  place(result, j, NAME);
  const first = (text, re) => (text.split('\n').find((l) => re.test(l)) ?? text.split('\n')[0] ?? '').trim().slice(0, 100);
  const verdicts = {};
  // Still wrong: the two builds disagree (no guard).
  place(wrong, j, 'wrong.sh', true);
  verdicts.wrong = sh('./wrong.sh', j).status === 0 ? 'yes' : 'no';
  place(check, j, 'check.sh', true);
  const g = sh('./check.sh', j).status;
  verdicts.guard = g === 0 ? 'passes' : g === 3 ? 'refuses' : `exit ${g}`;
  // valgrind's memcheck on the reference build.
  if (sh(`gcc -O0 -g -w ${INC} ${NAME} -o vg -lm`, j).status === 0) {
    const v = sh('timeout 120 valgrind -q --error-exitcode=99 ./vg', j);
    // An error before a fatal signal leaves valgrind no time to exit 99: its report counts.
    const reported = v.status === 99 || /==\d+== (Invalid|Conditional|Use of|Process terminating)/.test(v.stderr);
    verdicts.valgrind = reported ? first(v.stderr, /==\d+== [A-Z]/) : 'clean';
  } else verdicts.valgrind = 'no build';
  // clang's UBSan and MSan (the guard used gcc's UBSan and ASan).
  for (const [key, flags] of [
    ['ubsan', '-fsanitize=undefined -fno-sanitize-recover=all'],
    ['msan', '-fsanitize=memory -fno-sanitize-recover=all'],
  ]) {
    if (sh(`clang -O0 -g -w ${flags} ${INC} ${NAME} -o ${key} -lm`, j).status !== 0) {
      verdicts[key] = 'no build';
      continue;
    }
    const r = sh(`timeout 120 ./${key}`, j);
    verdicts[key] = /runtime error|Sanitizer/.test(r.stderr) ? first(r.stderr, /runtime error|WARNING|ERROR/) : 'clean';
  }
  return verdicts;
}

const rows = [];
const results = [];
const tools = {
  whittle: (dir) => runWhittle(dir, []),
  'no-guard': (dir) => runWhittle(dir, ['--no-guard']),
  cvise: (dir) => runReducer('cvise', { whittle, bench, dir, jobs, limitSeconds: limit }),
  creduce: (dir) => runReducer('creduce', { whittle, bench, dir, jobs, limitSeconds: limit }),
};
for (const tool of only) {
  if (!tools[tool]) continue;
  if ((tool === 'cvise' || tool === 'creduce') && !findCommand(tool)) {
    console.error(`bench:wrong-code: ${tool} is missing; skipped`);
    continue;
  }
  const dir = join(out, tool);
  console.error(`bench:wrong-code: ${tool} (limit ${limit} s, -j ${jobs}) ...`);
  const run = await tools[tool](dir);
  const size = measure(whittle, run.result);
  const verdicts = judge(dir, run.result);
  const r = { tool, status: run.status, wallSeconds: run.wallSeconds, ...size, ...verdicts, recipe: run.recipe ?? null };
  results.push(r);
  writeFileSync(join(out, 'results.json'), JSON.stringify(results, null, 2));
  rows.push([
    tool,
    r.status,
    seconds(r.wallSeconds),
    String(r.bytes),
    String(r.tokens),
    r.wrong,
    r.guard,
    r.valgrind,
    r.ubsan,
    r.msan,
    r.recipe ? String(r.recipe.guard_rejected) : '-',
  ]);
  console.error(`bench:wrong-code: ${tool}: ${r.bytes} bytes in ${seconds(r.wallSeconds)} s; ${dir}/${NAME}`);
}
console.log(
  formatTable(
    ['tool', 'status', 'seconds', 'bytes', 'tokens', 'tcc wrong', 'guard', 'valgrind', 'clang ubsan', 'clang msan', 'guard rejected'],
    rows,
  ),
);
console.log(`(results in ${out})`);
