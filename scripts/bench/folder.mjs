// A multi-file bench case, made at bench time (never committed): a small C program of several
// sources and headers with a Makefile, and a gcc warning that needs two files (the format
// attribute is in log.h, the bad call in main.c). `whittle reduce DIR` is measured against
// C-Vise and C-Reduce, each given every file on its command line, at the same -j, once.
//
//   node scripts/bench/folder.mjs [--jobs 2] [--limit SECONDS] [--vs cvise,creduce]

import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runWithLimit } from './process.mjs';
import { countClangTokens, countTokens, cviseQueries, creduceQueries, findCommand } from './tools.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WHITTLE = join(ROOT, 'target', 'release', 'whittle');

/** The program's files: a logger, a list, string helpers, a configuration header, main. */
function files() {
  const helpers = Array.from({ length: 12 }, (_, i) =>
    `int util_${i}(const char *s, int n) {\n  int h = ${i};\n  for (int k = 0; k < n && s[k]; k++) h = h * 31 + s[k];\n  return h;\n}\n`,
  ).join('');
  const helperDecls = Array.from({ length: 12 }, (_, i) => `int util_${i}(const char *s, int n);\n`).join('');
  return {
    'config.h': '#ifndef CONFIG_H\n#define CONFIG_H\n#define APP_NAME "demo"\n#define MAX_ITEMS 64\n#define VERBOSE 1\n#endif\n',
    'log.h':
      '#ifndef LOG_H\n#define LOG_H\n#include <stdarg.h>\nvoid log_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));\nvoid log_flush(void);\nint log_level(void);\n#endif\n',
    'log.c':
      '#include <stdio.h>\n#include "log.h"\n#include "config.h"\nstatic int level = VERBOSE;\nvoid log_msg(const char *fmt, ...) {\n  va_list ap;\n  va_start(ap, fmt);\n  vfprintf(stderr, fmt, ap);\n  va_end(ap);\n}\nvoid log_flush(void) { fflush(stderr); }\nint log_level(void) { return level; }\n',
    'list.h':
      '#ifndef LIST_H\n#define LIST_H\nstruct node { int value; struct node *next; };\nstruct list { struct node *head; int size; };\nvoid list_init(struct list *l);\nint list_push(struct list *l, int value);\nint list_sum(const struct list *l);\nvoid list_free(struct list *l);\n#endif\n',
    'list.c':
      '#include <stdlib.h>\n#include "list.h"\nvoid list_init(struct list *l) { l->head = 0; l->size = 0; }\nint list_push(struct list *l, int value) {\n  struct node *n = malloc(sizeof *n);\n  if (!n) return -1;\n  n->value = value;\n  n->next = l->head;\n  l->head = n;\n  return ++l->size;\n}\nint list_sum(const struct list *l) {\n  int s = 0;\n  for (struct node *n = l->head; n; n = n->next) s += n->value;\n  return s;\n}\nvoid list_free(struct list *l) {\n  while (l->head) { struct node *n = l->head; l->head = n->next; free(n); }\n  l->size = 0;\n}\n',
    'util.h': `#ifndef UTIL_H\n#define UTIL_H\n${helperDecls}#endif\n`,
    'util.c': `#include "util.h"\n${helpers}`,
    'main.c':
      '#include <stdio.h>\n#include "config.h"\n#include "log.h"\n#include "list.h"\n#include "util.h"\nint main(int argc, char **argv) {\n  struct list l;\n  const char *name = argc > 1 ? argv[1] : APP_NAME;\n  list_init(&l);\n  for (int i = 0; i < MAX_ITEMS; i++) list_push(&l, util_3(name, i));\n  if (log_level() > 0) log_msg("items %d of %s\\n", l.size, name);\n  log_msg("count %d\\n", name);\n  printf("%d\\n", list_sum(&l));\n  list_free(&l);\n  log_flush();\n  return 0;\n}\n',
    Makefile: 'CFLAGS = -O2 -Wall -Wextra\nOBJS = main.o log.o list.o util.o\ndemo: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\nclean:\n\trm -f demo $(OBJS)\n',
  };
}

const CHECK = `#!/bin/sh
# Interesting iff gcc warns that main.c passes a char * for log.h's printf-like %d.
export LC_ALL=C
timeout 30 gcc -Wall -c main.c -o /dev/null 2>&1 | grep -q "format '%d' expects argument of type 'int', but argument 2 has type 'const char \\*'"
`;

function makeCase(dir) {
  for (const [name, text] of Object.entries(files())) writeFileSync(join(dir, name), text);
}

/** Tokens of every C file left in `dir` (whittle's count and clang's), and the files left. */
function measureFolder(dir) {
  const left = readdirSync(dir).filter((n) => Object.hasOwn(files(), n)).sort();
  let tokens = 0;
  let clang = 0;
  for (const name of left) {
    if (!/\.[ch]$/.test(name)) continue;
    tokens += countTokens(WHITTLE, join(dir, name)) ?? 0;
    clang += countClangTokens(join(dir, name)) ?? 0;
  }
  return { files: left, tokens, clangTokens: clang };
}

/** Whether check.sh passes on what is in `dir`, copied to a fresh folder. */
function passes(dir) {
  const fresh = mkdtempSync(join(tmpdir(), 'whittle-folder-check-'));
  for (const name of readdirSync(dir).filter((n) => Object.hasOwn(files(), n))) cpSync(join(dir, name), join(fresh, name));
  writeCheck(fresh);
  return spawnSync('./check.sh', { cwd: fresh }).status === 0;
}

function writeCheck(dir) {
  writeFileSync(join(dir, 'check.sh'), CHECK);
  chmodSync(join(dir, 'check.sh'), 0o755);
}

/** Runs one tool on a copy of the case in `base/tool`; its row. */
async function runTool(tool, base, jobs, limitSeconds) {
  const dir = join(base, tool);
  mkdirSync(dir);
  makeCase(dir);
  const names = Object.keys(files());
  const check = join(base, 'check.sh');
  const log = join(base, `${tool}.log`);
  const [command, args, cwd] =
    tool === 'whittle'
      ? [WHITTLE, ['reduce', '--test', check, dir, '-j', String(jobs), '-q', '--stats-json', join(base, 'whittle.json')], base]
      : [tool, ['--n', String(jobs), check, ...names], dir];
  const run = await runWithLimit(command, args, { cwd, logPath: log, limitSeconds });
  const queries =
    tool === 'whittle'
      ? JSON.parse(readFileSync(join(base, 'whittle.json'), 'utf8')).queries
      : (tool === 'cvise' ? cviseQueries : creduceQueries)(log);
  const after = measureFolder(dir);
  return { tool, wall: run.wallSeconds, timedOut: run.timedOut, queries, ...after, ok: passes(dir) };
}

async function main() {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : fallback;
  };
  const jobs = Number(opt('--jobs', '2'));
  const limitSeconds = Number(opt('--limit', '900'));
  const vs = opt('--vs', 'cvise,creduce').split(',').filter((t) => t && findCommand(t));
  const base = mkdtempSync(join(tmpdir(), 'whittle-bench-folder-'));
  writeCheck(base);
  const original = join(base, 'original');
  mkdirSync(original);
  makeCase(original);
  if (!passes(original)) throw new Error('the generated case does not pass its own check');
  const rows = [{ tool: 'original', wall: 0, queries: 0, ...measureFolder(original), ok: true }];
  for (const tool of ['whittle', ...vs]) {
    console.error(`folder bench: ${tool} ...`);
    rows.push(await runTool(tool, base, jobs, limitSeconds));
  }
  console.log(`multi-file C case (${Object.keys(files()).length} files), -j ${jobs}, in ${base}`);
  console.log('tool       tokens  clang-tokens  files  queries  seconds  passes-check');
  for (const r of rows) {
    console.log(
      `${r.tool.padEnd(9)} ${String(r.tokens).padStart(7)} ${String(r.clangTokens).padStart(13)} ${String(r.files.length).padStart(6)} ${String(r.queries ?? '?').padStart(8)} ${r.wall.toFixed(1).padStart(8)}  ${r.ok}${r.timedOut ? ' (timed out)' : ''}`,
    );
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
