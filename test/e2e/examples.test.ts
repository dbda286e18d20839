// End to end on the sandbox: the examples that need storage and a running cluster really work
// (issues 14 and 16). examples/mysqlcluster.yaml puts scheduled backups into the sandbox's S3 server
// (its schedule shortened here), mysqlbackup.yaml an on-demand one; mysqlcluster-restore.yaml,
// pointed at a scheduled backup, becomes Ready with the same data; mysqldatabase.yaml and
// mysqluser.yaml make a database and an account on the master that logs in through the master
// Service and may do what it was granted. Flavour: MariaDB: the examples' MySQL 8.0 clusters run as
// MariaDB on the sandbox (sandbox/examples.ts says why). One sandbox for the file.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  API_GROUP_VERSION,
  CONDITION_STATUS,
  KIND_MYSQL_BACKUP,
  KIND_MYSQL_CLUSTER,
  LABEL_BACKUP_CLUSTER,
  LABEL_BACKUP_RECURRENT,
  PROVISION_CONDITION,
} from '../../src/api/constants.ts';
import type { MysqlBackup, MysqlCluster } from '../../src/api/index.ts';
import { names } from '../../src/api/names.ts';
import type { KubeObject } from '../../src/runtime/kube/types.ts';
import { storageFor } from '../../src/storage/index.ts';
import { waitForClusterReady } from '../../sandbox/cluster-view.ts';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import type { Manifest } from '../../sandbox/examples.ts';
import {
  applyExample,
  printSandboxOnFailure,
  sandboxSkip,
  setReplicas,
  sqlThroughService,
  type ExampleCluster,
} from '../support/sandbox.ts';
import { eventually } from '../support/wait.ts';

const READY_MS = 300_000;
const BACKUP_MS = 180_000;
/** Every 20 s instead of the example's 6 hours: the test waits for one taken after its writes. */
const SHORT_SCHEDULE = '*/20 * * * * *';
const DATA =
  'CREATE DATABASE e2e_data; CREATE TABLE e2e_data.t (id INT PRIMARY KEY, v VARCHAR(64));' +
  ' INSERT INTO e2e_data.t SELECT seq, MD5(seq) FROM e2e_data.seq_1_to_1000';

describe('the storage, restore, user and database examples on the sandbox', { skip: sandboxSkip() }, () => {
  const workDir = mkdtempSync(join(tmpdir(), 'sandbox-examples-'));
  let sb: Sandbox;
  let myDb: ExampleCluster;
  let checksum: unknown;
  let scheduled: MysqlBackup & KubeObject;

  const backups = async (): Promise<(MysqlBackup & KubeObject)[]> =>
    (
      await sb.client.list<MysqlBackup & KubeObject>(
        { apiVersion: API_GROUP_VERSION, kind: KIND_MYSQL_BACKUP },
        { namespace: myDb.namespace },
      )
    ).items;
  /** The object's size in the sandbox's S3 server, listed from this machine with the example's credentials. */
  const storedBytes = async (url: string): Promise<number | undefined> => {
    const folder = url.slice(0, url.lastIndexOf('/') + 1);
    return (await storageFor(url, sb.s3.env).list(folder)).find((o) => o.url === url)?.bytes;
  };
  const tableChecksum = async (c: ExampleCluster): Promise<unknown> =>
    (await sqlThroughService(sb, c, names.masterService(c.name), 'CHECKSUM TABLE e2e_data.t'))[0]?.Checksum;

  before(async () => {
    sb = await startSandbox({ workDir });
    await sb.ready;
    // Two nodes rather than the example's three: a replica to back up from, at two thirds of the time.
    myDb = (await applyExample(sb, 'mysqlcluster.yaml', {
      edit: (docs: Manifest[]) => {
        setReplicas(docs, 2);
        for (const d of docs) if (d.kind === KIND_MYSQL_CLUSTER) d.spec.backupSchedule = SHORT_SCHEDULE;
      },
    }))!;
  });
  after(() => sb?.stop());
  printSandboxOnFailure(() => sb);

  it('mysqlcluster.yaml becomes Ready and a scheduled backup taken after a write lands in the S3 server', async () => {
    await waitForClusterReady(sb.client, myDb.namespace, myDb.name, { timeoutMs: READY_MS });
    await sqlThroughService(sb, myDb, names.masterService(myDb.name), DATA);
    checksum = await tableChecksum(myDb);
    const written = Date.now();
    scheduled = await eventually(
      'a scheduled backup started after the write, completed',
      async () => {
        const done = (await backups()).filter(
          (b) =>
            b.metadata!.labels?.[LABEL_BACKUP_RECURRENT] === 'true' &&
            b.metadata!.labels?.[LABEL_BACKUP_CLUSTER] === myDb.name &&
            b.status?.completed === true &&
            Date.parse(b.status.startTime!) >= written,
        );
        return done[0];
      },
      BACKUP_MS,
    );
    // No more backups while the rest runs: the schedule has done its part.
    const patched = await sb.kubectl([
      'patch',
      KIND_MYSQL_CLUSTER.toLowerCase(),
      myDb.name,
      '-n',
      myDb.namespace,
      '--type=merge',
      '-p',
      '{"spec":{"backupSchedule":null}}',
    ]);
    assert.ok(patched.ok, patched.out);
    const url = scheduled.status!.backupURL!;
    assert.equal(url, `s3://my-bucket/my-db/${scheduled.metadata!.name}.xbackup.gz`);
    assert.ok((await storedBytes(url))! > 0, 'the object is in the bucket');
  });
  it("the scheduled backup's status reports the size and position of the stored object", async () => {
    // take-backup-to's report reaches the status through the Job pod's termination message.
    const status = scheduled.status!;
    assert.equal(status.sizeBytes, await storedBytes(status.backupURL!));
    assert.match(status.binlogFile ?? '', /\S/, 'the binary log file at the backup position');
    assert.ok((status.binlogPosition ?? 0) > 0);
    assert.match(status.gtidExecuted ?? '', /^\d+-\d+-\d+/, 'a MariaDB GTID');
  });

  it('mysqlbackup.yaml: the on-demand backup is stored where it says', async () => {
    await applyExample(sb, 'mysqlbackup.yaml');
    const done = await eventually(
      'my-db-manual-1 completed',
      async () => (await backups()).find((b) => b.metadata!.name === 'my-db-manual-1' && b.status?.completed === true),
      BACKUP_MS,
    );
    assert.equal(done.status!.backupURL, 's3://my-bucket/my-db/my-db-manual-1.xbackup.gz');
    assert.ok((await storedBytes(done.status!.backupURL!))! > 0);
  });

  it('mysqlcluster-restore.yaml pointed at the scheduled backup becomes Ready with the same data', async () => {
    const restored = (await applyExample(sb, 'mysqlcluster-restore.yaml', {
      edit: (docs: Manifest[]) => {
        // One node: the restore is pod 0's; replicas would clone from it as in any cluster.
        setReplicas(docs, 1);
        for (const d of docs) if (d.kind === KIND_MYSQL_CLUSTER) d.spec.initBucketURL = scheduled.status!.backupURL;
      },
    }))!;
    await waitForClusterReady(sb.client, restored.namespace, restored.name, { timeoutMs: READY_MS });
    assert.equal(await tableChecksum(restored), checksum, "CHECKSUM TABLE on the restored master equals the source's");
    // pod 0's init container reports the restore in its termination message.
    const restoredFrom = await eventually(
      'the cluster status to name the backup it was restored from',
      async () =>
        (
          await sb.client.get<MysqlCluster & KubeObject>({
            apiVersion: API_GROUP_VERSION,
            kind: KIND_MYSQL_CLUSTER,
            namespace: restored.namespace,
            name: restored.name,
          })
        ).status?.restoredFrom,
    );
    assert.equal(restoredFrom.backupURL, scheduled.status!.backupURL);
    assert.equal(restoredFrom.gtidExecuted, scheduled.status!.gtidExecuted, 'the position the backup was taken at');
    const rows = await sqlThroughService(sb, restored, names.masterService(restored.name), 'SELECT COUNT(*) AS n FROM e2e_data.t');
    assert.equal(Number(rows[0]?.n), 1000);
  });

  it('mysqldatabase.yaml and mysqluser.yaml: the database and the account exist on the master; the user logs in through the master Service', async () => {
    await applyExample(sb, 'mysqldatabase.yaml');
    await applyExample(sb, 'mysqluser.yaml');
    for (const [kind, name] of [
      ['MysqlDatabase', 'my-db-shop'],
      ['MysqlUser', 'my-db-shop-user'],
    ] as const) {
      await eventually(
        `${kind} ${name} Ready`,
        async () => {
          const o = await sb.client.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>({
            apiVersion: API_GROUP_VERSION,
            kind,
            namespace: myDb.namespace,
            name,
          });
          return o.status?.conditions?.some((c) => c.type === PROVISION_CONDITION.ready && c.status === CONDITION_STATUS.true);
        },
        60_000,
      );
    }
    const master = names.masterService(myDb.name);
    const [schema] = await sqlThroughService(
      sb,
      myDb,
      master,
      "SELECT DEFAULT_CHARACTER_SET_NAME AS cs, DEFAULT_COLLATION_NAME AS co FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'shop'",
    );
    assert.deepEqual(schema, { cs: 'utf8mb4', co: 'utf8mb4_unicode_ci' });
    await sqlThroughService(sb, myDb, master, 'CREATE TABLE shop.items (id INT PRIMARY KEY, name VARCHAR(20))');

    const shop = { user: 'shop', password: 'change-me' };
    await sqlThroughService(sb, myDb, master, "INSERT INTO shop.items VALUES (1, 'granted')", shop);
    const rows = await sqlThroughService(sb, myDb, master, 'SELECT name FROM shop.items', shop);
    assert.deepEqual(
      rows.map((r) => r.name),
      ['granted'],
    );
    await assert.rejects(sqlThroughService(sb, myDb, master, 'DROP TABLE shop.items', shop), /denied/, 'DROP was not granted');
    await assert.rejects(sqlThroughService(sb, myDb, master, 'SELECT COUNT(*) FROM e2e_data.t', shop), /denied/, 'no grant outside shop');
  });
});
