// Which archived binlog segments a replay applies, and from which GTID position each (pure;
// docs/pitr.md). Segments are taken in archive order; one whose transactions are all applied
// already is left out, the others are read with `mariadb-binlog --start-position=<applied>`, whose
// GTID start position is exclusive per domain: a transaction archived twice (an old master's last
// upload racing the new master's first) is applied once.
import { type BinlogSegment, gtidStateCovers, mergeGtidState } from '../api/binlog-archive.ts';

export interface ReplayStep {
  segment: BinlogSegment;
  /** `--start-position`: the position applied before this segment ('' for none: from its start). */
  startPosition: string;
}

/**
 * The steps that bring a server at GTID position `from` (a backup's) forward through `segments`.
 * A segment that ends at or below `from` is not needed; one whose first transaction is past what
 * the archive held before it is a gap, reported by `gapAfter` (the position the archive broke at).
 */
export function planReplay(segments: readonly BinlogSegment[], from: string): { steps: ReplayStep[]; gapAfter: string | null } {
  const ordered = [...segments].sort((a, b) => a.seq - b.seq || a.serverId - b.serverId);
  const steps: ReplayStep[] = [];
  let applied = from;
  let gapAfter: string | null = null;
  for (const s of ordered) {
    if (s.endState !== '' && gtidStateCovers(applied, s.endState)) continue;
    if (gapAfter === null && s.firstGtid && !follows(applied, s.firstGtid) && !gtidStateCovers(applied, s.firstGtid)) gapAfter = applied;
    steps.push({ segment: s, startPosition: applied });
    applied = mergeGtidState(applied, s.endState);
  }
  return { steps, gapAfter };
}

/** True when transaction `gtid` is the next of its domain after `state` (or the domain's first). */
function follows(state: string, gtid: string): boolean {
  const [domain, , seq] = gtid.split('-').map(Number) as [number, number, number];
  for (const part of state.split(',')) {
    const [d, , n] = part.split('-').map(Number);
    if (d === domain) return seq === (n ?? 0) + 1;
  }
  return true;
}
