// EndpointSlices and Endpoints follow the pods a Service selects: the operator's master Service
// follows the `role` label it moves, and readiness decides ready/serving unless the Service
// publishes not-ready addresses (the operator's headless Service does).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1Endpoints, V1Pod, V1Service } from '@kubernetes/client-node';
import type { EndpointSlice } from '../../../sandbox/workloads/decide-endpoints.ts';
import type { KubeClient } from '../../../src/runtime/kube/client.ts';
import { eventually } from '../../support/wait.ts';
import { ONLY_TEST_SERVER, workloadsEnv } from './helpers.ts';

const POD = { apiVersion: 'v1', kind: 'Pod' };
const SLICE = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' };

function pod(namespace: string, name: string, labels: Record<string, string>): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels },
    spec: {
      hostname: name,
      subdomain: 'db',
      containers: [{ name: 'mysql', image: 'mariadb:10.11', ports: [{ name: 'mysql', containerPort: 3306 }] }],
    },
  };
}

function service(
  namespace: string,
  name: string,
  selector: Record<string, string>,
  extra: Partial<NonNullable<V1Service['spec']>> = {},
): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, labels: { app: 'db' } },
    spec: { selector, ports: [{ name: 'mysql', port: 3306, targetPort: 'mysql' }], ...extra },
  };
}

async function slicesOf(client: KubeClient, namespace: string, svc: string): Promise<EndpointSlice[]> {
  return (
    await client.list<EndpointSlice & { metadata: { namespace: string } }>(SLICE, {
      namespace,
      labelSelector: { 'kubernetes.io/service-name': svc },
    })
  ).items;
}

/** Pod names per ready condition across the Service's slices. */
async function endpointsOf(client: KubeClient, namespace: string, svc: string): Promise<string> {
  const eps = (await slicesOf(client, namespace, svc)).flatMap((s) => s.endpoints ?? []);
  return eps
    .map((e) => `${e.targetRef.name}:${e.conditions.ready ? 'ready' : 'not-ready'}`)
    .sort()
    .join(',');
}

test("the master Service's EndpointSlice and Endpoints follow the role label from pod to pod", { skip: ONLY_TEST_SERVER }, async (t) => {
  const env = await workloadsEnv(t);
  const client = env.kubelet.client;
  const ns = env.namespace;
  await client.create(service(ns, 'db-master', { app: 'db', role: 'master' }));
  await eventually(
    'an empty placeholder slice',
    async () => (await slicesOf(client, ns, 'db-master')).length === 1 && (await endpointsOf(client, ns, 'db-master')) === '',
  );
  await client.create(pod(ns, 'db-0', { app: 'db', role: 'master' }));
  await client.create(pod(ns, 'db-1', { app: 'db', role: 'replica' }));
  await eventually('db-0 behind the master Service', async () => (await endpointsOf(client, ns, 'db-master')) === 'db-0:ready');

  const [slice] = await slicesOf(client, ns, 'db-master');
  assert.equal(slice?.addressType, 'IPv4');
  assert.deepEqual(slice?.ports, [{ name: 'mysql', protocol: 'TCP', port: 3306 }]);
  assert.equal(slice?.metadata.labels['endpointslice.kubernetes.io/managed-by'], 'endpointslice-controller.k8s.io');
  assert.equal(slice?.metadata.ownerReferences?.[0]?.name, 'db-master');
  const p0 = await client.get<V1Pod>({ ...POD, namespace: ns, name: 'db-0' });
  assert.deepEqual(slice?.endpoints[0]?.addresses, [p0.status?.podIP]);

  const moved = performance.now();
  await client.patch({ ...POD, namespace: ns, name: 'db-0' }, { metadata: { labels: { role: 'replica' } } });
  await client.patch({ ...POD, namespace: ns, name: 'db-1' }, { metadata: { labels: { role: 'master' } } });
  await eventually('db-1 behind the master Service', async () => (await endpointsOf(client, ns, 'db-master')) === 'db-1:ready');
  // Reported, not asserted: the "within a second" is a property of the watch path.
  t.diagnostic(`slice followed the role label in ${Math.round(performance.now() - moved)} ms`);
  const ep = await eventually('Endpoints follow', async () => {
    const e = await client.get<V1Endpoints>({ apiVersion: 'v1', kind: 'Endpoints', namespace: ns, name: 'db-master' });
    return e.subsets?.[0]?.addresses?.map((a) => a.targetRef?.name).join(',') === 'db-1' && e;
  });
  assert.deepEqual(ep.subsets?.[0]?.ports, [{ name: 'mysql', protocol: 'TCP', port: 3306 }]);
});

test('a pod that is not Ready is not ready in the slice, unless the Service publishes not-ready addresses', {
  skip: ONLY_TEST_SERVER,
}, async (t) => {
  const env = await workloadsEnv(t, { outcome: (p) => (p.metadata?.name === 'db-1' ? 'running' : 'ready') });
  const client = env.kubelet.client;
  const ns = env.namespace;
  await client.create(service(ns, 'db', { app: 'db' }));
  await client.create(service(ns, 'db-headless', { app: 'db' }, { clusterIP: 'None', publishNotReadyAddresses: true }));
  await client.create(pod(ns, 'db-0', { app: 'db' }));
  await client.create(pod(ns, 'db-1', { app: 'db' }));
  await eventually('readiness in the slice', async () => (await endpointsOf(client, ns, 'db')) === 'db-0:ready,db-1:not-ready');
  await eventually(
    'everything ready in the headless slice',
    async () => (await endpointsOf(client, ns, 'db-headless')) === 'db-0:ready,db-1:ready',
  );
  const ep = await eventually('Endpoints with a not-ready address', async () => {
    const e = await client.get<V1Endpoints>({ apiVersion: 'v1', kind: 'Endpoints', namespace: ns, name: 'db' });
    return e.subsets?.[0]?.notReadyAddresses?.length === 1 && e;
  });
  assert.equal(ep.subsets?.[0]?.addresses?.[0]?.targetRef?.name, 'db-0');
  assert.equal(ep.subsets?.[0]?.notReadyAddresses?.[0]?.targetRef?.name, 'db-1');
  const [headless] = await slicesOf(client, ns, 'db-headless');
  assert.equal(headless?.metadata.labels['service.kubernetes.io/headless'], '');
});
