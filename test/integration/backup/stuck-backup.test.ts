// A stuck scheduled backup, through the real chain: the backup controller's Job carries the
// operator's --backup-timeout as its deadline, the Job controller fails it (DeadlineExceeded)
// while its pod still runs, the backup ends Failed with that reason, and the next tick of the
// schedule makes the next backup. Here the sandbox's Job controller and a kubelet whose pods run
// for ever; under TEST_KUBECONFIG the cluster's own Job controller, with a backup pod that never
// starts (its image is not there), which is as stuck.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Job } from '@kubernetes/client-node';
import type { MysqlBackup } from '../../../src/api/index.ts';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { kubeEnv } from '../../support/kube-env.ts';
import { eventually } from '../../support/wait.ts';
import { workloadsEnv } from '../workloads/helpers.ts';
import { startBackupOperator } from './operator.ts';

const BACKUP = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlBackup' };
const tick = (hour: number) => new Date(Date.UTC(2026, 0, 1, hour, 0, 0));
const nameAt = (hour: number) => `my-db-auto-2026-01-01t${String(hour).padStart(2, '0')}-00-00`;

test('a stuck scheduled backup ends Failed at the backup timeout, and the next tick makes the next backup', async (t) => {
  const env = process.env.TEST_KUBECONFIG ? await kubeEnv(t) : await workloadsEnv(t, { crds: true, outcome: () => 'ready' });
  const ns = env.namespace;
  const client = new KubeClient(env.kubeConfig, { userAgent: 'stuck-backup-test/1.0' });
  t.after(() => client.close());
  await client.create({
    apiVersion: 'mysql.presslabs.org/v1alpha1',
    kind: 'MysqlCluster',
    metadata: { name: 'my-db', namespace: ns },
    spec: { replicas: 1, secretName: 'my-db-secret', backupURL: 's3://bucket/my-db/', backupSchedule: '0 0 * * * *' },
  } as KubeObject);
  const op = await startBackupOperator(env.kubeConfig, ns, { backup: true, backupCron: true }, { BACKUP_TIMEOUT: '2s' });
  t.after(() => op.stop());
  await eventually('the schedule to run', () => op.ticker.active.size === 1);

  await op.ticker.fire(tick(1));
  const job = await eventually('the Job of the first backup', () =>
    client.getIfExists<V1Job & KubeObject>({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: `${nameAt(1)}-backup` }),
  );
  assert.equal(job.spec!.activeDeadlineSeconds, 2);
  const failed = await eventually('the first backup Failed', async () => {
    const b = await client.get<MysqlBackup & KubeObject>({ ...BACKUP, namespace: ns, name: nameAt(1) });
    return b.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True') && b;
  });
  assert.equal(failed.status!.completed, false);
  assert.equal(failed.status!.conditions!.find((c) => c.type === 'Failed')!.reason, 'DeadlineExceeded');

  await op.ticker.fire(tick(2));
  const next = await client.getIfExists<MysqlBackup & KubeObject>({ ...BACKUP, namespace: ns, name: nameAt(2) });
  assert.ok(next, 'the next tick was not blocked by the stuck backup');
});
