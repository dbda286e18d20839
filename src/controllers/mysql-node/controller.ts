// The node controller: configures replication on every new or restarted MySQL pod of a cluster
// (docs/node-controller.md). Keyed by pod; a cluster change (FailoverInProgress cleared, a new
// master in status) and a change of its operated Secret (a fixed password) enqueue its pods.
import { API_GROUP, LABEL_CLUSTER } from '../../api/constants.ts';
import type { MysqlCluster } from '../../api/index.ts';
import type { ControllerContext, ControllerDefinition, ControllerSpec } from '../../runtime/controller.ts';
import { objectKey, type KubeObject } from '../../runtime/kube/types.ts';
import type { Permission } from '../../runtime/permissions.ts';
import { names } from '../../api/names.ts';
import { operatedSecretCluster, type PodObject } from '../../topology/index.ts';
import { CLUSTER_TARGET, POD_TARGET, reconcileNode, SECRET_TARGET, type NodeControllerOptions } from './reconcile.ts';

function podKeysOf(obj: KubeObject): string[] {
  const c = obj as MysqlCluster;
  const ns = c.metadata?.namespace ?? '';
  const name = c.metadata?.name ?? '';
  const replicas = c.spec?.replicas ?? 1;
  return Array.from({ length: replicas }, (_, i) => `${ns}/${names.statefulSet(name)}-${i}`);
}

/** Enqueues a cluster's pods whenever its operated Secret is added or changed. */
async function watchOperatedSecrets(ctx: ControllerContext, enqueue: (key: string) => void): Promise<void> {
  const [secrets, pods] = await Promise.all([ctx.informer(SECRET_TARGET), ctx.informer<PodObject>(POD_TARGET)]);
  const enqueuePods = (secret: KubeObject): void => {
    const cluster = operatedSecretCluster(secret.metadata?.name ?? '');
    if (cluster === null) return;
    for (const pod of pods.list({ namespace: secret.metadata?.namespace ?? '', labels: { [LABEL_CLUSTER]: cluster } }))
      enqueue(objectKey(pod));
  };
  const off = secrets.addHandlers({ onAdd: enqueuePods, onUpdate: (_old, secret) => enqueuePods(secret) });
  if (ctx.signal.aborted) off();
  else ctx.signal.addEventListener('abort', off, { once: true });
}

export function nodeController(opts: NodeControllerOptions = {}): ControllerSpec {
  return {
    name: 'node',
    for: POD_TARGET,
    watches: [{ target: CLUSTER_TARGET, map: podKeysOf }],
    // Waits (master unreachable, failover) back off from 1 s to 30 s: a master that came back is
    // picked up within half a minute.
    backoff: { baseMs: 1000, maxMs: 30_000 },
    reconcile: (req, ctx) => reconcileNode(req, ctx, opts),
    start: watchOperatedSecrets,
  };
}

/** Informers of pods, clusters and Secrets; the pod's condition is its only write. Events are the runtime's. */
export const NODE_PERMISSIONS: readonly Permission[] = [
  { group: '', resources: ['pods', 'secrets'], verbs: ['list', 'watch'] },
  { group: '', resources: ['pods/status'], verbs: ['patch'] },
  { group: API_GROUP, resources: ['mysqlclusters'], verbs: ['list', 'watch'] },
];

/** For `src/controllers/index.ts`: the production wiring (pods resolved by FQDN); no settings yet. */
export const nodeControllerDefinition: ControllerDefinition<Record<never, never>> = {
  name: 'node',
  settings: {},
  permissions: NODE_PERMISSIONS,
  build: () => nodeController(),
};
