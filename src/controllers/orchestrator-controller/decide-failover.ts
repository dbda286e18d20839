// Whether Orchestrator is failing the cluster's master over right now. Every other decision of the
// controller holds back while it is: Orchestrator moves read_only and replication itself then, and
// the instances of the old master must not be forgotten under it.
import type { AnalysisEntry, Recovery } from '../../orchestrator/index.ts';
import { keyName, type Gathered } from './gathered.ts';

/**
 * The analyses Orchestrator recovers a master from (checkAndRecoverDeadMaster). Not
 * UnreachableMaster (detection only: OnFailureDetection fires for it without a failover) nor
 * DeadMasterWithoutReplicas (what a demoted old master alone in its own cluster shows).
 */
export const MASTER_FAILURE_ANALYSES: readonly string[] = ['DeadMaster', 'DeadMasterAndSomeReplicas'];

export type FailoverState = { inProgress: false } | { inProgress: true; message: string };

function recoveryText(r: Recovery): string {
  return `recovery ${r.id} (${r.analysis} on ${keyName(r.failed)})`;
}

function analysisText(a: AnalysisEntry): string {
  return `${a.analysis} on ${keyName(a.instance)}`;
}

/**
 * In progress while a recovery runs (active and not ended), or while Orchestrator's analysis shows a master failure
 * it recovers from: between detection and the recovery, and between the retries of a recovery a
 * PreFailover hook aborted. Also while a fresh PreGracefulTakeover or PreFailover hook call says one
 * began that Orchestrator's API does not show yet (its hooks run before the recovery is visible there).
 * Unknown (`undefined`) while Orchestrator is unreachable.
 */
export function decideFailover(g: Gathered): FailoverState | undefined {
  const orc = g.orchestrator;
  if (orc.kind === 'unreachable') return undefined;
  // Not IsActive alone: the real 3.2.6 keeps it for RecoveryPeriodBlockSeconds (300 s in the chart)
  // after a recovery ended, and holding every decision that long would keep an old master out.
  const active = orc.recoveries.filter((r) => r.active && !r.ended);
  if (active.length > 0) return { inProgress: true, message: `Orchestrator is running ${active.map(recoveryText).join(', ')}` };
  const failures = orc.analysis.filter((a) => a.isMaster && !a.downtimed && MASTER_FAILURE_ANALYSES.includes(a.analysis));
  if (failures.length > 0) {
    const newest = orc.recoveries[0];
    const last =
      newest && !newest.successful && newest.errors.length > 0 ? `; ${recoveryText(newest)} failed: ${newest.errors.join('; ')}` : '';
    return { inProgress: true, message: `Orchestrator detected ${failures.map(analysisText).join(', ')}${last}` };
  }
  if (g.hook?.process === 'PreGracefulTakeover') {
    // 3.2.6 freezes the master right after this hook and shows the recovery only once the
    // designated replica caught up (up to ReasonableMaintenanceReplicationLagSeconds later).
    const to = g.hook.successor ? ` to ${g.hook.successor}` : '';
    const from = g.hook.failed ? ` from ${g.hook.failed}` : '';
    return {
      inProgress: true,
      message: `Orchestrator's PreGracefulTakeover hook announced a takeover${from}${to} at ${g.hook.at.toISOString()}`,
    };
  }
  if (g.hook?.process === 'PreFailover') {
    const failed = g.hook.failed ? ` of ${g.hook.failed}` : '';
    return { inProgress: true, message: `Orchestrator's PreFailover hook announced a failover${failed} at ${g.hook.at.toISOString()}` };
  }
  return { inProgress: false };
}
