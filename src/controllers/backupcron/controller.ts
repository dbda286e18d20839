// The backupcron controller: one schedule per MysqlCluster with spec.backupSchedule, creating
// scheduled MysqlBackups, and the retention of those (docs/backups.md). Controllers run only on
// the leader, so only the leader schedules; the timers live as long as the controller runs (its
// start's signal) and are rebuilt from the clusters by the first reconciles after a restart or a
// change of leader. The pass and the tick are reconcile.ts.
import { API_GROUP, LABEL_BACKUP_CLUSTER } from '../../api/constants.ts';
import { keyFromLabel, type ControllerDefinition, type ControllerSpec } from '../../runtime/controller.ts';
import type { Permission } from '../../runtime/permissions.ts';
import { KINDS } from '../shared/kinds.ts';
import { clustersNaming, newCronState, reconcileBackupCron, startRun, type BackupCronDeps } from './reconcile.ts';

export const BACKUP_CRON_PERMISSIONS: readonly Permission[] = [
  // patch on the object: applyStatus's one-time hand-over of managedFields from an older writer.
  { group: API_GROUP, resources: ['mysqlclusters'], verbs: ['list', 'watch', 'patch'] },
  { group: API_GROUP, resources: ['mysqlclusters/status'], verbs: ['patch'] },
  { group: API_GROUP, resources: ['mysqlbackups'], verbs: ['list', 'watch', 'create', 'delete'] },
  // Whether spec.backupSecretName exists, and to decide again when it comes or goes.
  { group: '', resources: ['secrets'], verbs: ['list', 'watch'] },
];

export type { BackupCronDeps } from './reconcile.ts';

export function makeBackupCronController(deps: BackupCronDeps = {}): ControllerSpec {
  const state = newCronState(deps);
  return {
    name: 'backupcron',
    for: KINDS.cluster,
    // A scheduled backup that finishes or goes may change what retention keeps.
    // A credentials Secret that comes or goes decides the clusters of its namespace naming it again.
    watches: [
      { target: KINDS.backup, map: keyFromLabel(LABEL_BACKUP_CLUSTER) },
      { target: KINDS.secret, map: (secret) => clustersNaming(state, secret) },
    ],
    start: (ctx) => startRun(state, ctx),
    reconcile: (req, ctx) => reconcileBackupCron(state, req, ctx),
  };
}

export const backupCronControllerDefinition: ControllerDefinition<Record<never, never>> = {
  name: 'backupcron',
  settings: {},
  permissions: BACKUP_CRON_PERMISSIONS,
  build: () => makeBackupCronController(),
};
