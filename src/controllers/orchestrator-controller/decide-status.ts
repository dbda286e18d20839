// The part of MysqlCluster.status the orchestrator controller owns (CLUSTER_STATUS_OWNERS.orchestrator):
// status.nodes[] with the node conditions, and the Ready, PendingFailoverAck, ReadOnly and
// FailoverInProgress conditions, from Orchestrator's view, the servers' own view and the pods.
//
// Sources, node by node: Master and Lagged are Orchestrator's (its master; its lag query on
// sys_operator.heartbeat), Unknown while it is unreachable or did not check the instance recently.
// Replicating and ReadOnly are what the server said this pass, fresher than Orchestrator's last
// poll, else Orchestrator's recent check, else Unknown.
import { CLUSTER_CONDITION, CLUSTER_REASONS, CONDITION_STATUS, NODE_CONDITION, type ConditionStatus } from '../../api/constants.ts';
import { clusterWithDefaults } from '../../api/defaults.ts';
import type { ClusterCondition, NodeCondition, NodeStatus } from '../../api/index.ts';
import { names, podFqdn } from '../../api/names.ts';
import type { Recovery } from '../../orchestrator/index.ts';
import { transitionTime } from '../shared/condition-time.ts';
import { decideErrant } from './decide-errant.ts';
import { decideFailover } from './decide-failover.ts';
import { decideMaster } from './decide-master.ts';
import { checkedRecently, isOrchestratorMaster, keyName, podNodes, type Gathered, type PodNode } from './gathered.ts';

/** Everything this controller owns, named on every write: a field left out would be removed. */
export interface OrchestratorOwnedStatus {
  nodes: NodeStatus[];
  conditions: [ClusterCondition, ClusterCondition, ClusterCondition, ClusterCondition];
}

export interface StatusDecision {
  status: OrchestratorOwnedStatus;
  /** False when the cached status already holds it: no write (zero writes in steady state). */
  write: boolean;
}

const tri = (b: boolean | undefined): ConditionStatus =>
  b === undefined ? CONDITION_STATUS.unknown : b ? CONDITION_STATUS.true : CONDITION_STATUS.false;

/** `maxLag`: spec.maxSlaveLatency; undefined leaves Lagged Unknown. */
function nodeConditionValues(g: Gathered, n: PodNode, maxLag: number | undefined): Record<string, ConditionStatus> {
  const orc = g.orchestrator;
  const inst = n.instance !== undefined && checkedRecently(n.instance) ? n.instance : undefined;
  const s = n.server?.reachable ? n.server : undefined;
  const isMaster = isOrchestratorMaster(g, n);

  let master: boolean | undefined;
  if (orc.kind === 'reachable' && (orc.master !== null || n.instance !== undefined)) master = isMaster;

  let lagged: boolean | undefined;
  if (inst !== undefined)
    lagged = isMaster ? false : inst.lagSeconds === null || maxLag === undefined ? undefined : inst.lagSeconds > maxLag;

  let replicating: boolean | undefined;
  if (s !== undefined) replicating = s.replication !== null && s.replication.ioState === 'running' && s.replication.sqlRunning;
  else if (inst !== undefined) replicating = inst.ioThreadRunning && inst.sqlThreadRunning;

  const readOnly = s !== undefined ? s.readOnly : inst?.readOnly;
  return {
    [NODE_CONDITION.lagged]: tri(lagged),
    [NODE_CONDITION.replicating]: tri(replicating),
    [NODE_CONDITION.master]: tri(master),
    [NODE_CONDITION.readOnly]: tri(readOnly),
  };
}

function decideNodes(g: Gathered, nodes: readonly PodNode[]): NodeStatus[] {
  const old = g.cluster.status?.nodes ?? [];
  // The cached cluster carries the schema defaults; a builder's or an old CRD's may not.
  const maxLag = clusterWithDefaults(g.cluster).spec?.maxSlaveLatency;
  const errant = decideErrant(g).status;
  return nodes.map((n) => {
    const previous = old.find((o) => o.name === n.pod.fqdn)?.conditions ?? [];
    const values = nodeConditionValues(g, n, maxLag);
    // Ours, after the anchor's four, once the node was compared with a master (decide-errant.ts).
    const errantStatus = errant.get(n.pod.fqdn);
    if (errantStatus !== undefined) values[NODE_CONDITION.errantTransactions] = errantStatus;
    const conditions = Object.entries(values).map(
      ([type, status]): NodeCondition => ({
        type,
        status,
        lastTransitionTime: transitionTime(
          previous.find((c) => c.type === type),
          status,
          g.now,
        ),
      }),
    );
    return { name: n.pod.fqdn, conditions };
  });
}

function nodeCondition(nodes: readonly NodeStatus[], fqdn: string, type: string): ConditionStatus | undefined {
  return nodes.find((n) => n.name === fqdn)?.conditions?.find((c) => c.type === type)?.status;
}

type Outcome = [ConditionStatus, string, string];

const unreachable = (message: string): Outcome => [
  CONDITION_STATUS.unknown,
  CLUSTER_REASONS.orchestratorUnreachable,
  `Orchestrator is unreachable: ${message}`,
];

function ready(g: Gathered, nodes: readonly NodeStatus[]): Outcome {
  const orc = g.orchestrator;
  if (orc.kind === 'unreachable') return unreachable(orc.message);
  const replicas = g.cluster.spec?.replicas ?? 1;
  const readyNodes = g.cluster.status?.readyNodes ?? 0;
  if (readyNodes !== replicas) {
    return [
      CONDITION_STATUS.false,
      CLUSTER_REASONS.statefulSetNotReady,
      `StatefulSet is not ready: ${readyNodes} of ${replicas} pods ready`,
    ];
  }
  const name = g.cluster.metadata?.name ?? '';
  const namespace = g.cluster.metadata?.namespace ?? '';
  for (let i = 0; i < replicas; i++) {
    const fqdn = podFqdn(names.pod(name, i), namespace);
    if (
      nodeCondition(nodes, fqdn, NODE_CONDITION.master) !== CONDITION_STATUS.true &&
      nodeCondition(nodes, fqdn, NODE_CONDITION.replicating) !== CONDITION_STATUS.true
    ) {
      return [CONDITION_STATUS.false, CLUSTER_REASONS.notReplicating, `Node ${fqdn} is part of topology and not replicating`];
    }
  }
  const verdict = decideMaster(g);
  if (verdict.kind === 'none' && replicas > 0) {
    const reason = verdict.reason === CLUSTER_REASONS.masterDisagreement ? CLUSTER_REASONS.masterDisagreement : CLUSTER_REASONS.noMaster;
    return [CONDITION_STATUS.false, reason, verdict.message];
  }
  return [CONDITION_STATUS.true, CLUSTER_REASONS.clusterReady, 'Cluster is ready'];
}

function recoveryText(r: Recovery): string {
  const successor = r.successor ? `, successor ${keyName(r.successor)}` : r.successful ? '' : ', unsuccessful';
  const at = r.startedAt ? ` at ${r.startedAt.toISOString()}` : '';
  return `${r.id} (${r.analysis} on ${keyName(r.failed)}${successor}${at})`;
}

function pendingAck(g: Gathered): Outcome {
  const orc = g.orchestrator;
  if (orc.kind === 'unreachable') return unreachable(orc.message);
  const unacked = orc.recoveries.filter((r) => !r.acknowledged);
  if (unacked.length === 0) return [CONDITION_STATUS.false, CLUSTER_REASONS.noPendingFailoverAckExists, 'no pending ack'];
  return [
    CONDITION_STATUS.true,
    CLUSTER_REASONS.pendingFailoverAckExists,
    `unacknowledged recoveries: ${unacked.map(recoveryText).join(', ')}`,
  ];
}

function readOnly(nodes: readonly NodeStatus[]): Outcome {
  // As the anchor: a node whose read_only is unknown does not make the cluster writable.
  const writable = nodes.filter((n) =>
    n.conditions?.some((c) => c.type === NODE_CONDITION.readOnly && c.status === CONDITION_STATUS.false),
  );
  if (writable.length > 0)
    return [CONDITION_STATUS.false, CLUSTER_REASONS.clusterReadOnlyFalse, `writable: ${writable.map((n) => n.name).join(', ')}`];
  return [CONDITION_STATUS.true, CLUSTER_REASONS.clusterReadOnlyTrue, 'every node is read-only'];
}

function failoverInProgress(g: Gathered, nodes: readonly PodNode[]): Outcome {
  const orc = g.orchestrator;
  const failover = decideFailover(g);
  if (orc.kind === 'unreachable' || failover === undefined) return unreachable(orc.kind === 'unreachable' ? orc.message : '');
  if (failover.inProgress) return [CONDITION_STATUS.true, CLUSTER_REASONS.orcFailoverInProgress, failover.message];
  if ((g.cluster.spec?.replicas ?? 1) === 0 || !nodes.some((n) => n.pod.mysqlRunning)) {
    return [CONDITION_STATUS.false, CLUSTER_REASONS.clusterNotRunning, 'no MySQL pod is running'];
  }
  if (orc.master !== null && checkedRecently(orc.master)) {
    return [CONDITION_STATUS.false, CLUSTER_REASONS.clusterMasterHealthy, `master ${keyName(orc.master.key)} is healthy in Orchestrator`];
  }
  const why =
    orc.master === null ? 'Orchestrator knows no master' : `Orchestrator's last check of the master ${keyName(orc.master.key)} failed`;
  return [CONDITION_STATUS.false, CLUSTER_REASONS.masterNotHealthy, `no recovery is running; ${why}`];
}

/** This controller's part of the status as it should be, and whether it differs from the cached one. */
export function decideStatus(g: Gathered): StatusDecision {
  const pods = podNodes(g);
  const nodes = decideNodes(g, pods);
  const old = g.cluster.status?.conditions ?? [];
  const condition = (type: string, [status, reason, message]: Outcome): ClusterCondition => ({
    type,
    status,
    lastTransitionTime: transitionTime(
      old.find((c) => c.type === type),
      status,
      g.now,
    ),
    reason,
    message,
  });
  const status: OrchestratorOwnedStatus = {
    nodes,
    conditions: [
      condition(CLUSTER_CONDITION.ready, ready(g, nodes)),
      condition(CLUSTER_CONDITION.pendingFailoverAck, pendingAck(g)),
      condition(CLUSTER_CONDITION.readOnly, readOnly(nodes)),
      condition(CLUSTER_CONDITION.failoverInProgress, failoverInProgress(g, pods)),
    ],
  };
  return { status, write: !holds(g, status) };
}

/** The cached status already says all of it (order and other owners' fields aside). */
function holds(g: Gathered, s: OrchestratorOwnedStatus): boolean {
  const cached = g.cluster.status;
  const sameConditions = (
    have: readonly NodeCondition[] | readonly ClusterCondition[] | undefined,
    want: readonly ClusterCondition[],
  ): boolean =>
    (have ?? []).length === want.length &&
    want.every((c) => {
      const o: ClusterCondition | undefined = (have ?? []).find((x) => x.type === c.type);
      return (
        o !== undefined &&
        o.status === c.status &&
        o.reason === c.reason &&
        o.message === c.message &&
        o.lastTransitionTime === c.lastTransitionTime
      );
    });
  const nodes = cached?.nodes ?? [];
  return (
    nodes.length === s.nodes.length &&
    s.nodes.every((n) => sameConditions(nodes.find((o) => o.name === n.name)?.conditions, n.conditions ?? [])) &&
    s.conditions.every((c) =>
      sameConditions(
        cached?.conditions?.filter((x) => x.type === c.type),
        [c],
      ),
    )
  );
}

/** The Ready condition of a decided status is True. */
export function isReady(s: OrchestratorOwnedStatus): boolean {
  return s.conditions[0].status === CONDITION_STATUS.true;
}
