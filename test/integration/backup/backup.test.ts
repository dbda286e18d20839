// The backup controller against the test API server: a MysqlBackup becomes a Job; the Job's
// command, run here as its pod would run it (its environment resolved as the kubelet does, the
// stand-in take-backup-to writing through src/storage to a file:// folder), with the Job's status
// written as the Job controller would, completes or fails the backup.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test, type TestContext } from 'node:test';
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import type { MysqlBackup } from '../../../src/api/index.ts';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { containerEnv } from '../../support/kubelet-env.ts';
import { kubeEnv } from '../../support/kube-env.ts';
import { eventually } from '../../support/wait.ts';
import { startBackupOperator } from './operator.ts';

type Backup = MysqlBackup & KubeObject;
const BACKUP = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlBackup' };
const JOB = { apiVersion: 'batch/v1', kind: 'Job' };
const STAND_IN = new URL('./take-backup-stand-in.ts', import.meta.url).pathname;
const NEEDS_JOB_STATUS_BY_HAND =
  "writes the Job's status and pod as the Job controller would; on a real cluster that controller runs the Job (with an image that is not there)";

const SECRETS = {
  'my-db-mysql-operated': { BACKUP_USER: 'sys_backups', BACKUP_PASSWORD: 'b4ckup-pw' },
  'my-db-backup': { AWS_ACCESS_KEY_ID: 'key-id', AWS_SECRET_ACCESS_KEY: 's3cr3t' },
};

interface Lab {
  client: KubeClient;
  ns: string;
  folder: string;
  fqdn: (i: number) => string;
}

async function lab(t: TestContext): Promise<Lab> {
  const env = await kubeEnv(t);
  const ns = env.namespace;
  const client = new KubeClient(env.kubeConfig, { userAgent: 'backup-test/1.0' });
  t.after(() => client.close());
  const folder = mkdtempSync(join(tmpdir(), 'backup-ctl-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  for (const [name, data] of Object.entries(SECRETS)) {
    await client.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns }, stringData: data } as KubeObject);
  }
  await client.create({
    apiVersion: 'mysql.presslabs.org/v1alpha1',
    kind: 'MysqlCluster',
    metadata: { name: 'my-db', namespace: ns },
    spec: { replicas: 2, secretName: 'my-db-secret', backupURL: `${pathToFileURL(folder).href}/`, backupSecretName: 'my-db-backup' },
  } as KubeObject);
  const fqdn = (i: number) => `my-db-mysql-${i}.mysql.${ns}`;
  // What the orchestrator controller says of the topology: pod 0 master, pod 1 a healthy replica.
  const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const c = (type: string, on: boolean) => ({ type, status: on ? 'True' : 'False', lastTransitionTime: at });
  await client.patchStatus({ apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster', namespace: ns, name: 'my-db' }, {
    status: {
      nodes: [0, 1].map((i) => ({ name: fqdn(i), conditions: [c('Master', i === 0), c('Replicating', i === 1), c('Lagged', false)] })),
    },
  });
  for (const i of [0, 1]) {
    await client.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `my-db-mysql-${i}`,
        namespace: ns,
        labels: { 'mysql.presslabs.org/cluster': 'my-db', 'app.kubernetes.io/name': 'mysql', 'app.kubernetes.io/managed-by': 'mysql.presslabs.org', role: i === 0 ? 'master' : 'replica', healthy: 'yes' },
      },
      spec: { containers: [{ name: 'mysql', image: 'mysql' }] },
    } as KubeObject);
  }
  const op = await startBackupOperator(env.kubeConfig, ns);
  t.after(() => op.stop());
  return { client, ns, folder, fqdn };
}

const backupRef = (l: Lab, name: string) => ({ ...BACKUP, namespace: l.ns, name });
const getBackup = (l: Lab, name: string) => l.client.get<Backup>(backupRef(l, name));

/**
 * Runs the Job's container as its pod would (the kubelet's environment, the image's entrypoint
 * being the sidecar), then records what the kubelet and the Job controller would: the pod with
 * the container's termination message, and the Job's final condition.
 */
async function runJobPod(l: Lab, job: V1Job & KubeObject, extraEnv: Record<string, string> = {}): Promise<number> {
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
  const env = containerEnv(container, pod, SECRETS);
  const termination = join(l.folder, `${job.metadata!.name}.termination-log`);
  const started = new Date();
  const child = spawn(process.execPath, [STAND_IN, ...container.args!], {
    env: { PATH: process.env.PATH, ...env, ...extraEnv, TERMINATION_LOG_FILE: termination },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.resume();
  const exitCode = await new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
  // FallbackToLogsOnError: the file first; on failure without one, the log's tail.
  const message = existsSync(termination) ? readFileSync(termination, 'utf8') : exitCode !== 0 ? stderr.slice(-2048) : '';
  const finished = new Date();
  await l.client.create(pod);
  await l.client.patchStatus({ apiVersion: 'v1', kind: 'Pod', namespace: l.ns, name: pod.metadata!.name! }, {
    status: {
      phase: exitCode === 0 ? 'Succeeded' : 'Failed',
      containerStatuses: [
        {
          name: container.name,
          image: container.image,
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', message, startedAt: started.toISOString(), finishedAt: finished.toISOString() } },
        },
      ],
    },
  });
  const stamp = finished.toISOString().replace(/\.\d+Z$/, 'Z');
  const done =
    exitCode === 0
      ? { type: 'Complete', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', lastTransitionTime: stamp }
      : { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit', lastTransitionTime: stamp };
  await l.client.patchStatus({ ...JOB, namespace: l.ns, name: job.metadata!.name! }, {
    status: {
      startTime: started.toISOString().replace(/\.\d+Z$/, 'Z'),
      ...(exitCode === 0 ? { succeeded: 1, completionTime: stamp } : { failed: 1 }),
      conditions: [done],
    },
  });
  return exitCode;
}

async function createBackup(l: Lab, name: string, spec: Partial<Backup['spec']> = {}): Promise<V1Job & KubeObject> {
  await l.client.create({ ...BACKUP, metadata: { name, namespace: l.ns }, spec: { clusterName: 'my-db', ...spec } } as KubeObject);
  return eventually(`Job ${name}-backup`, () => l.client.getIfExists<V1Job & KubeObject>({ ...JOB, namespace: l.ns, name: `${name}-backup` }));
}

test('a MysqlBackup becomes a Job from the healthy replica; run, it completes the backup, whose status says where, how big, when, from where and at which position', async (t) => {
  if (process.env.TEST_KUBECONFIG) return t.skip(NEEDS_JOB_STATUS_BY_HAND);
  const l = await lab(t);
  const job = await createBackup(l, 'b1');
  const url = `${pathToFileURL(l.folder).href}/b1.xbackup.gz`;
  assert.deepEqual(job.spec!.template.spec!.containers[0]!.args, ['take-backup-to', l.fqdn(1), url]);
  assert.deepEqual(job.metadata!.ownerReferences!.map((o) => [o.kind, o.name, o.controller]), [['MysqlBackup', 'b1', true]]);
  const running = await getBackup(l, 'b1');
  assert.equal(running.spec.backupURL, url, 'the resolved URL is persisted in spec, as the anchor did');
  assert.equal(running.spec.backupSecretName, 'my-db-backup');
  const downtimed = running.status!.conditions!.find((c) => c.type === 'ReplicaDowntimed')!;
  assert.deepEqual([downtimed.status, downtimed.reason], ['False', 'OrchestratorUnreachable'], 'Orchestrator down: the backup proceeds and says so');

  assert.equal(await runJobPod(l, job), 0);
  const done = await eventually('b1 completed', async () => {
    const b = await getBackup(l, 'b1');
    return b.status?.completed === true && b;
  });
  const s = done.status!;
  assert.deepEqual([s.backupURL, s.sizeBytes, s.sourceNode, s.binlogFile, s.binlogPosition, s.gtidExecuted], [url, statSync(new URL(url)).size, l.fqdn(1), 'mysql-bin.000002', 4711, '0-101-17']);
  assert.ok(s.startTime && s.completionTime && s.startTime <= s.completionTime, `${s.startTime} .. ${s.completionTime}`);
  assert.deepEqual(s.conditions!.filter((c) => c.type !== 'ReplicaDowntimed').map((c) => [c.type, c.status, c.reason]), [
    ['Complete', 'True', 'CompletionsReached'],
    ['Failed', 'False', 'CompletionsReached'],
  ]);
});

test('a backup whose upload fails ends Failed with the reason, not completed, and leaves no object', async (t) => {
  if (process.env.TEST_KUBECONFIG) return t.skip(NEEDS_JOB_STATUS_BY_HAND);
  const l = await lab(t);
  const job = await createBackup(l, 'b2');
  assert.equal(await runJobPod(l, job, { STAND_IN_FAIL: 'AccessDenied' }), 1);
  const failed = await eventually('b2 Failed', async () => {
    const b = await getBackup(l, 'b2');
    return b.status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True') && b;
  });
  assert.equal(failed.status!.completed, false);
  assert.match(failed.status!.conditions!.find((c) => c.type === 'Failed')!.message!, /backoff limit; backup container: upload to .*b2\.xbackup\.gz failed: AccessDenied/);
  assert.equal(failed.status!.sizeBytes, undefined);
  assert.equal(existsSync(join(l.folder, 'b2.xbackup.gz')), false);
});

test('remoteDeletePolicy delete: deleting the MysqlBackup deletes its stored object, then the MysqlBackup goes', async (t) => {
  if (process.env.TEST_KUBECONFIG) return t.skip(NEEDS_JOB_STATUS_BY_HAND);
  const l = await lab(t);
  const job = await createBackup(l, 'b3', { remoteDeletePolicy: 'delete' });
  await eventually('the cleanup finalizer', async () => (await getBackup(l, 'b3')).metadata?.finalizers?.includes('backups.mysql.presslabs.org/remote-storage-cleanup'));
  await runJobPod(l, job);
  await eventually('b3 completed', async () => (await getBackup(l, 'b3')).status?.completed === true);
  const object = join(l.folder, 'b3.xbackup.gz');
  assert.ok(existsSync(object));
  await l.client.delete(backupRef(l, 'b3'));
  await eventually('b3 gone', async () => !(await l.client.getIfExists(backupRef(l, 'b3'))));
  assert.equal(existsSync(object), false);
});

test('a MysqlBackup of a cluster that does not exist makes no Job; Failed names spec.clusterName', async (t) => {
  const l = await lab(t);
  await l.client.create({ ...BACKUP, metadata: { name: 'b4', namespace: l.ns }, spec: { clusterName: 'nope' } } as KubeObject);
  const failed = await eventually('b4 refused', async () => (await getBackup(l, 'b4')).status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True'));
  assert.equal(failed.reason, 'ClusterNotFound');
  assert.match(failed.message!, /^spec\.clusterName: MysqlCluster nope not found/);
  assert.equal(await l.client.getIfExists({ ...JOB, namespace: l.ns, name: 'b4-backup' }), undefined);
});
