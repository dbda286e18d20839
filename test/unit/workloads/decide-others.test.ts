import { test } from 'node:test';
import assert from 'node:assert/strict';
import type {
  V1Deployment,
  V1Job,
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1Pod,
  V1PodTemplateSpec,
  V1ReplicaSet,
  V1Service,
} from '@kubernetes/client-node';
import { decideDeployment } from '../../../sandbox/workloads/decide-deployment.ts';
import { decideEndpoints } from '../../../sandbox/workloads/decide-endpoints.ts';
import { decideJob } from '../../../sandbox/workloads/decide-job.ts';
import { decideReplicaSet } from '../../../sandbox/workloads/decide-replicaset.ts';
import { decideVolumes } from '../../../sandbox/workloads/decide-volumes.ts';

const WORK = '/tmp/sandbox';

function pvc(extra: Partial<V1PersistentVolumeClaim['metadata']> = {}, status?: string): V1PersistentVolumeClaim {
  return {
    metadata: { name: 'data-0', namespace: 'ns', uid: 'c1', ...extra },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } },
    ...(status ? { status: { phase: status } } : {}),
  };
}

function pv(claimUid: string, path = `${WORK}/volumes/ns/data-0`): V1PersistentVolume {
  return {
    metadata: { name: `pvc-${claimUid}` },
    spec: { hostPath: { path }, persistentVolumeReclaimPolicy: 'Delete', claimRef: { namespace: 'ns', name: 'data-0', uid: claimUid } },
  };
}

test('a new claim gets a hostPath volume under the work directory, both Bound', () => {
  const actions = decideVolumes({ namespace: 'ns', name: 'data-0', claim: pvc(), volumes: [], inUse: false, workDir: WORK });
  assert.deepEqual(
    actions.map((a) => a.type),
    ['createVolume', 'volumeBound', 'bindClaim', 'claimBound'],
  );
  const create = actions[0]!;
  assert.ok(create.type === 'createVolume');
  assert.equal(create.volume.spec?.hostPath?.path, `${WORK}/volumes/ns/data-0`);
  assert.equal(create.volume.spec?.capacity?.storage, '2Gi');
  assert.equal(create.volume.spec?.claimRef?.uid, 'c1');
  assert.deepEqual(
    decideVolumes({
      namespace: 'ns',
      name: 'data-0',
      claim: { ...pvc(), spec: { ...pvc().spec, volumeName: 'pvc-c1' }, status: { phase: 'Bound' } },
      volumes: [{ ...pv('c1'), status: { phase: 'Bound' } }],
      inUse: true,
      workDir: WORK,
    }),
    [],
  );
});

test('the volume of a deleted or recreated claim is removed with its directory before the new claim is bound', () => {
  const actions = decideVolumes({
    namespace: 'ns',
    name: 'data-0',
    claim: pvc({ uid: 'c2' }),
    volumes: [pv('c1')],
    inUse: false,
    workDir: WORK,
  });
  assert.deepEqual(actions[0], { type: 'reclaim', volume: 'pvc-c1', directory: `${WORK}/volumes/ns/data-0` });
  assert.equal(actions[1]?.type, 'createVolume');
  const foreign = decideVolumes({
    namespace: 'ns',
    name: 'data-0',
    claim: undefined,
    volumes: [pv('c1', '/var/lib/mysql')],
    inUse: false,
    workDir: WORK,
  });
  assert.deepEqual(
    foreign,
    [{ type: 'reclaim', volume: 'pvc-c1', directory: undefined }],
    'a directory this binder did not make is left alone',
  );
});

test('a claim being deleted keeps its protection while a running pod uses it', () => {
  const deleting = pvc(
    { deletionTimestamp: '2026-01-01T00:00:00Z' as unknown as Date, finalizers: ['kubernetes.io/pvc-protection'] },
    'Bound',
  );
  assert.deepEqual(
    decideVolumes({ namespace: 'ns', name: 'data-0', claim: deleting, volumes: [pv('c1')], inUse: true, workDir: WORK }),
    [],
  );
  assert.deepEqual(decideVolumes({ namespace: 'ns', name: 'data-0', claim: deleting, volumes: [pv('c1')], inUse: false, workDir: WORK }), [
    { type: 'unprotect', finalizers: [] },
  ]);
});

function pod(name: string, labels: Record<string, string>, opts: { ready?: boolean; deleting?: boolean; ip?: string } = {}): V1Pod {
  return {
    metadata: {
      name,
      namespace: 'ns',
      uid: `u-${name}`,
      labels,
      ...(opts.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' as unknown as Date } : {}),
    },
    spec: { nodeName: 'n', containers: [{ name: 'mysql', image: 'm', ports: [{ name: 'mysql', containerPort: 3306 }] }] },
    status: {
      phase: 'Running',
      ...(opts.ip === '' ? {} : { podIP: opts.ip ?? `10.0.0.${name.length}` }),
      conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }],
    },
  };
}

function service(publishNotReady = false): V1Service {
  return {
    metadata: { name: 'db', namespace: 'ns', uid: 's1' },
    spec: {
      selector: { app: 'db' },
      publishNotReadyAddresses: publishNotReady,
      ports: [{ name: 'mysql', port: 3306, targetPort: 'mysql' }],
    },
  };
}

test('endpoint conditions: ready only when Ready and not terminating; publishNotReadyAddresses makes every one ready', () => {
  const pods = [
    pod('a', { app: 'db' }),
    pod('bb', { app: 'db' }, { ready: false }),
    pod('ccc', { app: 'db' }, { deleting: true }),
    pod('dddd', { app: 'db' }, { ip: '' }),
    pod('other', { app: 'x' }),
  ];
  const plan = decideEndpoints({ service: service(), pods, slices: [], endpoints: undefined });
  assert.equal(plan.create.length, 1);
  assert.deepEqual(
    plan.create[0]!.endpoints.map((e) => [e.targetRef.name, e.conditions]),
    [
      ['a', { ready: true, serving: true, terminating: false }],
      ['bb', { ready: false, serving: false, terminating: false }],
      ['ccc', { ready: false, serving: true, terminating: true }],
    ],
  );
  assert.deepEqual(plan.create[0]!.ports, [{ name: 'mysql', protocol: 'TCP', port: 3306 }]);
  assert.deepEqual(
    plan.endpoints?.subsets?.map((s) => [s.addresses?.map((a) => a.targetRef?.name), s.notReadyAddresses?.map((a) => a.targetRef?.name)]),
    [[['a'], ['bb']]],
  );
  const published = decideEndpoints({ service: service(true), pods, slices: [], endpoints: undefined });
  assert.deepEqual(
    published.create[0]!.endpoints.map((e) => e.conditions.ready),
    [true, true, true],
  );
});

test('a slice that already says the same is not written again', () => {
  const pods = [pod('a', { app: 'db' })];
  const first = decideEndpoints({ service: service(), pods, slices: [], endpoints: undefined });
  const stored = { ...first.create[0]!, metadata: { ...first.create[0]!.metadata, name: 'db-x1' } };
  const again = decideEndpoints({ service: service(), pods, slices: [stored], endpoints: first.endpoints });
  assert.deepEqual(again, { create: [], update: [], remove: [] });
  const moved = decideEndpoints({ service: service(), pods: [pod('a', { app: 'x' })], slices: [stored], endpoints: first.endpoints });
  assert.deepEqual(
    moved.create.map((s) => s.endpoints.length),
    [0],
    'a placeholder for the empty Service',
  );
  assert.deepEqual(moved.remove, ['db-x1']);
});

function job(spec: Partial<NonNullable<V1Job['spec']>> = {}, status: V1Job['status'] = {}): V1Job {
  return {
    metadata: { name: 'b', namespace: 'ns', uid: 'j1' },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [] } }, ...spec },
    status,
  };
}

function jobPod(name: string, phase: string, at = '2026-01-01T00:00:00Z'): V1Pod {
  return {
    metadata: { name },
    status: { phase, conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: at as unknown as Date }] },
  };
}

test('a Job fails once failures pass backoffLimit, and waits a doubling backoff before replacing a failed pod', () => {
  const now = Date.parse('2026-01-01T00:00:01Z');
  const waiting = decideJob({ job: job({ backoffLimit: 2 }), pods: [jobPod('p1', 'Failed')], now, backoffBaseMs: 10_000 });
  assert.deepEqual(waiting.create, []);
  assert.equal(waiting.requeueAfterMs, 9_000);
  const retry = decideJob({ job: job({ backoffLimit: 2 }), pods: [jobPod('p1', 'Failed')], now: now + 9_000, backoffBaseMs: 10_000 });
  assert.equal(retry.create.length, 1);
  const failed = decideJob({
    job: job({ backoffLimit: 2 }),
    pods: ['p1', 'p2', 'p3'].map((n) => jobPod(n, 'Failed')),
    now,
    backoffBaseMs: 10_000,
  });
  assert.equal(failed.status?.conditions?.[0]?.reason, 'BackoffLimitExceeded');
  assert.equal(failed.status?.failed, 3);
});

test('a Job completes when enough pods succeeded', () => {
  const plan = decideJob({ job: job({ completions: 1, parallelism: 1 }), pods: [jobPod('p1', 'Succeeded')], now: 0, backoffBaseMs: 10 });
  assert.deepEqual(
    plan.status?.conditions?.map((c) => [c.type, c.status]),
    [['Complete', 'True']],
  );
  assert.equal(plan.status?.succeeded, 1);
  assert.ok(plan.status?.completionTime);
  const finished = decideJob({ job: { ...job(), status: plan.status! }, pods: [jobPod('p1', 'Succeeded')], now: 5, backoffBaseMs: 10 });
  assert.deepEqual(finished, { create: [], delete: [], events: [] });
});

function rs(name: string, replicas: number, available: number, revision: string, template: V1PodTemplateSpec): V1ReplicaSet {
  return {
    metadata: { name, annotations: { 'deployment.kubernetes.io/revision': revision } },
    spec: { replicas, selector: {}, template },
    status: { replicas, availableReplicas: available },
  };
}

test('a rolling Deployment surges the new ReplicaSet and scales the old one down within maxUnavailable', () => {
  const oldTemplate: V1PodTemplateSpec = { metadata: { labels: { app: 'o' } }, spec: { containers: [{ name: 'c', image: 'v1' }] } };
  const d: V1Deployment = {
    metadata: { name: 'op', namespace: 'ns', uid: 'd1', generation: 2 },
    spec: {
      replicas: 4,
      selector: { matchLabels: { app: 'o' } },
      template: { metadata: { labels: { app: 'o' } }, spec: { containers: [{ name: 'c', image: 'v2' }] } },
    },
  };
  const plan = decideDeployment({ deployment: d, replicaSets: [rs('op-old', 4, 4, '1', oldTemplate)], now: 0 });
  assert.equal(plan.create?.spec?.replicas, 1, 'maxSurge 25% of 4');
  assert.equal(plan.create?.metadata?.annotations?.['deployment.kubernetes.io/revision'], '2');
  assert.deepEqual(plan.scale, [{ name: 'op-old', replicas: 3 }], 'maxUnavailable 25% of 4');
});

test('a ReplicaSet deletes its surplus pods not yet Ready first', () => {
  const r: V1ReplicaSet = {
    metadata: { name: 'r', namespace: 'ns', uid: 'r1' },
    spec: { replicas: 1, selector: {}, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [] } } },
  };
  const p = (name: string, ready: boolean): V1Pod => ({
    metadata: { name, labels: { a: 'b' }, creationTimestamp: '2026-01-01T00:00:00Z' as unknown as Date },
    spec: { nodeName: 'n', containers: [] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  });
  const plan = decideReplicaSet({ rs: r, pods: [p('ready', true), p('slow', false)], now: 0 });
  assert.deepEqual(plan.delete, ['slow']);
  assert.deepEqual(
    decideReplicaSet({ rs: { ...r, spec: { ...r.spec!, replicas: 3 } }, pods: [p('ready', true)], now: 0 }).create.length,
    2,
  );
});
