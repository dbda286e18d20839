import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Service, V1StatefulSet } from '@kubernetes/client-node';
import { ANNOTATION_SPEC_HASH } from '../../../src/api/constants.ts';
import {
  ownedSubset,
  planConfigMap,
  planPodDisruptionBudget,
  planPvcRelease,
  planSecret,
  planService,
  planStatefulSet,
} from '../../../src/controllers/cluster/decide-writes.ts';
import { controllerRef } from '../../../src/api/names.ts';
import { sharedServiceUnused } from '../../../src/controllers/cluster/decide-shared-service.ts';
import { renderOperatedSecret } from '../../../src/controllers/cluster/render-operated-secret.ts';
import { cluster, render, wire } from './builders.ts';

const desired = render(cluster({ replicas: 3 }));
const owner = controllerRef(desired.ref);

/** What the API server stores: our object plus defaults and bookkeeping. */
function stored<T>(o: T, extra: (o: T) => void = () => {}): T {
  const copy = wire(o) as T & { metadata: Record<string, unknown> };
  copy.metadata.resourceVersion = '42';
  copy.metadata.uid = 'u-1';
  extra(copy);
  return copy;
}

function createdStatefulSet(): V1StatefulSet {
  const plan = planStatefulSet(desired.statefulSet, undefined);
  assert.equal(plan.op, 'create');
  return stored((plan as { object: V1StatefulSet }).object, (s) => {
    s.spec!.podManagementPolicy = 'OrderedReady';
    s.spec!.revisionHistoryLimit = 10;
    const pod = s.spec!.template.spec!;
    pod.dnsPolicy = 'ClusterFirst';
    pod.restartPolicy = 'Always';
    pod.schedulerName = 'default-scheduler';
    pod.terminationGracePeriodSeconds = 30;
    for (const c of pod.containers) {
      c.terminationMessagePath = '/dev/termination-log';
      for (const p of c.ports ?? []) p.protocol = 'TCP';
    }
    s.status = { replicas: 3, readyReplicas: 3 } as never;
  });
}

test('objects as the API server stores them, with defaults added, need no write', () => {
  assert.deepEqual(planStatefulSet(desired.statefulSet, createdStatefulSet()), { op: 'none' });
  assert.deepEqual(planConfigMap(desired.configMap, stored(desired.configMap)), { op: 'none' });
  const secret = renderOperatedSecret(desired.ref, desired.secretData);
  assert.deepEqual(
    planSecret(
      secret,
      stored(secret, (s) => ((s as { type?: string }).type = 'Opaque')),
    ),
    { op: 'none' },
  );
  for (const svc of desired.services) {
    const existing = stored(svc, (s: V1Service) => {
      s.spec!.clusterIP = '10.0.0.12';
      s.spec!.sessionAffinity = 'None';
      for (const p of s.spec!.ports!) p.targetPort ??= p.port;
    });
    assert.deepEqual(planService(svc, existing), { op: 'none' });
  }
  assert.deepEqual(planPodDisruptionBudget(desired.podDisruptionBudget, stored(desired.podDisruptionBudget!), owner), { op: 'none' });
});

test('a quantity the server canonicalised ("1024Mi" → "1Gi") is not a difference', () => {
  assert.equal(ownedSubset({ requests: { memory: '1024Mi' } }, { requests: { memory: '1Gi' } }), true);
  assert.equal(ownedSubset({ requests: { memory: '1Gi' } }, { requests: { memory: '2Gi' } }), false);
  assert.equal(ownedSubset({ value: '1024Mi' }, { value: '1Gi' }), false);
});

test('a field removed from the cluster spec is removed from the StatefulSet', () => {
  const withSelector = render(cluster({ replicas: 3, podSpec: { nodeSelector: { disk: 'ssd' } } }));
  const plan = planStatefulSet(withSelector.statefulSet, undefined);
  const existing = stored((plan as { object: V1StatefulSet }).object);
  const update = planStatefulSet(desired.statefulSet, existing);
  assert.equal(update.op, 'update');
  const sent = (update as { object: V1StatefulSet }).object;
  assert.equal(sent.spec?.template.spec?.nodeSelector, undefined);
  assert.equal(sent.metadata?.resourceVersion, '42', 'updates carry the resourceVersion they were based on');
});

test('a changed replica count updates only replicas and keeps immutable fields', () => {
  const existing = createdStatefulSet();
  existing.spec!.volumeClaimTemplates![0]!.spec!.volumeMode = 'Filesystem';
  const scaled = render(cluster({ replicas: 5 }));
  const plan = planStatefulSet(scaled.statefulSet, existing);
  assert.equal(plan.op, 'update');
  const sent = (plan as { object: V1StatefulSet }).object;
  assert.equal(sent.spec?.replicas, 5);
  assert.equal(sent.spec?.volumeClaimTemplates?.[0]?.spec?.volumeMode, 'Filesystem');
  assert.notEqual(sent.metadata?.annotations?.[ANNOTATION_SPEC_HASH], existing.metadata?.annotations?.[ANNOTATION_SPEC_HASH]);
});

test('kubectl rollout restart annotations on the pod template are kept', () => {
  const existing = createdStatefulSet();
  existing.spec!.template.metadata!.annotations!['kubectl.kubernetes.io/restartedAt'] = '2026-01-01T00:00:00Z';
  const scaled = render(cluster({ replicas: 4 }));
  const sent = (planStatefulSet(scaled.statefulSet, existing) as { object: V1StatefulSet }).object;
  assert.equal(sent.spec?.template.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt'], '2026-01-01T00:00:00Z');
  const again = stored(sent);
  assert.deepEqual(planStatefulSet(scaled.statefulSet, again), { op: 'none' });
});

test('a key another tool added to the ConfigMap data or a Service selector is taken out again', () => {
  const cm = stored(desired.configMap, (c) => (c.data = { ...c.data, extra: 'x' }));
  const fixCm = planConfigMap(desired.configMap, cm);
  assert.equal(fixCm.op, 'update');
  assert.deepEqual((fixCm as { object: typeof cm }).object.data, desired.configMap.data);
  const svc = desired.services[0]!;
  const fixSvc = planService(
    svc,
    stored(svc, (s: V1Service) => (s.spec!.selector = { ...s.spec!.selector, extra: 'x' })),
  );
  assert.equal(fixSvc.op, 'update');
  assert.deepEqual((fixSvc as { object: V1Service }).object.spec?.selector, svc.spec?.selector);
});

test('an object controlled by someone else is refused, not taken over', () => {
  const cm = stored(desired.configMap, (c) => {
    c.metadata!.ownerReferences = [{ apiVersion: 'v1', kind: 'Other', name: 'x', uid: 'other', controller: true }];
  });
  const plan = planConfigMap(desired.configMap, cm);
  assert.equal(plan.op, 'refuse');
  assert.match((plan as { message: string }).message, /ConfigMap my-db-mysql: it is controlled by Other x/);
});

test('the shared headless Service has no owner; only its own fields are put back', () => {
  assert.equal(desired.headlessService.metadata?.ownerReferences, undefined);
  const existing = stored(desired.headlessService, (s) => (s.spec!.sessionAffinity = 'None'));
  assert.deepEqual(planService(desired.headlessService, existing), { op: 'none' });
  const drifted = stored(existing, (s) => (s.spec!.publishNotReadyAddresses = false));
  const fix = planService(desired.headlessService, drifted);
  assert.equal(fix.op, 'update');
  assert.equal((fix as { object: V1Service }).object.spec?.publishNotReadyAddresses, true);
  assert.equal((fix as { object: V1Service }).object.spec?.clusterIP, 'None');
  assert.equal((fix as { object: V1Service }).object.metadata?.ownerReferences?.length ?? 0, 0);
});

test('the shared Service goes only when no cluster of the namespace is left, and only if we made it', () => {
  const svc = stored(desired.headlessService);
  assert.equal(sharedServiceUnused([], svc), true);
  assert.equal(sharedServiceUnused([cluster({}, { name: 'other' })], svc), false);
  const deleting = cluster({}, { name: 'going' });
  deleting.metadata!.deletionTimestamp = new Date();
  assert.equal(sharedServiceUnused([deleting], svc), false, 'a cluster being deleted may still run pods');
  assert.equal(
    sharedServiceUnused(
      [],
      stored(svc, (s) => (s.metadata!.labels = { app: 'x' })),
    ),
    false,
    'not ours',
  );
  assert.equal(sharedServiceUnused([], undefined), false);
});

test('the PDB follows minAvailable, and goes when it no longer applies', () => {
  const existing = stored(desired.podDisruptionBudget!);
  const changed = render(cluster({ replicas: 3, minAvailable: 2 }));
  const plan = planPodDisruptionBudget(changed.podDisruptionBudget, existing, owner);
  assert.equal(plan.op, 'update');
  const single = render(cluster({ replicas: 1 }));
  assert.equal(single.podDisruptionBudget, undefined);
  assert.equal(planPodDisruptionBudget(undefined, existing, owner).op, 'delete');
});

test('a PVC loses the cluster owner reference (keepAfterDelete) and nothing else', () => {
  const pvc = {
    metadata: {
      name: 'data-my-db-mysql-1',
      ownerReferences: [
        { ...owner, blockOwnerDeletion: undefined },
        { apiVersion: 'v1', kind: 'X', name: 'y', uid: 'z' },
      ],
    },
  };
  const plan = planPvcRelease(pvc as never, owner.uid);
  assert.equal(plan.op, 'update');
  assert.deepEqual((plan as { object: typeof pvc }).object.metadata.ownerReferences, [
    { apiVersion: 'v1', kind: 'X', name: 'y', uid: 'z' },
  ]);
  assert.deepEqual(planPvcRelease((plan as { object: typeof pvc }).object as never, owner.uid), { op: 'none' });
});
