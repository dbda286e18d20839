import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertGolden } from '../../support/golden.ts';

function scratch(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'golden-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a missing golden file fails and is not written', (t) => {
  const path = join(scratch(t), 'sub', 'x.yaml');
  assert.throws(() => assertGolden(path, 'a: 1\n', {}), /golden file .*x\.yaml is missing; .*npm run golden/);
  assert.equal(existsSync(path), false);
});

test('a different golden file fails and is left as it is', (t) => {
  const path = join(scratch(t), 'x.yaml');
  writeFileSync(path, 'a: 1\n');
  assert.throws(() => assertGolden(path, 'a: 2\n', {}), /x\.yaml differs from its golden file/);
  assert.equal(readFileSync(path, 'utf8'), 'a: 1\n');
  assertGolden(path, 'a: 1\n', {});
});

test('UPDATE_GOLDEN=1 writes the file, folders included', (t) => {
  const path = join(scratch(t), 'sub', 'x.yaml');
  assertGolden(path, 'a: 2\n', { UPDATE_GOLDEN: '1' });
  assert.equal(readFileSync(path, 'utf8'), 'a: 2\n');
  assertGolden(path, 'a: 2\n', {});
});
