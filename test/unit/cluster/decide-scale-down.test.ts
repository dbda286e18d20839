import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SCALE_DOWN_HOLD_SECONDS } from '../../../src/api/constants.ts';
import { decideScaleDown, type ScaleDownInput } from '../../../src/controllers/cluster/decide-scale-down.ts';

const NOW = new Date('2026-11-28T20:00:00Z');
const secondsAgo = (s: number) => new Date(NOW.getTime() - s * 1000);
const input = (over: Partial<ScaleDownInput>): ScaleDownInput => ({
  wanted: 2,
  current: 5,
  master: { name: 'db-mysql-4', ordinal: 4 },
  heldSince: undefined,
  now: NOW,
  ...over,
});

describe('decideScaleDown', () => {
  it('keeps the StatefulSet at its size while the scale-down would remove the master', () => {
    const d = decideScaleDown(input({}));
    assert.equal(d.kind, 'hold');
    assert.equal(d.replicas, 5);
    assert.equal(d.kind === 'hold' && d.reason, 'ScaleDownHeld');
    assert.match(
      d.kind === 'hold' ? d.message : '',
      /spec.replicas 2 removes the master db-mysql-4 \(ordinal 4\): the StatefulSet keeps 5 pods/,
    );
    assert.equal(decideScaleDown(input({ heldSince: secondsAgo(SCALE_DOWN_HOLD_SECONDS - 1) })).kind, 'hold');
  });

  it('scales as asked when the master stays, when no pod is labelled master, when growing, and to 0', () => {
    for (const over of [
      { master: { name: 'db-mysql-1', ordinal: 1 } },
      { master: undefined },
      { wanted: 5, current: 3 },
      { wanted: 0 },
      { current: undefined },
    ]) {
      const d = decideScaleDown(input(over));
      assert.deepEqual(d, { kind: 'scale', replicas: over.wanted ?? 2 }, JSON.stringify(over));
    }
  });

  it('shrinks anyway once the hold has lasted its limit, and says so', () => {
    const d = decideScaleDown(input({ heldSince: secondsAgo(SCALE_DOWN_HOLD_SECONDS) }));
    assert.equal(d.kind, 'expired');
    assert.equal(d.replicas, 2);
    assert.match(d.kind === 'expired' ? d.message : '', /its preStop or a failover moves the master/);
  });
});
