// The crash bench (issue 27): a real compiler crash reduced by Whittle's --crash template,
// and by C-Vise and C-Reduce given the same test (`whittle reduce --crash --print-test`), each
// with the same -j and time limit; every final program checked to crash with the original's
// signature still.
//
// The cases are made here, never committed. A search of csmith programs with seeded mutations
// (12,547 programs: csmith seeds 1-126, each mutated up to 100 ways: tokens deleted, duplicated,
// swapped, brackets dropped, numbers made extreme) found no crash of tcc 0.9.27 or gcc 12, nor
// did 70 hand-written corner cases of C; what crashes both is nesting deeper than their
// recursive-descent parsers' stack: tcc segfaults on 20,000 nested parentheses (with the
// usual 8 MB stack; 13,500 are enough), gcc -O2 stops with "internal compiler error:
// Segmentation fault" on 50,000 (31,000 are enough). Each case is a csmith program (seed 5017,
// the wrong-code bench's) with such a function after it: the noise goes, the nesting stays
// down to the crash's threshold.
//
//   node scripts/bench/crash.mjs [--case tcc|gcc] [--limit 900] [--jobs 2] [--only whittle,cvise,creduce] [--out DIR]

import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { findCommand, measure, place, runReducer } from './tools.mjs';
import { buildWhittle, csmithProgram, need, option, runTemplate } from './template-run.mjs';
import { formatTable, seconds } from './table.mjs';

const root = resolve(new URL('../..', import.meta.url).pathname);
const args = process.argv.slice(2);
const limit = Number(option(args, '--limit', '900'));
const jobs = Number(option(args, '--jobs', '2'));
const only = option(args, '--only', 'whittle,cvise,creduce').split(',');
const which = option(args, '--case', 'tcc');
const out = option(args, '--out', null) ?? mkdtempSync(join(tmpdir(), 'whittle-bench-crash-'));
mkdirSync(out, { recursive: true });

const INC = '-I/usr/include/csmith';
// Where a stack overflows depends on where the stack starts: with address-space randomization
// a program near the threshold crashes one time in two, and the environment's size moves it.
// The compiler runs with neither (`env -i setarch -R`), so the threshold is one depth
// (13,439 parentheses for tcc here) under every tool, and every judge.
// (A PATH of the system's folders only: gcc finds its cc1 from where PATH found gcc.)
const FIXED = 'env -i PATH=/usr/bin:/bin setarch x86_64 -R';
const CASES = {
  tcc: { depth: 20000, cmd: `${FIXED} tcc -w ${INC} -c {} -o whittle-crash.o`, need: ['tcc', 'apt-get install -y tcc'] },
  gcc: { depth: 50000, cmd: `${FIXED} gcc -O2 -w ${INC} -c {} -o whittle-crash.o`, need: ['gcc', 'apt-get install -y gcc'] },
};
const spec = CASES[which];
if (!spec) {
  console.error(`bench:crash: no case ${which}: tcc or gcc`);
  process.exit(2);
}
const SEED = 5017;
const NAME = 'p.c';

need('bench:crash', 'csmith', 'apt-get install -y csmith');
need('bench:crash', ...spec.need);
const whittle = buildWhittle(root);

// The case: csmith's program, then the nesting.
const caseDir = join(out, 'case');
mkdirSync(caseDir, { recursive: true });
const program = join(caseDir, NAME);
const deep = `int whittle_deep(void) { return ${'('.repeat(spec.depth)}1${')'.repeat(spec.depth)}; }\n`;
writeFileSync(program, csmithProgram(SEED) + deep);
const printed = spawnSync(whittle, ['reduce', '--crash', '--cmd', spec.cmd, '--print-test', NAME], { cwd: caseDir, encoding: 'utf8' });
if (printed.status !== 0) {
  console.error(`bench:crash: the case does not crash here (${spec.cmd}):\n${printed.stderr}`);
  process.exit(1);
}
const check = join(caseDir, 'check.sh');
writeFileSync(check, printed.stdout);
chmodSync(check, 0o755);
const bench = { file: program, name: NAME, check };
console.error(`bench:crash: ${which}: csmith seed ${SEED} and ${spec.depth} nested parentheses, ${readFileSync(program).length} bytes; in ${out}`);

async function runWhittle(dir) {
  const run = await runTemplate({ whittle, program, name: NAME, dir, flags: ['--crash', '--cmd', spec.cmd], jobs, limit });
  return { ...run, queries: run.stats?.queries ?? null };
}

/** Whether `result` still crashes with the original's signature (the printed test). */
function stillCrashes(dir, result) {
  const j = join(dir, 'judge');
  place(result, j, NAME);
  place(check, j, 'check.sh', true);
  return spawnSync('sh', ['-c', './check.sh'], { cwd: j }).status === 0 ? 'yes' : 'no';
}

const tools = {
  whittle: (dir) => runWhittle(dir),
  cvise: (dir) => runReducer('cvise', { whittle, bench, dir, jobs, limitSeconds: limit }),
  creduce: (dir) => runReducer('creduce', { whittle, bench, dir, jobs, limitSeconds: limit }),
};
const rows = [];
const results = [];
for (const tool of only) {
  if (!tools[tool]) continue;
  if (tool !== 'whittle' && !findCommand(tool)) {
    console.error(`bench:crash: ${tool} is missing; skipped`);
    continue;
  }
  const dir = join(out, tool);
  console.error(`bench:crash: ${tool} (limit ${limit} s, -j ${jobs}) ...`);
  const run = await tools[tool](dir);
  const size = measure(whittle, run.result);
  const r = { tool, case: which, status: run.status, wallSeconds: run.wallSeconds, queries: run.queries, ...size, crashes: stillCrashes(dir, run.result) };
  results.push(r);
  writeFileSync(join(out, 'results.json'), JSON.stringify(results, null, 2));
  rows.push([tool, r.status, seconds(r.wallSeconds), String(r.queries ?? '-'), String(r.bytes), String(r.tokens), r.crashes]);
  console.error(`bench:crash: ${tool}: ${r.bytes} bytes in ${seconds(r.wallSeconds)} s; ${dir}/${NAME}`);
}
console.log(formatTable(['tool', 'status', 'seconds', 'queries', 'bytes', 'tokens', 'same crash'], rows));
console.log(`(results in ${out})`);
