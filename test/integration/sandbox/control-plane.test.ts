// The README's first command: `npm run sandbox` brings up the API server and the operator, applies
// examples/ with the real kubectl and shows what the operator rendered. `--check` stops there.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

test('the sandbox renders every example cluster through the operator, then removes what it made', () => {
  const r = spawnSync(process.execPath, ['scripts/sandbox.ts', '--check'], { cwd: root, encoding: 'utf8', timeout: 300_000 });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  for (const name of ['statefulset.apps/my-db-mysql', 'statefulset.apps/maria-db-mysql', 'service/my-db-mysql-master',
    'service/mysql ', 'configmap/my-db-mysql', 'secret/my-db-mysql-operated', 'poddisruptionbudget.policy/my-db-mysql']) {
    assert.ok(r.stdout.includes(name), `sandbox output lists ${name}:\n${r.stdout}`);
  }
  assert.equal(existsSync(`${root}.sandbox`), false, '.sandbox/ is removed on exit');
});
