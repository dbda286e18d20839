// Restore on bootstrap, the cluster side: what pod 0's init container said becomes the cluster's
// restoredFrom and Restored condition, once, with an Event.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import type { MysqlCluster, MysqlClusterStatus } from '../../../src/api/index.ts';
import { CLUSTER_STATUS_OWNERS } from '../../../src/api/status-owners.ts';
import { mysqlCluster } from '../../../src/api/schemas/mysqlcluster.ts';
import { decideRestore } from '../../../src/controllers/restore/decide-restore.ts';

const URL = 's3://backups/my-db/my-db-auto-2026-01-01t00-00-00.xbackup.gz';
const NOW = new Date('2026-01-02T03:04:05.678Z');
const REPORT = JSON.stringify({ restoredFrom: URL, position: { binlogFile: 'mysql-bin.000003', binlogPosition: 1234, gtid: '0-100-42' } });

function cluster(initBucketURL: string | undefined = URL, status?: MysqlClusterStatus): MysqlCluster {
  return {
    apiVersion: 'mysql.presslabs.org/v1alpha1',
    kind: 'MysqlCluster',
    metadata: { name: 'my-db', namespace: 'default' },
    spec: { secretName: 'my-db-secret', ...(initBucketURL ? { initBucketURL } : {}) },
    ...(status ? { status } : {}),
  };
}

/** Pod 0 whose init container ended (now, or before a retry) with `exitCode` and `message`. */
function pod0(end?: { exitCode: number; message?: string; previous?: boolean }): V1Pod {
  const terminated = end && {
    exitCode: end.exitCode,
    message: end.message,
    reason: end.exitCode === 0 ? 'Completed' : 'Error',
    finishedAt: new Date('2026-01-02T03:00:00Z'),
  };
  const init: V1ContainerStatus = {
    name: 'init',
    image: 'sidecar',
    imageID: '',
    ready: false,
    restartCount: end?.previous ? 1 : 0,
    ...(terminated
      ? end!.previous
        ? { state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated } }
        : { state: { terminated } }
      : { state: { running: {} } }),
  };
  return { metadata: { name: 'my-db-mysql-0', namespace: 'default' }, status: { initContainerStatuses: [init] } };
}

test('a restore report becomes restoredFrom with the position, Restored=True and a Normal Event', () => {
  const d = decideRestore(cluster(), pod0({ exitCode: 0, message: REPORT }), NOW);
  assert.deepEqual(d?.status.restoredFrom, {
    backupURL: URL,
    binlogFile: 'mysql-bin.000003',
    binlogPosition: 1234,
    gtidExecuted: '0-100-42',
    completionTime: '2026-01-02T03:00:00Z',
  });
  const [c] = d!.status.conditions;
  assert.equal(c.type, 'Restored');
  assert.equal(c.status, 'True');
  assert.equal(c.reason, 'BackupRestored');
  assert.equal(c.message, `my-db-mysql-0 restored ${URL} at GTID 0-100-42, mysql-bin.000003:1234`);
  assert.deepEqual(d!.event, { type: 'Normal', reason: 'BackupRestored', message: c.message });
});

test('a failed restore (the init container waiting to retry) gives Restored=False naming the backup and the error', () => {
  const error = `clone-and-init failed: ${URL} is truncated or corrupt (gzip: unexpected end of file)`;
  const d = decideRestore(cluster(), pod0({ exitCode: 1, message: error, previous: true }), NOW);
  assert.equal(d?.status.restoredFrom, undefined);
  const [c] = d!.status.conditions;
  assert.equal(c.status, 'False');
  assert.equal(c.reason, 'RestoreFailed');
  assert.equal(c.message, `my-db-mysql-0 could not restore ${URL} (init container exit 1): ${error}`);
  assert.equal(d!.event.type, 'Warning');
  // Said once: the same failure again writes nothing.
  assert.equal(decideRestore(cluster(URL, { conditions: [{ ...c }] }), pod0({ exitCode: 1, message: error }), NOW), undefined);
});

test('after a failure, a successful retry replaces the condition and records the backup', () => {
  const failed = decideRestore(cluster(), pod0({ exitCode: 1, message: 'object not found' }), NOW)!;
  const d = decideRestore(cluster(URL, { conditions: [...failed.status.conditions] }), pod0({ exitCode: 0, message: REPORT }), NOW);
  assert.equal(d?.status.conditions[0].status, 'True');
  assert.equal(d?.status.restoredFrom?.backupURL, URL);
});

test('nothing to say: no initBucketURL, no pod 0, init still running, a clone or kept data, a restore already recorded', () => {
  assert.equal(decideRestore(cluster(''), pod0({ exitCode: 0, message: REPORT }), NOW), undefined);
  assert.equal(decideRestore(cluster(), undefined, NOW), undefined);
  assert.equal(decideRestore(cluster(), pod0(), NOW), undefined);
  assert.equal(decideRestore(cluster(), pod0({ exitCode: 0, message: '' }), NOW), undefined);
  // Pod 0 restarted later keeps its data; a later failure is not the restore's.
  const done = cluster(URL, { restoredFrom: { backupURL: URL } });
  assert.equal(decideRestore(done, pod0({ exitCode: 0 }), NOW), undefined);
  assert.equal(decideRestore(done, pod0({ exitCode: 1, message: 'mysql-init-only failed' }), NOW), undefined);
});

test('the deprecated initBucketURI counts as initBucketURL, and a secret in the message is masked', () => {
  const c = cluster('');
  c.spec.initBucketURI = URL;
  const d = decideRestore(c, pod0({ exitCode: 1, message: 'S3 said: AWS_SECRET_ACCESS_KEY=abc123' }), NOW);
  assert.doesNotMatch(d!.status.conditions[0].message ?? '', /abc123/);
});

test("restoredFrom and Restored are the restore controller's alone, and restoredFrom is in the schema", () => {
  const owners = Object.entries(CLUSTER_STATUS_OWNERS).filter(
    ([, o]) => (o.fields as readonly string[]).includes('restoredFrom') || (o.conditions as readonly string[]).includes('Restored'),
  );
  assert.deepEqual(
    owners.map(([name]) => name),
    ['restore'],
  );
  assert.ok(mysqlCluster.status?.properties?.restoredFrom);
});
