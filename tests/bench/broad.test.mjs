// The broad bench's JavaScript cases: the driver's errors become properties that hold on the
// program and fail on an empty one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_DRIVER, nodeErrorsAbout, warningKind, warningRegex } from '../../scripts/bench/broad.mjs';

function drive(dir, text) {
  writeFileSync(join(dir, 'input.js'), text);
  return spawnSync(process.execPath, ['-e', NODE_DRIVER, 'input.js'], { cwd: dir, encoding: 'utf8' });
}

test('the driver calls each exported function and its errors become properties', () => {
  const dir = mkdtempSync(join(tmpdir(), 'whittle-broad-test-'));
  try {
    writeFileSync(join(dir, 'package.json'), '{ "type": "commonjs" }\n');
    const r = drive(
      dir,
      "exports.parse = function (s) { if (typeof s !== 'string') throw new TypeError('argument str must be a string'); };\n" +
        'exports.ok = function () { return 1; };\nexports.n = 3;\n',
    );
    assert.equal(r.status, 0, r.stderr);
    const found = nodeErrorsAbout(r.stderr);
    assert.deepEqual(found, [{ message: '`parse`: TypeError: argument str must be a string', flag: 'TypeError' }]);
    assert.equal(warningKind(found[0].message), '`_`: TypeError: argument str must be a string');
    const regex = new RegExp(warningRegex(found[0].message));
    assert.match(r.stderr, regex);
    // An empty module throws nothing: the property fails on it.
    assert.doesNotMatch(drive(dir, '').stderr, regex);
    // A module that does not load is no program (the driver exits non-zero).
    assert.notEqual(drive(dir, 'exports.f = (;\n').status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
