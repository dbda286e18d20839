// The built form the images ship (`npm run build`, scripts/build.ts → dist/): it runs as the sources
// do, reaching the modules each command loads on demand, and never enters the repository.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build, DIST } from '../../../scripts/build.ts';
import { podEnv } from '../sidecar/support.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function run(main: string, args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [main, ...args], { env, encoding: 'utf8' });
  return { code: r.status, out: r.stdout + r.stderr };
}

test('the built sidecar and operator run: usage and exit codes as from the sources, on-demand modules found', () => {
  build();
  const usage = run(DIST.sidecar, [], podEnv());
  assert.equal(usage.code, 2, usage.out);
  assert.match(usage.out, /usage: sidecar <command>[\s\S]*take-backup-to <host> <url>/);
  // take-backup-to imports its modules when it starts: a connection refused, not a missing module.
  const backup = run(DIST.sidecar, ['take-backup-to', 'http://127.0.0.1:1', 's3://bucket/x.xbackup.gz'], podEnv());
  assert.equal(backup.code, 1, backup.out);
  assert.match(backup.out, /take-backup-to failed: requesting http:\/\/127\.0\.0\.1:1\/xbackup: connect ECONNREFUSED/);
  const help = run(DIST.operator, ['--help'], { PATH: process.env.PATH ?? '' });
  assert.equal(help.code, 0, help.out);
  assert.match(help.out, /^usage: mysql-operator/);
  const bad = run(DIST.operator, ['--no-such-flag'], { PATH: process.env.PATH ?? '' });
  assert.equal(bad.code, 2, bad.out);
  assert.match(bad.out, /unknown flag --no-such-flag/);
});

test('dist/ is ignored by git and holds no committed file', (t) => {
  if (!existsSync(`${ROOT}.git`)) return t.skip('needs a git checkout (none here: no .git)');
  const ignored = spawnSync('git', ['-C', ROOT, 'check-ignore', '-q', 'dist/sidecar/main.js']);
  assert.equal(ignored.status, 0, 'git check-ignore dist/sidecar/main.js');
  const tracked = spawnSync('git', ['-C', ROOT, 'ls-files', 'dist'], { encoding: 'utf8' });
  assert.equal(tracked.stdout, '');
});
