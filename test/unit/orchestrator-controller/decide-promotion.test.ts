import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  demotionsBeforePromotion,
  labelPatchBody,
  stillAsDecided,
  type LivePod,
} from '../../../src/controllers/orchestrator-controller/decide-promotion.ts';
import { podName } from './builders.ts';

function live(ordinal: number, role: string | undefined, resourceVersion: string): LivePod {
  return { metadata: { name: podName(ordinal), resourceVersion, labels: role ? { role, healthy: 'yes' } : {} } };
}

describe('demotionsBeforePromotion (issue 21: two masters impossible)', () => {
  it('demotes every pod the API server lists with role=master but the promoted one, each guarded by the version the list returned', () => {
    // The cache showed no master but pod 0's label was still on (its removal lost, or another writer's).
    const patches = demotionsBeforePromotion(podName(2), [
      live(0, 'master', '41'),
      live(1, 'replica', '42'),
      live(2, 'master', '43'),
      live(3, 'master', '44'),
    ]);
    assert.deepEqual(patches, [
      { pod: podName(0), labels: { role: 'replica', healthy: 'no' }, resourceVersion: '41' },
      { pod: podName(3), labels: { role: 'replica', healthy: 'no' }, resourceVersion: '44' },
    ]);
  });

  it('has nothing to do when the API server shows no other master', () => {
    assert.deepEqual(demotionsBeforePromotion(podName(1), [live(1, 'master', '7'), live(2, 'replica', '8')]), []);
    assert.deepEqual(demotionsBeforePromotion(podName(1), []), []);
  });
});

describe('labelPatchBody', () => {
  it('carries the resourceVersion the patch was decided on as a precondition (a changed pod is a 409, not an overwrite)', () => {
    assert.deepEqual(labelPatchBody({ pod: podName(0), labels: { role: 'master', healthy: 'yes' }, resourceVersion: '12' }), {
      metadata: { labels: { role: 'master', healthy: 'yes' }, resourceVersion: '12' },
    });
    assert.deepEqual(labelPatchBody({ pod: podName(0), labels: { role: 'replica', healthy: 'no' } }), {
      metadata: { labels: { role: 'replica', healthy: 'no' } },
    });
  });
});

describe('stillAsDecided', () => {
  const pod = (over: { uid?: string; labels?: Record<string, string>; deletionTimestamp?: string; resourceVersion?: string } = {}) => ({
    metadata: { name: podName(1), uid: 'u1', resourceVersion: '7', labels: { role: 'replica', healthy: 'yes', app: 'x' }, ...over },
  });
  it('holds when only the version moved (the kubelet rewrote the status) or a label the decision does not read', () => {
    assert.equal(stillAsDecided(pod(), pod({ resourceVersion: '9' })), true);
    assert.equal(stillAsDecided(pod(), pod({ resourceVersion: '9', labels: { role: 'replica', healthy: 'yes', app: 'y' } })), true);
  });
  it('fails when role or healthy changed, the pod was made again, or it began deleting', () => {
    assert.equal(stillAsDecided(pod(), pod({ labels: { role: 'master', healthy: 'yes' } })), false);
    assert.equal(stillAsDecided(pod(), pod({ labels: { role: 'replica', healthy: 'no' } })), false);
    assert.equal(stillAsDecided(pod(), pod({ uid: 'u2' })), false);
    assert.equal(stillAsDecided(pod(), pod({ deletionTimestamp: '2026-11-28T00:00:00Z' })), false);
    assert.equal(stillAsDecided({}, pod()), false);
  });
});
