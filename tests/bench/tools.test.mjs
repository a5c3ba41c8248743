// The bench's figures read from the other reducers' logs and from clang's lexer.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { countClangTokens, creduceQueries, cviseQueries } from '../../scripts/bench/tools.mjs';

const dir = mkdtempSync(join(tmpdir(), 'whittle-bench-tools-'));
const file = (name, text) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

test('creduceQueries adds the worked and failed tests of its pass statistics', () => {
  const log = file('creduce.log', [
    '===< pass_lines :: 0 >===',
    '===================== done ====================',
    '',
    'pass statistics:',
    '  method pass_balanced :: parens-to-zero worked 1 times and failed 3 times',
    '  method pass_clex :: rm-toks-1 worked 4 times and failed 8 times',
    '',
    '          ******** /tmp/t.c ********',
  ].join('\n'));
  assert.equal(creduceQueries(log), 16);
  assert.equal(creduceQueries(file('killed.log', '===< pass_lines :: 0 >===\n')), null);
});

test('cviseQueries adds the "total executed" column', () => {
  const log = file('cvise.log', [
    '===< PASS statistics >===',
    '  pass name                                              time (s) time (%)   worked   failed  total executed',
    '  ClangBinarySearchPass::replace-function-def-with-decl      4.07     5.86        9        6              27',
    '  LinesPass::0                                               1.90     2.73        9       18              43',
    '',
  ].join('\n'));
  assert.equal(cviseQueries(log), 70);
});

const clang = spawnSync('clang', ['--version'], { stdio: 'ignore' }).status === 0;

test('countClangTokens counts clang\'s tokens, past errors, for C and C++ only', () => {
  assert.ok(clang, 'clang is not on PATH: run scripts/setup.sh');
  assert.equal(countClangTokens(file('a.c', 'int x = 1;\n')), 5);
  // A missing header stops nothing: the tokens after it are counted too.
  assert.equal(countClangTokens(file('b.c', 'int a;\n#include <no-such-header.h>\nint b;\n')), 6);
  assert.equal(countClangTokens(file('c.cpp', 'template <class T> T id(T t) { return t; }\n')), 16);
  assert.equal(countClangTokens(file('d.c', '')), 0);
  assert.equal(countClangTokens(file('e.rs', 'fn main() {}\n')), null);
});
