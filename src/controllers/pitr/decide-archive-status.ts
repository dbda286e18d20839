// The binlog archive's part of the cluster status (pure; docs/pitr.md): from the archive's index
// object, as the operator read it from storage, `status.binlogArchive` (what a restore to a point
// in time can reach) and the `BinlogArchive` condition. The sidecar that uploads cannot write the
// cluster's status, and it may be the part that broke; so the operator judges the archive by what
// storage holds: an index older than twice the interval plus a minute means the master's sidecar
// is not uploading, whatever the reason (its pod, its credentials, the bucket).
import { type BinlogArchiveIndex, binlogArchiveUrl, DEFAULT_BINLOG_ARCHIVE_INTERVAL_SECONDS } from '../../api/binlog-archive.ts';
import { CLUSTER_CONDITION, CLUSTER_REASONS, CONDITION_STATUS } from '../../api/constants.ts';
import type { BinlogArchiveStatus, MysqlCluster, MysqlClusterStatus } from '../../api/index.ts';
import { DEFAULT_MYSQL_VERSION } from '../../api/versions.ts';
import { flavourFromVersionSpec } from '../../mysql/flavour.ts';
import { redactString } from '../../runtime/redact.ts';
import { kubeTime, transitionTime } from '../shared/condition-time.ts';

type Condition = NonNullable<MysqlClusterStatus['conditions']>[number];

/** What reading the index gave: the index, none there yet, or an error's message. */
export type IndexRead = { kind: 'index'; index: BinlogArchiveIndex } | { kind: 'missing' } | { kind: 'error'; message: string };

/** Everything this controller owns, named on every write (empty: the cluster does not archive). */
export interface ArchiveOwnedStatus {
  binlogArchive?: BinlogArchiveStatus;
  conditions: Condition[];
}

export interface ArchiveDecision {
  status: ArchiveOwnedStatus;
  /** An Event when the condition's reason changes. */
  event?: { type: 'Normal' | 'Warning'; reason: string; message: string };
  /** Seconds between now and the archive's last complete check; null without an index. */
  lagSeconds: number | null;
  /** Whether the status differs from the cluster's (a write is needed). */
  changed: boolean;
}

/** The archive's URL when the cluster archives its binlogs, else null. */
export function archiveUrlOf(cluster: MysqlCluster): string | null {
  const s = cluster.spec;
  return s.binlogArchive?.enabled === true && s.backupURL ? binlogArchiveUrl(s.backupURL) : null;
}

export function intervalOf(cluster: MysqlCluster): number {
  return cluster.spec.binlogArchive?.intervalSeconds ?? DEFAULT_BINLOG_ARCHIVE_INTERVAL_SECONDS;
}

/** How old the archive's completeness may be before it counts as behind. */
export function behindAfterSeconds(intervalSeconds: number): number {
  return 2 * intervalSeconds + 60;
}

export function decideArchiveStatus(cluster: MysqlCluster, read: IndexRead | null, now: Date): ArchiveDecision {
  const url = archiveUrlOf(cluster);
  const current = cluster.status?.conditions?.find((c) => c.type === CLUSTER_CONDITION.binlogArchive);
  if (!url || !read) {
    const changed = current !== undefined || cluster.status?.binlogArchive !== undefined;
    return { status: { conditions: [] }, lagSeconds: null, changed };
  }
  const cond = (status: string, reason: string, message: string): Condition & { reason: string; message: string } =>
    ({
      type: CLUSTER_CONDITION.binlogArchive,
      status,
      reason,
      message,
      lastTransitionTime: transitionTime(current, status, now),
    }) as Condition & {
      reason: string;
      message: string;
    };
  let condition: Condition & { reason: string; message: string };
  const family = flavourFromVersionSpec(cluster.spec.mysqlVersion ?? DEFAULT_MYSQL_VERSION)?.family;
  let archive: BinlogArchiveStatus | undefined = cluster.status?.binlogArchive;
  let lagSeconds: number | null = null;
  if (family !== 'mariadb') {
    condition = cond(
      CONDITION_STATUS.false,
      CLUSTER_REASONS.binlogArchiveUnsupported,
      `spec.binlogArchive is set, but mysqlVersion ${cluster.spec.mysqlVersion ?? DEFAULT_MYSQL_VERSION} is not MariaDB: the archive reads MariaDB binlogs only; nothing is archived`,
    );
  } else if (read.kind === 'error') {
    condition = cond(CONDITION_STATUS.false, CLUSTER_REASONS.binlogArchiveUnreadable, `cannot read ${url}: ${redactString(read.message)}`);
  } else if (read.kind === 'missing') {
    condition = cond(
      CONDITION_STATUS.false,
      CLUSTER_REASONS.binlogArchiveEmpty,
      `nothing archived at ${url} yet; the master's sidecar uploads once the master is writable`,
    );
  } else {
    const ix = read.index;
    lagSeconds = Math.max(0, Math.round(now.getTime() / 1000 - ix.completeUpTo));
    archive = {
      ...(ix.firstEventTime > 0 ? { earliestRecoverableTime: kubeTime(new Date(ix.firstEventTime * 1000)) } : {}),
      ...(ix.completeUpTo > 0 ? { latestRecoverableTime: kubeTime(new Date(ix.completeUpTo * 1000)) } : {}),
      ...(ix.endState ? { gtidPosition: ix.endState } : {}),
    };
    const limit = behindAfterSeconds(intervalOf(cluster));
    condition =
      ix.completeUpTo > 0 && lagSeconds <= limit
        ? cond(CONDITION_STATUS.true, CLUSTER_REASONS.binlogsArchived, `archived up to GTID ${ix.endState || '(none)'} at ${url}`)
        : cond(
            CONDITION_STATUS.false,
            CLUSTER_REASONS.binlogArchiveBehind,
            `the archive at ${url} holds nothing newer than ${ix.completeUpTo > 0 ? kubeTime(new Date(ix.completeUpTo * 1000)) : 'its start'}, more than ${limit} s ago: the master's sidecar is not uploading; see its log`,
          );
  }
  const status: ArchiveOwnedStatus = { ...(archive ? { binlogArchive: archive } : {}), conditions: [condition] };
  const sameCondition =
    current?.status === condition.status && current.reason === condition.reason && current.message === condition.message;
  const changed = !sameCondition || JSON.stringify(cluster.status?.binlogArchive ?? null) !== JSON.stringify(archive ?? null);
  const reasonChanged = current?.reason !== condition.reason;
  const event = reasonChanged
    ? {
        type: condition.status === CONDITION_STATUS.true ? ('Normal' as const) : ('Warning' as const),
        reason: condition.reason,
        message: condition.message,
      }
    : undefined;
  return { status, lagSeconds, changed, ...(event ? { event } : {}) };
}
