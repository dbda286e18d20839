// What the topology reads from a MysqlCluster. Pure.
import { CLUSTER_CONDITION, CONDITION_STATUS, NODE_CONDITION } from '../api/constants.ts';
import type { MysqlCluster, NodeStatus } from '../api/index.ts';

/** Orchestrator's view of the cluster: the instances (FQDNs) it calls master. */
export interface OrchestratorView {
  masters: string[];
}

export interface ClusterView {
  name: string;
  namespace: string;
  /** FailoverInProgress=True on the MysqlCluster, with its message. */
  failoverInProgress: boolean;
  failoverMessage: string;
  /** Undefined while no view is known. */
  orchestrator: OrchestratorView | undefined;
  /** `spec.readOnly`: the master stays read-only too. */
  readOnly?: boolean;
}

export function clusterView(c: MysqlCluster): ClusterView {
  const failover = c.status?.conditions?.find((x) => x.type === CLUSTER_CONDITION.failoverInProgress);
  return {
    name: c.metadata?.name ?? '',
    namespace: c.metadata?.namespace ?? '',
    failoverInProgress: failover?.status === CONDITION_STATUS.true,
    failoverMessage: failover?.message ?? '',
    orchestrator: orchestratorViewFromStatus(c.status?.nodes),
    readOnly: c.spec?.readOnly === true,
  };
}

/**
 * Orchestrator's view as the orchestrator controller last wrote it into status.nodes (the
 * Master condition); undefined when status has no nodes.
 */
function orchestratorViewFromStatus(nodes: readonly NodeStatus[] | undefined): OrchestratorView | undefined {
  if (nodes === undefined || nodes.length === 0) return undefined;
  return {
    masters: nodes
      .filter((n) => n.conditions?.some((x) => x.type === NODE_CONDITION.master && x.status === CONDITION_STATUS.true))
      .map((n) => n.name),
  };
}
