// The backup controller against the test API server, with real parts behind the Job: MariaDB
// with mariabackup, the sidecar serving /xbackup, storage's file:// backend, and a real S3 server
// (s3rver) where S3 itself is under test (down or refusing mid-upload). A MysqlBackup becomes a Job; the Job's
// container, run here as its pod would run it (the real sidecar's take-backup-to, its
// environment resolved as the kubelet does, the pod FQDN resolved to the source's sidecar as the
// pod network's DNS would), with the pod and Job status written as the kubelet and the Job
// controller would, completes or fails the backup.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test, type TestContext } from 'node:test';
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import type { MysqlBackup } from '../../../src/api/index.ts';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { storageFor, type BackupStorage } from '../../../src/storage/index.ts';
import { containerEnv } from '../../../sandbox/kubelet/env.ts';
import { kubeEnv } from '../../support/kube-env.ts';
import { startMariaDB, type MariaDBServer } from '../../support/mariadb.ts';
import { startAzurite, startGcsServer } from '../../support/cloud-storage.ts';
import { s3DownMidUpload, startS3 } from '../../support/s3.ts';
import { startS3Server } from '../../../sandbox/s3.ts';
import { formCluster, watchWithStandIn, type StandInWatch } from '../../support/orchestrator-stand-in.ts';
import { rbacAcrossTests } from '../../support/rbac.ts';
import { eventually } from '../../support/wait.ts';
import {
  BACKUP as BACKUP_IDENTITY,
  SIDECAR_MAIN,
  fileCleanups,
  fillData,
  startServeSidecar,
  type RunningSidecar,
} from '../sidecar/support.ts';
import { BACKUP_OPERATOR_AGENT, startBackupOperator } from './operator.ts';

/** The chart's RBAC rules against the requests of this file's tests (the last test checks). */
const rbac = rbacAcrossTests(BACKUP_OPERATOR_AGENT, ['backup controller']);

type Backup = MysqlBackup & KubeObject;
const BACKUP = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlBackup' };
const JOB = { apiVersion: 'batch/v1', kind: 'Job' };
const NEEDS_JOB_STATUS_BY_HAND =
  "writes the Job's status and pod as the Job controller would; on a real cluster that controller runs the Job (with an image that is not there)";

const suite = fileCleanups();
/** The folder backups go to, as a file:// URL ending in `/`. */
let bucket = 's3://bucket/';
let storage: BackupStorage;
let sourceSidecar: RunningSidecar;
let sourceGtid = '';
let secrets: Record<string, Record<string, string>>;

// One source server and its sidecar for the file: starting MariaDB is the slow part.
before(async () => {
  if (process.env.TEST_KUBECONFIG) return;
  const folder = mkdtempSync(join(tmpdir(), 'backup-ctl-store-'));
  suite.after(() => rmSync(folder, { recursive: true, force: true }));
  bucket = `${pathToFileURL(folder).href}/`;
  storage = storageFor(bucket, {});
  const source = await startMariaDB({ name: 'backup-source', systemUsers: true, t: suite });
  await (await source.node()).setReadOnly(false);
  await fillData(source, 2);
  sourceGtid = String((await source.sql('SELECT @@gtid_binlog_pos AS g'))[0]?.g);
  sourceSidecar = await startServeSidecar(suite, source);
  secrets = {
    'my-db-mysql-operated': { BACKUP_USER: BACKUP_IDENTITY.user, BACKUP_PASSWORD: BACKUP_IDENTITY.password },
    // The storage Secret's keys reach the container (file:// reads none of them).
    'my-db-backup': { AWS_ACCESS_KEY_ID: 'key-id', AWS_SECRET_ACCESS_KEY: 'not-used-by-file' },
  };
});

interface Lab {
  client: KubeClient;
  ns: string;
  /** Termination logs of the Job pods run here. */
  folder: string;
  fqdn: (i: number) => string;
  /** The sidecar the Job's pod reaches for the pod FQDNs (the pod network's DNS). */
  sidecarUrl: string;
  /** The Secrets of the namespace, as the kubelet reads them for the Job's pod. */
  secrets: Record<string, Record<string, string>>;
}

interface LabOptions {
  /** Runs once the namespace is known, before the operator starts; returns Orchestrator's URL and the sidecar pods 0 and 1 serve. */
  orchestrator?: (ns: string, fqdn: (i: number) => string) => Promise<{ url: string; sidecarUrl: string }>;
  /** More Secrets (a storage Secret of the test's own). */
  secrets?: Record<string, Record<string, string>>;
}

async function lab(t: TestContext, opts: LabOptions = {}): Promise<Lab> {
  const env = await kubeEnv(t);
  t.after(() => rbac.record(env.server));
  const ns = env.namespace;
  const client = new KubeClient(env.kubeConfig, { userAgent: 'backup-test/1.0' });
  t.after(() => client.close());
  const folder = mkdtempSync(join(tmpdir(), 'backup-ctl-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const all = { ...secrets, ...opts.secrets };
  for (const [name, data] of Object.entries(all)) {
    await client.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns }, stringData: data } as KubeObject);
  }
  await client.create({
    apiVersion: 'mysql.presslabs.org/v1alpha1',
    kind: 'MysqlCluster',
    metadata: { name: 'my-db', namespace: ns },
    spec: { replicas: 2, secretName: 'my-db-secret', backupURL: `${bucket}my-db/`, backupSecretName: 'my-db-backup' },
  } as KubeObject);
  const fqdn = (i: number) => `my-db-mysql-${i}.mysql.${ns}`;
  // What the orchestrator controller says of the topology: pod 0 master, pod 1 a healthy replica.
  const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const c = (type: string, on: boolean) => ({ type, status: on ? 'True' : 'False', lastTransitionTime: at });
  await client.patchStatus(
    { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster', namespace: ns, name: 'my-db' },
    {
      status: {
        nodes: [0, 1].map((i) => ({ name: fqdn(i), conditions: [c('Master', i === 0), c('Replicating', i === 1), c('Lagged', false)] })),
      },
    },
  );
  for (const i of [0, 1]) {
    await client.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `my-db-mysql-${i}`,
        namespace: ns,
        labels: {
          'mysql.presslabs.org/cluster': 'my-db',
          'app.kubernetes.io/name': 'mysql',
          'app.kubernetes.io/managed-by': 'mysql.presslabs.org',
          role: i === 0 ? 'master' : 'replica',
          healthy: 'yes',
        },
      },
      spec: { containers: [{ name: 'mysql', image: 'mysql' }] },
    } as KubeObject);
  }
  const orc = await opts.orchestrator?.(ns, fqdn);
  const op = await startBackupOperator(env.kubeConfig, ns, undefined, orc ? { ORCHESTRATOR_URL: orc.url } : {});
  t.after(() => op.stop());
  return { client, ns, folder, fqdn, sidecarUrl: orc?.sidecarUrl ?? sourceSidecar?.url ?? '', secrets: all };
}

/**
 * Pod 0 the master, pod 1 its replica (real MariaDB servers), known to the Orchestrator stand-in
 * by their pod FQDNs (its hosts table stands for the cluster's DNS); the Job streams from pod 1's
 * sidecar. `fill` runs on the master once replication runs.
 */
function standInPair(t: TestContext, name: string, fill?: (master: MariaDBServer) => Promise<void>) {
  const pair = { servers: [] as MariaDBServer[], orc: undefined as StandInWatch | undefined };
  const orchestrator: LabOptions['orchestrator'] = async (ns, fqdn) => {
    pair.servers = await Promise.all(
      [0, 1].map((i) => startMariaDB({ name: `${name}-pod${i}`, reportHost: fqdn(i), systemUsers: true, t })),
    );
    await formCluster(pair.servers);
    await fill?.(pair.servers[0]!);
    pair.orc = await watchWithStandIn(t, pair.servers, `my-db.${ns}`, { byReportHost: true });
    const sidecar = await startServeSidecar(t, pair.servers[1]!);
    return { url: `${pair.orc.standIn.url}/api`, sidecarUrl: sidecar.url };
  };
  const instance = async (host: string) =>
    (await pair.orc!.get(`/api/instance/${host}/3306`)).body as { IsDowntimed: boolean; DowntimeOwner: string; DowntimeReason: string };
  return { orchestrator, instance, pair };
}

const backupRef = (l: Lab, name: string) => ({ ...BACKUP, namespace: l.ns, name });
const getBackup = (l: Lab, name: string) => l.client.get<Backup>(backupRef(l, name));

/**
 * Runs the Job's container as its pod would (the kubelet's environment, the sidecar image's
 * entrypoint, the pod FQDN reaching the source's sidecar), then records what the kubelet and the
 * Job controller would: the pod with the container's termination message, and the Job's final
 * condition.
 */
async function runJobPod(l: Lab, job: V1Job & KubeObject): Promise<number> {
  const spec = job.spec!.template.spec!;
  const container = spec.containers[0]!;
  const pod: V1Pod & KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${job.metadata!.name}-x1`,
      namespace: l.ns,
      labels: job.spec!.template.metadata?.labels,
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: job.metadata!.name!, uid: job.metadata!.uid!, controller: true }],
    },
    spec,
  };
  const env = containerEnv(container, pod, { secrets: l.secrets });
  // The kubelet's /dev/termination-log: the sidecar's path override, an empty file as the kubelet makes it.
  const termination = join(l.folder, `${job.metadata!.name}.termination-log`);
  writeFileSync(termination, '');
  const [command, host, url] = container.args!;
  const args = [command!, host === l.fqdn(1) || host === l.fqdn(0) ? l.sidecarUrl : host!, url!];
  const started = new Date();
  const child = spawn(process.execPath, [SIDECAR_MAIN, ...args], {
    env: { PATH: process.env.PATH, ...env, SIDECAR_TERMINATION_LOG: termination },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.resume();
  // As the Job's activeDeadlineSeconds would: a hung container is killed, not waited for.
  const deadline = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const exitCode = await new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 137)));
  clearTimeout(deadline);
  // FallbackToLogsOnError: the file first; on failure without one, the log's tail.
  const written = readFileSync(termination, 'utf8');
  const message = written || (exitCode !== 0 ? stderr.slice(-2048) : '');
  const finished = new Date();
  await l.client.create(pod);
  await l.client.patchStatus(
    { apiVersion: 'v1', kind: 'Pod', namespace: l.ns, name: pod.metadata!.name! },
    {
      status: {
        phase: exitCode === 0 ? 'Succeeded' : 'Failed',
        containerStatuses: [
          {
            name: container.name,
            image: container.image,
            imageID: '',
            ready: false,
            restartCount: 0,
            state: {
              terminated: {
                exitCode,
                reason: exitCode === 0 ? 'Completed' : 'Error',
                message,
                startedAt: started.toISOString(),
                finishedAt: finished.toISOString(),
              },
            },
          },
        ],
      },
    },
  );
  const stamp = finished.toISOString().replace(/\.\d+Z$/, 'Z');
  const done =
    exitCode === 0
      ? {
          type: 'Complete',
          status: 'True',
          reason: 'CompletionsReached',
          message: 'Reached expected number of succeeded pods',
          lastTransitionTime: stamp,
        }
      : {
          type: 'Failed',
          status: 'True',
          reason: 'BackoffLimitExceeded',
          message: 'Job has reached the specified backoff limit',
          lastTransitionTime: stamp,
        };
  await l.client.patchStatus(
    { ...JOB, namespace: l.ns, name: job.metadata!.name! },
    {
      status: {
        startTime: started.toISOString().replace(/\.\d+Z$/, 'Z'),
        ...(exitCode === 0 ? { succeeded: 1, completionTime: stamp } : { failed: 1 }),
        conditions: [done],
      },
    },
  );
  return exitCode;
}

async function createBackup(l: Lab, name: string, spec: Partial<Backup['spec']> = {}): Promise<V1Job & KubeObject> {
  await l.client.create({ ...BACKUP, metadata: { name, namespace: l.ns }, spec: { clusterName: 'my-db', ...spec } } as KubeObject);
  return eventually(`Job ${name}-backup`, () =>
    l.client.getIfExists<V1Job & KubeObject>({ ...JOB, namespace: l.ns, name: `${name}-backup` }),
  );
}

test('a MysqlBackup becomes a Job from the healthy replica; run, it completes the backup, whose status says where, how big, when, from where and at which position', async (t) => {
  if (process.env.TEST_KUBECONFIG) return t.skip(NEEDS_JOB_STATUS_BY_HAND);
  const l = await lab(t);
  const job = await createBackup(l, 'b1');
  const url = `${bucket}my-db/b1.xbackup.gz`;
  assert.deepEqual(job.spec!.template.spec!.containers[0]!.args, ['take-backup-to', l.fqdn(1), url]);
  assert.deepEqual(
    job.metadata!.ownerReferences!.map((o) => [o.kind, o.name, o.controller]),
    [['MysqlBackup', 'b1', true]],
  );
  const running = await getBackup(l, 'b1');
  assert.equal(running.spec.backupURL, url, 'the resolved URL is persisted in spec, as the anchor did');
  assert.equal(running.spec.backupSecretName, 'my-db-backup');
  const downtimed = running.status!.conditions!.find((c) => c.type === 'ReplicaDowntimed')!;
  assert.deepEqual(
    [downtimed.status, downtimed.reason],
    ['False', 'OrchestratorUnreachable'],
    'Orchestrator down: the backup proceeds and says so',
  );

  assert.equal(await runJobPod(l, job), 0);
  const done = await eventually('b1 completed', async () => {
    const b = await getBackup(l, 'b1');
    return b.status?.completed === true && b;
  });
  const s = done.status!;
  const [stored] = await storage.list(url);
  assert.deepEqual([s.backupURL, s.sizeBytes, s.sourceNode, s.gtidExecuted], [url, stored?.bytes, l.fqdn(1), sourceGtid]);
  assert.match(s.binlogFile ?? '', /^mysql-bin\.\d+$/);
  assert.ok((s.binlogPosition ?? 0) > 0);
  assert.ok(s.startTime && s.completionTime && s.startTime <= s.completionTime, `${s.startTime} .. ${s.completionTime}`);
  assert.deepEqual(
    s.conditions!.filter((c) => c.type !== 'ReplicaDowntimed').map((c) => [c.type, c.status, c.reason]),
    [
      ['Complete', 'True', 'CompletionsReached'],
      ['Failed', 'False', 'CompletionsReached'],
    ],
  );
});

test('Orchestrator downtimes the replica a backup streams from while its Job runs, and releases it when the Job ends', async (t) => {
  if (process.env.TEST_KUBECONFIG) return t.skip(NEEDS_JOB_STATUS_BY_HAND);
  const pair = standInPair(t, 'downtime');
  const l = await lab(t, { orchestrator: pair.orchestrator });
  const instance = () => pair.instance(l.fqdn(1));
  assert.equal((await instance()).IsDowntimed, false);
  const job = await createBackup(l, 'b5');
  assert.equal(job.spec!.template.spec!.containers[0]!.args![1], l.fqdn(1));
  // Asked before the Job is created: downtimed while it runs.
  const during = await instance();
  assert.deepEqual([during.IsDowntimed, during.DowntimeOwner, during.DowntimeReason], [true, 'mysql-operator', `backup ${l.ns}/b5`]);
  const running = (await getBackup(l, 'b5')).status!.conditions!.find((c) => c.type === 'ReplicaDowntimed')!;
  assert.deepEqual([running.status, running.reason], ['True', 'DowntimeBegun']);

  assert.equal(await runJobPod(l, job), 0);
  await eventually('b5 completed', async () => (await getBackup(l, 'b5')).status?.completed === true);
  await eventually('pod 1 released', async () => (await instance()).IsDowntimed === false);
  const after = (await getBackup(l, 'b5')).status!.conditions!.find((c) => c.type === 'ReplicaDowntimed')!;
  assert.deepEqual([after.status, after.reason], ['False', 'DowntimeEnded']);
});

test('S3 down or credentials refused mid-upload: the backup ends Failed with the reason, nothing is left at the final name or elsewhere, and the replica it streamed from is released and replicates as before', async (t) => {
  if (process.env.TEST_KUBECONFIG) return t.skip(NEEDS_JOB_STATUS_BY_HAND);
  const s3 = await startS3({ t });
  // Random bytes do not compress: the stream passes the first 8 MiB part, so the multipart
  // upload is under way while mariabackup still streams.
  const p = standInPair(t, 'broken-upload', async (master) => {
    await master.sql('CREATE TABLE app.noise (id INT AUTO_INCREMENT PRIMARY KEY, b BLOB NOT NULL)');
    for (let i = 0; i < 12; i++) await master.sql('INSERT INTO app.noise (b) SELECT RANDOM_BYTES(1024) FROM app.seq_1_to_1024');
  });
  // S3 goes down 1 MiB into the upload's requests.
  const down = await s3DownMidUpload(s3, 1 << 20, t);
  // s3rver checks the access key id, not signatures: any secret passes, and is looked for in what the backup says.
  const secret = 'job-secret-5e0c7b';
  const l = await lab(t, {
    orchestrator: p.orchestrator,
    secrets: {
      's3-refusing': { ...(s3.env as Record<string, string>), AWS_ACCESS_KEY_ID: 'NOT-A-KEY', AWS_SECRET_ACCESS_KEY: secret },
      's3-going-down': { ...(down.env as Record<string, string>), AWS_SECRET_ACCESS_KEY: secret },
    },
  });
  const [master, replica] = p.pair.servers as [MariaDBServer, MariaDBServer];
  const replicaNode = await replica.node();
  const caughtUp = async (label: string): Promise<void> => {
    const want = String((await master.sql('SELECT @@gtid_binlog_pos AS g'))[0]?.g);
    await eventually(`${label}: the replica at ${want}, both threads running`, async () => {
      const r = await replicaNode.replicationStatus();
      return r?.ioRunning === true && r.sqlRunning === true && r.gtidExecuted === want && r.lastIoErrno === 0 && r.lastSqlErrno === 0;
    });
  };
  await caughtUp('before');
  const folder = `s3://${s3.bucket}/my-db/`;

  // Refused first: the S3 server is still up to refuse.
  for (const c of [
    { name: 'b6', secret: 's3-refusing', why: /b6\.xbackup\.gz: access denied/ },
    { name: 'b7', secret: 's3-going-down', why: /b7\.xbackup\.gz: the storage endpoint is unreachable/ },
  ]) {
    const job = await createBackup(l, c.name, { backupURL: folder, backupSecretName: c.secret });
    assert.equal(job.spec!.template.spec!.containers[0]!.args![1], l.fqdn(1), `${c.name}: from the replica`);
    assert.equal((await p.instance(l.fqdn(1))).IsDowntimed, true, `${c.name}: downtimed while it runs`);
    assert.notEqual(await runJobPod(l, job), 0);
    const failed = await eventually(`${c.name} Failed`, async () => {
      const b = await getBackup(l, c.name);
      return b.status?.conditions?.find((x) => x.type === 'Failed' && x.status === 'True') && b;
    });
    assert.equal(failed.status!.completed, false);
    const message = failed.status!.conditions!.find((x) => x.type === 'Failed')!.message!;
    assert.match(message, c.why);
    assert.ok(!message.includes(secret), `${c.name}: no secret in the condition`);
    await eventually(`${c.name}: the replica released`, async () => (await p.instance(l.fqdn(1))).IsDowntimed === false);
    const released = (await getBackup(l, c.name)).status!.conditions!.find((x) => x.type === 'ReplicaDowntimed')!;
    assert.deepEqual([released.status, released.reason], ['False', 'DowntimeEnded']);
    await master.sql(`INSERT INTO app.t VALUES (${c.name === 'b6' ? 6 : 7})`);
    await caughtUp(c.name);
  }
  await down.cut;

  // S3 back on the same data: no object at either final name, nor under another name. The
  // refused upload never began; the one S3 went down under is an incomplete multipart upload,
  // invisible to GET and LIST, that its abort could not reach (a bucket lifecycle rule removes
  // those: docs/backups.md, non-goals).
  const back = await startS3Server({ host: '127.0.0.1', bucket: s3.bucket, dir: s3.dir });
  t.after(() => back.stop());
  assert.deepEqual(await storageFor(folder, back.env).list(folder), []);
  const files = readdirSync(s3.dir, { recursive: true }).map(String);
  assert.deepEqual(
    files.filter((f) => /b[67]\.xbackup/.test(f)),
    [],
    'nothing stored under a name of its own',
  );
  const incomplete = files.filter((f) => f.endsWith('/key')).map((f) => readFileSync(join(s3.dir, f), 'utf8'));
  assert.deepEqual(incomplete, ['my-db/b7.xbackup.gz'], 'only the upload S3 went down under is left incomplete');
});

test('a backup whose upload fails ends Failed with the reason, not completed, and leaves no object', async (t) => {
  if (process.env.TEST_KUBECONFIG) return t.skip(NEEDS_JOB_STATUS_BY_HAND);
  const l = await lab(t);
  // A folder that cannot be made (a file stands where it would go): the upload fails as a
  // refused write would, once the stream from the source has begun.
  writeFileSync(join(l.folder, 'blocker'), '');
  const job = await createBackup(l, 'b2', { backupURL: `${pathToFileURL(l.folder).href}/blocker/my-db/` });
  assert.notEqual(await runJobPod(l, job), 0);
  const failed = await eventually('b2 Failed', async () => {
    const b = await getBackup(l, 'b2');
    return b.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True') && b;
  });
  assert.equal(failed.status!.completed, false);
  const message = failed.status!.conditions!.find((c) => c.type === 'Failed')!.message!;
  assert.match(message, /^Job has reached the specified backoff limit; backup container: .*blocker\/my-db\/b2\.xbackup\.gz/);
  assert.equal(failed.status!.sizeBytes, undefined);
  assert.deepEqual(
    readdirSync(l.folder, { recursive: true }).filter((f) => String(f).includes('b2.xbackup')),
    [],
    'no object, no temporary one',
  );
});

test('remoteDeletePolicy delete: deleting the MysqlBackup deletes its stored object, then the MysqlBackup goes', async (t) => {
  if (process.env.TEST_KUBECONFIG) return t.skip(NEEDS_JOB_STATUS_BY_HAND);
  const l = await lab(t);
  const job = await createBackup(l, 'b3', { remoteDeletePolicy: 'delete' });
  await eventually('the cleanup finalizer', async () =>
    (await getBackup(l, 'b3')).metadata?.finalizers?.includes('backups.mysql.presslabs.org/remote-storage-cleanup'),
  );
  await runJobPod(l, job);
  await eventually('b3 completed', async () => (await getBackup(l, 'b3')).status?.completed === true);
  const object = `${bucket}my-db/b3.xbackup.gz`;
  assert.equal((await storage.list(object)).length, 1);
  await l.client.delete(backupRef(l, 'b3'));
  await eventually('b3 gone', async () => !(await l.client.getIfExists(backupRef(l, 'b3'))));
  assert.deepEqual(await storage.list(object), []);
});

for (const cloud of ['gs', 'azure'] as const) {
  test(`${cloud}:// with the anchor's Secret keys: the backup completes into the bucket, and remoteDeletePolicy delete removes it there (retention's delete)`, async (t) => {
    if (process.env.TEST_KUBECONFIG) return t.skip(NEEDS_JOB_STATUS_BY_HAND);
    const server = cloud === 'gs' ? await startGcsServer({ t }) : await startAzurite({ t });
    const keys = server.env as Record<string, string>;
    const l = await lab(t, { secrets: { 'cloud-backup': keys } });
    const folder = `${cloud}://${server.bucket}/my-db/`;
    const job = await createBackup(l, 'c1', { backupURL: folder, backupSecretName: 'cloud-backup', remoteDeletePolicy: 'delete' });
    assert.equal(await runJobPod(l, job), 0);
    const done = await eventually('c1 completed', async () => {
      const b = await getBackup(l, 'c1');
      return b.status?.completed === true && b;
    });
    const object = `${folder}c1.xbackup.gz`;
    assert.equal(done.status!.backupURL, object);
    const cloudStorage = storageFor(folder, keys);
    assert.deepEqual(
      (await cloudStorage.list(folder)).map((o) => [o.url, o.bytes]),
      [[object, done.status!.sizeBytes]],
    );
    await l.client.delete(backupRef(l, 'c1'));
    await eventually('c1 gone', async () => !(await l.client.getIfExists(backupRef(l, 'c1'))));
    assert.deepEqual(await cloudStorage.list(folder), []);
  });
}

test('a malformed GCS_SERVICE_ACCOUNT_JSON_KEY fails the backup with a condition naming the key, not quoting it', async (t) => {
  if (process.env.TEST_KUBECONFIG) return t.skip(NEEDS_JOB_STATUS_BY_HAND);
  const keyText = '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0';
  const l = await lab(t, { secrets: { 'bad-gcs': { GCS_SERVICE_ACCOUNT_JSON_KEY: keyText } } });
  const job = await createBackup(l, 'c2', { backupURL: 'gs://backups/my-db/', backupSecretName: 'bad-gcs' });
  assert.notEqual(await runJobPod(l, job), 0);
  const failed = await eventually('c2 Failed', async () => {
    const b = await getBackup(l, 'c2');
    return b.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
  });
  assert.match(failed.message!, /GCS_SERVICE_ACCOUNT_JSON_KEY is not valid JSON/);
  assert.ok(!failed.message!.includes('MIIEvQIBADANBgkqhkiG9w0'), failed.message);
});

test('a MysqlBackup of a cluster that does not exist makes no Job; Failed names spec.clusterName', async (t) => {
  const l = await lab(t);
  await l.client.create({ ...BACKUP, metadata: { name: 'b4', namespace: l.ns }, spec: { clusterName: 'nope' } } as KubeObject);
  const failed = await eventually('b4 refused', async () =>
    (await getBackup(l, 'b4')).status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True'),
  );
  assert.equal(failed.reason, 'ClusterNotFound');
  assert.match(failed.message!, /^spec\.clusterName: MysqlCluster nope not found/);
  assert.equal(await l.client.getIfExists({ ...JOB, namespace: l.ns, name: 'b4-backup' }), undefined);
});

test("the chart's RBAC rules allow every request of the tests above, and the backup controller uses each of its grants", (t) =>
  rbac.check(t));
