// Restore to a point in time, the plan (pure; docs/pitr.md "Restore to a point in time"): given
// the archive's segments, the position and time of the full backup restored first, and a target
// (a time or a GTID), the `mariadb-binlog` runs that bring the restored server to the target, or
// a refusal naming the recoverable window when the target is outside it.
import { type BinlogSegment, gtidState, gtidStateCovers } from '../api/binlog-archive.ts';
import { planReplay } from './decide-binlog-replay.ts';

/** A time (unix seconds: transactions committed before it are applied) or a GTID (applied up to and including it). */
export type RestoreTarget = { time: number } | { gtid: string };

export interface RestoreRun {
  segment: BinlogSegment;
  /** `mariadb-binlog` options for this segment, before its file name. */
  args: string[];
}

export type RestorePlan =
  | { kind: 'plan'; runs: RestoreRun[]; reason: string }
  | { kind: 'refused'; reason: string; window: { from: string; to: string } };

export interface RestoreFacts {
  segments: readonly BinlogSegment[];
  /** The backup's GTID position (its xtrabackup_binlog_info). */
  backupGtid: string;
  /** When the backup was taken (unix seconds). */
  backupTime: number;
  /** Up to when the archive is complete (its index's completeUpTo, unix seconds). */
  completeUpTo: number;
}

/** `YYYY-MM-DD HH:MM:SS`, what `--stop-datetime` reads; `mariadb-binlog` must run with TZ=UTC. */
export function stopDatetime(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

function iso(unixSeconds: number): string {
  return `${new Date(unixSeconds * 1000).toISOString().slice(0, 19)}Z`;
}

/** The runs for `target`, or why not. */
export function planPointInTimeRestore(facts: RestoreFacts, target: RestoreTarget): RestorePlan {
  const { steps, gapAfter } = planReplay(facts.segments, facts.backupGtid);
  const archiveEnd = steps.reduce((s, x) => x.segment.endState || s, facts.backupGtid);
  const window =
    'time' in target
      ? { from: iso(facts.backupTime), to: iso(facts.completeUpTo) }
      : { from: facts.backupGtid || '(empty)', to: archiveEnd || '(empty)' };
  const refuse = (why: string): RestorePlan => ({
    kind: 'refused',
    reason: `${why}; recoverable from ${window.from} to ${window.to}`,
    window,
  });
  if (gapAfter !== null) return refuse(`the archive has a gap after ${gapAfter}`);
  if ('time' in target) {
    if (target.time < facts.backupTime) return refuse(`${iso(target.time)} is before the backup`);
    if (target.time > facts.completeUpTo) return refuse(`${iso(target.time)} is past what the archive holds`);
    const runs: RestoreRun[] = [];
    for (const step of steps) {
      const start = step.startPosition ? [`--start-position=${step.startPosition}`] : [];
      if (step.segment.lastTime < target.time) {
        runs.push({ segment: step.segment, args: start });
        continue;
      }
      if (step.segment.firstTime < target.time)
        runs.push({ segment: step.segment, args: [...start, `--stop-datetime=${stopDatetime(target.time)}`] });
      break;
    }
    return {
      kind: 'plan',
      runs,
      reason: `to ${iso(target.time)} from the backup at ${facts.backupGtid || '(empty)'}: ${runs.length} segment(s)`,
    };
  }
  const wanted = gtidState(target.gtid);
  if (wanted.size !== 1) return refuse(`'${target.gtid}' is not one GTID (domain-server-sequence)`);
  if (facts.backupGtid && gtidStateCovers(facts.backupGtid, target.gtid)) {
    if (!gtidStateCovers(target.gtid, facts.backupGtid)) return refuse(`${target.gtid} is before the backup`);
    return { kind: 'plan', runs: [], reason: `the backup is at ${target.gtid} already` };
  }
  if (!gtidStateCovers(archiveEnd, target.gtid)) return refuse(`${target.gtid} is past what the archive holds`);
  const runs: RestoreRun[] = [];
  for (const step of steps) {
    const start = step.startPosition ? [`--start-position=${step.startPosition}`] : [];
    if (!gtidStateCovers(step.segment.endState, target.gtid)) {
      runs.push({ segment: step.segment, args: start });
      continue;
    }
    runs.push({ segment: step.segment, args: [...start, `--stop-position=${target.gtid}`] });
    break;
  }
  return {
    kind: 'plan',
    runs,
    reason: `to GTID ${target.gtid} from the backup at ${facts.backupGtid || '(empty)'}: ${runs.length} segment(s)`,
  };
}
