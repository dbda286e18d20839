import { test } from 'node:test';
import assert from 'node:assert/strict';
import { POD_CONDITION_NODE_INITIALIZED } from '../../../src/api/constants.ts';
import { nodeInitializedCondition, verifiedSinceStart } from '../../../src/controllers/mysql-node/decide-condition.ts';
import type { PodObject } from '../../../src/topology/index.ts';

const now = new Date('2026-01-01T10:00:00.123Z');

test('a newly configured pod gets the anchor condition, stamped as verified', () => {
  assert.deepEqual(nodeInitializedCondition({ configured: true, verified: true }, [], now), {
    type: POD_CONDITION_NODE_INITIALIZED,
    status: 'True',
    reason: 'mysqlInitializationSucceeded',
    message: 'success',
    lastTransitionTime: '2026-01-01T10:00:00Z',
    lastProbeTime: '2026-01-01T10:00:00Z',
  });
});

test('an unchanged condition is not written again', () => {
  const cur = nodeInitializedCondition({ configured: false, reason: 'MasterUnreachable', message: 'x' }, [], now);
  assert.ok(cur);
  assert.equal(nodeInitializedCondition({ configured: false, reason: 'MasterUnreachable', message: 'x' }, [cur], new Date()), null);
  const ok = nodeInitializedCondition({ configured: true, verified: true }, [], now);
  assert.ok(ok);
  assert.equal(nodeInitializedCondition({ configured: true, verified: false }, [ok], new Date()), null);
});

test('a failure keeps the reason visible in the message and moves the transition time', () => {
  const ok = nodeInitializedCondition({ configured: true, verified: true }, [], new Date('2025-01-01T00:00:00Z'));
  assert.ok(ok);
  const c = nodeInitializedCondition(
    { configured: false, reason: 'ReplicationAccessDenied', message: 'check key REPLICATION_PASSWORD' },
    [ok],
    now,
  );
  assert.equal(c?.status, 'False');
  assert.equal(c?.reason, 'mysqlInitializationFailed');
  assert.equal(c?.message, 'ReplicationAccessDenied: check key REPLICATION_PASSWORD');
  assert.equal(c?.lastTransitionTime, '2026-01-01T10:00:00Z');
  assert.equal(c?.lastProbeTime, ok.lastProbeTime);
});

test('a re-check stamps a new probe time, but not twice in one second', () => {
  const ok = nodeInitializedCondition({ configured: true, verified: true }, [], new Date('2026-01-01T09:00:00Z'));
  assert.ok(ok);
  assert.equal(nodeInitializedCondition({ configured: true, verified: true }, [ok], now)?.lastProbeTime, '2026-01-01T10:00:00Z');
  assert.equal(nodeInitializedCondition({ configured: true, verified: true }, [ok], new Date('2026-01-01T09:00:00.900Z')), null);
});

function pod(over: { startedAt?: string; probe?: string } = {}): PodObject {
  return {
    metadata: { name: 'my-db-mysql-2', namespace: 'prod' },
    status: {
      phase: 'Running',
      containerStatuses: [{ name: 'mysql', state: { running: { startedAt: over.startedAt ?? '2026-01-01T10:00:00Z' } } }],
      conditions: over.probe ? [{ type: POD_CONDITION_NODE_INITIALIZED, status: 'True', lastProbeTime: over.probe }] : [],
    },
  };
}

test('a check stamped after the mysql container started counts as verified', () => {
  assert.equal(verifiedSinceStart(pod({ probe: '2026-01-01T10:00:05Z' })), true);
});

test('a check in the same second as the start does not count (it may have come first)', () => {
  assert.equal(verifiedSinceStart(pod({ probe: '2026-01-01T10:00:00Z' })), false);
});

test('a restart of mysqld after the last check asks for a new check', () => {
  assert.equal(verifiedSinceStart(pod({ probe: '2026-01-01T09:00:00Z' })), false);
  assert.equal(verifiedSinceStart(pod()), false);
});

test('secrets in server error text are masked in the condition message, as in Events', () => {
  // MariaDB's Last_SQL_Error quotes the failed statement, password included.
  const sqlError =
    "error 1396: Error 'Operation CREATE USER failed for 'app'@'%'' on query. Default database: ''. Query: 'CREATE USER 'app'@'%' IDENTIFIED BY 'hunter2-Secret''";
  const c = nodeInitializedCondition(
    { configured: false, reason: 'ReplicationError', message: `replication from my-db-mysql-0 stopped applying: ${sqlError}` },
    [],
    now,
  );
  assert.ok(c?.message);
  assert.ok(!c.message.includes('hunter2-Secret'), c.message);
  assert.match(c.message, /^ReplicationError: replication from my-db-mysql-0 stopped applying: error 1396: .*IDENTIFIED BY '\*\*\*'/);

  const url = nodeInitializedCondition(
    {
      configured: false,
      reason: 'ServerUnreachable',
      message: 'cannot reach mysql://sys_operator:op-Secret-9@my-db-mysql-1.mysql.prod:3306',
    },
    [],
    now,
  );
  assert.equal(url?.message, 'ServerUnreachable: cannot reach mysql://sys_operator:***@my-db-mysql-1.mysql.prod:3306');
});
