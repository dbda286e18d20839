// The pod labels role and healthy the Services select on, as an ordered list of patches the wiring
// applies one at a time, stopping at the first failure. The order keeps docs/architecture.md §3's invariant at
// every step, not only at the end: a pod losing role=master comes first, the pod gaining it last,
// so no prefix of the list leaves two masters. `labelRounds` groups them for patching side by side.
import {
  CONDITION_STATUS,
  HEALTHY,
  LABEL_HEALTHY,
  LABEL_ROLE,
  NODE_CONDITION,
  ORCHESTRATOR_REASONS,
  ROLE,
  type Healthy,
  type Role,
} from '../../api/constants.ts';
import type { NodeStatus } from '../../api/index.ts';
import { masterVerdict } from './decide-successor.ts';
import { healthyLabel, podNodes, roleLabel, type Gathered, type PodNode } from './gathered.ts';

export interface LabelPatch {
  pod: string;
  labels: { [LABEL_ROLE]: Role; [LABEL_HEALTHY]: Healthy };
  /** The pod's resourceVersion the patch was decided on: the API server refuses it (409) once the pod changed. */
  resourceVersion?: string;
}

export interface LabelDecision {
  patches: LabelPatch[];
  /** Why no pod is (to be) labelled master; undefined when one is. */
  noMaster?: { reason: string; message: string };
}

function conditionIs(nodes: readonly NodeStatus[], fqdn: string, type: string, status: string): boolean {
  return nodes.find((n) => n.name === fqdn)?.conditions?.some((c) => c.type === type && c.status === status) ?? false;
}

/**
 * A replica serves reads when it runs, replicates, is not lagged (maxSlaveLatency), is
 * read-only (a writable replica would take writes the master never sees) and holds no
 * transaction the master lacks (decide-errant.ts).
 */
export function healthyReplica(n: PodNode, nodes: readonly NodeStatus[]): boolean {
  const fqdn = n.pod.fqdn;
  return (
    n.pod.mysqlRunning &&
    !n.pod.deleting &&
    conditionIs(nodes, fqdn, NODE_CONDITION.replicating, CONDITION_STATUS.true) &&
    conditionIs(nodes, fqdn, NODE_CONDITION.lagged, CONDITION_STATUS.false) &&
    conditionIs(nodes, fqdn, NODE_CONDITION.readOnly, CONDITION_STATUS.true) &&
    !conditionIs(nodes, fqdn, NODE_CONDITION.errantTransactions, CONDITION_STATUS.true)
  );
}

/**
 * `nodes` is the status.nodes decided this pass (decide-status), so labels and status say the same.
 * While Orchestrator is unreachable nothing is relabelled: the labels stay as they were. The master
 * is decide-master's, or a fresh failover hook's successor its servers prove (decide-successor.ts).
 */
export function decideLabels(g: Gathered, nodes: readonly NodeStatus[]): LabelDecision {
  const verdict = masterVerdict(g);
  const noMaster = verdict.kind === 'none' ? { reason: verdict.reason, message: verdict.message } : undefined;
  if (verdict.kind === 'none' && verdict.reason === ORCHESTRATOR_REASONS.orchestratorUnreachable) return { patches: [], noMaster };

  const master = verdict.kind === 'master' ? verdict.node.pod.name : undefined;
  const demotions: LabelPatch[] = [];
  const replicas: LabelPatch[] = [];
  const promotions: LabelPatch[] = [];
  for (const n of podNodes(g)) {
    const isMaster = n.pod.name === master;
    const role = isMaster ? ROLE.master : ROLE.replica;
    const healthy = isMaster || healthyReplica(n, nodes) ? HEALTHY.yes : HEALTHY.no;
    if (roleLabel(n) === role && healthyLabel(n) === healthy) continue;
    const patch = { pod: n.pod.name, labels: { [LABEL_ROLE]: role, [LABEL_HEALTHY]: healthy } };
    if (isMaster) promotions.push(patch);
    else if (roleLabel(n) === ROLE.master) demotions.push(patch);
    else replicas.push(patch);
  }
  return { patches: [...demotions, ...replicas, ...promotions], noMaster };
}

/**
 * The patches as rounds the wiring applies one after the other, the patches of a round side by
 * side: first every patch that gives no pod role=master (demotions and replicas: whichever of them
 * lands first, no pod gains the label), then the promotion alone once they all have. One round of
 * API latency less before the master label moves than patching them one at a time.
 */
export function labelRounds(patches: readonly LabelPatch[]): LabelPatch[][] {
  const promotions = patches.filter((p) => p.labels[LABEL_ROLE] === ROLE.master);
  const others = patches.filter((p) => p.labels[LABEL_ROLE] !== ROLE.master);
  return [others, promotions].filter((round) => round.length > 0);
}
