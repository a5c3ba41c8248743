// What the template benches (wrong-code.mjs, crash.mjs) share: their options, the commands
// they need, the csmith program they start from, and Whittle's run of a template.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runWithLimit } from './process.mjs';
import { findCommand, place } from './tools.mjs';

/** `--name VALUE` among `args`, else `fallback`. */
export const option = (args, name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};

/** Exits (2) saying how to install `command` when it is missing. */
export function need(bench, command, hint) {
  if (!findCommand(command)) {
    console.error(`${bench}: ${command} is missing (${hint})`);
    process.exit(2);
  }
}

/** csmith's program of `seed`, as the benches make it (`--no-packed-struct`: tcc rejects
 *  `#pragma pack(push)`). */
export function csmithProgram(seed) {
  const args = ['--no-packed-struct', '--max-expr-complexity', '20', '--seed', String(seed)];
  return spawnSync('csmith', args, { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout;
}

/** Builds the release CLI (exits on failure); its path. */
export function buildWhittle(root) {
  const build = spawnSync('cargo', ['build', '--release', '-p', 'whittle-cli'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(2);
  return join(root, 'target/release/whittle');
}

/** `whittle reduce` of `program` (as `name` in `dir`) with a template's `flags`, -j `jobs`,
 *  within `limit` seconds: {status, wallSeconds, result, stats}. */
export async function runTemplate({ whittle, program, name, dir, flags, jobs, limit }) {
  place(program, dir, name);
  const statsPath = join(dir, 'stats.json');
  // --no-cache: each run earns its verdicts (a template's are kept by default).
  const cmd = ['reduce', ...flags, '--no-cache', name, '-j', String(jobs), '--quiet', '--stats-json', statsPath];
  const run = await runWithLimit(whittle, cmd, { cwd: dir, logPath: join(dir, 'whittle.log'), limitSeconds: limit });
  let stats = null;
  try {
    stats = JSON.parse(readFileSync(statsPath, 'utf8'));
  } catch {}
  return { status: run.timedOut ? 'limit' : `exit ${run.code}`, wallSeconds: run.wallSeconds, result: join(dir, name), stats };
}
