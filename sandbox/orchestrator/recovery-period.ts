// Pure: a recovery's active period as Orchestrator 3.2.6 keeps it (logic/topology_recovery_dao.go)
// and the automatic recoveries it blocks. Every recovery, successful, failed or aborted, and also a
// graceful takeover, begins an active period: IsActive is true from its start until
// RecoveryPeriodBlockSeconds later (ClearActiveRecoveries, on a once-a-second tick) or until it is
// acknowledged, whether it has ended or not. RecoveryEndTimestamp says whether it ended.
import { keyText, type Key } from './hooks.ts';
import { rfc3339, keyJson, type RecoveryRecord } from './shapes.ts';

/** True while the recovery holds its active period. */
export function inActivePeriod(r: RecoveryRecord, now: Date, blockSeconds: number): boolean {
  return r.activeClearedAt === null && now.getTime() < r.startedAt.getTime() + blockSeconds * 1000;
}

/**
 * The recoveries that block an automatic recovery of `failed` in cluster `clusterName`
 * (AttemptRecoveryRegistration): first those in their active period that promoted `failed` (a
 * master that was just promoted is not failed over again), else those in their active period
 * of the same cluster name (the name of the cluster when the recovery began). Empty: not blocked.
 * A graceful takeover is forced and never blocked.
 */
export function blockingRecoveries(
  all: readonly RecoveryRecord[],
  failed: Key,
  clusterName: string,
  now: Date,
  blockSeconds: number,
): RecoveryRecord[] {
  const active = all.filter((r) => inActivePeriod(r, now, blockSeconds));
  const promotedIt = active.filter((r) => r.successor !== null && keyText(r.successor) === keyText(failed));
  if (promotedIt.length > 0) return promotedIt;
  return active.filter((r) => r.clusterName === clusterName);
}

/** A row of /api/blocked-recoveries: one per failed instance, the newest block wins. */
export interface BlockedRecovery {
  failed: Key;
  clusterName: string;
  analysis: string;
  lastBlocked: Date;
  blockingId: number;
}

/** RegisterBlockedRecoveries: the row of `failed` is written (again) naming each blocking recovery; the last one stays. */
export function registerBlocked(
  rows: readonly BlockedRecovery[],
  b: Omit<BlockedRecovery, 'blockingId'>,
  blocking: readonly RecoveryRecord[],
): BlockedRecovery[] {
  const last = blocking.at(-1);
  if (!last) return [...rows];
  const others = rows.filter((r) => keyText(r.failed) !== keyText(b.failed));
  return [...others, { ...b, blockingId: last.id }];
}

/** ExpireBlockedRecoveries: a row goes once the recovery that blocked it is acknowledged. */
export function unexpiredBlocked(rows: readonly BlockedRecovery[], all: readonly RecoveryRecord[]): BlockedRecovery[] {
  return rows.filter((b) => all.some((r) => r.id === b.blockingId && r.acknowledged === null));
}

export function blockedRecoveryJson(b: BlockedRecovery): Record<string, unknown> {
  return {
    FailedInstanceKey: keyJson(b.failed),
    ClusterName: b.clusterName,
    Analysis: b.analysis,
    LastBlockedTimestamp: rfc3339(b.lastBlocked),
    BlockingRecoveryId: b.blockingId,
  };
}

/** Acknowledging ends the active period at once (acknowledgeRecoveries). */
export function acknowledge(r: RecoveryRecord, at: Date, by: string, comment: string): void {
  if (r.acknowledged !== null) return;
  r.acknowledged = { at, by, comment };
  r.activeClearedAt ??= at;
}
