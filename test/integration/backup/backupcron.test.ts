// The backupcron controller against the test API (or TEST_KUBECONFIG): ticks fired by the test
// (a clock it controls) create scheduled MysqlBackups, the history limit prunes, an invalid
// schedule is a condition, and an operator restart neither loses the schedule nor doubles a tick.
// Only the backupcron controller runs: the test finishes the backups as the backup controller would.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { MysqlBackup, MysqlCluster } from '../../../src/api/index.ts';
import { scheduledBackupName } from '../../../src/controllers/backupcron/decide-tick.ts';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { kubeEnv, type KubeEnv } from '../../support/kube-env.ts';
import { rbacAcrossTests } from '../../support/rbac.ts';
import { eventually } from '../../support/wait.ts';
import { BACKUP_OPERATOR_AGENT, startBackupOperator, type RunningOperator } from './operator.ts';

/** The chart's RBAC rules against the requests of this file's tests (the last test checks). */
const rbac = rbacAcrossTests(BACKUP_OPERATOR_AGENT, ['backupcron controller']);

const CLUSTER = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster' };
const BACKUP = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlBackup' };
const HOURLY = '0 0 * * * *';
const tick = (hour: number) => new Date(Date.UTC(2026, 0, 1, hour, 0, 0));
const nameAt = (hour: number) => `my-db-auto-2026-01-01t${String(hour).padStart(2, '0')}-00-00`;

interface Lab {
  env: KubeEnv;
  client: KubeClient;
  ns: string;
}

async function lab(t: TestContext, spec: Partial<MysqlCluster['spec']>): Promise<Lab> {
  const env = await kubeEnv(t);
  t.after(() => rbac.record(env.server));
  const client = new KubeClient(env.kubeConfig, { userAgent: 'backupcron-test/1.0' });
  t.after(() => client.close());
  await client.create({
    ...CLUSTER,
    metadata: { name: 'my-db', namespace: env.namespace },
    spec: { secretName: 'my-db-secret', backupURL: 's3://bucket/my-db/', ...spec },
  } as KubeObject);
  return { env, client, ns: env.namespace };
}

async function operator(t: TestContext, l: Lab, now?: () => Date): Promise<RunningOperator> {
  const op = await startBackupOperator(l.env.kubeConfig, l.ns, { backupCron: true }, {}, now);
  t.after(() => op.stop());
  return op;
}

const scheduleCondition = async (l: Lab) =>
  (await l.client.get<MysqlCluster & KubeObject>({ ...CLUSTER, namespace: l.ns, name: 'my-db' })).status?.conditions?.find(
    (c) => c.type === 'BackupSchedule',
  );

async function backupNames(l: Lab): Promise<string[]> {
  const list = await l.client.list<MysqlBackup & KubeObject>(BACKUP, {
    namespace: l.ns,
    labelSelector: { recurrent: 'true', cluster: 'my-db' },
  });
  return list.items.map((b) => b.metadata!.name!).sort();
}

/** Finishes a backup as the backup controller does when its Job completed. */
async function complete(l: Lab, name: string): Promise<void> {
  const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  await l.client.patchStatus(
    { ...BACKUP, namespace: l.ns, name },
    {
      status: {
        completed: true,
        completionTime: at,
        conditions: [{ type: 'Complete', status: 'True', reason: 'CompletionsReached', lastTransitionTime: at }],
      },
    },
  );
}

test('ticks create the scheduled backups, with the anchor labels, and the history limit keeps the newest two', async (t) => {
  const l = await lab(t, { backupSchedule: HOURLY, backupScheduleJobsHistoryLimit: 2 });
  const op = await operator(t, l);
  await eventually('the schedule to run', () => op.ticker.active.size === 1);
  const scheduled = await eventually(
    'BackupSchedule True',
    async () => (await scheduleCondition(l))?.status === 'True' && (await scheduleCondition(l)),
  );
  assert.equal(scheduled!.reason, 'BackupScheduled');
  for (const hour of [1, 2, 3]) {
    await op.ticker.fire(tick(hour));
    const b = await l.client.get<MysqlBackup & KubeObject>({ ...BACKUP, namespace: l.ns, name: nameAt(hour) });
    assert.deepEqual(b.metadata!.labels, { recurrent: 'true', cluster: 'my-db' });
    assert.equal(b.spec.clusterName, 'my-db');
    await complete(l, nameAt(hour));
  }
  await eventually('the oldest pruned', async () => JSON.stringify(await backupNames(l)) === JSON.stringify([nameAt(2), nameAt(3)]));
});

test('a tick while a scheduled backup still runs is skipped; once it ended (even Failed), the next one is made', async (t) => {
  const l = await lab(t, { backupSchedule: HOURLY });
  const op = await operator(t, l);
  await eventually('the schedule to run', () => op.ticker.active.size === 1);
  await op.ticker.fire(tick(1));
  await op.ticker.fire(tick(2));
  assert.deepEqual(await backupNames(l), [nameAt(1)]);
  const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  await l.client.patchStatus(
    { ...BACKUP, namespace: l.ns, name: nameAt(1) },
    {
      status: {
        completed: false,
        completionTime: at,
        conditions: [{ type: 'Failed', status: 'True', reason: 'DeadlineExceeded', lastTransitionTime: at }],
      },
    },
  );
  await op.ticker.fire(tick(3));
  assert.deepEqual(await backupNames(l), [nameAt(1), nameAt(3)]);
});

test('an invalid schedule is a condition naming the field and the parse error, not a crash; fixed, it runs', async (t) => {
  const l = await lab(t, { backupSchedule: '0 0 25 * * *' });
  const op = await operator(t, l);
  const refused = await eventually(
    'BackupSchedule False',
    async () => (await scheduleCondition(l))?.status === 'False' && (await scheduleCondition(l)),
  );
  assert.equal(refused!.reason, 'InvalidBackupSchedule');
  assert.equal(refused!.message, 'spec.backupSchedule "0 0 25 * * *": hour: 25 is a invalid expression for hour');
  assert.equal(op.ticker.active.size, 0);
  await l.client.patch({ ...CLUSTER, namespace: l.ns, name: 'my-db' }, { spec: { backupSchedule: '@daily' } });
  await eventually('BackupSchedule True', async () => (await scheduleCondition(l))?.status === 'True');
  assert.equal(op.ticker.active.size, 1);
  assert.deepEqual([...op.ticker.active][0]!.schedule, { kind: 'cron', pattern: '0 0 0 * * *', timezone: undefined });
});

/** The Warning Events on the cluster, as [reason, message]. */
async function clusterWarnings(l: Lab): Promise<string[][]> {
  const list = await l.client.list<KubeObject & { type?: string; reason?: string; message?: string; involvedObject?: { name?: string } }>(
    { apiVersion: 'v1', kind: 'Event' },
    { namespace: l.ns },
  );
  return list.items.filter((e) => e.type === 'Warning' && e.involvedObject?.name === 'my-db').map((e) => [e.reason ?? '', e.message ?? '']);
}

test('a backupURL no backend takes, or a missing backupSecretName Secret, stops the schedule at once with a condition and an Event naming the field', async (t) => {
  const l = await lab(t, { backupSchedule: '@daily', backupURL: 'ftp://backups.example.com/my-db/' });
  const op = await operator(t, l);
  const refused = await eventually('BackupSchedule False', async () =>
    (await scheduleCondition(l))?.status === 'False' ? scheduleCondition(l) : undefined,
  );
  assert.equal(refused!.reason, 'InvalidBackupURL');
  assert.match(refused!.message ?? '', /^spec\.backupURL "ftp:\/\/backups\.example\.com\/my-db\/": ftp:\/\/ backups are not supported/);
  await eventually('its Warning Event', async () =>
    (await clusterWarnings(l)).some(([r, m]) => r === 'InvalidBackupURL' && m === refused!.message),
  );
  assert.equal(op.ticker.active.size, 0, 'no timer for a schedule that cannot store');

  await l.client.patch(
    { ...CLUSTER, namespace: l.ns, name: 'my-db' },
    { spec: { backupURL: 's3://bucket/my-db/', backupSecretName: 'my-db-backup-creds' } },
  );
  const noSecret = await eventually('BackupSecretNotFound', async () => {
    const c = await scheduleCondition(l);
    return c?.reason === 'BackupSecretNotFound' ? c : undefined;
  });
  assert.equal(noSecret.status, 'False');
  assert.equal(
    noSecret.message,
    `Secret ${l.ns}/my-db-backup-creds (spec.backupSecretName) does not exist; scheduled backups would have no storage credentials`,
  );
  await eventually('its Warning Event', async () =>
    (await clusterWarnings(l)).some(([r, m]) => r === 'BackupSecretNotFound' && m === noSecret.message),
  );
  assert.equal(op.ticker.active.size, 0);

  // The Secret's arrival alone decides again: nothing else changes.
  await l.client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'my-db-backup-creds', namespace: l.ns },
    stringData: { AWS_ACCESS_KEY_ID: 'a' },
  } as KubeObject);
  await eventually('BackupSchedule True', async () => (await scheduleCondition(l))?.status === 'True');
  assert.equal(op.ticker.active.size, 1);
});

test('after an operator restart the schedule is rebuilt from the API, and a tick already run is not run twice', async (t) => {
  const l = await lab(t, { backupSchedule: HOURLY });
  const first = await operator(t, l);
  await eventually('the schedule to run', () => first.ticker.active.size === 1);
  await first.ticker.fire(tick(1));
  await complete(l, nameAt(1));
  const scheduled = await eventually(
    'BackupSchedule True',
    async () => (await scheduleCondition(l))?.status === 'True' && (await scheduleCondition(l)),
  );
  await first.stop();
  assert.equal(first.ticker.active.size, 0, 'a stopped operator schedules nothing');

  // Restarted within the second the schedule began: no tick fell while none ran (that case is the next test).
  const second = await operator(t, l, () => new Date(Date.parse(scheduled!.lastTransitionTime!)));
  await eventually('the schedule rebuilt', () => second.ticker.active.size === 1);
  // The tick the first operator ran, seen again (node-cron catching up after the restart).
  await second.ticker.fire(tick(1));
  assert.deepEqual(await backupNames(l), [nameAt(1)]);
  await second.ticker.fire(tick(2));
  assert.deepEqual(await backupNames(l), [nameAt(1), nameAt(2)]);
});

test('a tick due while no operator ran is run once by the next operator, and not again by the one after', async (t) => {
  const l = await lab(t, { backupSchedule: HOURLY });
  const first = await operator(t, l);
  const scheduled = await eventually(
    'BackupSchedule True',
    async () => (await scheduleCondition(l))?.status === 'True' && (await scheduleCondition(l)),
  );
  await first.stop();
  // The next operator starts two hours later by its clock: the ticks in between fell while none ran.
  const later = () => new Date(Date.parse(scheduled!.lastTransitionTime!) + 2 * 3600_000);
  const due = new Date(Math.floor(later().getTime() / 3600_000) * 3600_000);
  const key = `${l.ns}/my-db`;
  const second = await operator(t, l, later);
  await second.reconciles.settled([key], 0, 1);
  assert.deepEqual(await backupNames(l), [scheduledBackupName('my-db', due)], 'the latest missed tick, once');
  await second.stop();
  const third = await operator(t, l, later);
  await third.reconciles.settled([key], 0, 1);
  assert.equal(third.ticker.active.size, 1);
  assert.deepEqual(await backupNames(l), [scheduledBackupName('my-db', due)], 'seen again by the next operator: not run twice');
});

test('a BackupSchedule condition an earlier release wrote with a status update is taken over: removing the schedule removes it', async (t) => {
  const l = await lab(t, { backupSchedule: HOURLY });
  const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  // Earlier releases wrote the status with updates: that writer owns the condition.
  await l.client.patchStatus(
    { ...CLUSTER, namespace: l.ns, name: 'my-db' },
    {
      status: {
        conditions: [
          { type: 'BackupSchedule', status: 'True', reason: 'BackupScheduled', message: 'from an earlier release', lastTransitionTime: at },
        ],
      },
    },
  );
  await operator(t, l);
  await eventually('the condition rewritten', async () => (await scheduleCondition(l))?.message === 'backups scheduled by "0 0 * * * *"');
  await l.client.patch({ ...CLUSTER, namespace: l.ns, name: 'my-db' }, { spec: { backupSchedule: null } });

  await eventually('the condition gone with the schedule', async () => (await scheduleCondition(l)) === undefined);
});

test("the chart's RBAC rules allow every request of the tests above, and the backupcron controller uses each of its grants", (t) =>
  rbac.check(t));
