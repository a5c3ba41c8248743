// The broad bench (`npm run bench -- --broad`): cases no pass was tuned to, made at bench time
// under .bench/broad/NAME/ and never committed. Programs are csmith's (fixed seeds, so the same
// cases on every machine), C and C++ files of small Debian source packages, preprocessed with
// their own includes, and the one-file crates of the local cargo registry (rustc with lints that
// are off by default), and the main modules of small CommonJS packages from npm (installed at
// bench time, pinned), whose exported functions a driver calls with no arguments (node's errors
// stand for warnings). Each distinct diagnostic kind that a compiler prints on a program becomes a
// case of its own: the property is that the compiler still accepts the program and prints that
// warning, its words kept, the names it quotes kept, its other numbers free (a reducer may
// change them). Cases are taken round-robin over the programs (each program's first kind, then
// each one's second, ...) up to a cap, so a small cap still spans many programs.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CARGO_HOME, findCommand, passesCheck, registryCrates, run, shellQuote } from './tools.mjs';

/** csmith seeds, and its options: small programs, so a case reduces in minutes. */
const CSMITH_SEEDS = { from: 1, to: 40 };
const CSMITH_OPTIONS = ['--max-funcs', '3', '--no-packed-struct'];
const CSMITH_INCLUDES = ['/usr/include/csmith', '/usr/include/csmith-2.3.0', '/usr/local/include/csmith'];

/** Debian source packages and the files of each that preprocess with the package's own includes. */
const DEB_PACKAGES = [
  { package: 'cjson', language: 'c', files: ['cJSON.c', 'cJSON_Utils.c'] },
  { package: 'tree', language: 'c', files: ['file.c', 'html.c', 'json.c', 'list.c', 'unix.c'] },
  { package: 'tinyxml2', language: 'cpp', files: ['tinyxml2.cpp'] },
];

/** Lints rustc leaves off by default, turned on so that crates' modules have warnings to keep. */
const RUST_LINTS = [
  'unused_results', 'unused_qualifications', 'trivial_casts', 'trivial_numeric_casts',
  'unreachable_pub', 'missing_debug_implementations', 'missing_copy_implementations',
  'single_use_lifetimes', 'unused_lifetimes', 'elided_lifetimes_in_paths', 'let_underscore_drop',
];

/**
 * npm packages of one CommonJS module with no dependencies, pinned so that every machine makes
 * the same cases. Their main modules are the JavaScript programs.
 */
const NPM_PACKAGES = [
  'ms@2.1.3', 'cookie@0.6.0', 'content-type@1.0.5', 'media-typer@0.3.0', 'camelcase@6.3.0',
  'decamelize@1.2.0', 'vary@1.1.2', 'range-parser@1.2.1', 'fresh@0.5.2', 'escape-html@1.0.3',
  'bytes@3.1.2', 'path-to-regexp@0.1.10', 'kind-of@6.0.3', 'balanced-match@1.0.2',
  'lodash.merge@4.6.2', 'statuses@2.0.1',
];

/**
 * The driver of a JavaScript program: loads the module, calls each exported function (and the
 * module itself if it is one) with no arguments, and prints each error thrown, with the
 * function's name in backquotes (kept by the property, as a quoted name is).
 */
export const NODE_DRIVER = [
  'const m = require(require("path").resolve(process.argv[1]));',
  'const fns = typeof m === "function" ? [["(module)", m], ...Object.entries(m)] : Object.entries(m || {});',
  'for (const [k, f] of fns) if (typeof f === "function") {',
  '  try { f(); } catch (e) { console.error("error: `" + k + "`: " + (e && e.constructor ? e.constructor.name : typeof e) + ": " + (e && e.message)); }',
  '}',
].join(' ');

/**
 * The compilers whose warnings become properties, per language (the issue's flags): the
 * command, its arguments after it (`args`, the file's name given), and how its warnings about
 * the file are read where they are not gcc's lines (`warnings`).
 */
const COMPILERS = {
  c: [
    { name: 'gcc', command: 'gcc -O2 -Wall -Wextra', args: objectFile },
    { name: 'clang', command: 'clang -O2 -Wall', args: objectFile },
  ],
  cpp: [
    { name: 'gxx', command: 'g++ -O2 -Wall -Wextra', args: objectFile },
    { name: 'clangxx', command: 'clang++ -O2 -Wall', args: objectFile },
  ],
  rust: [
    {
      name: 'rustc',
      command: `rustc --edition 2021 --crate-type lib --emit=metadata ${RUST_LINTS.map((l) => `-W ${l}`).join(' ')}`,
      args: (file) => `${file} -o out.rmeta`,
      warnings: rustWarningsAbout,
    },
  ],
  javascript: [
    {
      name: 'node',
      command: `node -e ${shellQuote(NODE_DRIVER)}`,
      args: (file) => file,
      warnings: nodeErrorsAbout,
    },
  ],
};

export const BROAD_LANGUAGES = Object.keys(COMPILERS);

function objectFile(file) {
  return `-c ${file} -o /dev/null`;
}


// ---------------------------------------------------------------------------------------------
// Diagnostics to properties

/** `{ message, flag }` of each warning the compiler printed about `file` itself (not a header). */
export function warningsAbout(output, file) {
  const found = [];
  for (const line of output.split('\n')) {
    const m = /^([^:]+):\d+:\d+: warning: (.*)$/.exec(line);
    if (!m || m[1] !== file) continue;
    const flag = /\[(-W[^\]]+)\]$/.exec(m[2])?.[1] ?? null;
    found.push({ message: m[2], flag });
  }
  return found;
}

/**
 * `{ message, flag }` of each warning rustc printed about `file`: a `warning: ` line whose
 * next line points into the file, the flag the lint's name.
 */
export function rustWarningsAbout(output, file) {
  const lines = output.split('\n');
  const found = [];
  lines.forEach((line, i) => {
    const m = /^warning: (.*)$/.exec(line);
    if (!m || !new RegExp(`^\\s*--> ${escapeRegex(file)}:\\d+:\\d+$`).test(lines[i + 1] ?? '')) return;
    // The lint's name is in a note below: `#[warn(dead_code)]` or `-W unused-results`.
    const next = lines.findIndex((l, j) => j > i && /^warning: /.test(l));
    const rest = lines.slice(i + 2, next === -1 ? lines.length : next);
    const lint = rest.map((l) => /#\[warn\(([a-z_]+)\)\]|-W ([a-z_-]+)`/.exec(l)).find(Boolean);
    found.push({ message: m[1], flag: lint ? `-W${(lint[1] ?? lint[2]).replace(/_/g, '-')}` : null });
  });
  return found;
}

/**
 * `{ message, flag }` of each error the JavaScript driver printed (NODE_DRIVER): the message
 * after `error: `, the error's class its flag.
 */
export function nodeErrorsAbout(output) {
  const found = [];
  for (const line of output.split('\n')) {
    const m = /^error: (`[^`]*`: ([A-Za-z]+): .*)$/.exec(line);
    if (m) found.push({ message: m[1], flag: m[2] });
  }
  return found;
}

/** The message split into quoted parts ('name' or `name`, kept) and the words between them. */
function segments(message) {
  return message.split(/('[^']*'|`[^`]*`)/).filter((s) => s !== '');
}

const quoted = (s) => s.startsWith("'") || s.startsWith('`');

/** The kind of a warning: its words, with quoted parts and numbers as placeholders. */
export function warningKind(message) {
  return segments(message)
    .map((s) => (quoted(s) ? `${s[0]}_${s[0]}` : s.replace(/\d+/g, 'N')))
    .join('');
}

const escapeRegex = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The property's regex (grep -E): the message's words and quoted names as printed, the quotes
 * any character (a UTF-8 locale prints curly ones), numbers outside quotes any number.
 */
export function warningRegex(message) {
  return segments(message)
    .map((s) =>
      quoted(s)
        ? `.${/^-?\d+$/.test(s.slice(1, -1)) ? '-?[0-9]+' : escapeRegex(s.slice(1, -1))}.`
        : s.split(/(\d+)/).map((p, i) => (i % 2 ? '[0-9]+' : escapeRegex(p))).join(''),
    )
    .join('');
}

/** One case per distinct kind of warning each compiler prints on `file` in `dir`. */
function casesOf(program, dir, includes, first = 0) {
  const byCompiler = [];
  for (const compiler of COMPILERS[program.language]) {
    const cases = [];
    byCompiler.push(cases);
    const [cc, ...flags] = compiler.command.split(' ');
    if (!findCommand(cc)) continue;
    const line = compileLine(compiler, includes, program.file);
    const r = spawnSync('sh', ['-c', line], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, LC_ALL: 'C' }, timeout: 60000 });
    if (r.status !== 0) continue; // the compiler must accept the program
    const seen = new Set();
    const slugs = new Map();
    for (const w of (compiler.warnings ?? warningsAbout)(r.stderr ?? '', program.file)) {
      const kind = warningKind(w.message);
      if (seen.has(kind)) continue;
      seen.add(kind);
      const base = `${program.id}-${compiler.name}-${(w.flag ?? 'warning').replace(/^-W/, '').replace(/[^A-Za-z0-9]+/g, '-').replace(/-$/, '')}`;
      const n = (slugs.get(base) ?? 0) + 1;
      slugs.set(base, n);
      cases.push({
        name: n === 1 ? base : `${base}-${n}`,
        program,
        compiler,
        kind,
        message: w.message,
        regex: warningRegex(w.message),
        command: line,
      });
    }
  }
  // The compilers take turns, each program starting with the next one, so a small cap gets
  // warnings of each.
  return roundRobin([...byCompiler.slice(first % byCompiler.length), ...byCompiler.slice(0, first % byCompiler.length)]);
}

/** The shell line that compiles `file` (in its folder) with `compiler`. */
export function compileLine(compiler, includes, file) {
  const flags = includes.map((i) => ` -I${i}`).join('');
  return `${compiler.command}${flags} ${compiler.args(file)}`;
}

// ---------------------------------------------------------------------------------------------
// Programs

/** csmith's program for each seed, in `work`; its runtime header stays an #include. */
function csmithPrograms(work, progress) {
  if (!findCommand('csmith')) {
    progress('broad bench: csmith not found (apt-get install csmith libcsmith-dev): no csmith programs');
    return [];
  }
  const include = CSMITH_INCLUDES.find((d) => existsSync(join(d, 'csmith.h')));
  if (!include) {
    progress('broad bench: csmith.h not found (apt-get install libcsmith-dev): no csmith programs');
    return [];
  }
  const programs = [];
  for (let seed = CSMITH_SEEDS.from; seed <= CSMITH_SEEDS.to; seed++) {
    const id = `csmith${seed}`;
    const dir = join(work, id);
    mkdirSync(dir, { recursive: true });
    run('csmith', ['--seed', String(seed), ...CSMITH_OPTIONS, '-o', join(dir, 'input.c')]);
    programs.push({
      id,
      dir,
      file: 'input.c',
      language: 'c',
      includes: [include],
      origin: `csmith --seed ${seed} ${CSMITH_OPTIONS.join(' ')} (${include}/csmith.h included, not preprocessed)`,
    });
  }
  return programs;
}

/** The Debian packages' files, preprocessed (-E -P) with their own folder as the include path. */
function debianPrograms(root, work, languages, progress) {
  const programs = [];
  for (const pkg of DEB_PACKAGES.filter((p) => languages.includes(p.language))) {
    const downloads = join(root, '.bench', 'downloads', `broad-${pkg.package}`);
    const sourceOf = () => (existsSync(downloads) ? readdirSync(downloads, { withFileTypes: true }).find((d) => d.isDirectory()) : null);
    try {
      if (!sourceOf()) run('bash', [join(root, 'scripts', 'deb-source.sh'), '--upstream', pkg.package, downloads]);
    } catch (err) {
      progress(`broad bench: no ${pkg.package} (${err.message.split('\n')[0]})`);
      continue;
    }
    const src = join(downloads, sourceOf().name);
    const ext = pkg.language === 'c' ? 'c' : 'cpp';
    const cc = pkg.language === 'c' ? 'gcc' : 'g++';
    for (const f of pkg.files) {
      if (!existsSync(join(src, f))) continue;
      const id = `${pkg.package}-${f.replace(/\.[^.]+$/, '').replace(/[^A-Za-z0-9]+/g, '-')}`.toLowerCase();
      const dir = join(work, id);
      mkdirSync(dir, { recursive: true });
      try {
        run(cc, ['-E', '-P', '-I.', f, '-o', join(dir, `input.${ext}`)], { cwd: src });
      } catch (err) {
        progress(`broad bench: ${pkg.package}'s ${f} does not preprocess: ${err.message.split('\n')[0]}`);
        continue;
      }
      programs.push({
        id,
        dir,
        file: `input.${ext}`,
        language: pkg.language,
        includes: [],
        origin: `${f} of Debian's ${pkg.package} source package (upstream tarball), ${cc} -E -P -I.`,
      });
    }
  }
  return programs;
}

/**
 * The crates of the local cargo registry (what `cargo fetch` brought for this repository: the
 * same on every machine with this Cargo.lock): each one's newest src/lib.rs, in name order.
 */
function rustPrograms(work, progress) {
  const crates = registryCrates();
  if (!findCommand('rustc') || !crates.length) {
    progress(`broad bench: no rustc or no crates in ${join(CARGO_HOME, 'registry', 'src')} (cargo fetch brings them): no Rust programs`);
    return [];
  }
  // The last of a name is its newest version.
  const newest = new Map();
  for (const dir of crates) newest.set(dir.split('/').at(-1).replace(/-\d+\.\d+\.\d+.*$/, ''), dir);
  const programs = [];
  for (const [name, crate] of [...newest].sort(([a], [b]) => a.localeCompare(b))) {
    const lib = join(crate, 'src', 'lib.rs');
    if (!existsSync(lib)) continue;
    // One whose modules are files of their own does not compile alone: it makes no case.
    const size = statSync(lib).size;
    if (size < 2000 || size > 200000) continue;
    const id = `rust-${name.replace(/[^A-Za-z0-9]+/g, '-')}`;
    const dir = join(work, id);
    mkdirSync(dir, { recursive: true });
    copyFileSync(lib, join(dir, 'input.rs'));
    programs.push({ id, dir, file: 'input.rs', language: 'rust', includes: [], origin: `src/lib.rs of the crate ${crate.split('/').at(-1)} from the local cargo registry, unchanged` });
  }
  return programs;
}

/**
 * The main module of each package of NPM_PACKAGES, installed from the registry into `work`;
 * one that needs a file of its own package or another package makes no case (the driver's
 * require fails once it stands alone).
 */
function javascriptPrograms(work, progress) {
  const prefix = join(work, '.npm');
  mkdirSync(prefix, { recursive: true });
  const r = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', '--prefix', prefix, ...NPM_PACKAGES], {
    encoding: 'utf8',
    timeout: 300000,
  });
  if (r.status !== 0) {
    progress(`broad bench: npm install failed (${(r.stderr ?? '').trim().split('\n').at(-1)}): no JavaScript programs`);
    return [];
  }
  const programs = [];
  for (const spec of NPM_PACKAGES) {
    const name = spec.replace(/@[^@]*$/, '');
    const dir = join(prefix, 'node_modules', name);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const main = join(dir, manifest.main ?? 'index.js');
    const file = existsSync(main) ? main : `${main}.js`;
    if (!existsSync(file) || statSync(file).size < 1000) continue;
    const id = `js-${name.replace(/[^A-Za-z0-9]+/g, '-')}`;
    const out = join(work, id);
    mkdirSync(out, { recursive: true });
    copyFileSync(file, join(out, 'input.js'));
    programs.push({ id, dir: out, file: 'input.js', language: 'javascript', includes: [], origin: `the main module of ${spec} from npm, unchanged` });
  }
  return programs;
}

/** Every program's cases in turn: each program's first case, then each one's second, ... */
function roundRobin(lists) {
  const out = [];
  for (let i = 0; lists.some((l) => i < l.length); i++) for (const l of lists) if (i < l.length) out.push(l[i]);
  return out;
}

/**
 * Makes the broad cases (at most `max`, in `languages`, named in `only` if given) under
 * ROOT/.bench/broad. Resolves to { folders, skipped } like makeCases, and `made`: each case's
 * folder with what made it (for its pair, see broad-pairs.mjs).
 */
export async function makeBroadCases({ root, max, languages = BROAD_LANGUAGES, only = null, progress = () => {} }) {
  const base = join(root, '.bench', 'broad');
  const work = join(base, '.programs');
  rmSync(base, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  // The repository's package.json makes .js files ES modules; these are CommonJS, as they are
  // where the reducers run them (a scratch folder outside any package).
  writeFileSync(join(base, 'package.json'), '{ "type": "commonjs" }\n');
  progress('broad bench: making programs (csmith, Debian sources, crates, npm packages) ...');
  const csmith = languages.includes('c') ? csmithPrograms(work, progress) : [];
  const rust = languages.includes('rust') ? rustPrograms(work, progress) : [];
  const javascript = languages.includes('javascript') ? javascriptPrograms(work, progress) : [];
  const programs = roundRobin([debianPrograms(root, work, languages, progress), csmith, rust, javascript]);
  let candidates = roundRobin(programs.map((p, i) => casesOf(p, p.dir, p.includes, i)));
  if (only) candidates = candidates.filter((c) => only.includes(c.name));
  const folders = [];
  const made = [];
  const skipped = [];
  for (const c of candidates) {
    if (folders.length >= max) break;
    const dir = join(base, c.name);
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(c.program.dir, c.program.file), join(dir, c.program.file));
    writeFileSync(join(dir, 'check.sh'), checkScript(c), { mode: 0o755 });
    const meta = {
      language: c.program.language,
      file: c.program.file,
      compiler: c.compiler.command,
      property: 'the compiler accepts the file (exit 0) and still prints the warning (the regex)',
      regex: c.regex,
      kind: c.kind,
      origin: c.program.origin,
    };
    writeFileSync(join(dir, 'case.json'), `${JSON.stringify(meta, null, 2)}\n`);
    const reason = await verify(dir, c.program.file);
    if (reason) {
      skipped.push({ name: c.name, reason });
      progress(`broad case ${c.name}: skipped, ${reason}`);
    } else {
      folders.push(dir);
      made.push({ dir, case: c });
    }
  }
  progress(`broad bench: ${folders.length} cases of ${candidates.length} (${programs.length} programs) in ${base}`);
  return { folders, skipped, made };
}

/**
 * The case's check: the compiler accepts `file` and prints the warning, or, with `present`
 * false (a pair's seed), accepts it and does not.
 */
export function checkScript(c, file = c.program.file, present = true) {
  const cc = c.compiler.command.split(' ')[0];
  const grep = `printf '%s\\n' "$out" | grep -qE ${shellQuote(c.regex)}`;
  // PATH may lack ~/.cargo/bin when a reducer runs the test.
  const rustc = cc === 'rustc' ? ['PATH="$PATH:$HOME/.cargo/bin"'] : [];
  return [
    '#!/bin/sh',
    `# Interesting iff ${cc} accepts ${file} and ${present ? 'still prints' : 'does not print'} this warning (kind: ${c.kind}).`,
    'export LC_ALL=C',
    ...rustc,
    `out=$(timeout -s KILL 30 ${compileLine(c.compiler, c.program.includes, file)} 2>&1) || exit 1`,
    present ? grep : `! ${grep}`,
    '',
  ].join('\n');
}

/** null if check.sh passes on the program and fails on an empty file, else why not. */
async function verify(dir, file) {
  const scratch = join(dir, '..', '.verify', dir.split('/').at(-1));
  if (!(await passesCheck(join(dir, file), file, join(dir, 'check.sh'), join(scratch, 'program')))) {
    return `check.sh fails on the program (${join(scratch, 'program', 'check.log')})`;
  }
  const empty = join(scratch, 'empty-file');
  mkdirSync(scratch, { recursive: true });
  writeFileSync(empty, '');
  if (await passesCheck(empty, file, join(dir, 'check.sh'), join(scratch, 'empty'))) return 'check.sh passes on an empty file';
  return null;
}

/** Totals and shares of a bench's cases: what `--broad` prints at the end. */
export function totalsAndShares(entries) {
  const tools = [...new Set(entries.flatMap((e) => e.runs.map((r) => r.tool)))];
  const lines = ['', 'Totals'];
  for (const tool of tools) {
    const runs = entries.map((e) => e.runs.find((r) => r.tool === tool)).filter(Boolean);
    const sum = (f) => runs.reduce((s, r) => s + (f(r) ?? 0), 0);
    lines.push(
      `  ${tool}: ${runs.length} cases, ${sum((r) => r.after?.tokens)} tokens, ${sum((r) => r.after?.bytes)} bytes, ${sum((r) => r.wallSeconds).toFixed(1)} s`,
    );
  }
  const others = tools.filter((t) => t !== 'whittle');
  if (others.length) lines.push('', 'Share of cases where whittle is at most the other tool');
  for (const tool of others) {
    const both = entries
      .map((e) => [e.runs.find((r) => r.tool === 'whittle'), e.runs.find((r) => r.tool === tool)])
      .filter(([w, o]) => w && o);
    const share = (f) => {
      const known = both.filter(([w, o]) => f(w) != null && f(o) != null);
      const atMost = known.filter(([w, o]) => f(w) <= f(o)).length;
      return `${atMost}/${known.length} (${known.length ? ((100 * atMost) / known.length).toFixed(0) : '-'}%)`;
    };
    lines.push(
      `  vs ${tool}: tokens ${share((r) => r.after?.tokens)}, bytes ${share((r) => r.after?.bytes)}, time ${share((r) => r.wallSeconds)}, half the time ${share((r) => (r.tool === 'whittle' ? 2 * r.wallSeconds : r.wallSeconds))}`,
    );
  }
  return lines.join('\n');
}

// `node scripts/bench/broad.mjs [MAX]` makes the cases alone and prints their folders.
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').at(-1))) {
  const root = join(new URL('.', import.meta.url).pathname, '..', '..');
  const { folders } = await makeBroadCases({
    root,
    max: Number(process.argv[2] ?? 40),
    progress: (msg) => process.stderr.write(`${msg}\n`),
  });
  for (const folder of folders) console.log(folder);
}
