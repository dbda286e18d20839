// Small builders for the node controller's gathered state, over the topology's.
import type { NodeGathered } from '../../../src/controllers/mysql-node/decide-node-step.ts';
import type { NodeView, ServerView } from '../../../src/topology/index.ts';
import { cluster, endpoint, fqdn, podName } from '../topology/builders.ts';

export * from '../topology/builders.ts';

/** Pod `ordinal` being configured, with its own server state and the other nodes. */
export function gathered(ordinal: number, self: ServerView, others: NodeView[] = [], over: Partial<NodeGathered> = {}): NodeGathered {
  return {
    cluster: cluster(),
    pod: {
      name: podName(ordinal),
      ordinal,
      fqdn: fqdn(ordinal),
      endpoint: endpoint(ordinal),
      mysqlRunning: true,
      mysqlStarted: true,
      deleting: false,
      verifiedSinceStart: false,
      labelledMaster: false,
    },
    self,
    others,
    attempted: [],
    ...over,
  };
}
