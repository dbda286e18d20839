// What the node controller reads from a MysqlCluster. Pure.
import { CLUSTER_CONDITION, CONDITION_STATUS, NODE_CONDITION } from '../../api/constants.ts';
import type { MysqlCluster } from '../../api/index.ts';
import type { ClusterView } from './node-state.ts';

export function clusterView(c: MysqlCluster): ClusterView {
  const failover = c.status?.conditions?.find((x) => x.type === CLUSTER_CONDITION.failoverInProgress);
  return {
    name: c.metadata?.name ?? '',
    namespace: c.metadata?.namespace ?? '',
    failoverInProgress: failover?.status === CONDITION_STATUS.true,
    failoverMessage: failover?.message ?? '',
    orchestratorMasters: (c.status?.nodes ?? [])
      .filter((n) => n.conditions?.some((x) => x.type === NODE_CONDITION.master && x.status === CONDITION_STATUS.true))
      .map((n) => n.name),
  };
}
