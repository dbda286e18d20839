// The node controller: configures replication on every new or restarted MySQL pod of a cluster
// (docs/node-controller.md). Keyed by pod; a cluster change (FailoverInProgress cleared, a new
// master in status) enqueues the cluster's pods.
import type { MysqlCluster } from '../../api/index.ts';
import type { ControllerFactory, ControllerSpec } from '../../runtime/controller.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';
import { CLUSTER_TARGET, POD_TARGET, reconcileNode, type NodeControllerOptions } from './reconcile-node.ts';

function podKeysOf(obj: KubeObject): string[] {
  const c = obj as MysqlCluster;
  const ns = c.metadata?.namespace ?? '';
  const name = c.metadata?.name ?? '';
  const replicas = c.spec?.replicas ?? 1;
  return Array.from({ length: replicas }, (_, i) => `${ns}/${name}-mysql-${i}`);
}

export function nodeController(opts: NodeControllerOptions = {}): ControllerSpec {
  return {
    name: 'node',
    for: POD_TARGET,
    watches: [{ target: CLUSTER_TARGET, map: podKeysOf }],
    // Waits (master unreachable, failover) back off from 1 s to 30 s: a fixed Secret or a master
    // that came back is picked up within half a minute.
    backoff: { baseMs: 1000, maxMs: 30_000 },
    reconcile: (req, ctx) => reconcileNode(req, ctx, opts),
  };
}

/** For `src/controllers/index.ts`: the production wiring (pods resolved by FQDN). */
export const nodeControllerFactory: ControllerFactory = () => nodeController();
