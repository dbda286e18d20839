// Each file of examples/ applied as a user would, with the real kubectl, to the test API server (or
// a real cluster with TEST_KUBECONFIG) while the operator's cluster, backup, backupcron, user and
// database controllers run. No MySQL pod runs here: what is checked is what the controllers render
// and decide (the StatefulSets, the backup Job, the schedule, the users' wait for a master). That
// backups land in S3, restore from it, and that the account and database exist on the master is
// checked end to end on the sandbox (test/e2e/examples.test.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { V1Container, V1Job, V1StatefulSet } from '@kubernetes/client-node';
import {
  BACKUP_CONDITION,
  BACKUP_REASONS,
  CLUSTER_CONDITION,
  CLUSTER_REASONS,
  CONDITION_STATUS,
  PROVISION_CONDITION,
  PROVISION_REASONS,
} from '../../../src/api/constants.ts';
import { names } from '../../../src/api/names.ts';
import { backupControllerDefinition } from '../../../src/controllers/backup/controller.ts';
import { backupCronControllerDefinition } from '../../../src/controllers/backupcron/controller.ts';
import { clusterControllerDefinition } from '../../../src/controllers/cluster/controller.ts';
import { databaseControllerDefinition } from '../../../src/controllers/database/controller.ts';
import { userControllerDefinition } from '../../../src/controllers/user/controller.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { kubeconfigFile, kubectl } from '../../support/kubectl.ts';
import { eventually } from '../../support/wait.ts';
import { operatorTest } from '../cluster/operator.ts';

const EXAMPLES = new URL('../../../examples/', import.meta.url);
const GROUP_VERSION = 'mysql.presslabs.org/v1alpha1';
const CONTROLLERS = [
  clusterControllerDefinition,
  backupControllerDefinition,
  backupCronControllerDefinition,
  userControllerDefinition,
  databaseControllerDefinition,
];

interface Conditioned {
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}
const conditionOf = (o: unknown, type: string) => (o as Conditioned).status?.conditions?.find((c) => c.type === type);

test('every example applies with kubectl and becomes what it describes', async (t) => {
  const { env, namespace: ns, client } = await operatorTest(t, [], CONTROLLERS);
  const dir = mkdtempSync(join(tmpdir(), 'examples-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = kubeconfigFile(env.kubeConfig, dir);
  const files = readdirSync(EXAMPLES)
    .filter((f) => f.endsWith('.yaml'))
    .sort();

  const sts = (cluster: string) =>
    eventually(`StatefulSet ${cluster}-mysql`, () =>
      client.get<V1StatefulSet & KubeObject>({ apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: ns, name: `${cluster}-mysql` }),
    );
  const initContainer = (s: V1StatefulSet): V1Container => s.spec!.template.spec!.initContainers!.find((c) => c.name === 'init')!;
  const applied = async (file: string): Promise<void> => {
    const r = await kubectl(kubeconfig, ['apply', '-n', ns, '-f', join(EXAMPLES.pathname, file)]);
    assert.equal(r.status, 0, `${file}: ${r.stderr}`);
    assert.equal(r.stderr, '', `${file}: no warning`);
  };
  const exists = (kind: string, name: string) => client.get({ apiVersion: GROUP_VERSION, kind, namespace: ns, name });

  assert.deepEqual(
    files,
    [
      'mysqlbackup.yaml',
      'mysqlcluster-mariadb.yaml',
      'mysqlcluster-minimal.yaml',
      'mysqlcluster-restore.yaml',
      'mysqlcluster.yaml',
      'mysqldatabase.yaml',
      'mysqluser.yaml',
      'simple-app.yaml',
    ],
    'a test below for each example',
  );

  /** A MysqlDatabase or MysqlUser of `cluster` waiting for its master, for the reason pod 0 gives. */
  const waitsForMaster = async (cluster: string, kind: 'MysqlDatabase' | 'MysqlUser', name: string): Promise<void> => {
    // Which wait depends on pod 0: the test API server runs no StatefulSet controller, so there is
    // none (NoMaster); a real cluster's makes it, Pending without a volume, so the new cluster's
    // master-to-be does not answer (MasterUnreachable). The reason must match the pods it was decided on.
    const pod0 = names.pod(cluster, 0);
    const expected = async () =>
      (await client.get({ apiVersion: 'v1', kind: 'Pod', namespace: ns, name: pod0 }).then(
        () => true,
        () => false,
      ))
        ? PROVISION_REASONS.masterUnreachable
        : PROVISION_REASONS.noMaster;
    const ready = await eventually(`${kind} ${name}'s Ready condition, as pod 0 says`, async () => {
      const c = conditionOf(await exists(kind, name), PROVISION_CONDITION.ready);
      return c !== undefined && c.reason === (await expected()) ? c : undefined;
    });
    assert.equal(ready.status, CONDITION_STATUS.false, `${kind}: ${ready.message}`);
    if (ready.reason === PROVISION_REASONS.masterUnreachable)
      assert.match(ready.message ?? '', new RegExp(`${pod0} \\(newCluster\\) is not reachable`));
  };

  await t.test('mysqlcluster-minimal.yaml: one MySQL 8.0 server with the default volume', async () => {
    await applied('mysqlcluster-minimal.yaml');
    const s = await sts('small-db');
    assert.equal(s.spec!.replicas, 1);
    assert.equal(s.spec!.volumeClaimTemplates![0]!.spec!.resources!.requests!.storage, '1Gi');
    assert.equal(s.spec!.template.metadata!.labels!['app.kubernetes.io/version'], '8.0.32');
  });

  await t.test('mysqlcluster.yaml: three MySQL 8.0 servers with the given config and volume; the backup schedule is kept', async () => {
    await applied('mysqlcluster.yaml');
    const s = await sts('my-db');
    assert.equal(s.spec!.replicas, 3);
    assert.equal(s.spec!.volumeClaimTemplates![0]!.spec!.resources!.requests!.storage, '5Gi');
    const cluster = (await exists('MysqlCluster', 'my-db')) as KubeObject & { spec: Record<string, unknown> };
    assert.equal(cluster.spec.backupSchedule, '0 0 */6 * * *');
  });
  await t.test('mysqlcluster.yaml: the backup schedule is taken (BackupSchedule condition)', async () => {
    const schedule = await eventually('the BackupSchedule condition', async () =>
      conditionOf(await exists('MysqlCluster', 'my-db'), CLUSTER_CONDITION.backupSchedule),
    );
    assert.equal(schedule.status, CONDITION_STATUS.true, schedule.message);
    assert.equal(schedule.reason, CLUSTER_REASONS.backupScheduled);
  });

  await t.test('mysqlcluster-restore.yaml: pod 0 restores initBucketURL with the credentials of initBucketSecretName', async () => {
    await applied('mysqlcluster-restore.yaml');
    const init = initContainer(await sts('restored-db'));
    assert.equal(
      init.env!.find((e) => e.name === 'INIT_BUCKET_URI')?.value,
      's3://my-bucket/my-db/my-db-auto-2026-01-01t00-00-00.xbackup.gz',
    );
    assert.ok(init.envFrom!.some((e) => e.secretRef?.name === 'restored-db-backup-creds'));
  });

  await t.test('mysqlcluster-mariadb.yaml: two MariaDB 10.11 servers', async () => {
    await applied('mysqlcluster-mariadb.yaml');
    const s = await sts('maria-db');
    assert.equal(s.spec!.replicas, 2);
    assert.match(s.spec!.template.spec!.containers.find((c) => c.name === 'mysql')!.image!, /mariadb/);
    assert.deepEqual(
      s.spec!.template.spec!.initContainers!.map((c) => c.name),
      ['init'],
    );
  });

  await t.test('mysqlbackup.yaml, mysqldatabase.yaml, mysqluser.yaml: accepted as written', async () => {
    await applied('mysqlbackup.yaml');
    await applied('mysqldatabase.yaml');
    await applied('mysqluser.yaml');
    await exists('MysqlBackup', 'my-db-manual-1');
    await exists('MysqlDatabase', 'my-db-shop');
    await exists('MysqlUser', 'my-db-shop-user');
  });
  await t.test("mysqlbackup.yaml: a Job streams the backup of my-db to its URL, with the cluster's storage credentials", async () => {
    const job = await eventually('the backup Job', () =>
      client.get<V1Job & KubeObject>({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name: names.backupJob('my-db-manual-1') }),
    );
    const container = job.spec!.template.spec!.containers[0]!;
    const url = 's3://my-bucket/my-db/my-db-manual-1.xbackup.gz';
    // No node is known yet (no MySQL pod runs here): the master Service, whichever pod it routes to when the Job runs.
    assert.deepEqual(container.args, ['take-backup-to', `${names.masterService('my-db')}.${ns}`, url]);
    assert.ok(container.envFrom!.some((e) => e.secretRef?.name === 'my-db-backup-creds'));
    const backup = await eventually('the MysqlBackup running', async () => {
      const b = (await exists('MysqlBackup', 'my-db-manual-1')) as KubeObject & { status?: { backupURL?: string } };
      return conditionOf(b, BACKUP_CONDITION.complete)?.reason === BACKUP_REASONS.backupRunning ? b : undefined;
    });
    assert.equal(backup.status!.backupURL, url);
    assert.ok(
      backup.metadata!.finalizers!.includes('backups.mysql.presslabs.org/remote-storage-cleanup'),
      'remoteDeletePolicy: delete holds a finalizer',
    );
  });
  await t.test('mysqldatabase.yaml, mysqluser.yaml: they wait for a master of my-db, saying so', async () => {
    await waitsForMaster('my-db', 'MysqlDatabase', 'my-db-shop');
    await waitsForMaster('my-db', 'MysqlUser', 'my-db-shop-user');
  });

  await t.test(
    'simple-app.yaml: two servers with a 10Gi volume each, backups scheduled to the folder, the database and its account',
    async () => {
      await applied('simple-app.yaml');
      const s = await sts('app-db');
      assert.equal(s.spec!.replicas, 2);
      assert.equal(s.spec!.volumeClaimTemplates![0]!.spec!.resources!.requests!.storage, '10Gi');
      const schedule = await eventually('the BackupSchedule condition', async () =>
        conditionOf(await exists('MysqlCluster', 'app-db'), CLUSTER_CONDITION.backupSchedule),
      );
      assert.equal(schedule.status, CONDITION_STATUS.true, schedule.message);
      assert.equal(schedule.reason, CLUSTER_REASONS.backupScheduled);
      const cluster = (await exists('MysqlCluster', 'app-db')) as KubeObject & { spec: Record<string, unknown> };
      assert.equal(cluster.spec.backupURL, 's3://my-bucket/app-db/');
      await waitsForMaster('app-db', 'MysqlDatabase', 'app-db-app');
      await waitsForMaster('app-db', 'MysqlUser', 'app-db-app');
    },
  );
});
