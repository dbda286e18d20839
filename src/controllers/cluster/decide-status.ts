// The part of MysqlCluster.status this controller owns (CLUSTER_STATUS_OWNERS.cluster):
// readyNodes, observedGeneration and the Synced condition. nodes[] and the Orchestrator conditions
// belong to the orchestrator controller; this controller never names them, so its server-side
// apply leaves them as they are (docs/cluster-controller.md, "Status").
import type { MysqlCluster, MysqlClusterStatus } from '../../api/index.ts';
import { CLUSTER_CONDITION, CLUSTER_REASONS, CONDITION_STATUS } from '../../api/constants.ts';
import { transitionTime } from '../shared/condition-time.ts';

export interface SyncOutcome {
  ok: boolean;
  reason: string;
  message: string;
}

type Condition = NonNullable<MysqlClusterStatus['conditions']>[number];

/** Everything this controller owns, named on every write: a field left out would be removed. */
export interface ClusterOwnedStatus {
  readyNodes: number;
  observedGeneration?: number;
  conditions: [Condition];
}

/**
 * This controller's fields as they should be, or undefined when the cluster's status already
 * holds them (no write: zero writes in steady state). The Synced condition keeps its
 * lastTransitionTime while its status stays.
 */
export function decideStatus(cluster: MysqlCluster, readyNodes: number, outcome: SyncOutcome, now: Date): ClusterOwnedStatus | undefined {
  const status = cluster.status ?? {};
  const wanted = outcome.ok ? CONDITION_STATUS.true : CONDITION_STATUS.false;
  const current = status.conditions?.find((c) => c.type === CLUSTER_CONDITION.synced);
  const conditionSame = current?.status === wanted && current.reason === outcome.reason && current.message === outcome.message;
  const generation = cluster.metadata?.generation;
  if (conditionSame && status.readyNodes === readyNodes && (generation === undefined || status.observedGeneration === generation)) {
    return undefined;
  }
  const synced = {
    type: CLUSTER_CONDITION.synced,
    status: wanted,
    reason: outcome.reason,
    message: outcome.message,
    // A held scale-down is timed from its own start (decide-scale-down.ts), even when Synced was
    // False for another reason just before.
    lastTransitionTime: transitionTime(
      outcome.reason === CLUSTER_REASONS.scaleDownHeld && current?.reason !== outcome.reason ? undefined : current,
      wanted,
      now,
    ),
  } as Condition;
  return generation === undefined
    ? { readyNodes, conditions: [synced] }
    : { readyNodes, observedGeneration: generation, conditions: [synced] };
}

/** True when the Synced condition is about to change: the moment to record an Event. */
export function syncConditionChanges(cluster: MysqlCluster, outcome: SyncOutcome): boolean {
  const c = cluster.status?.conditions?.find((x) => x.type === CLUSTER_CONDITION.synced);
  return !c || c.reason !== outcome.reason || c.message !== outcome.message;
}
