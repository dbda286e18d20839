// The restore controller: surfaces restore on bootstrap in the MysqlCluster (docs/backups.md,
// "Restore on bootstrap, the cluster side"). It reads pod 0's init container termination message
// and writes its own part of the status (CLUSTER_STATUS_OWNERS.restore) with an Event. A room of
// its own rather than a step of the cluster controller: that one watches no pods and owns the
// Kubernetes objects; this reads a pod's status, once per cluster's life. The pass is reconcile.ts.
import { API_GROUP, LABEL_CLUSTER } from '../../api/constants.ts';
import { keyFromLabel, type ControllerDefinition, type ControllerSpec } from '../../runtime/controller.ts';
import type { Permission } from '../../runtime/permissions.ts';
import { KINDS } from '../shared/kinds.ts';
import { reconcileRestore } from './reconcile.ts';

export const RESTORE_PERMISSIONS: readonly Permission[] = [
  // patch on the object: applyStatus's one-time hand-over of managedFields from an older writer.
  { group: API_GROUP, resources: ['mysqlclusters'], verbs: ['list', 'watch', 'patch'] },
  { group: API_GROUP, resources: ['mysqlclusters/status'], verbs: ['patch'] },
  { group: '', resources: ['pods'], verbs: ['list', 'watch'] },
];

export function makeRestoreController(deps: { now?: () => Date } = {}): ControllerSpec {
  const now = deps.now ?? (() => new Date());
  return {
    name: 'restore',
    for: KINDS.cluster,
    watches: [{ target: KINDS.pod, map: keyFromLabel(LABEL_CLUSTER) }],
    reconcile: (req, ctx) => reconcileRestore(req, ctx, now),
  };
}

export const restoreControllerDefinition: ControllerDefinition<Record<never, never>> = {
  name: 'restore',
  settings: {},
  permissions: RESTORE_PERMISSIONS,
  build: () => makeRestoreController(),
};
