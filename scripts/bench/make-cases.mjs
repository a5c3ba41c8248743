// Benchmark cases in other languages than the shared C ones, made at bench time under
// .bench/generated/NAME/ in the layout of ../shared/bench/cases (the program, check.sh,
// case.json). Third-party code (acorn from the npm registry, a Java file of a Debian source
// package, a crate from the local cargo registry) is fetched here and never committed; our own
// programs are in scripts/bench/programs/. Downloads are kept in .bench/downloads/.
//
// A case whose tools are missing, whose maker fails, or whose check.sh does not hold (it must
// pass on the program and fail on an empty file) is skipped with its reason: the bench goes on.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CARGO_HOME, findCommand, passesCheck, registryCrates, run, shellQuote } from './tools.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const PROGRAMS = join(HERE, 'programs');

/** A case that cannot be made here; its message says why. */
class Skip extends Error {}

// ---------------------------------------------------------------------------------------------
// Helpers


/**
 * The first warning `command` (a shell line, run in `dir` in the C locale) prints among the
 * lines `which` picks, from `warning: ` on; null if none.
 */
function firstWarning(command, dir, which = () => true) {
  const r = spawnSync('sh', ['-c', command], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, LC_ALL: 'C' } });
  const line = (r.stderr ?? '').split('\n').find((l) => /warning: /.test(l) && which(l));
  return line ? line.slice(line.indexOf('warning: ')) : null;
}

/** An extended regular expression that matches `text` as it is. */
function literal(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * check.sh in the style of the shared cases: runs `command` with at most `seconds` (30 s
 * unless told), requires its exit status (0, or non-zero when `fails`: a program that must
 * throw) and that each regex matches a line of its output. `setup` lines run first.
 */
function checkScript({ comment, command, regexes, fails = false, setup = [], seconds = 30 }) {
  return [
    '#!/bin/sh',
    `# ${comment}`,
    'export LC_ALL=C',
    ...setup,
    `out=$(timeout -s KILL ${seconds} ${command} 2>&1) ${fails ? '&& exit 1' : '|| exit 1'}`,
    regexes.map((re) => `printf '%s\\n' "$out" | grep -qE ${shellQuote(re)}`).join(' &&\n'),
    '',
  ].join('\n');
}

/** check.sh's first line for rustc: PATH may lack ~/.cargo/bin when a reducer runs the test. */
const RUSTC_SETUP = 'rustc=$(command -v rustc || echo "$HOME/.cargo/bin/rustc")';

function temporaryFolder() {
  return mkdtempSync(join(tmpdir(), 'whittle-make-case-'));
}

/** True iff check.sh passes on the case's program and fails on an empty file. */
async function verify(dir, spec) {
  const scratch = temporaryFolder();
  try {
    const check = join(dir, 'check.sh');
    if (!(await passesCheck(join(dir, spec.file), spec.file, check, join(scratch, 'program')))) {
      return `check.sh fails on the program (see ${join(scratch, 'program', 'check.log')})`;
    }
    const empty = join(scratch, 'empty');
    writeFileSync(empty, '');
    if (await passesCheck(empty, spec.file, check, join(scratch, 'empty-check'))) return 'check.sh passes on an empty file';
    rmSync(scratch, { recursive: true, force: true });
    return null;
  } catch (err) {
    return `check.sh could not run: ${err.message}`;
  }
}

/** Writes check.sh and case.json beside the program the maker wrote. */
function writeCase(dir, spec) {
  writeFileSync(join(dir, 'check.sh'), checkScript(spec.check), { mode: 0o755 });
  const { language, file, compiler, regex, origin, about } = spec;
  const property = spec.property ?? 'the compiler accepts the file (exit 0) and its output matches the regex';
  const meta = { language, file, compiler, property, regex, origin, about };
  writeFileSync(join(dir, 'case.json'), `${JSON.stringify(meta, null, 2)}\n`);
}

// ---------------------------------------------------------------------------------------------
// The makers. Each writes its program into `dir` and returns the case: case.json's fields and
// `check`, the arguments of checkScript.

/** Our sign_compare.cpp through g++ -E: 230 KB of libstdc++ with line markers, as in bug reports. */
function makeCppStl({ dir }) {
  const work = temporaryFolder();
  copyFileSync(join(PROGRAMS, 'sign_compare.cpp'), join(work, 'sign_compare.cpp'));
  // Run where the program is, so the line markers name it without our folders.
  run('g++', ['-std=c++17', '-E', 'sign_compare.cpp', '-o', join(dir, 'input.cpp')], { cwd: work });
  rmSync(work, { recursive: true, force: true });
  const regex = "comparison of integer expressions of different signedness: 'int' and 'std::array<unsigned int, 8>::size_type'";
  return {
    language: 'cpp',
    file: 'input.cpp',
    compiler: 'g++ -std=c++17 -Wall',
    regex,
    origin: "scripts/bench/programs/sign_compare.cpp (ours) preprocessed by this machine's g++ -std=c++17 -E, line markers kept",
    about: 'a histogram over std::array; -Wsign-compare at a loop comparing an int with std::array::size()',
    check: {
      comment: 'Interesting iff g++ accepts input.cpp and still prints the -Wsign-compare warning below.',
      command: 'g++ -std=c++17 -Wall -c input.cpp -o out.o',
      regexes: [regex],
    },
  };
}

/**
 * Our inventory.cpp through g++ -E -P: 1.6 MB of libstdc++ (containers, algorithms, streams)
 * without line markers, the size of what C++ bug reports attach.
 */
function makeCppLarge({ dir }) {
  const work = temporaryFolder();
  copyFileSync(join(PROGRAMS, 'inventory.cpp'), join(work, 'inventory.cpp'));
  run('g++', ['-std=c++17', '-E', '-P', 'inventory.cpp', '-o', join(dir, 'input.cpp')], { cwd: work });
  rmSync(work, { recursive: true, force: true });
  const regex = "comparison of integer expressions of different signedness: 'int' and 'std::vector<std::__cxx11::basic_string<char> >::size_type'";
  return {
    language: 'cpp',
    file: 'input.cpp',
    compiler: 'g++ -std=c++17 -Wall -fsyntax-only',
    regex,
    origin: "scripts/bench/programs/inventory.cpp (ours) preprocessed by this machine's g++ -std=c++17 -E -P",
    about: 'an inventory report over map, vector, set, unordered_map, streams and algorithms; -Wsign-compare at a loop comparing an int with a vector of strings\' size()',
    check: {
      comment: 'Interesting iff g++ accepts input.cpp and still prints the -Wsign-compare warning below.',
      command: 'g++ -std=c++17 -Wall -fsyntax-only input.cpp',
      regexes: [regex],
    },
  };
}

/** The C++ file of a Debian source package the Debian case preprocesses, and its compile. */
const DEBIAN_CPP_SOURCE = join('lib', 'symboldatabase.cpp');
const DEBIAN_CPP_GXX = 'g++ -std=c++17 -fsyntax-only -fno-diagnostics-show-caret -Wall -Wextra';

/**
 * cppcheck's lib/symboldatabase.cpp (Debian's cppcheck source package, upstream tarball) with
 * its includes, preprocessed by this machine's g++ -E -P: a few megabytes, as a C++ bug report
 * attaches. The property is the first warning g++ -Wall -Wextra prints on it, whatever this
 * g++ and cppcheck's version make that.
 */
function makeCppDebian({ root, dir, downloads }) {
  const fetched = () => (existsSync(downloads) ? readdirSync(downloads) : []).map((d) => join(downloads, d)).find((d) => existsSync(join(d, DEBIAN_CPP_SOURCE)));
  if (!fetched()) run('bash', [join(root, 'scripts', 'deb-source.sh'), '--upstream', 'cppcheck', downloads]);
  const src = fetched();
  if (!src) throw new Error(`cppcheck's source has no ${DEBIAN_CPP_SOURCE}`);
  const includes = ['lib', 'externals', 'externals/simplecpp', 'externals/tinyxml2', 'externals/picojson'].map((d) => `-I${d}`);
  run('g++', ['-std=c++17', ...includes, '-E', '-P', DEBIAN_CPP_SOURCE, '-o', join(dir, 'input.cpp')], { cwd: src });
  const message = firstWarning(`${DEBIAN_CPP_GXX} input.cpp`, dir);
  if (!message) throw new Skip(`${DEBIAN_CPP_GXX} printed no warning on cppcheck's ${DEBIAN_CPP_SOURCE}`);
  const regex = literal(message);
  return {
    language: 'cpp',
    file: 'input.cpp',
    compiler: DEBIAN_CPP_GXX,
    regex,
    origin: `${DEBIAN_CPP_SOURCE} of Debian's cppcheck source package (${src.split('/').at(-1)}, upstream tarball) with its includes, preprocessed by this machine's g++ -std=c++17 -E -P`,
    about: `cppcheck's symbol database, a C++ file of a Debian package; the first warning of -Wall -Wextra: ${message}`,
    check: {
      comment: 'Interesting iff g++ accepts input.cpp and still prints the first warning -Wall -Wextra printed on the original.',
      command: `${DEBIAN_CPP_GXX} input.cpp`,
      regexes: [regex],
      seconds: 60,
    },
  };
}

/** Programs csmith makes for the large C case, and the one whose warning is the property. */
const CSMITH_PROGRAMS = 110;
const CSMITH_WITNESS = 97;
const CSMITH_GCC = 'gcc -fsyntax-only -fno-diagnostics-show-caret -Wunused-but-set-variable';

/**
 * 110 csmith programs (seeds 1..110) in one preprocessed C file of about 10 MB: csmith's
 * runtime once, then each program with its globals, functions, types, locals and main renamed
 * `pN_...`. The property is a -Wunused-but-set-variable warning that names a variable of
 * program 97 only. One warning class, without carets: gcc -Wall prints tens of thousands of
 * warnings on this file and takes minutes, most of it printing them.
 */
function makeCLarge({ dir }) {
  const include = findCsmithInclude();
  const work = temporaryFolder();
  writeFileSync(join(work, 'runtime.c'), '#include "csmith.h"\n');
  const parts = [run('gcc', ['-E', '-P', `-I${include}`, 'runtime.c'], { cwd: work })];
  for (let seed = 1; seed <= CSMITH_PROGRAMS; seed++) {
    const file = join(work, `p${seed}.c`);
    run('csmith', ['--seed', String(seed), '--max-funcs', '6', '--no-packed-struct', '-o', file]);
    const body = readFileSync(file, 'utf8').split('#include "csmith.h"').at(-1);
    parts.push(body.replace(/\b(g_\d+|func_\d+|l_\d+|p_\d+|S\d+|U\d+|main)\b/g, `p${seed}_$1`));
  }
  rmSync(work, { recursive: true, force: true });
  writeFileSync(join(dir, 'input.c'), parts.join('\n'));
  // The first such warning that names one of program 97's symbols.
  const prefix = `p${CSMITH_WITNESS}_`;
  const message = firstWarning(`${CSMITH_GCC} input.c`, dir, (l) => l.includes(`'${prefix}`));
  if (!message) throw new Error(`${CSMITH_GCC} printed no warning naming a symbol of program ${CSMITH_WITNESS}`);
  const regex = literal(message);
  return {
    language: 'c',
    file: 'input.c',
    compiler: CSMITH_GCC,
    regex,
    origin: `csmith ${CSMITH_PROGRAMS} programs (seeds 1..${CSMITH_PROGRAMS}, --max-funcs 6 --no-packed-struct), preprocessed and concatenated with renamed symbols`,
    about: `ten megabytes of C; one warning of program ${CSMITH_WITNESS} among hundreds`,
    check: {
      comment: `Interesting iff gcc accepts input.c and still prints this warning of program ${CSMITH_WITNESS}.`,
      command: `${CSMITH_GCC} input.c`,
      regexes: [regex],
      seconds: 60,
    },
  };
}

/** The folder holding csmith.h. */
function findCsmithInclude() {
  const found = ['/usr/include/csmith', '/usr/include/csmith-2.3.0', '/usr/local/include/csmith'].find((d) => existsSync(join(d, 'csmith.h')));
  if (!found) throw new Skip('csmith.h not found (apt-get install csmith libcsmith-dev)');
  return found;
}

/** rustc's check, as a lib to metadata only (no codegen, no main needed). */
function rustCheck(comment, regex, lints = []) {
  return {
    comment,
    setup: [RUSTC_SETUP],
    command: `"$rustc" --edition 2021 --crate-type lib --emit=metadata ${lints.map((l) => `-W ${l} `).join('')}-o out.rmeta input.rs`,
    regexes: [regex],
  };
}

/** Our ledger.rs: two `macro_rules ! name` macros; dead_code warns that a field is never read. */
function makeRustMacroRules({ dir }) {
  copyFileSync(join(PROGRAMS, 'ledger.rs'), join(dir, 'input.rs'));
  const regex = 'field `memo` is never read';
  return {
    language: 'rust',
    file: 'input.rs',
    compiler: 'rustc --edition 2021 --crate-type lib --emit=metadata',
    regex,
    origin: 'scripts/bench/programs/ledger.rs (ours)',
    about: 'a double-entry ledger with two macros written `macro_rules ! name`; dead_code: the field Posting::memo is written and cloned but never read',
    check: rustCheck('Interesting iff rustc accepts input.rs and still warns that the field memo is never read.', regex),
  };
}

/** acorn's dist/acorn.js (npm pack acorn@8, kept in `downloads`) plus a call that makes it throw. */
function makeJsAcorn({ dir, downloads }) {
  mkdirSync(downloads, { recursive: true });
  let tarball = readdirSync(downloads).find((f) => /^acorn-8[\d.]*\.tgz$/.test(f));
  if (!tarball) {
    run('npm', ['pack', 'acorn@8', '--pack-destination', downloads, '--silent'], { cwd: downloads });
    tarball = readdirSync(downloads).find((f) => /^acorn-8[\d.]*\.tgz$/.test(f));
    if (!tarball) throw new Error('npm pack acorn@8 left no acorn-8.*.tgz');
  }
  const work = temporaryFolder();
  run('tar', ['xzf', join(downloads, tarball), '-C', work, 'package/dist/acorn.js']);
  const acorn = readFileSync(join(work, 'package', 'dist', 'acorn.js'), 'utf8');
  rmSync(work, { recursive: true, force: true });
  // acorn.js is UMD: as CommonJS it fills `exports`.
  writeFileSync(join(dir, 'input.js'), `${acorn}\nexports.parse("let x = ;", { ecmaVersion: 2020 });\n`);
  const regex = '^SyntaxError: Unexpected token \\(1:8\\)$';
  return {
    language: 'javascript',
    file: 'input.js',
    compiler: 'node',
    property: 'node exits non-zero, its output matches the regex, and the stack shows a function named raise (acorn\'s Parser.raise) threw',
    regex,
    origin: `acorn's dist/acorn.js from the npm registry (${tarball.replace(/\.tgz$/, '')}), with one call appended`,
    about: 'the JavaScript parser acorn, made to parse `let x = ;`: it throws its SyntaxError through Parser.raise',
    check: {
      // Read from stdin as CommonJS: `node input.js` would take the file as an ES module under
      // a package.json saying "type": "module" (this repository's own, for one).
      comment: 'Interesting iff node throws acorn\'s SyntaxError for `let x = ;` through a function named raise.',
      // The program runs in 0.1 s, but a candidate whose loop lost its exit runs until killed.
      // Late in a run under a 10 s limit such candidates took 85% of the time: a whole run
      // took 20 minutes instead of 12. One that allocates as it loops would run 13 s until
      // V8's default heap limit; acorn needs 20 MB, so 64 MB ends it in under a second. One
      // that loops without allocating is killed after 2 s.
      command: 'node --max-old-space-size=64 --input-type=commonjs < input.js',
      seconds: 2,
      fails: true,
      regexes: [regex, '^ +at ([^ ]+\\.)?raise \\('],
    },
  };
}

/** javac, installed from Debian (default-jdk-headless) if missing; Skip if that fails. */
function ensureJavac() {
  if (findCommand('javac')) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const r = spawnSync('apt-get', ['install', '-y', '-q', 'default-jdk-headless'], { env, encoding: 'utf8' });
  if (r.status !== 0 || !findCommand('javac')) throw new Skip('javac not found, and apt-get install default-jdk-headless failed');
}

/** jargs's CmdLineParser.java (Debian's jargs source): 526 lines using java.* only. */
function makeJavaLint({ root, dir, downloads }) {
  ensureJavac();
  const source = join('src', 'jargs', 'gnu', 'CmdLineParser.java');
  const fetched = () => readdirSync(downloads).map((d) => join(downloads, d, source)).find(existsSync);
  if (!existsSync(downloads) || !fetched()) {
    // Only the upstream tarball: Debian's packaging part adds nothing to this file.
    run('bash', [join(root, 'scripts', 'deb-source.sh'), '--upstream', 'jargs', downloads]);
  }
  const file = fetched();
  if (!file) throw new Error(`jargs's source has no ${source}`);
  copyFileSync(file, join(dir, 'CmdLineParser.java'));
  const regex = 'warning: \\[serial\\] serializable class NotFlagException has no definition of serialVersionUID';
  return {
    language: 'java',
    // javac wants a public class in a file of its name.
    file: 'CmdLineParser.java',
    compiler: 'javac -Xlint:all',
    regex,
    origin: "src/jargs/gnu/CmdLineParser.java of Debian's jargs source package (upstream tarball), unchanged",
    about: 'a GNU-style command-line parser; -Xlint:serial: the exception NotFlagException (three classes down from Exception) declares no serialVersionUID',
    check: {
      comment: 'Interesting iff javac accepts CmdLineParser.java and still prints the [serial] warning below.',
      // javac's JVM spends most of a 0.7 s run starting up; C1 alone and the serial collector
      // take a quarter off every query, for every tool.
      command: 'javac -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC -Xlint:all -d out CmdLineParser.java',
      regexes: [regex],
    },
  };
}

/** `path` in the newest `prefix*` folder of the local cargo registry that holds it, or null. */
function registryFile(prefix, path) {
  const found = registryCrates()
    .filter((crate) => basename(crate).startsWith(prefix))
    .map((crate) => join(crate, path))
    .filter(existsSync);
  return found.at(-1) ?? null;
}

/** strsim's lib.rs (a dependency of clap, so in the local registry): one self-contained module. */
function makeRustCrateModule({ dir }) {
  const file = registryFile('strsim-0.11.', join('src', 'lib.rs'));
  if (!file) throw new Skip(`no strsim-0.11.* in ${join(CARGO_HOME, 'registry', 'src')} (cargo fetch in this repository brings it)`);
  copyFileSync(file, join(dir, 'input.rs'));
  const regex = "unused result of type `std::collections::hash_map::Entry<'_, \\(char, char\\), usize>`";
  return {
    language: 'rust',
    file: 'input.rs',
    compiler: 'rustc --edition 2021 --crate-type lib --emit=metadata -W unused_results',
    regex,
    origin: `src/lib.rs of the crate ${file.split('/').at(-3)} from the local cargo registry, unchanged`,
    about: 'string similarity metrics; the opt-in lint unused_results, at the HashMap entry of a bigram in sorensen_dice',
    check: rustCheck(
      'Interesting iff rustc accepts input.rs and -W unused_results still flags the unused HashMap Entry of (char, char) bigrams.',
      regex,
      ['unused_results'],
    ),
  };
}

const MAKERS = [
  { name: 'cpp-stl-preprocessed', needs: ['g++'], make: makeCppStl },
  { name: 'rust-macro-rules', needs: ['rustc'], make: makeRustMacroRules },
  { name: 'js-acorn', needs: ['node', 'npm', 'tar'], make: makeJsAcorn },
  { name: 'java-lint', needs: ['apt-get', 'tar'], make: makeJavaLint },
  { name: 'rust-crate-module', needs: ['rustc'], make: makeRustCrateModule },
  { name: 'cpp-large-stl', needs: ['g++'], make: makeCppLarge },
  { name: 'c-large-csmith', needs: ['gcc', 'csmith'], make: makeCLarge },
  { name: 'cpp-debian-cppcheck', needs: ['g++', 'apt-get', 'tar'], make: makeCppDebian },
];

/** Names of the cases this module can make. */
export const GENERATED_CASES = MAKERS.map((m) => m.name);

/**
 * Makes the generated cases (those named in `only`, if given) under ROOT/.bench/generated.
 * Resolves to { folders, skipped }: the case folders made, and {name, reason} for the others.
 */
export async function makeCases({ root, only = null, progress = () => {} }) {
  const folders = [];
  const skipped = [];
  for (const maker of MAKERS.filter((m) => !only || only.includes(m.name))) {
    const dir = join(root, '.bench', 'generated', maker.name);
    const reason = await makeOne(maker, root, dir, progress);
    if (reason) {
      progress(`generated case ${maker.name}: skipped, ${reason}`);
      skipped.push({ name: maker.name, reason });
    } else {
      folders.push(dir);
    }
  }
  return { folders, skipped };
}

/** Makes one case in a fresh `dir`; resolves to null, or to why it was skipped. */
async function makeOne(maker, root, dir, progress) {
  const missing = maker.needs.filter((c) => !findCommand(c));
  if (missing.length) return `${missing.join(', ')} not found`;
  progress(`making the generated case ${maker.name} ...`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    const spec = await maker.make({ root, dir, downloads: join(root, '.bench', 'downloads', maker.name) });
    writeCase(dir, spec);
    return await verify(dir, spec);
  } catch (err) {
    return err instanceof Skip ? err.message : `its maker failed: ${err.message}`;
  }
}

// `node scripts/bench/make-cases.mjs [NAME...]` makes the cases alone and prints their folders.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const names = process.argv.slice(2);
  const { folders } = await makeCases({
    root: join(HERE, '..', '..'),
    only: names.length ? names : null,
    progress: (msg) => process.stderr.write(`${msg}\n`),
  });
  for (const folder of folders) console.log(folder);
}
