// The sandbox's StatefulSet controller against the test API server, with the claim binder and the
// scheduler it needs and a fake kubelet that makes pods Ready: what the operator relies on from
// the real one (pods in order, claims kept, rolling updates, OnDelete, scale down).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { V1ControllerRevision, V1PersistentVolume, V1PersistentVolumeClaim, V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import type { MysqlCluster } from '../../../src/api/index.ts';
import type { KubeClient } from '../../../src/runtime/kube/client.ts';
import { eventually } from '../../support/wait.ts';
import { cluster, render } from '../../unit/cluster/builders.ts';
import { statefulSet } from '../../unit/workloads/builders.ts';
import { at, NODE, ONLY_TEST_SERVER, workloadsEnv } from './helpers.ts';

const STS = { apiVersion: 'apps/v1', kind: 'StatefulSet' };
const POD = { apiVersion: 'v1', kind: 'Pod' };
const PVC = { apiVersion: 'v1', kind: 'PersistentVolumeClaim' };

/** The unit tests' set, created fresh in the test's namespace. */
function simpleSet(namespace: string, extra: Partial<NonNullable<V1StatefulSet['spec']>> = {}): V1StatefulSet {
  const s = statefulSet(extra);
  return { ...s, metadata: { name: 'web', namespace } };
}

async function settled(client: KubeClient, namespace: string, name: string, ready: number): Promise<V1StatefulSet> {
  return eventually(`StatefulSet ${name} settled with ${ready} ready`, async () => {
    const s = await client.get<V1StatefulSet>({ ...STS, namespace, name });
    const st = s.status;
    return st?.observedGeneration === s.metadata?.generation && st?.replicas === ready && (st?.readyReplicas ?? 0) === ready && s;
  });
}

async function pod(client: KubeClient, namespace: string, name: string): Promise<V1Pod> {
  return client.get<V1Pod>({ ...POD, namespace, name });
}

test("the operator's rendered StatefulSet gets pods 0, 1, 2 in order, each with its identity and a bound claim", {
  skip: ONLY_TEST_SERVER,
}, async (t) => {
  const env = await workloadsEnv(t, { crds: true });
  const { client, kubelet } = { client: env.kubelet.client, kubelet: env.kubelet };
  const ns = env.namespace;
  const owner = await client.create<MysqlCluster>({
    ...cluster({ replicas: 3 }, { namespace: ns }),
    metadata: { name: 'my-db', namespace: ns },
  });
  const desired = render(cluster({ replicas: 3 }, { namespace: ns, uid: owner.metadata!.uid! }));
  await client.create(JSON.parse(JSON.stringify(desired.statefulSet)) as V1StatefulSet);

  const sts = await eventually('3 ready and current', async () => {
    const s = await settled(client, ns, 'my-db-mysql', 3);
    return s.status?.currentReplicas === 3 && s.status.updatedReplicas === 3 && s.status.currentRevision === s.status.updateRevision && s;
  });
  const h = kubelet.history;
  assert.ok(at(h, 'added:my-db-mysql-1') > at(h, 'ready:my-db-mysql-0'), h.join(' '));
  assert.ok(at(h, 'added:my-db-mysql-2') > at(h, 'ready:my-db-mysql-1'), h.join(' '));

  for (const i of [0, 1, 2]) {
    const p = await pod(client, ns, `my-db-mysql-${i}`);
    assert.equal(p.metadata?.labels?.['statefulset.kubernetes.io/pod-name'], `my-db-mysql-${i}`);
    assert.equal(p.metadata?.labels?.['apps.kubernetes.io/pod-index'], String(i));
    assert.equal(p.metadata?.labels?.['controller-revision-hash'], sts.status?.updateRevision);
    assert.equal(p.metadata?.labels?.['mysql.presslabs.org/cluster'], 'my-db');
    assert.deepEqual(
      p.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller]),
      [['StatefulSet', 'my-db-mysql', sts.metadata?.uid, true]],
    );
    assert.equal(p.spec?.hostname, `my-db-mysql-${i}`);
    assert.equal(p.spec?.subdomain, 'mysql');
    assert.equal(p.spec?.nodeName, NODE);
    assert.equal(p.spec?.volumes?.find((v) => v.name === 'data')?.persistentVolumeClaim?.claimName, `data-my-db-mysql-${i}`);
    const claim = await client.get<V1PersistentVolumeClaim>({ ...PVC, namespace: ns, name: `data-my-db-mysql-${i}` });
    assert.equal(claim.status?.phase, 'Bound');
    const pv = await client.get<V1PersistentVolume>({ apiVersion: 'v1', kind: 'PersistentVolume', name: claim.spec!.volumeName! });
    assert.equal(pv.spec?.hostPath?.path, join(env.workDir, 'volumes', ns, `data-my-db-mysql-${i}`));
    assert.equal(pv.status?.phase, 'Bound');
    assert.ok(existsSync(pv.spec!.hostPath!.path), 'the volume directory exists');
  }
  const rev = await client.get<V1ControllerRevision>({
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    namespace: ns,
    name: sts.status!.updateRevision!,
  });
  assert.equal(rev.revision, 1);
});

test('a deleted pod comes back under its name with the same claim and its data', { skip: ONLY_TEST_SERVER }, async (t) => {
  const env = await workloadsEnv(t);
  const client = env.kubelet.client;
  const ns = env.namespace;
  await client.create(simpleSet(ns));
  await settled(client, ns, 'web', 3);
  const before = await pod(client, ns, 'web-1');
  const claim = await client.get<V1PersistentVolumeClaim>({ ...PVC, namespace: ns, name: 'data-web-1' });
  const dir = join(env.workDir, 'volumes', ns, 'data-web-1');
  writeFileSync(join(dir, 'marker'), 'kept');

  await client.delete({ ...POD, namespace: ns, name: 'web-1' });
  await eventually('web-1 recreated and Ready', async () => {
    const p = await pod(client, ns, 'web-1');
    return p.metadata?.uid !== before.metadata?.uid && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
  });
  const after = await client.get<V1PersistentVolumeClaim>({ ...PVC, namespace: ns, name: 'data-web-1' });
  assert.equal(after.metadata?.uid, claim.metadata?.uid);
  assert.equal(readFileSync(join(dir, 'marker'), 'utf8'), 'kept');
});

test('a pod deleted with its claim comes back on a new, empty claim once the old one is gone', { skip: ONLY_TEST_SERVER }, async (t) => {
  const env = await workloadsEnv(t);
  const client = env.kubelet.client;
  const ns = env.namespace;
  await client.create(simpleSet(ns));
  await settled(client, ns, 'web', 3);
  const oldClaim = await client.get<V1PersistentVolumeClaim>({ ...PVC, namespace: ns, name: 'data-web-2' });
  const dir = join(env.workDir, 'volumes', ns, 'data-web-2');
  writeFileSync(join(dir, 'marker'), 'old data');

  await client.delete({ ...PVC, namespace: ns, name: 'data-web-2' });
  const protectedClaim = await client.get<V1PersistentVolumeClaim>({ ...PVC, namespace: ns, name: 'data-web-2' });
  assert.ok(protectedClaim.metadata?.deletionTimestamp, 'the claim waits for its pod (pvc-protection)');
  await client.delete({ ...POD, namespace: ns, name: 'web-2' });

  const fresh = await eventually('web-2 Ready on a new claim', async () => {
    const c = await client.get<V1PersistentVolumeClaim>({ ...PVC, namespace: ns, name: 'data-web-2' });
    const p = await pod(client, ns, 'web-2');
    const ready = p.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True');
    return c.metadata?.uid !== oldClaim.metadata?.uid && c.status?.phase === 'Bound' && ready && c;
  });
  assert.notEqual(fresh.spec?.volumeName, oldClaim.spec?.volumeName);
  assert.ok(existsSync(dir), 'the new claim has its directory');
  assert.equal(existsSync(join(dir, 'marker')), false, 'and it is empty');
  await eventually('the old volume deleted', async () => {
    const pvs = (await client.list<V1PersistentVolume>({ apiVersion: 'v1', kind: 'PersistentVolume' })).items;
    return !pvs.some((v) => v.metadata?.name === oldClaim.spec?.volumeName);
  });
});

test('a failed pod is deleted and recreated', { skip: ONLY_TEST_SERVER }, async (t) => {
  const failedOnce = new Set<string>();
  const env = await workloadsEnv(t, {
    outcome: (p) => {
      if (p.metadata?.name !== 'web-0' || failedOnce.has(p.metadata.uid!) || failedOnce.size > 0) return 'ready';
      failedOnce.add(p.metadata.uid!);
      return 'fail';
    },
  });
  const client = env.kubelet.client;
  await client.create(simpleSet(env.namespace, { replicas: 1 }));
  await settled(client, env.namespace, 'web', 1);
  assert.equal(failedOnce.size, 1);
  assert.ok(!failedOnce.has((await pod(client, env.namespace, 'web-0')).metadata!.uid!), 'web-0 is a new pod');
});

test('a template change rolls the highest ordinal first, each after the one before is Ready, and stops at the partition', {
  skip: ONLY_TEST_SERVER,
}, async (t) => {
  const env = await workloadsEnv(t);
  const client = env.kubelet.client;
  const ns = env.namespace;
  await client.create(simpleSet(ns));
  const first = await settled(client, ns, 'web', 3);
  const oldRev = first.status!.currentRevision!;
  const mark = env.kubelet.history.length;

  await client.patch(
    { ...STS, namespace: ns, name: 'web' },
    {
      spec: {
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } },
        template: { metadata: { annotations: { rev: '2' } } },
      },
    },
  );
  const partial = await eventually('pods 2 and 1 updated, pod 0 not', async () => {
    const s = await settled(client, ns, 'web', 3);
    return s.status?.updatedReplicas === 2 && s;
  });
  assert.notEqual(partial.status?.updateRevision, oldRev);
  assert.equal(partial.status?.currentRevision, oldRev, 'the partition keeps the current revision');
  const h = env.kubelet.history;
  const deleted2 = at(h, 'deleted:web-2', mark);
  const ready2 = at(h, 'ready:web-2', deleted2);
  assert.ok(at(h, 'deleted:web-1', mark) > ready2, `web-1 goes only after the new web-2 is Ready: ${h.slice(mark).join(' ')}`);
  assert.equal(h.indexOf('deleted:web-0', mark), -1);
  assert.equal((await pod(client, ns, 'web-0')).metadata?.labels?.['controller-revision-hash'], oldRev);

  await client.patch({ ...STS, namespace: ns, name: 'web' }, { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } });
  const done = await eventually('all updated', async () => {
    const s = await settled(client, ns, 'web', 3);
    return s.status?.currentRevision === s.status?.updateRevision && s.status?.updatedReplicas === 3 && s;
  });
  assert.equal((await pod(client, ns, 'web-0')).metadata?.labels?.['controller-revision-hash'], done.status?.updateRevision);
});

test('with OnDelete a template change waits until a pod is deleted, which comes back at the new revision', {
  skip: ONLY_TEST_SERVER,
}, async (t) => {
  const env = await workloadsEnv(t);
  const client = env.kubelet.client;
  const ns = env.namespace;
  await client.create(simpleSet(ns, { updateStrategy: { type: 'OnDelete' } }));
  const first = await settled(client, ns, 'web', 3);
  const oldRev = first.status!.currentRevision!;

  const changed = await client.patch<V1StatefulSet>(
    { ...STS, namespace: ns, name: 'web' },
    { spec: { template: { metadata: { annotations: { rev: '2' } } } } },
  );
  const seen = await eventually('the new revision observed', async () => {
    const s = await client.get<V1StatefulSet>({ ...STS, namespace: ns, name: 'web' });
    return s.status?.observedGeneration === changed.metadata?.generation && s.status?.updateRevision !== oldRev && s;
  });
  assert.equal(seen.status?.updatedReplicas ?? 0, 0);
  for (const i of [0, 1, 2]) assert.equal((await pod(client, ns, `web-${i}`)).metadata?.labels?.['controller-revision-hash'], oldRev);

  await client.delete({ ...POD, namespace: ns, name: 'web-1' });
  await eventually('web-1 back at the new revision', async () => {
    const s = await settled(client, ns, 'web', 3);
    return s.status?.updatedReplicas === 1 && s;
  });
  assert.equal((await pod(client, ns, 'web-1')).metadata?.labels?.['controller-revision-hash'], seen.status?.updateRevision);
  assert.equal((await pod(client, ns, 'web-2')).metadata?.labels?.['controller-revision-hash'], oldRev);
});

test('scale down removes the highest ordinal first and keeps the claims; scale up reuses them', { skip: ONLY_TEST_SERVER }, async (t) => {
  const env = await workloadsEnv(t);
  const client = env.kubelet.client;
  const ns = env.namespace;
  await client.create(simpleSet(ns));
  await settled(client, ns, 'web', 3);
  const claim2 = await client.get<V1PersistentVolumeClaim>({ ...PVC, namespace: ns, name: 'data-web-2' });
  const mark = env.kubelet.history.length;

  await client.patch({ ...STS, namespace: ns, name: 'web' }, { spec: { replicas: 1 } });
  await settled(client, ns, 'web', 1);
  const h = env.kubelet.history;
  assert.ok(at(h, 'deleted:web-1', mark) > at(h, 'deleted:web-2', mark), h.slice(mark).join(' '));
  for (const name of ['data-web-1', 'data-web-2']) await client.get({ ...PVC, namespace: ns, name });

  await client.patch({ ...STS, namespace: ns, name: 'web' }, { spec: { replicas: 3 } });
  await settled(client, ns, 'web', 3);
  const again = await pod(client, ns, 'web-2');
  assert.equal(again.spec?.volumes?.find((v) => v.name === 'data')?.persistentVolumeClaim?.claimName, 'data-web-2');
  assert.equal(
    (await client.get<V1PersistentVolumeClaim>({ ...PVC, namespace: ns, name: 'data-web-2' })).metadata?.uid,
    claim2.metadata?.uid,
  );
});

test('Parallel creates every pod without waiting for Ready', { skip: ONLY_TEST_SERVER }, async (t) => {
  const env = await workloadsEnv(t, { outcome: () => 'running' });
  const client = env.kubelet.client;
  const ns = env.namespace;
  await client.create(simpleSet(ns, { podManagementPolicy: 'Parallel' }));
  await eventually('3 pods running, none Ready', async () => {
    const st = (await client.get<V1StatefulSet>({ ...STS, namespace: ns, name: 'web' })).status;
    return st?.replicas === 3 && (st.readyReplicas ?? 0) === 0;
  });
});
