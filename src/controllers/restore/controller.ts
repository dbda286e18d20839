// The restore controller: surfaces restore on bootstrap in the MysqlCluster (docs/backups.md,
// "Restore on bootstrap, the cluster side"). It reads pod 0's init container termination message
// and writes its own part of the status (CLUSTER_STATUS_OWNERS.restore) with an Event. A room of
// its own rather than a step of the cluster controller: that one watches no pods and owns the
// Kubernetes objects; this reads a pod's status, once per cluster's life.
import type { V1Pod } from '@kubernetes/client-node';
import { API_GROUP, LABEL_CLUSTER } from '../../api/constants.ts';
import type { MysqlCluster } from '../../api/index.ts';
import { names } from '../../api/names.ts';
import { CLUSTER_STATUS_OWNERS } from '../../api/status-owners.ts';
import {
  keyFromLabel,
  type ControllerContext,
  type ControllerDefinition,
  type ControllerSpec,
  type Request,
} from '../../runtime/controller.ts';
import { applyStatus } from '../../runtime/kube/apply-status.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';
import type { Permission } from '../../runtime/permissions.ts';
import { KINDS } from '../shared/kinds.ts';
import { decideRestore } from './decide-restore.ts';

export const RESTORE_PERMISSIONS: readonly Permission[] = [
  // patch on the object: applyStatus's one-time hand-over of managedFields from an older writer.
  { group: API_GROUP, resources: ['mysqlclusters'], verbs: ['list', 'watch', 'patch'] },
  { group: API_GROUP, resources: ['mysqlclusters/status'], verbs: ['patch'] },
  { group: '', resources: ['pods'], verbs: ['list', 'watch'] },
];

export function makeRestoreController(deps: { now?: () => Date } = {}): ControllerSpec {
  const now = deps.now ?? (() => new Date());
  async function reconcile(req: Request, ctx: ControllerContext): Promise<void> {
    // gather
    const [clusters, pods] = await Promise.all([
      ctx.informer<MysqlCluster & KubeObject>(KINDS.cluster),
      ctx.informer<V1Pod & KubeObject>(KINDS.pod),
    ]);
    const cluster = clusters.get(req.namespace, req.name);
    if (!cluster || cluster.metadata?.deletionTimestamp) return;
    const pod0 = pods.get(req.namespace, names.pod(req.name, 0));
    // decide
    const d = decideRestore(cluster, pod0, now());
    if (!d) return;
    // act
    await applyStatus(ctx.client, { ...KINDS.cluster, namespace: req.namespace, name: req.name }, CLUSTER_STATUS_OWNERS.restore, {
      ...d.status,
    });
    const log = ctx.log.child({ cluster: req.name, namespace: req.namespace, step: 'restore' });
    if (d.event.type === 'Normal') {
      ctx.events.normal(cluster, d.event.reason, d.event.message);
      log.info('restore recorded', { message: d.event.message });
    } else {
      ctx.events.warning(cluster, d.event.reason, d.event.message);
      log.warn('restore failed', { message: d.event.message });
    }
  }

  return {
    name: 'restore',
    for: KINDS.cluster,
    watches: [{ target: KINDS.pod, map: keyFromLabel(LABEL_CLUSTER) }],
    reconcile,
  };
}

export const restoreControllerDefinition: ControllerDefinition<Record<never, never>> = {
  name: 'restore',
  settings: {},
  permissions: RESTORE_PERMISSIONS,
  build: () => makeRestoreController(),
};
