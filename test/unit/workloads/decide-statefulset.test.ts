import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1StatefulSet } from '@kubernetes/client-node';
import { decideStatefulSet, type StatefulSetAction } from '../../../sandbox/workloads/decide-statefulset.ts';
import { claim, claimsFor, revisionNameOf, statefulSet, stsPod, type PodShape } from './builders.ts';

function summary(actions: StatefulSetAction[]): string[] {
  return actions.map(describe);
}

function describe(a: StatefulSetAction): string {
  switch (a.type) {
    case 'createClaim':
      return `claim ${a.claim.metadata!.name}`;
    case 'createPod':
      return `create ${a.pod.metadata!.name}`;
    case 'deletePod':
      return `delete ${a.name} (${a.why})`;
    case 'labelPod':
      return `label ${a.name}`;
  }
}

function decide(sts: V1StatefulSet, pods: [number, PodShape, string?][], claimOrdinals = pods.map(([i]) => i)) {
  const { name, state } = revisionNameOf(sts);
  return decideStatefulSet({
    sts,
    pods: pods.map(([i, shape, rev]) => stsPod(sts, i, rev ?? name, shape)),
    claims: claimsFor(sts, claimOrdinals),
    revisions: state.revisions,
    now: 0,
  });
}

test('a new OrderedReady set creates the claim, then pod 0, and waits', () => {
  const plan = decideStatefulSet({ sts: statefulSet(), pods: [], claims: new Map(), revisions: [], now: 0 });
  assert.ok(plan.revision && 'create' in plan.revision);
  assert.equal(plan.revision.create.revision, 1);
  assert.deepEqual(summary(plan.actions), ['claim data-web-0', 'create web-0']);
  assert.match(plan.waiting ?? '', /web-0/);
});

test('OrderedReady creates the next pod only once the one before is Running and Ready', () => {
  assert.deepEqual(summary(decide(statefulSet(), [[0, 'pending']]).actions), []);
  assert.deepEqual(summary(decide(statefulSet(), [[0, 'ready']]).actions), ['claim data-web-1', 'create web-1']);
});

test('Parallel creates every missing pod at once', () => {
  const plan = decide(statefulSet({ podManagementPolicy: 'Parallel' }), [[0, 'pending']], []);
  assert.deepEqual(summary(plan.actions), ['claim data-web-0', 'claim data-web-1', 'create web-1', 'claim data-web-2', 'create web-2']);
});

test('a pod is not created while its claim is being deleted', () => {
  const sts = statefulSet({ replicas: 1 });
  const { state } = revisionNameOf(sts);
  const plan = decideStatefulSet({
    sts,
    pods: [],
    claims: new Map([['data-web-0', claim('data-web-0', true)]]),
    revisions: state.revisions,
    now: 0,
  });
  assert.deepEqual(plan.actions, []);
  assert.match(plan.waiting ?? '', /claim data-web-0/);
});

test('a failed pod is deleted so it can be recreated', () => {
  assert.deepEqual(
    summary(
      decide(statefulSet({ replicas: 2 }), [
        [0, 'failed'],
        [1, 'ready'],
      ]).actions,
    ),
    ['delete web-0 (failed)'],
  );
});

test('scale down deletes the highest ordinal first, one at a time, after the rest are Ready', () => {
  const sts = statefulSet({ replicas: 1 });
  assert.deepEqual(
    summary(
      decide(sts, [
        [0, 'ready'],
        [1, 'ready'],
        [2, 'ready'],
      ]).actions,
    ),
    ['delete web-2 (scale-down)'],
  );
  assert.deepEqual(
    summary(
      decide(sts, [
        [0, 'ready'],
        [1, 'ready'],
        [2, 'terminating'],
      ]).actions,
    ),
    [],
  );
  assert.deepEqual(
    summary(
      decide(sts, [
        [0, 'pending'],
        [1, 'ready'],
      ]).actions,
    ),
    [],
  );
});

test('a rolling update replaces the highest outdated pod at or above the partition, after the ones above are Ready', () => {
  const sts = statefulSet({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } } });
  assert.deepEqual(
    summary(
      decide(sts, [
        [0, 'ready', 'old'],
        [1, 'ready', 'old'],
        [2, 'ready', 'old'],
      ]).actions,
    ),
    ['delete web-2 (update)'],
  );
  assert.deepEqual(
    summary(
      decide(sts, [
        [0, 'ready', 'old'],
        [1, 'ready', 'old'],
        [2, 'ready'],
      ]).actions,
    ),
    ['delete web-1 (update)'],
  );
  assert.deepEqual(
    summary(
      decide(sts, [
        [0, 'ready', 'old'],
        [1, 'ready'],
        [2, 'ready'],
      ]).actions,
    ),
    [],
    'the partition keeps web-0',
  );
  const waiting = decide(statefulSet({ podManagementPolicy: 'Parallel' }), [
    [0, 'ready', 'old'],
    [1, 'ready', 'old'],
    [2, 'pending'],
  ]);
  assert.deepEqual(summary(waiting.actions), []);
});

test('OnDelete never deletes an outdated pod', () => {
  const sts = statefulSet({ updateStrategy: { type: 'OnDelete' } });
  assert.deepEqual(
    summary(
      decide(sts, [
        [0, 'ready', 'old'],
        [1, 'ready', 'old'],
        [2, 'ready', 'old'],
      ]).actions,
    ),
    [],
  );
});

test('the status counts pods by readiness and revision, and the update revision becomes current once all are updated and Ready', () => {
  const sts = statefulSet();
  const { name, state } = revisionNameOf(sts);
  const old = { ...state.revisions[0]!, metadata: { ...state.revisions[0]!.metadata, name: 'old' }, revision: 0 };
  const rolling = decideStatefulSet({
    sts: { ...sts, status: { replicas: 3, currentRevision: 'old' } },
    pods: [stsPod(sts, 0, 'old'), stsPod(sts, 1, name, 'pending'), stsPod(sts, 2, name)],
    claims: claimsFor(sts, [0, 1, 2]),
    revisions: [old, ...state.revisions],
    now: 0,
  });
  assert.deepEqual(rolling.status, {
    observedGeneration: 1,
    replicas: 3,
    readyReplicas: 2,
    currentReplicas: 1,
    updatedReplicas: 2,
    currentRevision: 'old',
    updateRevision: name,
    collisionCount: 0,
    availableReplicas: 2,
  });
  const done = decide(sts, [
    [0, 'ready'],
    [1, 'ready'],
    [2, 'ready'],
  ]);
  assert.deepEqual(done.status, {
    observedGeneration: 1,
    replicas: 3,
    readyReplicas: 3,
    currentReplicas: 3,
    updatedReplicas: 3,
    currentRevision: name,
    updateRevision: name,
    collisionCount: 0,
    availableReplicas: 3,
  });
});

test('going back to an earlier template reuses its revision under a new number', () => {
  const v1 = statefulSet();
  const first = revisionNameOf(v1);
  const v2 = statefulSet({ template: { metadata: { labels: { app: 'web' }, annotations: { rev: '2' } }, spec: v1.spec!.template.spec! } });
  const second = revisionNameOf(v2).state.revisions[0]!;
  second.revision = 2;
  const plan = decideStatefulSet({ sts: v1, pods: [], claims: new Map(), revisions: [first.state.revisions[0]!, second], now: 0 });
  assert.deepEqual(plan.revision, { renumber: first.name, revision: 3 });
});
