// Which recoveries to acknowledge. Orchestrator blocks a new automatic recovery of a cluster while
// an earlier one is unacknowledged and recent (RecoveryPeriodBlockSeconds), so the operator
// acknowledges them, as the anchor did, once the cluster is Ready again and the recovery is older
// than a grace period that leaves people time to look at PendingFailoverAck first.
import { ORCHESTRATOR_REASONS } from '../../api/constants.ts';
import type { Recovery } from '../../orchestrator/index.ts';
import { decideFailover } from './decide-failover.ts';
import type { Gathered } from './gathered.ts';

export type AckDecision =
  | { kind: 'ack'; recoveries: Recovery[]; comment: string }
  | { kind: 'none' }
  | { kind: 'hold'; reason: string; message: string };

/**
 * `ready`: the Ready condition decided this pass is True. Orchestrator acknowledges by cluster
 * (`ackRecoveries(alias)` covers every pending one), so nothing is acknowledged while any pending
 * recovery is younger than `graceMs` or still active.
 */
export function decideAck(g: Gathered, ready: boolean, graceMs: number): AckDecision {
  const orc = g.orchestrator;
  if (orc.kind === 'unreachable') {
    return { kind: 'hold', reason: ORCHESTRATOR_REASONS.orchestratorUnreachable, message: `Orchestrator is unreachable: ${orc.message}` };
  }
  const pending = orc.recoveries.filter((r) => !r.acknowledged);
  if (pending.length === 0) return { kind: 'none' };
  const failover = decideFailover(g);
  if (failover?.inProgress) return { kind: 'hold', reason: ORCHESTRATOR_REASONS.failoverInProgress, message: failover.message };
  if (!ready)
    return { kind: 'hold', reason: ORCHESTRATOR_REASONS.clusterNotReady, message: 'recoveries are acknowledged once the cluster is Ready' };
  // A recovery without a start time cannot be dated; it is not active either, so it waits no longer.
  const young = pending.filter((r) => r.startedAt !== null && g.now.getTime() - r.startedAt.getTime() < graceMs);
  if (young.length > 0) {
    return {
      kind: 'hold',
      reason: ORCHESTRATOR_REASONS.recoveryTooRecent,
      message: `recovery ${young.map((r) => r.id).join(', ')} started less than ${Math.round(graceMs / 1000)}s ago`,
    };
  }
  return {
    kind: 'ack',
    recoveries: pending,
    comment: `mysql-operator: cluster Ready; recoveries ${pending.map((r) => r.id).join(', ')} older than ${Math.round(graceMs / 1000)}s`,
  };
}
