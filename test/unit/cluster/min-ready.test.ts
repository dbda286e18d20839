// How long a rolled pod stays Ready before the next one rolls (decideMinReadySeconds): none while
// a cluster is created, then long enough for Orchestrator to re-check a rolled replica before the
// master's preStop asks it for a graceful takeover (docs/switchover.md, "Rolling").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1StatefulSet } from '@kubernetes/client-node';
import { ANNOTATION_CONFIG_HASH, ROLL_SETTLE_SECONDS } from '../../../src/api/constants.ts';
import { decideMinReadySeconds } from '../../../src/controllers/cluster/decide-rollout.ts';

function sts(status: V1StatefulSet['status'], minReadySeconds?: number): V1StatefulSet {
  return {
    spec: {
      selector: {},
      serviceName: 'mysql',
      template: { metadata: { annotations: { [ANNOTATION_CONFIG_HASH]: 'h' } } },
      ...(minReadySeconds !== undefined ? { minReadySeconds } : {}),
    },
    status,
  };
}

test('a new StatefulSet, and one whose pods are still being created, wait for nothing between pods', () => {
  assert.equal(decideMinReadySeconds(undefined, 3), 0);
  assert.equal(
    decideMinReadySeconds(sts({ replicas: 2, readyReplicas: 1, updatedReplicas: 2, currentRevision: 'r1', updateRevision: 'r1' }), 3),
    0,
  );
});

test('once every replica was Ready and up to date, a rolled pod settles before the next rolls, and keeps doing so', () => {
  const settled = sts({ replicas: 3, readyReplicas: 3, updatedReplicas: 3, currentRevision: 'r1', updateRevision: 'r1' });
  assert.equal(decideMinReadySeconds(settled, 3), ROLL_SETTLE_SECONDS);
  const rolling = sts(
    { replicas: 3, readyReplicas: 2, updatedReplicas: 1, currentRevision: 'r1', updateRevision: 'r2' },
    ROLL_SETTLE_SECONDS,
  );
  assert.equal(decideMinReadySeconds(rolling, 3), ROLL_SETTLE_SECONDS);
  assert.equal(decideMinReadySeconds(sts({ replicas: 3 }, 7), 5), 7, 'a value already set stays');
});

test('a StatefulSet mid-rollout that never had the setting does not get it until the rollout ends', () => {
  const rolling = sts({ replicas: 3, readyReplicas: 3, updatedReplicas: 1, currentRevision: 'r1', updateRevision: 'r2' });
  assert.equal(decideMinReadySeconds(rolling, 3), 0);
});

test("an adopted StatefulSet (the anchor's revs, not yet rolled by us) is left as it is", () => {
  const adopted: V1StatefulSet = {
    spec: { selector: {}, serviceName: 'mysql', template: { metadata: { annotations: { config_rev: '1', secret_rev: '2' } } } },
    status: { replicas: 3, readyReplicas: 3, updatedReplicas: 3, currentRevision: 'r1', updateRevision: 'r1' },
  };
  assert.equal(decideMinReadySeconds(adopted, 3), 0);
});
