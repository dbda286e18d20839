// Connect to the master, for controllers that write to it (users, grants, databases): observe the
// cluster's servers, choose the master as the node controller does, and hand back one connection
// to it, or a typed reason why there is none. Every other connection is closed before returning.
import { TOPOLOGY_REASONS, type TopologyReason } from '../api/constants.ts';
import type { MysqlNode } from '../mysql/index.ts';
import { chooseMaster, masterUnreachableMessage, type ChosenMaster } from './choose-master.ts';
import type { ClusterView } from './cluster-view.ts';
import { credentialsFrom, missingKeyMessage } from './operated-credentials.ts';
import { PassServers, type PassServersOptions } from './pass-servers.ts';
import { nodePods, resolveByFqdn, type PodObject, type ResolvePod } from './pod-view.ts';
import type { NodeView, ReachableServer } from './server-view.ts';

export interface ConnectToMasterInput {
  cluster: ClusterView;
  /** The cluster's pods, as cached; a pod whose name has no ordinal is not a node. */
  pods: readonly PodObject[];
  /** `data` of the Secret `<c>-mysql-operated` as cached (base64); undefined when there is none. */
  operatedSecretData: Readonly<Record<string, string>> | undefined;
  /** Default: `<pod>.mysql.<ns>:3306`. */
  resolve?: ResolvePod;
  servers?: PassServersOptions;
}

export type MasterConnection =
  | {
      kind: 'connected';
      /** Logged in as the operator user; the caller closes it. */
      node: MysqlNode;
      master: NodeView;
      /** What the master said when observed (its read_only included). */
      server: ReachableServer;
      by: ChosenMaster['by'];
    }
  | { kind: 'none'; reason: TopologyReason; message: string };

function none(reason: TopologyReason, message: string): MasterConnection {
  return { kind: 'none', reason, message };
}

export async function connectToMaster(input: ConnectToMasterInput): Promise<MasterConnection> {
  const { cluster } = input;
  if (cluster.failoverInProgress) {
    const why = cluster.failoverMessage === '' ? '' : `: ${cluster.failoverMessage}`;
    return none(TOPOLOGY_REASONS.failoverInProgress, `a failover of ${cluster.name} is in progress${why}`);
  }
  const creds = credentialsFrom(input.operatedSecretData);
  if ('missing' in creds) {
    return none(TOPOLOGY_REASONS.operatedSecretIncomplete, missingKeyMessage(cluster.name, creds.missing));
  }
  const resolve = input.resolve ?? resolveByFqdn;
  const servers = new PassServers(creds.operator, input.servers);
  try {
    const nodes = await servers.observeNodes(nodePods(input.pods, resolve));
    const choice = chooseMaster(nodes, cluster.orchestrator);
    if (choice.kind === 'unknown') return none(choice.reason, choice.message);
    const server = choice.node.server;
    if (server?.reachable !== true) return none(TOPOLOGY_REASONS.masterUnreachable, masterUnreachableMessage(choice));
    return { kind: 'connected', node: await servers.keep(choice.node.endpoint), master: choice.node, server, by: choice.by };
  } finally {
    await servers.closeAll();
  }
}
