// What one tick of a cluster's schedule does, decided from the cluster and its scheduled backups.
// The backup's name is made from the tick's time, so a tick seen twice (two timers, an operator
// restarted within the second, node-cron catching up) names one backup, created if absent.
import {
  API_GROUP_VERSION,
  BACKUP_CONDITION,
  BACKUP_RECURRENT_TRUE,
  CONDITION_STATUS,
  KIND_MYSQL_BACKUP,
  LABEL_BACKUP_CLUSTER,
  LABEL_BACKUP_RECURRENT,
} from '../../api/constants.ts';
import type { MysqlBackup, MysqlCluster } from '../../api/index.ts';
import { names } from '../../api/names.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';

export type Backup = MysqlBackup & KubeObject;

export type TickDecision = { action: 'create'; backup: Backup } | { action: 'skip'; why: 'exists' | 'running'; message: string };

/** The anchor's format, `2006-01-02t15-04-05`, in UTC (the anchor used the operator's zone, UTC in its image). */
export function scheduledBackupName(cluster: string, at: Date): string {
  const iso = new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString();
  return names.scheduledBackup(cluster, `${iso.slice(0, 10)}t${iso.slice(11, 19).replaceAll(':', '-')}`);
}

/** Neither Complete nor Failed: the backup controller has not finished with it. */
export function isRunning(b: MysqlBackup): boolean {
  const done = (type: string) => b.status?.conditions?.some((c) => c.type === type && c.status === CONDITION_STATUS.true) ?? false;
  return !done(BACKUP_CONDITION.complete) && !done(BACKUP_CONDITION.failed);
}

export function isCompleted(b: MysqlBackup): boolean {
  return b.status?.completed === true;
}

export function decideTick(cluster: MysqlCluster & KubeObject, scheduled: readonly Backup[], at: Date): TickDecision {
  const c = cluster.metadata!.name!;
  const name = scheduledBackupName(c, at);
  if (scheduled.some((b) => b.metadata?.name === name)) return { action: 'skip', why: 'exists', message: `${name} exists` };
  // As the anchor: no second backup while one runs. A stuck one cannot block for ever: its Job's
  // deadline (the backup controller's --backup-timeout) ends it as Failed.
  const running = scheduled.find(isRunning);
  if (running)
    return { action: 'skip', why: 'running', message: `tick ${at.toISOString()} skipped: ${running.metadata?.name} is still running` };
  const spec: MysqlBackup['spec'] = { clusterName: c };
  if (cluster.spec.backupRemoteDeletePolicy) spec.remoteDeletePolicy = cluster.spec.backupRemoteDeletePolicy;
  return {
    action: 'create',
    backup: {
      apiVersion: API_GROUP_VERSION,
      kind: KIND_MYSQL_BACKUP,
      metadata: {
        name,
        namespace: cluster.metadata!.namespace,
        labels: { [LABEL_BACKUP_RECURRENT]: BACKUP_RECURRENT_TRUE, [LABEL_BACKUP_CLUSTER]: c },
      },
      spec,
    },
  };
}
