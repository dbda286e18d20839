// Jobs as the operator's backups use them: a pod that succeeds completes the Job; pods that fail
// are replaced until backoffLimit is passed, then the Job fails.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import type { KubeClient } from '../../../src/runtime/kube/client.ts';
import { eventually } from '../../support/wait.ts';
import { ONLY_TEST_SERVER, workloadsEnv } from './helpers.ts';

const JOB = { apiVersion: 'batch/v1', kind: 'Job' };

function job(namespace: string, name: string, extra: Partial<NonNullable<V1Job['spec']>> = {}): V1Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'backup', image: 'sidecar:1' }] } }, ...extra },
  };
}

async function finishedJob(client: KubeClient, namespace: string, name: string): Promise<V1Job> {
  return eventually(`Job ${name} finished`, async () => {
    const j = await client.get<V1Job>({ ...JOB, namespace, name });
    return j.status?.conditions?.some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') && j;
  });
}

async function podsOf(client: KubeClient, namespace: string, name: string): Promise<V1Pod[]> {
  return (await client.list<V1Pod>({ apiVersion: 'v1', kind: 'Pod' }, { namespace, labelSelector: { 'job-name': name } })).items;
}

test('a Job whose pod succeeds is Complete, with its counts and times', { skip: ONLY_TEST_SERVER }, async (t) => {
  const env = await workloadsEnv(t, { outcome: () => 'succeed' });
  const client = env.kubelet.client;
  const created = await client.create(job(env.namespace, 'backup-ok'));
  const done = await finishedJob(client, env.namespace, 'backup-ok');
  assert.deepEqual(
    done.status?.conditions?.map((c) => [c.type, c.status]),
    [['Complete', 'True']],
  );
  assert.equal(done.status?.succeeded, 1);
  assert.equal(done.status?.active, undefined);
  assert.ok(done.status?.startTime && done.status.completionTime);
  const pods = await podsOf(client, env.namespace, 'backup-ok');
  assert.equal(pods.length, 1);
  assert.equal(pods[0]?.metadata?.labels?.['controller-uid'], created.metadata?.uid);
  assert.equal(pods[0]?.metadata?.ownerReferences?.[0]?.uid, created.metadata?.uid);
  assert.match(pods[0]?.metadata?.name ?? '', /^backup-ok-[a-z0-9]{5}$/);
});

test('a Job whose pods fail is retried backoffLimit times, then Failed', { skip: ONLY_TEST_SERVER }, async (t) => {
  const env = await workloadsEnv(t, { outcome: () => 'fail' });
  const client = env.kubelet.client;
  await client.create(job(env.namespace, 'backup-bad', { backoffLimit: 2 }));
  const done = await finishedJob(client, env.namespace, 'backup-bad');
  const failed = done.status?.conditions?.find((c) => c.type === 'Failed');
  assert.equal(failed?.reason, 'BackoffLimitExceeded');
  assert.equal(done.status?.failed, 3);
  assert.equal((await podsOf(client, env.namespace, 'backup-bad')).length, 3);
});

test('a Job running past activeDeadlineSeconds fails and its pod is deleted', { skip: ONLY_TEST_SERVER }, async (t) => {
  const env = await workloadsEnv(t, { outcome: () => 'ready' });
  const client = env.kubelet.client;
  await client.create(job(env.namespace, 'backup-slow', { activeDeadlineSeconds: 1 }));
  const done = await finishedJob(client, env.namespace, 'backup-slow');
  assert.equal(done.status?.conditions?.find((c) => c.type === 'Failed')?.reason, 'DeadlineExceeded');
  await eventually('its pod deleted', async () => (await podsOf(client, env.namespace, 'backup-slow')).length === 0);
});
