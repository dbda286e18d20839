// Which node is the master of a cluster. Pure: the evidence is gathered first.
// Order of trust: Orchestrator's view, then what the servers say about themselves (the one
// writable, configured non-replica, then the source every replica points at), then pod 0 of a new cluster.
// Orchestrator's view is cross-checked against the servers: it can be stale (the anchor re-pointed
// replicas from a stale status.nodes), and a "master" that is itself a replica is not one.
import { TOPOLOGY_REASONS } from '../api/constants.ts';
import type { OrchestratorView } from './cluster-view.ts';
import type { Endpoint, NodeView } from './server-view.ts';

type UnknownMasterReason =
  | typeof TOPOLOGY_REASONS.noMaster
  | typeof TOPOLOGY_REASONS.masterConflict
  | typeof TOPOLOGY_REASONS.masterViewStale;

export type ChosenMaster = { kind: 'master'; node: NodeView; by: 'orchestrator' | 'writable' | 'replicaSource' | 'newCluster' };
export type MasterChoice = ChosenMaster | { kind: 'unknown'; reason: UnknownMasterReason; message: string };

/** Orchestrator's instance names are FQDNs, sometimes with a port or a trailing dot. */
export function normalizeHostName(name: string): string {
  return name.trim().toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
}

export function sameEndpoint(a: Endpoint, b: Endpoint): boolean {
  return normalizeHostName(a.host) === normalizeHostName(b.host) && a.port === b.port;
}

function isReplica(n: NodeView): boolean {
  return n.server?.reachable === true && n.server.replication !== null;
}

function names(nodes: readonly NodeView[]): string {
  return nodes.map((n) => n.pod).join(', ');
}

/** `nodes` holds every pod of the cluster; `orchestrator` is undefined while no view is known. */
export function chooseMaster(nodes: readonly NodeView[], orchestrator: OrchestratorView | undefined): MasterChoice {
  const byFqdn = new Map(nodes.map((n) => [normalizeHostName(n.fqdn), n]));

  const orcNames = [...new Set((orchestrator?.masters ?? []).map(normalizeHostName))];
  if (orcNames.length > 1) {
    return {
      kind: 'unknown',
      reason: TOPOLOGY_REASONS.masterConflict,
      message: `Orchestrator reports several masters: ${orcNames.join(', ')}`,
    };
  }
  const orcName = orcNames[0];
  if (orcName !== undefined) {
    const node = byFqdn.get(orcName);
    if (node === undefined) {
      return {
        kind: 'unknown',
        reason: TOPOLOGY_REASONS.masterViewStale,
        message: `Orchestrator's master ${orcName} is not a pod of the cluster`,
      };
    }
    if (isReplica(node)) {
      return {
        kind: 'unknown',
        reason: TOPOLOGY_REASONS.masterViewStale,
        message: `Orchestrator's master ${node.pod} is itself a replica; waiting for Orchestrator to catch up`,
      };
    }
    return { kind: 'master', node, by: 'orchestrator' };
  }

  // Only configured servers count: an unconfigured one being writable says nothing about the
  // topology (the node controller makes it read-only), and counting it would read as a conflict.
  const writable = nodes.filter(
    (n) => n.server?.reachable === true && n.server.configured && !n.server.readOnly && n.server.replication === null,
  );
  if (writable.length > 1) {
    return {
      kind: 'unknown',
      reason: TOPOLOGY_REASONS.masterConflict,
      message: `several servers are writable and not replicas: ${names(writable)}`,
    };
  }
  if (writable[0] !== undefined) return { kind: 'master', node: writable[0], by: 'writable' };

  const replicas = nodes.filter(isReplica);
  if (replicas.length > 0) {
    const sources = new Set<NodeView | undefined>();
    for (const r of replicas) {
      const rep = r.server?.reachable === true ? r.server.replication : null;
      if (rep === null) continue;
      const src: Endpoint = { host: rep.sourceHost, port: rep.sourcePort };
      sources.add(nodes.find((n) => sameEndpoint(n.endpoint, src) || sameEndpoint({ host: n.fqdn, port: n.endpoint.port }, src)));
    }
    const [source] = sources;
    if (sources.size === 1 && source !== undefined && !isReplica(source)) {
      return { kind: 'master', node: source, by: 'replicaSource' };
    }
    return {
      kind: 'unknown',
      reason: TOPOLOGY_REASONS.noMaster,
      message: `no master known: Orchestrator reports none, no server is writable, and the replicas (${names(replicas)}) do not share one source in the cluster`,
    };
  }

  const pod0 = nodes.find((n) => n.ordinal === 0);
  if (pod0 === undefined) {
    return { kind: 'unknown', reason: TOPOLOGY_REASONS.noMaster, message: 'no master known and pod 0 of the cluster does not exist' };
  }
  return { kind: 'master', node: pod0, by: 'newCluster' };
}

/** Why a chosen master whose server did not answer cannot be used: not running, or unreachable. */
export function masterUnreachableMessage(m: ChosenMaster): string {
  const s = m.node.server;
  const why = s?.reachable === false ? `: ${s.message}` : '';
  return `the master ${m.node.pod} (${m.by}) is not reachable${why}`;
}
