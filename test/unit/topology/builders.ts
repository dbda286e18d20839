// Small builders for what the servers of a cluster say (src/topology).
import type { ClusterView, NodeView, ReachableServer, ReplicationView, ServerView } from '../../../src/topology/index.ts';

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
    gtidReceived: '',
    gtidApplied: '',
    relayLogApplied: true,
    ...over,
  };
}

export function server(over: Partial<ReachableServer> = {}): ReachableServer {
  return {
    reachable: true,
    family: 'mariadb',
    readOnly: true,
    configured: false,
    replication: null,
    gtidExecuted: '',
    gtidHistory: '',
    backupGtidPurged: null,
    gtidSeeded: false,
    ...over,
  };
}

export function master(over: Partial<ReachableServer> = {}): ReachableServer {
  return server({ readOnly: false, configured: true, ...over });
}

export function unreachable(message = 'connect ECONNREFUSED'): ServerView {
  return { reachable: false, problem: 'unreachable', message };
}

export function node(ordinal: number, s: ServerView | null): NodeView {
  return { pod: podName(ordinal), ordinal, fqdn: fqdn(ordinal), endpoint: endpoint(ordinal), server: s };
}

export function cluster(over: Partial<ClusterView> = {}): ClusterView {
  return { name: CLUSTER, namespace: NS, failoverInProgress: false, failoverMessage: '', orchestrator: undefined, ...over };
}

/** Orchestrator's view naming these pods master. */
export function orchestrator(...masters: string[]): ClusterView['orchestrator'] {
  return { masters };
}
