import { test } from 'node:test';
import assert from 'node:assert/strict';
import { names } from '../../../src/api/names.ts';
import { credentialsFrom, operatedSecretCluster, systemUserNames } from '../../../src/topology/index.ts';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const full = {
  OPERATOR_USER: b64('sys_operator'),
  OPERATOR_PASSWORD: b64('op'),
  REPLICATION_USER: b64('sys_replication'),
  REPLICATION_PASSWORD: b64('repl'),
};

test('the operator and replication identities are read from the operated Secret', () => {
  assert.deepEqual(credentialsFrom(full), {
    operator: { user: 'sys_operator', password: 'op' },
    replication: { user: 'sys_replication', password: 'repl' },
  });
});

test('a missing or empty key is named', () => {
  assert.deepEqual(credentialsFrom({ ...full, REPLICATION_PASSWORD: '' }), { missing: 'REPLICATION_PASSWORD' });
  assert.deepEqual(credentialsFrom(undefined), { missing: 'OPERATOR_USER' });
});

test('the operated Secret is named after its cluster, and only such Secrets map back to one', () => {
  assert.equal(names.operatedSecret('my-db'), 'my-db-mysql-operated');
  assert.equal(operatedSecretCluster('my-db-mysql-operated'), 'my-db');
  assert.equal(operatedSecretCluster('my-db-secret'), null);
  assert.equal(operatedSecretCluster('-mysql-operated'), null);
});

test('the system users the fence spares: every user of the operated Secret and the heartbeat user, never a password', () => {
  const data = {
    ...full,
    METRICS_EXPORTER_USER: b64('sys_exporter'),
    ORC_TOPOLOGY_USER: b64('orchestrator'),
    BACKUP_USER: b64(''),
    ORC_TOPOLOGY_PASSWORD: b64('orc'),
  };
  assert.deepEqual(systemUserNames(data), ['sys_operator', 'sys_replication', 'sys_exporter', 'orchestrator', 'sys_heartbeat']);
  assert.deepEqual(systemUserNames(undefined), ['sys_heartbeat']);
});
