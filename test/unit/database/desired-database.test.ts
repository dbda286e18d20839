// MysqlDatabase spec → schema, and what to change on the master (desired-database.ts). Also the
// parts shared with the user controller: deletion policy and the Ready condition.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decideDatabase, desiredDatabase } from '../../../src/controllers/database/desired-database.ts';
import { deletionPolicy, readyCondition } from '../../../src/controllers/shared/provision.ts';

test('a database MySQL would refuse is refused naming the field; a hostile name is kept whole', () => {
  assert.deepEqual(desiredDatabase({ clusterRef: { name: 'c' }, database: 'shop`; DROP DATABASE mysql; --' }), {
    name: 'shop`; DROP DATABASE mysql; --',
  });
  const long = desiredDatabase({ clusterRef: { name: 'c' }, database: 'x'.repeat(65) });
  assert.ok('refused' in long && /^spec\.database "x+" is longer than 64 characters$/.test(long.message));
  const cs = desiredDatabase({ clusterRef: { name: 'c' }, database: 'a', characterSet: 'utf8mb4; DROP' });
  assert.ok('refused' in cs && cs.message.startsWith('spec.characterSet "utf8mb4; DROP" '));
  const co = desiredDatabase({ clusterRef: { name: 'c' }, database: 'a', collation: 'x y' });
  assert.ok('refused' in co && co.message.startsWith('spec.collation '));
});

test('missing → created; differing character set or collation → altered; else nothing', () => {
  const d = { name: 'shop', characterSet: 'utf8mb4', collation: 'utf8mb4_bin' };
  assert.deepEqual(decideDatabase(d, null), [{ kind: 'createDatabase', ...d }]);
  assert.deepEqual(decideDatabase(d, { characterSet: 'utf8mb4', collation: 'utf8mb4_bin' }), []);
  assert.deepEqual(decideDatabase(d, { characterSet: 'latin1', collation: 'latin1_swedish_ci' }), [{ kind: 'alterDatabase', ...d }]);
  assert.deepEqual(
    decideDatabase({ name: 'shop' }, { characterSet: 'latin1', collation: 'latin1_swedish_ci' }),
    [],
    'server defaults are not ours',
  );
  assert.deepEqual(
    decideDatabase({ name: 'shop', characterSet: 'UTF8' }, { characterSet: 'utf8mb3', collation: 'utf8mb3_general_ci' }),
    [],
    'utf8 is utf8mb3',
  );
});

test('the deletion policy: retain only when the annotation says so', () => {
  const a = 'mysql-operator.presslabs.org/resourceDeletionPolicy';
  assert.equal(deletionPolicy({ metadata: {} }), 'delete');
  assert.equal(deletionPolicy({ metadata: { annotations: { [a]: 'retain' } } }), 'retain');
  assert.equal(deletionPolicy({ metadata: { annotations: { [a]: 'delete' } } }), 'delete');
});

test('the Ready condition keeps its transition time while its status stays, and is redacted', () => {
  const t0 = new Date('2026-01-01T00:00:00Z');
  const first = readyCondition(undefined, false, 'NoMaster', 'no master', t0);
  assert.equal(first.lastTransitionTime, '2026-01-01T00:00:00Z');
  const later = readyCondition(first, false, 'MasterReadOnly', 'read-only', new Date('2026-01-01T00:01:00Z'));
  assert.equal(later.lastTransitionTime, first.lastTransitionTime);
  const ready = readyCondition(later, true, 'ProvisionSucceeded', 'password=hunter2', new Date('2026-01-01T00:02:00Z'));
  assert.equal(ready.lastTransitionTime, '2026-01-01T00:02:00Z');
  assert.ok(!ready.message?.includes('hunter2'));
});
