// Multi-file bench cases, made at bench time (never committed), each a program of several files
// whose property needs more than one of them. From real projects of the registries:
//   tree      Debian's `tree` source package (its .c and .h files and Makefile); gcc -Wextra's
//             warning on a parameter of a function tree.h declares, every file compiling;
//   heck      the `heck` crate of the local cargo registry (its modules, flattened); rustc's
//             missing_debug_implementations lint on a type of kebab.rs that lib.rs re-exports;
//   picomatch the `picomatch` package from npm (index.js and lib/, flattened); node's TypeError
//             thrown in scan.js on a call made through index.js and picomatch.js.
// And three small programs written here: c (gcc's -Wformat needs log.h's format attribute and
// main.c's call), rust (an unused variable in a module main.rs declares), js (a TypeError thrown
// in one module on a value another built).
// Folders are flat, as C-Vise and C-Reduce copy each file given by its base name.
// `whittle reduce DIR` is measured against C-Vise and C-Reduce, each given every file on its
// command line, at the same -j, once.
//
//   node scripts/bench/folder.mjs [--case tree,heck,picomatch,c,rust,js] [--jobs 2] [--limit SECONDS] [--vs cvise,creduce]

import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runWithLimit } from './process.mjs';
import { NODE_DRIVER } from './broad.mjs';
import { countClangTokens, countTokens, cviseQueries, creduceQueries, findCommand, registryCrates, run, shellQuote } from './tools.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WHITTLE = join(ROOT, 'target', 'release', 'whittle');

/** The C program's files: a logger, a list, string helpers, a configuration header, main. */
function cFiles() {
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

const C_CHECK = `#!/bin/sh
# Interesting iff gcc warns that main.c passes a char * for log.h's printf-like %d.
export LC_ALL=C
timeout 30 gcc -Wall -c main.c -o /dev/null 2>&1 | grep -q "format '%d' expects argument of type 'int', but argument 2 has type 'const char \\*'"
`;

/** The crate's files: modules of helpers, shapes and a parser, and main.rs declaring them. */
function rustFiles() {
  const helpers = Array.from({ length: 10 }, (_, i) =>
    `pub fn mix_${i}(xs: &[u32]) -> u32 {\n    let mut h = ${i}u32;\n    for x in xs {\n        h = h.wrapping_mul(31).wrapping_add(*x);\n    }\n    h\n}\n`,
  ).join('');
  return {
    'util.rs': helpers,
    'shapes.rs':
      'pub struct Rect { pub w: u32, pub h: u32 }\nimpl Rect {\n    pub fn area(&self) -> u32 { self.w * self.h }\n    pub fn grow(&mut self, by: u32) { self.w += by; self.h += by; }\n}\npub fn total(rs: &[Rect]) -> u32 {\n    let zeta = rs.len();\n    rs.iter().map(|r| r.area()).sum()\n}\n',
    'parse.rs':
      'pub fn numbers(s: &str) -> Vec<u32> {\n    s.split(\',\').filter_map(|p| p.trim().parse().ok()).collect()\n}\npub fn words(s: &str) -> usize { s.split_whitespace().count() }\n',
    'main.rs':
      'mod parse;\nmod shapes;\nmod util;\nfn main() {\n    let xs = parse::numbers("1, 2, 3, 40");\n    let mut rs = vec![shapes::Rect { w: 2, h: 3 }, shapes::Rect { w: 4, h: 5 }];\n    rs[0].grow(1);\n    println!("{} {} {}", util::mix_3(&xs), shapes::total(&rs), parse::words("a b c"));\n}\n',
  };
}

const RUST_CHECK = `#!/bin/sh
# Interesting iff rustc warns of the unused variable \`zeta\` (in shapes.rs, a module main.rs declares).
export LC_ALL=C
timeout 60 rustc --edition 2021 --emit=metadata -o out.rmeta main.rs 2>&1 | grep -q 'unused variable: \`zeta\`'
`;

/** The npm package's files: configuration, a store, formatting helpers, and the entry point. */
function jsFiles() {
  const helpers = Array.from({ length: 10 }, (_, i) =>
    `exports.pad${i} = (s, n) => {\n  let out = String(s);\n  while (out.length < n + ${i}) out = ' ' + out;\n  return out;\n};\n`,
  ).join('');
  return {
    'package.json': '{\n  "name": "demo",\n  "version": "1.0.0",\n  "main": "index.js"\n}\n',
    'format.js': helpers,
    'config.js':
      "function defaults() {\n  return { name: 'demo', size: 4, load: 'eager' };\n}\nexports.make = (over) => Object.assign(defaults(), over);\n",
    'store.js':
      "class Store {\n  constructor(cfg) { this.cfg = cfg; this.items = []; }\n  add(x) { this.items.push(x); return this.items.length; }\n  open() { return this.cfg.load(); }\n}\nexports.Store = Store;\n",
    'index.js':
      "const config = require('./config');\nconst { Store } = require('./store');\nconst format = require('./format');\nconst cfg = config.make({ size: 8 });\nconst s = new Store(cfg);\nfor (let i = 0; i < cfg.size; i++) s.add(format.pad2(i, 3));\nconsole.log(s.items.join(','));\ns.open();\n",
  };
}

const JS_CHECK = `#!/bin/sh
# Interesting iff node stops with store.js's TypeError on the configuration's load.
timeout 30 node index.js 2>&1 | grep -q "TypeError: this.cfg.load is not a function"
`;

/** Where the real projects are fetched to, once. */
const DOWNLOADS = join(ROOT, '.bench', 'downloads');

/** The files of `dir` whose names `keep` accepts, by name (a flat folder). */
function filesOf(dir, keep) {
  const out = {};
  for (const name of readdirSync(dir).sort()) if (keep(name)) out[name] = readFileSync(join(dir, name), 'utf8');
  return out;
}

/** Each case's files, made once per run. */
function once(make) {
  let made = null;
  return () => (made ??= make());
}

/** Debian's `tree`: its C sources and headers and its Makefile. */
const treeFiles = once(() => {
  const downloads = join(DOWNLOADS, 'broad-tree');
  const sourceOf = () => (existsSync(downloads) ? readdirSync(downloads, { withFileTypes: true }).find((d) => d.isDirectory()) : null);
  if (!sourceOf()) run('bash', [join(ROOT, 'scripts', 'deb-source.sh'), '--upstream', 'tree', downloads]);
  return filesOf(join(downloads, sourceOf().name), (n) => /\.[ch]$/.test(n) || n === 'Makefile');
});

const TREE_CHECK = `#!/bin/sh
# Interesting iff every C file compiles and gcc -Wextra warns that file.c's parameter \`size\`
# (of a function tree.h declares) is set but not used.
export LC_ALL=C
timeout 60 gcc -O0 -Wall -Wextra -c *.c >out 2>&1 || exit 1
grep -q "^file.c:[0-9]*:[0-9]*: warning: parameter 'size' set but not used \\[-Wunused-but-set-parameter\\]" out
`;

/** The `heck` crate of the local cargo registry: its modules, in one folder. */
const heckFiles = once(() => {
  const crate = registryCrates().filter((c) => /[/\\]heck-[0-9.]+$/.test(c)).pop();
  if (!crate) throw new Error('no heck crate in the local cargo registry: build whittle first (cargo build --release), which fetches it');
  return filesOf(join(crate, 'src'), (n) => n.endsWith('.rs'));
});

const HECK_CHECK = `#!/bin/sh
# Interesting iff the crate builds and rustc says kebab's AsKebabCase, which lib.rs re-exports,
# does not implement Debug.
export LC_ALL=C
timeout 60 rustc --edition 2021 --crate-type lib --emit=metadata -o out.rmeta -W missing_debug_implementations lib.rs >out 2>&1 || exit 1
grep -A 4 'type does not implement \`Debug\`' out | grep -q 'struct AsKebabCase'
`;

const PICOMATCH = 'picomatch@2.3.1';

/** The `picomatch` package from npm: index.js and lib/'s modules, in one folder. */
const picomatchFiles = once(() => {
  const prefix = join(DOWNLOADS, 'folder-npm');
  const pkg = join(prefix, 'node_modules', 'picomatch');
  if (!existsSync(join(pkg, 'lib', 'scan.js'))) {
    run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', '--prefix', prefix, PICOMATCH]);
  }
  const files = filesOf(join(pkg, 'lib'), (n) => n.endsWith('.js'));
  files['index.js'] = readFileSync(join(pkg, 'index.js'), 'utf8').replaceAll("'./lib/", "'./");
  return files;
});

const PICOMATCH_CHECK = `#!/bin/sh
# Interesting iff calling the package's scan with no arguments throws scan.js's TypeError.
timeout 30 node -e ${shellQuote(NODE_DRIVER)} index.js 2>&1 | grep -qF "error: \\\`scan\\\`: TypeError: Cannot read properties of undefined (reading 'length')"
`;

const CASES = {
  tree: { what: "Debian's tree", files: treeFiles, check: TREE_CHECK, code: /\.[ch]$/ },
  heck: { what: 'the heck crate', files: heckFiles, check: HECK_CHECK, code: /\.rs$/ },
  picomatch: { what: 'the picomatch package', files: picomatchFiles, check: PICOMATCH_CHECK, code: /\.js$/ },
  c: { what: 'C program with a Makefile', files: cFiles, check: C_CHECK, code: /\.[ch]$/ },
  rust: { what: 'Rust crate', files: rustFiles, check: RUST_CHECK, code: /\.rs$/ },
  js: { what: 'npm package', files: jsFiles, check: JS_CHECK, code: /\.js$/ },
};

function makeCase(kase, dir) {
  for (const [name, text] of Object.entries(kase.files())) writeFileSync(join(dir, name), text);
}

/** Tokens of every source file left in `dir` (whittle's count, and clang's for C), and the files left. */
function measureFolder(kase, dir) {
  const left = readdirSync(dir).filter((n) => Object.hasOwn(kase.files(), n)).sort();
  let tokens = 0;
  let clang = 0;
  for (const name of left) {
    if (!kase.code.test(name)) continue;
    tokens += countTokens(WHITTLE, join(dir, name)) ?? 0;
    if (/\.[ch]$/.test(name)) clang += countClangTokens(join(dir, name)) ?? 0;
  }
  return { files: left, tokens, clangTokens: clang };
}

/** Whether the case's check passes on what is in `dir`, copied to a fresh folder. */
function passes(kase, dir) {
  const fresh = mkdtempSync(join(tmpdir(), 'whittle-folder-check-'));
  for (const name of readdirSync(dir).filter((n) => Object.hasOwn(kase.files(), n))) cpSync(join(dir, name), join(fresh, name));
  writeCheck(kase, fresh);
  return spawnSync('./check.sh', { cwd: fresh }).status === 0;
}

function writeCheck(kase, dir) {
  writeFileSync(join(dir, 'check.sh'), kase.check);
  chmodSync(join(dir, 'check.sh'), 0o755);
}

/** Runs one tool on a copy of the case in `base/tool`; its row. */
async function runTool(kase, tool, base, jobs, limitSeconds) {
  const dir = join(base, tool);
  mkdirSync(dir);
  makeCase(kase, dir);
  const names = Object.keys(kase.files());
  const check = join(base, 'check.sh');
  const log = join(base, `${tool}.log`);
  const [command, args, cwd] =
    tool === 'whittle'
      ? [WHITTLE, ['reduce', '--test', check, dir, '-j', String(jobs), '-q', '--stats-json', join(base, 'whittle.json')], base]
      : [tool, ['--n', String(jobs), check, ...names], dir];
  const run = await runWithLimit(command, args, { cwd, logPath: log, limitSeconds });
  const stats = tool === 'whittle' ? JSON.parse(readFileSync(join(base, 'whittle.json'), 'utf8')) : null;
  const queries = stats ? stats.queries : (tool === 'cvise' ? cviseQueries : creduceQueries)(log);
  // Queries on a candidate with a syntax error the original did not have (whittle's count;
  // the others do not say).
  const invalid = stats ? stats.invalid_queries + stats.unparsed_queries : null;
  const after = measureFolder(kase, dir);
  return { tool, wall: run.wallSeconds, timedOut: run.timedOut, queries, invalid, ...after, ok: passes(kase, dir) };
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
  for (const name of opt('--case', 'tree,heck,picomatch').split(',')) {
    const kase = CASES[name];
    if (!kase) throw new Error(`--case: ${name} is not one of ${Object.keys(CASES).join(', ')}`);
    await benchCase(kase, jobs, limitSeconds, vs);
  }
}

async function benchCase(kase, jobs, limitSeconds, vs) {
  const base = mkdtempSync(join(tmpdir(), 'whittle-bench-folder-'));
  writeCheck(kase, base);
  const original = join(base, 'original');
  mkdirSync(original);
  makeCase(kase, original);
  if (!passes(kase, original)) throw new Error(`the generated ${kase.what} does not pass its own check`);
  const rows = [{ tool: 'original', wall: 0, queries: 0, ...measureFolder(kase, original), ok: true }];
  for (const tool of ['whittle', ...vs]) {
    console.error(`folder bench (${kase.what}): ${tool} ...`);
    rows.push(await runTool(kase, tool, base, jobs, limitSeconds));
  }
  console.log(`multi-file ${kase.what} (${Object.keys(kase.files()).length} files), -j ${jobs}, in ${base}`);
  console.log('tool       tokens  clang-tokens  files  queries  invalid  seconds  passes-check');
  for (const r of rows) {
    console.log(
      `${r.tool.padEnd(9)} ${String(r.tokens).padStart(7)} ${String(r.clangTokens).padStart(13)} ${String(r.files.length).padStart(6)} ${String(r.queries ?? '?').padStart(8)} ${String(r.invalid ?? '-').padStart(8)} ${r.wall.toFixed(1).padStart(8)}  ${r.ok}${r.timedOut ? ' (timed out)' : ''}`,
    );
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
