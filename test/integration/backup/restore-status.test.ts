// Restore on bootstrap, the cluster side, against the test API server: pod 0's init container
// ends with clone-and-init's termination message (its RestoreReport, or its error), written into
// the pod's status as the kubelet writes it; the restore controller records in the cluster which
// backup and position it started from, or that the restore failed, with an Event.
// (test/integration/sidecar/backup.test.ts proves clone-and-init writes these messages.)
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { RestoreReport } from '../../../src/api/backup-report.ts';
import type { MysqlCluster } from '../../../src/api/index.ts';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { kubeEnv } from '../../support/kube-env.ts';
import { rbacAcrossTests } from '../../support/rbac.ts';
import { eventually } from '../../support/wait.ts';
import { BACKUP_OPERATOR_AGENT, startBackupOperator } from './operator.ts';

/** The chart's RBAC rules against the requests of this file's tests (the last test checks). */
const rbac = rbacAcrossTests(BACKUP_OPERATOR_AGENT, ['restore controller']);

const CLUSTER = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster' };
const URL = 's3://backups/my-db/my-db-auto-2026-01-01t00-00-00.xbackup.gz';
const NEEDS_POD_STATUS_BY_HAND =
  "writes pod 0's init container status as the kubelet would; on a real cluster the kubelet owns it (and the pod has no node)";

async function lab(t: TestContext): Promise<{ client: KubeClient; ns: string; endInit(exitCode: number, message: string): Promise<void> }> {
  const env = await kubeEnv(t);
  t.after(() => rbac.record(env.server));
  const ns = env.namespace;
  const client = new KubeClient(env.kubeConfig, { userAgent: 'restore-test/1.0' });
  t.after(() => client.close());
  await client.create({
    ...CLUSTER,
    metadata: { name: 'my-db', namespace: ns },
    spec: { replicas: 1, secretName: 'my-db-secret', initBucketURL: URL },
  } as KubeObject);
  await client.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'my-db-mysql-0', namespace: ns, labels: { 'mysql.presslabs.org/cluster': 'my-db' } },
    spec: { initContainers: [{ name: 'init', image: 'sidecar' }], containers: [{ name: 'mysql', image: 'mysql' }] },
  } as KubeObject);
  const op = await startBackupOperator(env.kubeConfig, ns, { restore: true });
  t.after(() => op.stop());
  const endInit = async (exitCode: number, message: string): Promise<void> => {
    const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const terminated = { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', message, startedAt: at, finishedAt: at };
    await client.patchStatus(
      { apiVersion: 'v1', kind: 'Pod', namespace: ns, name: 'my-db-mysql-0' },
      {
        status: {
          phase: exitCode === 0 ? 'Running' : 'Pending',
          initContainerStatuses: [
            // A failed init container waits to be retried; the failure stays in lastState.
            exitCode === 0
              ? { name: 'init', image: 'sidecar', imageID: '', ready: true, restartCount: 0, state: { terminated } }
              : {
                  name: 'init',
                  image: 'sidecar',
                  imageID: '',
                  ready: false,
                  restartCount: 1,
                  state: { waiting: { reason: 'CrashLoopBackOff' } },
                  lastState: { terminated },
                },
          ],
        },
      },
    );
  };
  return { client, ns, endInit };
}

const restored = (l: { client: KubeClient; ns: string }) => async () => {
  const c = await l.client.get<MysqlCluster & KubeObject>({ ...CLUSTER, namespace: l.ns, name: 'my-db' });
  return c.status?.conditions?.find((x) => x.type === 'Restored') && c;
};

async function eventsOf(l: { client: KubeClient; ns: string }, reason: string): Promise<string[]> {
  const list = await l.client.list<KubeObject & { reason?: string; message?: string }>(
    { apiVersion: 'v1', kind: 'Event' },
    { namespace: l.ns },
  );
  return list.items.filter((e) => e.reason === reason).map((e) => e.message ?? '');
}

test('pod 0 restored from initBucketURL: the cluster status and an Event say which backup and position it started from', async (t) => {
  if (process.env.TEST_KUBECONFIG) return t.skip(NEEDS_POD_STATUS_BY_HAND);
  const l = await lab(t);
  const report: RestoreReport = { restoredFrom: URL, position: { binlogFile: 'mysql-bin.000002', binlogPosition: 4321, gtid: '0-100-7' } };
  await l.endInit(0, JSON.stringify(report));
  const c = await eventually('Restored condition', restored(l));
  const s = c.status!;
  assert.deepEqual(
    { ...s.restoredFrom, completionTime: undefined },
    { backupURL: URL, binlogFile: 'mysql-bin.000002', binlogPosition: 4321, gtidExecuted: '0-100-7', completionTime: undefined },
  );
  assert.ok(s.restoredFrom?.completionTime);
  const cond = s.conditions!.find((x) => x.type === 'Restored')!;
  assert.deepEqual([cond.status, cond.reason], ['True', 'BackupRestored']);
  const message = `my-db-mysql-0 restored ${URL} at GTID 0-100-7, mysql-bin.000002:4321`;
  assert.equal(cond.message, message);
  assert.deepEqual(
    await eventually('BackupRestored Event', async () => (await eventsOf(l, 'BackupRestored')).length > 0 && eventsOf(l, 'BackupRestored')),
    [message],
  );
});

test('a truncated backup fails the restore: the cluster condition says so with the init container error, and a Warning Event', async (t) => {
  if (process.env.TEST_KUBECONFIG) return t.skip(NEEDS_POD_STATUS_BY_HAND);
  const l = await lab(t);
  const error = `clone-and-init failed: ${URL} is truncated or corrupt (gzip: unexpected end of file)`;
  await l.endInit(1, error);
  const c = await eventually('Restored condition', restored(l));
  const cond = c.status!.conditions!.find((x) => x.type === 'Restored')!;
  assert.deepEqual([cond.status, cond.reason], ['False', 'RestoreFailed']);
  assert.equal(cond.message, `my-db-mysql-0 could not restore ${URL} (init container exit 1): ${error}`);
  assert.equal(c.status!.restoredFrom, undefined);
  assert.deepEqual(
    await eventually('RestoreFailed Event', async () => (await eventsOf(l, 'RestoreFailed')).length > 0 && eventsOf(l, 'RestoreFailed')),
    [cond.message],
  );
});

test('a Restored condition an earlier release wrote with a status update is taken over and rewritten', async (t) => {
  if (process.env.TEST_KUBECONFIG) return t.skip(NEEDS_POD_STATUS_BY_HAND);
  const l = await lab(t);
  const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  await l.client.patchStatus(
    { ...CLUSTER, namespace: l.ns, name: 'my-db' },
    {
      status: {
        conditions: [
          { type: 'Restored', status: 'False', reason: 'RestoreFailed', message: 'from an earlier release', lastTransitionTime: at },
        ],
      },
    },
  );
  await l.endInit(
    0,
    JSON.stringify({
      restoredFrom: URL,
      position: { binlogFile: 'mysql-bin.000002', binlogPosition: 4, gtid: '0-100-1' },
    } satisfies RestoreReport),
  );
  const c = await eventually('Restored True', async () => {
    const cluster = await restored(l)();
    return cluster && cluster.status!.conditions!.find((x) => x.type === 'Restored')!.status === 'True' && cluster;
  });
  assert.equal(c.status!.conditions!.find((x) => x.type === 'Restored')!.reason, 'BackupRestored');
});

test("the chart's RBAC rules allow every request of the tests above, and the restore controller uses each of its grants", (t) =>
  rbac.check(t));
