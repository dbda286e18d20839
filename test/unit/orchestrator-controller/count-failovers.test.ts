import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { countFailovers } from '../../../src/controllers/orchestrator-controller/count-failovers.ts';
import { recovery } from './builders.ts';

describe('countFailovers', () => {
  it('counts nothing at the first look: what the audit holds then is history', () => {
    const first = countFailovers(undefined, [recovery(2, 1, 0), recovery(1, 0, 1)]);
    assert.deepEqual(first.counted, []);
    assert.deepEqual([...first.seen].sort(), ['uid-1', 'uid-2']);
  });

  it('counts a new recovery once, when it has ended', () => {
    const seen = new Set(['uid-1']);
    const active = countFailovers(seen, [recovery(2, 0, null, { active: true, ended: false }), recovery(1, 1, 0)]);
    assert.deepEqual(active.counted, []);
    const ended = countFailovers(active.seen, [recovery(2, 0, 1), recovery(1, 1, 0)]);
    assert.deepEqual(
      ended.counted.map((r) => r.id),
      [2],
    );
    assert.deepEqual(countFailovers(ended.seen, [recovery(2, 0, 1), recovery(1, 1, 0)]).counted, []);
  });

  it('counts a recovery that ended while Orchestrator still blocks the cluster (IsActive)', () => {
    const counted = countFailovers(new Set(['uid-1']), [recovery(2, 0, 1, { active: true, ended: true }), recovery(1, 1, 0)]);
    assert.deepEqual(
      counted.counted.map((r) => r.id),
      [2],
    );
  });

  it('keeps only what the audit still shows', () => {
    assert.deepEqual([...countFailovers(new Set(['uid-1', 'uid-2']), [recovery(2, 1, 0)]).seen], ['uid-2']);
  });
});
