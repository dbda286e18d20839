// Which server a backup streams from: the first healthy, non-lagging replica, else the master
// (the anchor's getBackupCandidate). Healthy twice over: the orchestrator controller's node
// conditions in status (replicating, not lagged, not master) and its pod labels role=replica,
// healthy=yes, which it sets from the same view plus the server's own answers.
import { CONDITION_STATUS, HEALTHY, LABEL_HEALTHY, LABEL_ROLE, NODE_CONDITION, ROLE } from '../../api/constants.ts';
import type { MysqlCluster } from '../../api/index.ts';
import { names, podFqdn } from '../../api/names.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';

export interface BackupSource {
  /** What take-backup-to connects to: a pod FQDN, or the master Service. */
  host: string;
  /** Set when the source is a replica: the server Orchestrator must leave alone meanwhile. */
  replica: boolean;
}

type Node = NonNullable<NonNullable<MysqlCluster['status']>['nodes']>[number];

function conditionIs(node: Node, type: string, status: string): boolean {
  return node.conditions?.some((c) => c.type === type && c.status === status) ?? false;
}

/** `pods`: the cluster's pods (from the cache), by name. */
export function chooseBackupSource(cluster: MysqlCluster & KubeObject, pods: ReadonlyMap<string, KubeObject>): BackupSource {
  const nodes = cluster.status?.nodes ?? [];
  for (const node of nodes) {
    const labels = pods.get(node.name.split('.')[0]!)?.metadata?.labels ?? {};
    if (
      !conditionIs(node, NODE_CONDITION.master, CONDITION_STATUS.true) &&
      conditionIs(node, NODE_CONDITION.replicating, CONDITION_STATUS.true) &&
      !conditionIs(node, NODE_CONDITION.lagged, CONDITION_STATUS.true) &&
      labels[LABEL_ROLE] === ROLE.replica &&
      labels[LABEL_HEALTHY] === HEALTHY.yes
    ) {
      return { host: node.name, replica: true };
    }
  }
  const master = nodes.find((n) => conditionIs(n, NODE_CONDITION.master, CONDITION_STATUS.true));
  if (master) return { host: master.name, replica: false };
  const ns = cluster.metadata!.namespace!;
  const labelled = [...pods.values()].find((p) => p.metadata?.labels?.[LABEL_ROLE] === ROLE.master);
  if (labelled) return { host: podFqdn(labelled.metadata!.name!, ns), replica: false };
  // Nothing known yet: the master Service, which routes to whichever pod is master when the Job runs.
  return { host: `${names.masterService(cluster.metadata!.name!)}.${ns}`, replica: false };
}
