// The part of MysqlCluster.status this controller owns: readyNodes, observedGeneration and the
// Synced condition. nodes[] and the Orchestrator conditions belong to the orchestrator controller
// and are carried over untouched.
import type { MysqlCluster, MysqlClusterStatus } from '../../api/index.ts';
import { CLUSTER_CONDITION, CONDITION_STATUS } from '../../api/constants.ts';
import { transitionTime } from '../condition-time.ts';

export interface SyncOutcome {
  ok: boolean;
  reason: string;
  message: string;
}

type Condition = NonNullable<MysqlClusterStatus['conditions']>[number];

/** The new status, or undefined when nothing this controller owns changed (no write). */
export function decideStatus(
  cluster: MysqlCluster,
  readyNodes: number,
  outcome: SyncOutcome,
  now: Date,
): MysqlClusterStatus | undefined {
  const status = cluster.status ?? {};
  const conditions = [...(status.conditions ?? [])];
  const wanted = outcome.ok ? CONDITION_STATUS.true : CONDITION_STATUS.false;
  const i = conditions.findIndex((c) => c.type === CLUSTER_CONDITION.synced);
  const current = i >= 0 ? conditions[i] : undefined;
  const conditionSame = current?.status === wanted && current.reason === outcome.reason && current.message === outcome.message;
  const generation = cluster.metadata?.generation;
  if (conditionSame && status.readyNodes === readyNodes && (generation === undefined || status.observedGeneration === generation)) {
    return undefined;
  }
  const next: Condition = {
    type: CLUSTER_CONDITION.synced,
    status: wanted,
    reason: outcome.reason,
    message: outcome.message,
    lastTransitionTime: transitionTime(current, wanted, now),
  } as Condition;
  if (i >= 0) conditions[i] = next;
  else conditions.push(next);
  const out: MysqlClusterStatus = { ...status, readyNodes, conditions };
  if (generation !== undefined) out.observedGeneration = generation;
  return out;
}

/** True when the Synced condition is about to change: the moment to record an Event. */
export function syncConditionChanges(cluster: MysqlCluster, outcome: SyncOutcome): boolean {
  const c = cluster.status?.conditions?.find((x) => x.type === CLUSTER_CONDITION.synced);
  return !c || c.reason !== outcome.reason || c.message !== outcome.message;
}
