import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideAck } from '../../../src/controllers/orchestrator-controller/decide-ack.ts';
import { NOW, healthy, instance, reachable, recovery } from './builders.ts';

const GRACE = 10 * 60_000;
const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000);

function withRecoveries(...recoveries: ReturnType<typeof recovery>[]) {
  const instances = [instance(0, null), instance(1, 0), instance(2, 0)];
  return healthy({ orchestrator: reachable({ master: instances[0]!, instances, recoveries }) });
}

describe('decideAck', () => {
  it('acknowledges the pending recoveries once the cluster is Ready and they are older than the grace period', () => {
    const d = decideAck(
      withRecoveries(recovery(3, 2, 0, { startedAt: minutesAgo(11) }), recovery(2, 1, 0, { acknowledged: true })),
      true,
      GRACE,
    );
    assert.equal(d.kind, 'ack');
    assert.deepEqual(d.kind === 'ack' && d.recoveries.map((r) => r.id), [3]);
    assert.ok(d.kind === 'ack' && d.comment.length > 0, 'Orchestrator refuses an ack without a comment');
  });

  it('waits while any pending recovery is younger than the grace period (the ack covers the whole cluster)', () => {
    const d = decideAck(
      withRecoveries(recovery(4, 0, 2, { startedAt: minutesAgo(2) }), recovery(3, 2, 0, { startedAt: minutesAgo(60) })),
      true,
      GRACE,
    );
    assert.deepEqual(d.kind === 'hold' && [d.reason, d.message], ['RecoveryTooRecent', 'recovery 4 started less than 600s ago']);
  });

  it('waits until the cluster is Ready', () => {
    const d = decideAck(withRecoveries(recovery(3, 2, 0)), false, GRACE);
    assert.equal(d.kind === 'hold' && d.reason, 'ClusterNotReady');
  });

  it('waits while a recovery is active', () => {
    const d = decideAck(withRecoveries(recovery(5, 0, null, { active: true, ended: false, startedAt: minutesAgo(30) })), true, GRACE);
    assert.equal(d.kind === 'hold' && d.reason, 'FailoverInProgress');
  });

  it('has nothing to do when every recovery is acknowledged, and holds while Orchestrator is unreachable', () => {
    assert.equal(decideAck(withRecoveries(recovery(3, 2, 0, { acknowledged: true })), true, GRACE).kind, 'none');
    const d = decideAck(healthy({ orchestrator: { kind: 'unreachable', message: 'connect ECONNREFUSED' } }), true, GRACE);
    assert.equal(d.kind === 'hold' && d.reason, 'OrchestratorUnreachable');
  });
});
