// Small builders for the node controller's gathered state.
import type { ClusterView, NodeGathered, NodeView, ReplicationView, ServerView } from '../../../src/controllers/node/node-state.ts';

export const NS = 'default';
export const CLUSTER = 'my-db';

export function podName(ordinal: number): string {
  return `${CLUSTER}-mysql-${ordinal}`;
}

export function fqdn(ordinal: number): string {
  return `${podName(ordinal)}.mysql.${NS}`;
}

export function endpoint(ordinal: number) {
  return { host: `127.0.0.${11 + ordinal}`, port: 3306 };
}

export function replicating(fromOrdinal: number, over: Partial<ReplicationView> = {}): ReplicationView {
  const e = endpoint(fromOrdinal);
  return {
    sourceHost: e.host,
    sourcePort: e.port,
    ioState: 'running',
    sqlRunning: true,
    lastIoErrno: 0,
    lastIoError: '',
    lastSqlErrno: 0,
    lastSqlError: '',
    ...over,
  };
}

type Reachable = Extract<ServerView, { reachable: true }>;

export function server(over: Partial<Reachable> = {}): Reachable {
  return { reachable: true, readOnly: true, configured: false, replication: null, backupGtidPurged: null, gtidSeeded: false, ...over };
}

export function master(over: Partial<Reachable> = {}): Reachable {
  return server({ readOnly: false, configured: true, ...over });
}

export function unreachable(message = 'connect ECONNREFUSED'): ServerView {
  return { reachable: false, problem: 'unreachable', message };
}

export function node(ordinal: number, s: ServerView | null): NodeView {
  return { pod: podName(ordinal), ordinal, fqdn: fqdn(ordinal), endpoint: endpoint(ordinal), server: s };
}

export function cluster(over: Partial<ClusterView> = {}): ClusterView {
  return { name: CLUSTER, namespace: NS, failoverInProgress: false, failoverMessage: '', orchestratorMasters: [], ...over };
}

/** Pod `ordinal` being configured, with its own server state and the other nodes. */
export function gathered(ordinal: number, self: ServerView, others: NodeView[] = [], over: Partial<NodeGathered> = {}): NodeGathered {
  return {
    cluster: cluster(),
    pod: { name: podName(ordinal), ordinal, fqdn: fqdn(ordinal), endpoint: endpoint(ordinal), mysqlRunning: true, deleting: false, verifiedSinceStart: false },
    self,
    others,
    attempted: [],
    ...over,
  };
}
