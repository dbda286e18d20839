// Which scheduled backups of a cluster to delete: beyond the newest backupScheduleJobsHistoryLimit
// (the anchor's rule), and, ours, older than backupRetentionPeriod. Deleting a MysqlBackup deletes
// its stored object only under remoteDeletePolicy delete (the backup controller's finalizer).
// Two guards the anchor lacked: the newest completed backup is never pruned (a run of failures,
// or a stopped schedule, must not leave a cluster without a restorable backup), and a backup
// still running is left to finish or time out.
import { parseDuration } from '../../runtime/settings.ts';
import { isCompleted, isRunning, type Backup } from './decide-tick.ts';

export interface RetentionPolicy {
  /** Keep at most this many (unset: no limit). */
  historyLimit: number | undefined;
  /** Delete those older than this (unset: no age limit). */
  maxAgeMs: number | undefined;
}

/** `168h`, `30d`, `1d12h`: Go durations plus days. Undefined when it is not one. */
export function parseRetentionPeriod(text: string): number | undefined {
  const t = text.trim();
  if (!/^(\d+(\.\d+)?[smhd])+$/.test(t)) return undefined;
  let days = 0;
  const rest = t.replace(/(\d+(?:\.\d+)?)d/g, (_m, n: string) => {
    days += Number(n);
    return '';
  });
  const ms = rest ? parseDuration(rest) : 0;
  return ms === undefined ? undefined : ms + days * 86_400_000;
}

function createdMs(b: Backup): number {
  // A Date in the client's types, a string in the JSON the informer holds.
  const t: unknown = b.metadata?.creationTimestamp;
  return t instanceof Date ? t.getTime() : typeof t === 'string' ? Date.parse(t) : 0;
}

/** Names of the backups to delete, oldest first. */
export function chooseBackupsToPrune(scheduled: readonly Backup[], policy: RetentionPolicy, now: Date): string[] {
  // Newest first; the name (tick time) breaks ties within a second.
  const byAge = [...scheduled].sort(
    (a, b) => createdMs(b) - createdMs(a) || (b.metadata?.name ?? '').localeCompare(a.metadata?.name ?? ''),
  );
  const newestCompleted = byAge.find(isCompleted);
  const prune = byAge.filter((b, i) => {
    if (b === newestCompleted || isRunning(b)) return false;
    const overLimit = policy.historyLimit !== undefined && i >= policy.historyLimit;
    const tooOld = policy.maxAgeMs !== undefined && now.getTime() - createdMs(b) > policy.maxAgeMs;
    return overLimit || tooOld;
  });
  return prune.map((b) => b.metadata!.name!).reverse();
}
