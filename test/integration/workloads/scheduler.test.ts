// The scheduler binds a pod to the sandbox's node only once the claims it mounts are Bound, and
// says why it waits.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { eventually } from '../../support/wait.ts';
import { NODE, ONLY_TEST_SERVER, workloadsEnv } from './helpers.ts';

const POD = { apiVersion: 'v1', kind: 'Pod' };

test('a pod waits unscheduled for its claim, then is bound to the node with PodScheduled', { skip: ONLY_TEST_SERVER }, async (t) => {
  const env = await workloadsEnv(t, { outcome: () => 'none' });
  const client = env.kubelet.client;
  const ns = env.namespace;
  await client.create<V1Pod>({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: ns },
    spec: { containers: [{ name: 'c', image: 'busybox:1' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-p' } }] },
  });
  const waiting = await eventually('PodScheduled False', async () => {
    const p = await client.get<V1Pod>({ ...POD, namespace: ns, name: 'p' });
    return p.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False') && p;
  });
  assert.equal(waiting.spec?.nodeName, undefined);
  assert.equal(waiting.status?.conditions?.find((c) => c.type === 'PodScheduled')?.reason, 'Unschedulable');
  await eventually('a FailedScheduling Event', async () => {
    const evs = (await client.list<CoreV1Event>({ apiVersion: 'v1', kind: 'Event' }, { namespace: ns })).items;
    return evs.some((e) => e.reason === 'FailedScheduling' && e.involvedObject.name === 'p' && e.message?.includes('data-p'));
  });

  await client.create({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data-p', namespace: ns },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  });
  const bound = await eventually('bound to the node', async () => {
    const p = await client.get<V1Pod>({ ...POD, namespace: ns, name: 'p' });
    return p.spec?.nodeName === NODE && p;
  });
  assert.equal(bound.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status, 'True');
});
