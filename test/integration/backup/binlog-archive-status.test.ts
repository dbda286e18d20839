// The pitr controller against the test API server and s3rver (docs/pitr.md): a cluster that
// archives its binlogs gets its BinlogArchive condition and recoverable times from the archive's
// index in storage, read with the cluster's backup Secret; an archive that stops moving becomes a
// Warning. (test/integration/sidecar/binlog-archive.test.ts proves the sidecar writes the index.)
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import type { BinlogArchiveIndex } from '../../../src/api/binlog-archive.ts';
import type { MysqlCluster } from '../../../src/api/index.ts';
import { makePitrController, pitrControllerDefinition } from '../../../src/controllers/pitr/controller.ts';
import { loadConfig } from '../../../src/runtime/config.ts';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { storageFor } from '../../../src/storage/index.ts';
import { startInProcessOperator } from '../../support/in-process-operator.ts';
import { kubeEnv } from '../../support/kube-env.ts';
import { rbacAcrossTests } from '../../support/rbac.ts';
import { startS3 } from '../../support/s3.ts';
import { eventually } from '../../support/wait.ts';

const AGENT = 'mysql-operator/pitr-test';
const rbac = rbacAcrossTests(AGENT, ['pitr controller']);
const CLUSTER = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster' };

test('the archive index gives the recoverable times and BinlogsArchived; an archive that stops moving turns BinlogArchiveBehind with a Warning', async (t) => {
  const env = await kubeEnv(t);
  t.after(() => rbac.record(env.server));
  const ns = env.namespace;
  const s3 = await startS3({ t });
  const client = new KubeClient(env.kubeConfig, { userAgent: 'pitr-test/1.0' });
  t.after(() => client.close());
  await client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'backup-creds', namespace: ns },
    stringData: { ...s3.env },
  } as KubeObject);
  await client.create({
    ...CLUSTER,
    metadata: { name: 'my-db', namespace: ns },
    spec: {
      replicas: 1,
      secretName: 'my-db-secret',
      mysqlVersion: 'mariadb-10.11',
      backupURL: 's3://backups/my-db/',
      backupSecretName: 'backup-creds',
      binlogArchive: { enabled: true, intervalSeconds: 5 },
    },
  } as KubeObject);
  // A BinlogArchive condition some other writer put there with a status update (an Update
  // entry in managedFields): the controller takes it over on its first write.
  await client.patchStatus(
    { ...CLUSTER, namespace: ns, name: 'my-db' },
    {
      status: {
        conditions: [
          {
            type: 'BinlogArchive',
            status: 'Unknown',
            reason: 'Other',
            message: 'written by someone else',
            lastTransitionTime: '2026-03-01T09:00:00Z',
          },
        ],
      },
    },
  );
  let now = new Date('2026-03-01T10:00:00Z');
  const loaded = loadConfig([], { LEADER_ELECT: 'false', METRICS_ADDR: '127.0.0.1:0', WATCH_NAMESPACE: ns, RESYNC_PERIOD: '1s' }, [
    pitrControllerDefinition,
  ]);
  const op = await startInProcessOperator(env.kubeConfig, AGENT, loaded.runtime, [makePitrController({ now: () => now })]);
  t.after(() => op.stop());

  const condition = async () => {
    const c = await client.get<MysqlCluster & KubeObject>({ ...CLUSTER, namespace: ns, name: 'my-db' });
    return { cluster: c, cond: c.status?.conditions?.find((x) => x.type === 'BinlogArchive') };
  };
  const events = async (reason: string) =>
    (
      await client.list<KubeObject & { reason?: string; type?: string }>({ apiVersion: 'v1', kind: 'Event' }, { namespace: ns })
    ).items.filter((e) => e.reason === reason);

  const empty = await eventually('BinlogArchiveEmpty', async () => {
    const { cond } = await condition();
    return cond?.reason === 'BinlogArchiveEmpty' && cond;
  });
  assert.equal(empty.status, 'False');

  const index: BinlogArchiveIndex = {
    version: 1,
    firstEventTime: Date.parse('2026-03-01T08:00:00Z') / 1000,
    completeUpTo: Date.parse('2026-03-01T09:59:58Z') / 1000,
    endState: '0-100-1234',
    lastSeq: 40,
    lastServerId: 100,
    updatedAt: '2026-03-01T09:59:58.000Z',
  };
  await storageFor('s3://backups/', s3.env).upload(
    's3://backups/my-db/binlogs/index.json',
    Readable.from([Buffer.from(JSON.stringify(index))]),
  );
  const archived = await eventually('BinlogsArchived', async () => {
    const got = await condition();
    return got.cond?.reason === 'BinlogsArchived' && got;
  });
  assert.equal(archived.cond?.status, 'True');
  assert.deepEqual(archived.cluster.status?.binlogArchive, {
    earliestRecoverableTime: '2026-03-01T08:00:00Z',
    latestRecoverableTime: '2026-03-01T09:59:58Z',
    gtidPosition: '0-100-1234',
  });
  assert.equal((await eventually('a Normal Event', async () => (await events('BinlogsArchived'))[0]))?.type, 'Normal');

  now = new Date('2026-03-01T10:10:00Z');
  const behind = await eventually('BinlogArchiveBehind', async () => {
    const { cond } = await condition();
    return cond?.reason === 'BinlogArchiveBehind' && cond;
  });
  assert.match(behind.message ?? '', /holds nothing newer than 2026-03-01T09:59:58Z, more than 70 s ago/);
  assert.equal((await eventually('a Warning Event', async () => (await events('BinlogArchiveBehind'))[0]))?.type, 'Warning');
});

test("the chart's RBAC rules allow every request of the test above, and the pitr controller uses each of its grants", (t) => rbac.check(t));
