// The caches hold projections (src/controllers/shared/projections.ts): what they keep, and that
// the cluster controller decides the same on a cached copy as on the server's whole object, so
// the steady state needs no GET and an update is sent from the whole object.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1ConfigMap, V1PodDisruptionBudget, V1Secret, V1Service, V1StatefulSet } from '@kubernetes/client-node';
import { controllerRef } from '../../../src/api/names.ts';
import {
  planConfigMap,
  planNetworkPolicy,
  planPodDisruptionBudget,
  planSecret,
  planService,
  planStatefulSet,
  type Plan,
} from '../../../src/controllers/cluster/decide-writes.ts';
import { renderOperatedSecret } from '../../../src/controllers/cluster/render-operated-secret.ts';
import { renderNetworkPolicy, type NetworkPolicyObject } from '../../../src/controllers/cluster/render-network-policy.ts';
import { KINDS } from '../../../src/controllers/shared/kinds.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { cachedCopy, LAST_APPLIED_ANNOTATION, StringTable } from '../../../src/runtime/projection.ts';
import { cluster, render, wire } from './builders.ts';
import type { JsonObject } from '../../support/json.ts';

const FOREIGN_LABEL = { 'team.example.com/owner': 'dba' };
const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** As the API server stores `o`: bookkeeping, what `kubectl apply` and other tools add, `extra` (defaults, status). */
function stored<T>(o: T, extra: (o: T) => void = () => {}): T {
  const copy = wire(o) as T & { metadata: Record<string, unknown> };
  copy.metadata = {
    ...copy.metadata,
    resourceVersion: '42',
    uid: 'u-1',
    creationTimestamp: '2026-01-01T00:00:00Z',
    labels: { ...(copy.metadata.labels as object), ...FOREIGN_LABEL },
    annotations: { ...(copy.metadata.annotations as object), [LAST_APPLIED_ANNOTATION]: JSON.stringify(o) },
    managedFields: [{ manager: 'kubectl-client-side-apply', operation: 'Update', fieldsV1: {} }],
  };
  extra(copy);
  return copy;
}

function cached<T>(kind: { projection?: Parameters<typeof cachedCopy>[1] }, o: T): T {
  return cachedCopy(structuredClone(o) as KubeObject, kind.projection, new StringTable()) as T;
}

function withDefaults(sts: V1StatefulSet): V1StatefulSet {
  return stored(sts, (s) => {
    s.spec!.podManagementPolicy = 'OrderedReady';
    s.spec!.revisionHistoryLimit = 10;
    s.spec!.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 0 } };
    const pod = s.spec!.template.spec!;
    pod.dnsPolicy = 'ClusterFirst';
    pod.schedulerName = 'default-scheduler';
    for (const c of pod.containers) {
      c.terminationMessagePath = '/dev/termination-log';
      c.imagePullPolicy ??= 'IfNotPresent';
    }
    s.status = {
      replicas: 3,
      readyReplicas: 2,
      currentReplicas: 3,
      updatedReplicas: 3,
      currentRevision: 'r1',
      updateRevision: 'r1',
      observedGeneration: 1,
    };
  });
}

function serviceWithDefaults(svc: V1Service): V1Service {
  return stored(svc, (s) => {
    s.spec!.clusterIP ??= '10.0.0.12';
    s.spec!.clusterIPs = [s.spec!.clusterIP];
    s.spec!.ipFamilies = ['IPv4'];
    s.spec!.ipFamilyPolicy = 'SingleStack';
    s.spec!.sessionAffinity = 'None';
    s.spec!.type ??= 'ClusterIP';
    for (const p of s.spec!.ports!) p.targetPort ??= p.port;
    s.status = { loadBalancer: {} };
  });
}

/** Every object of one cluster as the server stores it, with the plan function for each. */
function objectsOf(c = cluster({ replicas: 3 })) {
  const desired = render(c);
  const owner = controllerRef(desired.ref);
  const create = <T>(p: Plan<T>): T => (p as { object: T }).object;
  const secret = renderOperatedSecret(desired.ref, desired.secretData);
  const networkPolicy = renderNetworkPolicy(desired.ref, c.spec, {
    namespace: 'mysql-operator',
    operatorPodLabels: { app: 'operator' },
    orchestratorPodLabels: { app: 'orchestrator' },
  });
  return [
    {
      kind: KINDS.statefulSet,
      full: withDefaults(create(planStatefulSet(desired.statefulSet, undefined))) as KubeObject,
      plan: (e: KubeObject | undefined) => planStatefulSet(desired.statefulSet, e as V1StatefulSet),
    },
    {
      kind: KINDS.configMap,
      full: stored(desired.configMap) as KubeObject,
      plan: (e: KubeObject | undefined) => planConfigMap(desired.configMap, e as V1ConfigMap),
    },
    {
      kind: KINDS.secret,
      full: stored(secret, (s) => (s.type = 'Opaque')) as KubeObject,
      plan: (e: KubeObject | undefined) => planSecret(secret, e as V1Secret),
    },
    ...[desired.headlessService, ...desired.services].map((s) => ({
      kind: KINDS.service,
      full: serviceWithDefaults(s) as KubeObject,
      plan: (e: KubeObject | undefined) => planService(s, e as V1Service),
    })),
    ...(desired.podDisruptionBudget
      ? [
          {
            kind: KINDS.pdb,
            full: stored(
              desired.podDisruptionBudget,
              (p) => (p.status = { currentHealthy: 3, desiredHealthy: 2, disruptionsAllowed: 1, expectedPods: 3 }),
            ) as KubeObject,
            plan: (e: KubeObject | undefined) => planPodDisruptionBudget(desired.podDisruptionBudget, e as V1PodDisruptionBudget, owner),
          },
        ]
      : []),
    {
      kind: KINDS.networkPolicy,
      full: stored(networkPolicy) as KubeObject,
      plan: (e: KubeObject | undefined) => planNetworkPolicy(networkPolicy, e as NetworkPolicyObject, owner),
    },
  ];
}

test('the caches keep what the controllers read, not the rest', () => {
  const [sts, cm, secret, headless] = objectsOf();
  const s = cached(KINDS.statefulSet, sts!.full) as V1StatefulSet;
  assert.deepEqual(s.spec?.template, (sts!.full as V1StatefulSet).spec?.template);
  assert.equal(s.spec?.replicas, 3);
  assert.equal(s.spec?.volumeClaimTemplates, undefined);
  assert.equal(s.spec?.selector, undefined);
  assert.deepEqual(s.status, { replicas: 3, readyReplicas: 2 });
  assert.ok(s.metadata?.annotations?.['mysql.presslabs.org/spec-hash'], 'our own annotation is kept');
  assert.equal(s.metadata?.annotations?.[LAST_APPLIED_ANNOTATION], undefined);
  assert.deepEqual(s.metadata?.labels, (sts!.full as V1StatefulSet).metadata?.labels, 'labels are kept, foreign ones too');
  assert.deepEqual(s.metadata?.ownerReferences, sts!.full.metadata?.ownerReferences);

  assert.deepEqual((cached(KINDS.configMap, cm!.full) as V1ConfigMap).data, (cm!.full as V1ConfigMap).data);
  assert.deepEqual((cached(KINDS.secret, secret!.full) as V1Secret).data, (secret!.full as V1Secret).data, 'operated Secret: every key');

  const svc = cached(KINDS.service, headless!.full) as V1Service;
  assert.deepEqual(svc.spec, {
    ports: (headless!.full as V1Service).spec?.ports,
    selector: (headless!.full as V1Service).spec?.selector,
    publishNotReadyAddresses: true,
    type: 'ClusterIP',
  });
  assert.equal((svc as { status?: unknown }).status, undefined);
});

test('a Secret or ConfigMap no controller reads is not cached in full', () => {
  const meta = (name: string) => ({ name, namespace: 'default', resourceVersion: '7', labels: { owner: 'helm' } });
  const helm = cached(KINDS.secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'helm.sh/release.v1',
    metadata: meta('sh.helm.release.v1.web.v3'),
    data: { release: b64('x'.repeat(10_000)) },
  }) as V1Secret;
  assert.deepEqual(helm.data, {});
  assert.deepEqual(helm.metadata?.labels, { owner: 'helm' });
  const tls = cached(KINDS.secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/tls',
    metadata: meta('web-tls'),
    data: { 'tls.crt': b64('c'), 'tls.key': b64('k') },
  }) as V1Secret;
  assert.deepEqual(tls.data, {});
  const user = cached(KINDS.secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: meta('my-db-secret'),
    data: { ROOT_PASSWORD: b64('r'), USER: b64('u'), PASSWORD: b64('p'), DATABASE: b64('d'), 'ca.pem': b64('c') },
  }) as V1Secret;
  assert.deepEqual(
    Object.keys(user.data ?? {}).sort(),
    ['DATABASE', 'PASSWORD', 'ROOT_PASSWORD', 'USER'],
    'a user Secret: the keys spec.secretName may hold',
  );
  const rootCa = cached(KINDS.configMap, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: meta('kube-root-ca.crt'),
    data: { 'ca.crt': 'c'.repeat(1000) },
  }) as V1ConfigMap;
  assert.equal(rootCa.data, undefined);
  const pod = cached(KINDS.pod, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: meta('my-db-mysql-0'),
    spec: { containers: [{ name: 'mysql', image: 'percona:5.7', env: [{ name: 'A', value: 'b' }] }] },
    status: { phase: 'Running', podIP: '10.0.0.1' },
  }) as KubeObject & { spec?: unknown; status?: unknown };
  assert.equal(pod.spec, undefined);
  assert.deepEqual(pod.status, { phase: 'Running', podIP: '10.0.0.1' });
});

test('on a cached copy, the cluster controller decides as on the whole object', () => {
  const specs = [
    cluster({ replicas: 3 }),
    cluster({
      replicas: 1,
      mysqlVersion: '8.0',
      mysqlConf: { max_connections: 500 },
      podSpec: { nodeSelector: { disk: 'ssd' }, resources: { requests: { memory: '1Gi' } } },
    }),
    cluster({ replicas: 2, mysqlVersion: 'mariadb-10.11', minAvailable: 1 }),
  ];
  for (const c of specs) {
    for (const o of objectsOf(c)) {
      const what = `${o.kind.kind} ${o.full.metadata?.name}`;
      assert.deepEqual(o.plan(cached(o.kind, o.full)), { op: 'none' }, `${what}: steady state needs no GET`);
      assert.deepEqual(o.plan(o.full), { op: 'none' }, what);
    }
  }
  // Drift another tool made to fields we own: seen on the cached copy, then sent from the whole object.
  const [sts, cm, , headless, master] = objectsOf();
  const drifts: Array<[typeof sts, (o: KubeObject & JsonObject) => void]> = [
    [sts, (o) => (o.spec.template.spec.containers[0].image = 'other:1')],
    [sts, (o) => (o.spec.replicas = 5)],
    [cm, (o) => (o.data = { ...o.data, extra: 'x' })],
    [headless, (o) => (o.spec.publishNotReadyAddresses = false)],
    [master, (o) => (o.spec.selector = { other: 'x' })],
    [master, (o) => (o.metadata!.ownerReferences = [])],
  ];
  for (const [o, drift] of drifts) {
    const full = structuredClone(o!.full) as KubeObject & JsonObject;
    drift(full);
    assert.equal(o!.plan(cached(o!.kind, full)).op, 'update', `${o!.kind.kind}: drift is seen on the cached copy`);
    const sent = (o!.plan(full) as { object: KubeObject & JsonObject }).object;
    assert.equal(
      sent.metadata?.annotations?.[LAST_APPLIED_ANNOTATION],
      full.metadata?.annotations?.[LAST_APPLIED_ANNOTATION],
      'kubectl apply annotation kept',
    );
    assert.equal(sent.metadata?.labels?.['team.example.com/owner'], 'dba', 'foreign label kept');
    if (o === sts) assert.deepEqual(sent.spec.volumeClaimTemplates, full.spec.volumeClaimTemplates);
    if (o === master) assert.equal(sent.spec.clusterIP, full.spec.clusterIP);
  }
});
