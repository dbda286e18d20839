import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION_CONFIG_HASH } from '../../../src/api/constants.ts';
import { decidePvcCleanup, pvcOrdinal } from '../../../src/controllers/cluster/decide-pvcs.ts';
import { decideRolloutAnnotations } from '../../../src/controllers/cluster/decide-rollout.ts';
import { operatedSecretData, PASSWORD_LENGTH } from '../../../src/controllers/cluster/render-operated-secret.ts';
import { randomPassword } from '../../../src/mysql/system-users.ts';
import { cluster } from './builders.ts';

const rendered = { configHash: 'h1', configData: { 'my.cnf': 'a' }, secretData: { K: 'v' } };

test('an adopted template keeps config_rev/secret_rev while config and Secret are unchanged', () => {
  const a = decideRolloutAnnotations(
    {
      templateAnnotations: { config_rev: '7', secret_rev: '8', 'prometheus.io/port': '9125' },
      configMapData: { 'my.cnf': 'a' },
      secretData: { K: 'v' },
    },
    rendered,
  );
  assert.deepEqual(a, { config_rev: '7', secret_rev: '8' });
});

test('the first real config change on an adopted template switches to the hash', () => {
  const a = decideRolloutAnnotations(
    { templateAnnotations: { config_rev: '7', secret_rev: '8' }, configMapData: { 'my.cnf': 'old' }, secretData: { K: 'v' } },
    rendered,
  );
  assert.deepEqual(a, { [ANNOTATION_CONFIG_HASH]: 'h1' });
});

test('new and already-switched templates carry the hash', () => {
  assert.deepEqual(
    decideRolloutAnnotations({ templateAnnotations: undefined, configMapData: undefined, secretData: undefined }, rendered),
    {
      [ANNOTATION_CONFIG_HASH]: 'h1',
    },
  );
  assert.deepEqual(
    decideRolloutAnnotations(
      {
        templateAnnotations: { [ANNOTATION_CONFIG_HASH]: 'h0', config_rev: '1' },
        configMapData: { 'my.cnf': 'a' },
        secretData: { K: 'v' },
      },
      rendered,
    ),
    { [ANNOTATION_CONFIG_HASH]: 'h1' },
  );
});

test('generated passwords are 18 characters of [A-Za-z0-9] and differ', () => {
  const a = randomPassword(PASSWORD_LENGTH);
  assert.match(a, /^[A-Za-z0-9]{18}$/);
  assert.notEqual(a, randomPassword(PASSWORD_LENGTH));
});

test('the operated Secret gets every key once, and a missing key is added without touching the others', () => {
  const first = operatedSecretData({}, { user: '', password: '' });
  assert.deepEqual(Object.keys(first).sort(), [
    'BACKUP_PASSWORD',
    'BACKUP_USER',
    'METRICS_EXPORTER_PASSWORD',
    'METRICS_EXPORTER_USER',
    'OPERATOR_PASSWORD',
    'OPERATOR_USER',
    'ORC_TOPOLOGY_PASSWORD',
    'ORC_TOPOLOGY_USER',
    'REPLICATION_PASSWORD',
    'REPLICATION_USER',
  ]);
  assert.equal(first.OPERATOR_USER, 'sys_operator');
  const { BACKUP_PASSWORD: _gone, ...partial } = first;
  const second = operatedSecretData({ ...partial, EXTRA: 'kept' }, { user: '', password: '' });
  for (const [k, v] of Object.entries(partial)) assert.equal(second[k], v, k);
  assert.match(second.BACKUP_PASSWORD!, /^[A-Za-z0-9]{18}$/);
  assert.equal(second.EXTRA, 'kept');
});

test("Orchestrator's topology credentials follow the operator's configuration when it has them", () => {
  const d = operatedSecretData({ ORC_TOPOLOGY_USER: 'old', ORC_TOPOLOGY_PASSWORD: 'old' }, { user: 'orc', password: 'p' });
  assert.equal(d.ORC_TOPOLOGY_USER, 'orc');
  assert.equal(d.ORC_TOPOLOGY_PASSWORD, 'p');
  const kept = operatedSecretData({ ORC_TOPOLOGY_USER: 'old', ORC_TOPOLOGY_PASSWORD: 'old' }, { user: '', password: '' });
  assert.equal(kept.ORC_TOPOLOGY_PASSWORD, 'old');
});

test('scale-down keeps PVCs unless the cluster opts in, and never deletes ordinal 0', () => {
  const pvcs = [0, 1, 2, 3].map((i) => ({ metadata: { name: `data-my-db-mysql-${i}` } }));
  assert.deepEqual(decidePvcCleanup(cluster({ replicas: 1 }), pvcs, 1).remove, []);
  const optIn = cluster({ replicas: 1, volumeSpec: { deletePVCsOnScaleDown: true } });
  assert.deepEqual(
    decidePvcCleanup(optIn, pvcs, 1).remove.map((p) => p.metadata?.name),
    ['data-my-db-mysql-1', 'data-my-db-mysql-2', 'data-my-db-mysql-3'],
  );
  assert.deepEqual(
    decidePvcCleanup(cluster({ replicas: 0, volumeSpec: { deletePVCsOnScaleDown: true } }), pvcs, 0).remove.map((p) => p.metadata?.name),
    ['data-my-db-mysql-1', 'data-my-db-mysql-2', 'data-my-db-mysql-3'],
  );
  assert.deepEqual(
    decidePvcCleanup(optIn, pvcs, 3).remove.map((p) => p.metadata?.name),
    ['data-my-db-mysql-3'],
    'not while the StatefulSet still runs the pod',
  );
});

test("PVC ordinals are read only from this cluster's PVC names", () => {
  assert.equal(pvcOrdinal('my-db', 'data-my-db-mysql-12'), 12);
  assert.equal(pvcOrdinal('my-db', 'data-my-db-2-mysql-1'), undefined);
  assert.equal(pvcOrdinal('my-db', 'data-my-db-mysql-01'), undefined);
});
