// What a tick creates, and which scheduled backups retention deletes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MysqlCluster } from '../../../src/api/index.ts';
import { decideTick, scheduledBackupName, type Backup } from '../../../src/controllers/backupcron/decide-tick.ts';
import { chooseBackupsToPrune, parseRetentionPeriod } from '../../../src/controllers/backupcron/retention.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { anchorObject } from '../cluster/builders.ts';

const TICK = new Date('2026-01-01T00:00:00.250Z');

function cluster(spec: Partial<MysqlCluster['spec']> = {}): MysqlCluster & KubeObject {
  return {
    apiVersion: 'mysql.presslabs.org/v1alpha1',
    kind: 'MysqlCluster',
    metadata: { name: 'my-db', namespace: 'default' },
    spec: { secretName: 's', ...spec },
  };
}

type State = 'running' | 'complete' | 'failed';
function scheduled(name: string, created: string, state: State): Backup {
  const t = (type: string, on: boolean) =>
    ({ type, status: on ? 'True' : 'False', lastTransitionTime: created }) as NonNullable<
      NonNullable<Backup['status']>['conditions']
    >[number];
  return {
    metadata: {
      name,
      namespace: 'default',
      creationTimestamp: created as unknown as Date,
      labels: { recurrent: 'true', cluster: 'my-db' },
    },
    spec: { clusterName: 'my-db' },
    status: {
      completed: state === 'complete',
      conditions: state === 'running' ? [t('Complete', false)] : [t('Complete', state === 'complete'), t('Failed', state === 'failed')],
    },
  };
}

describe('a tick', () => {
  it("creates the anchor's MysqlBackup, named from the tick's time in UTC", () => {
    assert.equal(scheduledBackupName('my-db', TICK), 'my-db-auto-2026-01-01t00-00-00');
    const d = decideTick(cluster(), [], TICK);
    assert.equal(d.action, 'create');
    const anchor = anchorObject<Backup>('mysqlbackup.yaml');
    assert.deepEqual(JSON.parse(JSON.stringify((d as { backup: Backup }).backup)), anchor);
  });
  it("passes the cluster's backupRemoteDeletePolicy on", () => {
    const d = decideTick(cluster({ backupRemoteDeletePolicy: 'delete' }), [], TICK);
    assert.equal((d as { backup: Backup }).backup.spec.remoteDeletePolicy, 'delete');
  });
  it('seen twice (a restarted operator, a second timer) makes nothing the second time', () => {
    const d = decideTick(cluster(), [scheduled('my-db-auto-2026-01-01t00-00-00', '2026-01-01T00:00:00Z', 'running')], TICK);
    assert.deepEqual([d.action, (d as { why: string }).why], ['skip', 'exists']);
  });
  it('is skipped while a scheduled backup runs, not after one failed or timed out', () => {
    const running = decideTick(cluster(), [scheduled('my-db-auto-2025-12-31t00-00-00', '2025-12-31T00:00:00Z', 'running')], TICK);
    assert.deepEqual([running.action, (running as { why: string }).why], ['skip', 'running']);
    assert.equal(
      decideTick(cluster(), [scheduled('my-db-auto-2025-12-31t00-00-00', '2025-12-31T00:00:00Z', 'failed')], TICK).action,
      'create',
    );
  });
});

describe('retention', () => {
  const now = new Date('2026-01-10T00:00:00Z');
  const day = (d: number, state: State = 'complete') => scheduled(`my-db-auto-2026-01-0${d}t00-00-00`, `2026-01-0${d}T00:00:00Z`, state);

  it('keeps the newest N (backupScheduleJobsHistoryLimit), deleting the oldest first', () => {
    assert.deepEqual(chooseBackupsToPrune([day(3), day(1), day(5), day(4), day(2)], { historyLimit: 2, maxAgeMs: undefined }, now), [
      'my-db-auto-2026-01-01t00-00-00',
      'my-db-auto-2026-01-02t00-00-00',
      'my-db-auto-2026-01-03t00-00-00',
    ]);
  });
  it('deletes those older than backupRetentionPeriod', () => {
    assert.deepEqual(
      chooseBackupsToPrune([day(1), day(5), day(8)], { historyLimit: undefined, maxAgeMs: parseRetentionPeriod('6d') }, now),
      ['my-db-auto-2026-01-01t00-00-00'],
    );
  });
  it('never deletes the newest completed backup, nor one still running', () => {
    const backups = [day(1), day(2, 'running'), day(3, 'failed'), day(4, 'failed')];
    assert.deepEqual(chooseBackupsToPrune(backups, { historyLimit: 0, maxAgeMs: 1 }, now), [
      'my-db-auto-2026-01-03t00-00-00',
      'my-db-auto-2026-01-04t00-00-00',
    ]);
  });
  it('keeps everything without a policy', () => {
    assert.deepEqual(chooseBackupsToPrune([day(1), day(2)], { historyLimit: undefined, maxAgeMs: undefined }, now), []);
  });
  it('reads periods in s, m, h and d', () => {
    assert.equal(parseRetentionPeriod('1d12h'), 36 * 3_600_000);
    assert.equal(parseRetentionPeriod('90m'), 5_400_000);
    assert.equal(parseRetentionPeriod('7 days'), undefined);
  });
});
