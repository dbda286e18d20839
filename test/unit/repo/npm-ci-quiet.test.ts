// scripts/npm-ci-quiet.sh, the `npm ci` of install-deps.sh: on a machine whose Node is older than
// the packages ask for, the first command must not print npm's EBADENGINE warnings, and must still
// show every other warning and error and fail when npm fails. A stand-in `npm` on PATH prints what
// npm 11 on Node 20 printed for this project (recorded line by line), then a warning and an error of
// its own, and exits with the status it is given.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const SCRIPT = fileURLToPath(new URL('../../../scripts/npm-ci-quiet.sh', import.meta.url));

const ENGINE_WARNING = [
  'npm warn EBADENGINE Unsupported engine {',
  "npm warn EBADENGINE   package: 'mysql-operator@0.1.0',",
  "npm warn EBADENGINE   required: { node: '>=24' },",
  "npm warn EBADENGINE   current: { node: 'v20.20.2', npm: '11.19.1' }",
  'npm warn EBADENGINE }',
];

function run(exitCode: number): { status: number | null; stderr: string; stdout: string; args: string } {
  const dir = mkdtempSync(join(tmpdir(), 'npm-ci-quiet-'));
  try {
    const fake = join(dir, 'npm');
    writeFileSync(
      fake,
      [
        '#!/bin/sh',
        `echo "$*" > ${JSON.stringify(join(dir, 'args'))}`,
        'echo "added 400 packages"',
        ...ENGINE_WARNING.map((l) => `echo ${JSON.stringify(l)} >&2`),
        `echo ${JSON.stringify('npm warn deprecated some-package@1.0.0: use another')} >&2`,
        ...(exitCode === 0 ? [] : [`echo ${JSON.stringify('npm error code ERESOLVE')} >&2`]),
        `exit ${exitCode}`,
      ].join('\n'),
    );
    chmodSync(fake, 0o755);
    const r = spawnSync('bash', [SCRIPT], { encoding: 'utf8', env: { PATH: `${dir}:${process.env.PATH}` } });
    const args = spawnSync('cat', [join(dir, 'args')], { encoding: 'utf8' }).stdout.trim();
    return { status: r.status, stderr: r.stderr, stdout: r.stdout, args };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('npm ci on an older Node: no EBADENGINE line, other warnings kept, stdout silent', () => {
  const r = run(0);
  assert.equal(r.status, 0);
  assert.equal(r.args, 'ci --no-fund --no-audit');
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, 'npm warn deprecated some-package@1.0.0: use another\n');
});

test('a failing npm ci still fails, with its error shown', () => {
  const r = run(1);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^npm error code ERESOLVE$/m);
  assert.doesNotMatch(r.stderr, /EBADENGINE/);
});
