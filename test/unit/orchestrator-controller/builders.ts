// Small builders for the orchestrator controller's gathered value, over the topology's server
// builders. Instances carry the fields Orchestrator 3.2.6 reported for a healthy replica
// (test/fixtures/orchestrator/instance_replica_127.0.0.12_3306.json), in the client's words.
import { CONTAINER, LABEL_HEALTHY, LABEL_ROLE, PORT } from '../../../src/api/constants.ts';
import type { MysqlCluster, MysqlClusterSpec, MysqlClusterStatus } from '../../../src/api/index.ts';
import type { Gathered, OrchestratorState } from '../../../src/controllers/orchestrator-controller/gathered.ts';
import type { AnalysisEntry, Instance, Recovery } from '../../../src/orchestrator/index.ts';
import type { NodeView, PodObject } from '../../../src/topology/index.ts';
import { CLUSTER, NS, fqdn, master, node, podName, replicating, server } from '../topology/builders.ts';

export * from '../topology/builders.ts';

export const NOW = new Date('2026-11-21T19:30:00Z');
export const ALIAS = `${CLUSTER}.${NS}`;

export function key(ordinal: number) {
  return { host: fqdn(ordinal), port: PORT.mysql };
}

/** Orchestrator's instance of pod `ordinal`: a replica of `of`, or a master with `of: null`. */
export function instance(ordinal: number, of: number | null, over: Partial<Instance> = {}): Instance {
  return {
    key: key(ordinal),
    master: of === null ? null : key(of),
    clusterName: `${fqdn(0)}:3306`,
    clusterAlias: ALIAS,
    readOnly: of !== null,
    sqlThreadRunning: of !== null,
    ioThreadRunning: of !== null,
    secondsBehindMaster: of === null ? null : 0,
    lagSeconds: 0,
    lastIoError: '',
    lastSqlError: '',
    replicas: [],
    lastCheckValid: true,
    upToDate: true,
    recentlyChecked: true,
    lastSeen: NOW,
    downtimed: false,
    downtimeOwner: '',
    downtimeReason: '',
    problems: [],
    ...over,
  };
}

export function analysis(ordinal: number, code: string, over: Partial<AnalysisEntry> = {}): AnalysisEntry {
  return {
    instance: key(ordinal),
    master: null,
    clusterName: `${fqdn(ordinal)}:3306`,
    clusterAlias: ALIAS,
    analysis: code,
    description: '',
    isMaster: true,
    lastCheckValid: false,
    downtimed: false,
    ...over,
  };
}

/** A finished, successful automatic failover of pod `failed` to `successor`, unacknowledged. */
export function recovery(id: number, failed: number, successor: number | null, over: Partial<Recovery> = {}): Recovery {
  return {
    id,
    uid: `uid-${id}`,
    failed: key(failed),
    analysis: 'DeadMaster',
    clusterName: `${fqdn(failed)}:3306`,
    clusterAlias: ALIAS,
    successor: successor === null ? null : key(successor),
    active: false,
    ended: true,
    successful: successor !== null,
    lostReplicas: [],
    errors: [],
    startedAt: new Date(NOW.getTime() - 3600_000),
    acknowledged: false,
    acknowledgedAt: null,
    acknowledgedComment: '',
    ...over,
  };
}

export interface PodOptions {
  role?: string;
  healthy?: string;
  running?: boolean;
  deleting?: boolean;
}

export function pod(ordinal: number, o: PodOptions = {}): PodObject {
  const labels: Record<string, string> = {};
  if (o.role) labels[LABEL_ROLE] = o.role;
  if (o.healthy) labels[LABEL_HEALTHY] = o.healthy;
  const running = o.running ?? true;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: podName(ordinal), namespace: NS, labels, ...(o.deleting ? { deletionTimestamp: NOW.toISOString() } : {}) },
    status: {
      phase: running ? 'Running' : 'Pending',
      containerStatuses: [{ name: CONTAINER.mysql, state: running ? { running: { startedAt: NOW.toISOString() } } : {} }],
    },
  };
}

export function mysqlCluster(spec: Partial<MysqlClusterSpec> = {}, status: MysqlClusterStatus = {}): MysqlCluster {
  return {
    apiVersion: 'mysql.presslabs.org/v1alpha1',
    kind: 'MysqlCluster',
    metadata: { name: CLUSTER, namespace: NS },
    spec: { secretName: `${CLUSTER}-secret`, replicas: 3, ...spec },
    status: { readyNodes: spec.replicas ?? 3, ...status },
  };
}

export function reachable(o: Partial<Extract<OrchestratorState, { kind: 'reachable' }>> = {}): OrchestratorState {
  return { kind: 'reachable', master: null, instances: [], analysis: [], recoveries: [], ...o };
}

/**
 * A healthy three-node cluster: pod 0 the master, writable; pods 1 and 2 replicating from it,
 * read-only; Orchestrator agrees. `over` replaces parts.
 */
export function healthy(over: Partial<Gathered> = {}): Gathered {
  const instances = [instance(0, null), instance(1, 0), instance(2, 0)];
  return {
    cluster: mysqlCluster(),
    pods: [0, 1, 2].map((i) => pod(i)),
    servers: healthyServers(),
    orchestrator: reachable({ master: instances[0]!, instances }),
    now: NOW,
    ...over,
  };
}

export function healthyServers(): NodeView[] {
  return [node(0, masterServer()), node(1, replicaServer(0)), node(2, replicaServer(0))];
}

export function masterServer() {
  return master();
}

export function replicaServer(of: number) {
  return server({ configured: true, replication: replicating(of) });
}

/**
 * The GTID histories of a pass (decide-errant.ts): MariaDB gtid_binlog_state by ordinal, a
 * `{ history, base }` for a server made by a clone; `readLast`: the ordinal read after the others.
 */
export function gtids(
  histories: Record<number, string | { history: string; base: string }>,
  readLast?: number,
): NonNullable<Gathered['gtids']> {
  const views = Object.entries(histories).map(([ordinal, h]) => ({
    pod: podName(Number(ordinal)),
    gtid: {
      reachable: true as const,
      family: 'mariadb' as const,
      gtidHistory: typeof h === 'string' ? h : h.history,
      backupGtidPurged: typeof h === 'string' ? null : h.base,
    },
  }));
  return { views, ...(readLast !== undefined ? { readLast: podName(readLast) } : {}) };
}
