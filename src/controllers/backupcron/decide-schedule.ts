// What a cluster's backup schedule should be: a parsed schedule and retention policy, or the
// field that stops it; and the BackupSchedule condition saying so (CLUSTER_STATUS_OWNERS.backupCron).
import { CLUSTER_CONDITION, CLUSTER_REASONS, CONDITION_STATUS } from '../../api/constants.ts';
import type { MysqlCluster, MysqlClusterStatus } from '../../api/index.ts';
import { transitionTime } from '../condition-time.ts';
import { parseRetentionPeriod, type RetentionPolicy } from './retention.ts';
import { latestTickBetween, parseSchedule, type Schedule } from './schedule.ts';

type Condition = NonNullable<MysqlClusterStatus['conditions']>[number];

export type ScheduleDecision =
  | { state: 'none' }
  | { state: 'invalid'; message: string }
  | { state: 'scheduled'; schedule: Schedule; retention: RetentionPolicy; message: string };

export function decideSchedule(spec: MysqlCluster['spec']): ScheduleDecision {
  const text = spec.backupSchedule?.trim() ?? '';
  if (!text) return { state: 'none' };
  const parsed = parseSchedule(text);
  if (!parsed.ok) return { state: 'invalid', message: `spec.backupSchedule ${JSON.stringify(text)}: ${parsed.error}` };
  // The CRD requires it too; an object stored before that rule (or by the anchor) may lack it.
  if (!spec.backupURL?.trim()) return { state: 'invalid', message: 'spec.backupURL is required when spec.backupSchedule is set' };
  let maxAgeMs: number | undefined;
  if (spec.backupRetentionPeriod) {
    maxAgeMs = parseRetentionPeriod(spec.backupRetentionPeriod);
    if (maxAgeMs === undefined) {
      return { state: 'invalid', message: `spec.backupRetentionPeriod ${JSON.stringify(spec.backupRetentionPeriod)}: expected a duration such as 168h or 30d` };
    }
  }
  return {
    state: 'scheduled',
    schedule: parsed.schedule,
    retention: { historyLimit: spec.backupScheduleJobsHistoryLimit ?? undefined, maxAgeMs },
    message: `backups scheduled by ${JSON.stringify(text)}`,
  };
}

/**
 * The conditions this controller owns, or undefined when the status already holds them (no
 * write). No schedule: none (an earlier condition is removed by naming nothing).
 */
export function decideScheduleCondition(cluster: MysqlCluster, d: ScheduleDecision, now: Date): Condition[] | undefined {
  const current = cluster.status?.conditions?.find((c) => c.type === CLUSTER_CONDITION.backupSchedule);
  if (d.state === 'none') return current ? [] : undefined;
  const status = d.state === 'scheduled' ? CONDITION_STATUS.true : CONDITION_STATUS.false;
  const reason = d.state === 'scheduled' ? CLUSTER_REASONS.backupScheduled : CLUSTER_REASONS.invalidBackupSchedule;
  if (current?.status === status && current.reason === reason && current.message === d.message) return undefined;
  return [{ type: CLUSTER_CONDITION.backupSchedule, status, reason, message: d.message, lastTransitionTime: transitionTime(current, status, now) } as Condition];
}

/**
 * The tick to run at once when this operator takes the schedule over (a restart, a change of
 * leader): the latest one due since an earlier operator scheduled it (the BackupSchedule
 * condition's turn to True) that fell while no operator ran it. The tick names its backup, so one
 * the earlier operator did run is not run twice. None for a schedule no operator ran before.
 */
export function missedTick(cluster: MysqlCluster, schedule: Schedule, now: Date): Date | undefined {
  const c = cluster.status?.conditions?.find((x) => x.type === CLUSTER_CONDITION.backupSchedule);
  if (c?.status !== CONDITION_STATUS.true || !c.lastTransitionTime) return undefined;
  return latestTickBetween(schedule, new Date(c.lastTransitionTime), now);
}
