// What a cluster's backup schedule should be: a parsed schedule and retention policy, or the
// field that stops it; and the BackupSchedule condition saying so (CLUSTER_STATUS_OWNERS.backupCron).
import { CLUSTER_CONDITION, CLUSTER_REASONS, CONDITION_STATUS } from '../../api/constants.ts';
import type { MysqlCluster, MysqlClusterStatus } from '../../api/index.ts';
import { backupObjectUrl, parseBackupUrl, StorageError } from '../../storage/location.ts';
import { transitionTime } from '../shared/condition-time.ts';
import { parseRetentionPeriod, type RetentionPolicy } from './retention.ts';
import { latestTickBetween, parseSchedule, type Schedule } from './schedule.ts';

type Condition = NonNullable<MysqlClusterStatus['conditions']>[number];

export type ScheduleDecision =
  | { state: 'none' }
  | { state: 'invalid'; reason: string; message: string }
  | { state: 'scheduled'; schedule: Schedule; retention: RetentionPolicy; message: string };

/** What the schedule's checks need beyond the spec, gathered by the controller. */
export interface ScheduleInputs {
  namespace: string;
  /** Whether the Secret spec.backupSecretName names exists (unread when none is named). */
  backupSecretFound: boolean;
}

const invalid = (reason: string, message: string): ScheduleDecision => ({ state: 'invalid', reason, message });

/**
 * The schedule, or the first field that stops it. What each scheduled backup would fail on is
 * refused here at once, so the cluster says so before the first tick: a backupURL no storage
 * backend takes, a credentials Secret that does not exist.
 */
export function decideSchedule(
  spec: MysqlCluster['spec'],
  inputs: ScheduleInputs = { namespace: '', backupSecretFound: true },
): ScheduleDecision {
  const text = spec.backupSchedule?.trim() ?? '';
  if (!text) return { state: 'none' };
  const parsed = parseSchedule(text);
  if (!parsed.ok) return invalid(CLUSTER_REASONS.invalidBackupSchedule, `spec.backupSchedule ${JSON.stringify(text)}: ${parsed.error}`);
  // The CRD requires it too; an object stored before that rule (or by the anchor) may lack it.
  const url = spec.backupURL?.trim();
  if (!url) return invalid(CLUSTER_REASONS.invalidBackupSchedule, 'spec.backupURL is required when spec.backupSchedule is set');
  const urlProblem = backupUrlProblem(url);
  if (urlProblem) return invalid(CLUSTER_REASONS.invalidBackupURL, `spec.backupURL ${JSON.stringify(url)}: ${urlProblem}`);
  const secretName = spec.backupSecretName?.trim();
  if (secretName && !inputs.backupSecretFound) {
    return invalid(
      CLUSTER_REASONS.backupSecretNotFound,
      `Secret ${inputs.namespace}/${secretName} (spec.backupSecretName) does not exist; scheduled backups would have no storage credentials`,
    );
  }
  let maxAgeMs: number | undefined;
  if (spec.backupRetentionPeriod) {
    maxAgeMs = parseRetentionPeriod(spec.backupRetentionPeriod);
    if (maxAgeMs === undefined) {
      return invalid(
        CLUSTER_REASONS.invalidBackupSchedule,
        `spec.backupRetentionPeriod ${JSON.stringify(spec.backupRetentionPeriod)}: expected a duration such as 168h or 30d`,
      );
    }
  }
  return {
    state: 'scheduled',
    schedule: parsed.schedule,
    retention: { historyLimit: spec.backupScheduleJobsHistoryLimit ?? undefined, maxAgeMs },
    message: `backups scheduled by ${JSON.stringify(text)}`,
  };
}

/** Why no backup could be stored under `url` (its scheme, a bad bucket name), or undefined. */
function backupUrlProblem(url: string): string | undefined {
  try {
    parseBackupUrl(backupObjectUrl(url, 'x'));
    return undefined;
  } catch (err) {
    if (err instanceof StorageError) return err.message;
    throw err;
  }
}

/**
 * The conditions this controller owns, or undefined when the status already holds them (no
 * write). No schedule: none (an earlier condition is removed by naming nothing).
 */
export function decideScheduleCondition(cluster: MysqlCluster, d: ScheduleDecision, now: Date): Condition[] | undefined {
  const current = cluster.status?.conditions?.find((c) => c.type === CLUSTER_CONDITION.backupSchedule);
  if (d.state === 'none') return current ? [] : undefined;
  const status = d.state === 'scheduled' ? CONDITION_STATUS.true : CONDITION_STATUS.false;
  const reason = d.state === 'scheduled' ? CLUSTER_REASONS.backupScheduled : d.reason;
  if (current?.status === status && current.reason === reason && current.message === d.message) return undefined;
  return [
    {
      type: CLUSTER_CONDITION.backupSchedule,
      status,
      reason,
      message: d.message,
      lastTransitionTime: transitionTime(current, status, now),
    } as Condition,
  ];
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
