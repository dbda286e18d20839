// The pitr controller: surfaces the binlog archive in the MysqlCluster (docs/pitr.md). It reads the
// archive's index object from storage, with the cluster's backup Secret, and writes its own part of
// the status (CLUSTER_STATUS_OWNERS.pitr): the earliest and latest recoverable times and the
// BinlogArchive condition, an Event when that changes, and the lag metric. A room of its own: it
// polls storage on a timer per cluster, which no other controller does. The pass is reconcile.ts.
import { API_GROUP } from '../../api/constants.ts';
import type { ControllerDefinition, ControllerSpec } from '../../runtime/controller.ts';
import type { Permission } from '../../runtime/permissions.ts';
import { storageFor } from '../../storage/index.ts';
import { KINDS } from '../shared/kinds.ts';
import { pitrMetrics } from './metrics.ts';
import { type PitrDeps, reconcilePitr } from './reconcile.ts';

export const PITR_PERMISSIONS: readonly Permission[] = [
  // patch on the object: applyStatus's one-time hand-over of managedFields from an older writer.
  { group: API_GROUP, resources: ['mysqlclusters'], verbs: ['list', 'watch', 'patch'] },
  { group: API_GROUP, resources: ['mysqlclusters/status'], verbs: ['patch'] },
  // The storage credentials of spec.backupSecretName, read when needed, never cached.
  { group: '', resources: ['secrets'], verbs: ['get'] },
];

export function makePitrController(deps: Partial<PitrDeps> = {}): ControllerSpec {
  const full: PitrDeps = {
    storageFor: deps.storageFor ?? storageFor,
    now: deps.now ?? (() => new Date()),
    metrics: deps.metrics ?? ((ctx) => pitrMetrics(ctx.registry)),
  };
  return {
    name: 'pitr',
    for: KINDS.cluster,
    reconcile: (req, ctx) => reconcilePitr(req, ctx, full),
  };
}

export const pitrControllerDefinition: ControllerDefinition<Record<never, never>> = {
  name: 'pitr',
  settings: {},
  permissions: PITR_PERMISSIONS,
  build: () => makePitrController(),
};
