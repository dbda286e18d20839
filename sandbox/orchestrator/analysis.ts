// Pure: what the stand-in concludes from the instances it polls, and whom it promotes.
import { gtidCovers, gtidSequences } from '../../src/mysql/gtid-set.ts';
import { DOWNTIME_LOST_IN_RECOVERY as LOST_IN_RECOVERY } from '../../src/orchestrator/responses.ts';
import { keyText, type Key } from './hooks.ts';

export interface Downtime {
  owner: string;
  reason: string;
  endsAt: Date;
}

/**
 * 3.2.6's `is_last_check_valid` after a failed check: `last_checked <= last_seen`, both stored as
 * its SQLite backend's NOW(), in whole seconds. So a check that fails within the same second as the
 * last good one still reads valid (recorded: an API discover 0.5 s after a kill left the instance
 * `IsLastCheckValid: true`; 2.5 s after, false at once; test/fixtures/orchestrator/README.md).
 */
export function lastCheckStillValid(lastSeen: Date | null, failedAt: Date): boolean {
  return lastSeen !== null && Math.floor(failedAt.getTime() / 1000) <= Math.floor(lastSeen.getTime() / 1000);
}

export interface InstanceState {
  key: Key;
  /**
   * False from the first failed check until a check succeeds again, except within the second of the
   * last good one (`lastCheckStillValid`).
   */
  lastCheckValid: boolean;
  /** Failed checks in a row. */
  failedChecks: number;
  lastSeen: Date | null;
  firstSeen: Date;
  serverId: number;
  version: string;
  versionComment: string;
  readOnly: boolean;
  instanceAlias: string;
  suggestedClusterAlias: string;
  master: Key | null;
  ioRunning: boolean;
  sqlRunning: boolean;
  usingGtid: boolean;
  /** MariaDB gtid_slave_pos (replicas) or gtid_current_pos (a master). */
  gtidPosition: string;
  /** Gtid_IO_Pos: what the IO thread has fetched, applied or not. */
  gtidReceived: string;
  lastIoError: string;
  lastSqlError: string;
  secondsBehind: number | null;
  binlog: { file: string; position: number } | null;
  downtime: Downtime | null;
}

export const sameKey = (a: Key | null, b: Key | null): boolean => a !== null && b !== null && a.host === b.host && a.port === b.port;

export function replicasOf(all: readonly InstanceState[], master: Key): InstanceState[] {
  return all.filter((i) => sameKey(i.master, master));
}

/** The top of the replication chain `i` belongs to (itself when it has no known master). */
export function rootOf(all: readonly InstanceState[], i: InstanceState): InstanceState {
  let cur = i;
  for (let hops = 0; hops < all.length; hops++) {
    const up = all.find((x) => sameKey(x.key, cur.master));
    if (!up) return cur;
    cur = up;
  }
  return cur;
}

/** Orchestrator names a cluster after its master: `host:port`, a new name after each promotion. */
export const clusterNameOf = (all: readonly InstanceState[], i: InstanceState): string => keyText(rootOf(all, i).key);

/** The downtime a recovery puts on the master it failed over from. */
export { LOST_IN_RECOVERY };

const isDowntimed = (i: InstanceState, now: Date): boolean => i.downtime !== null && i.downtime.endsAt > now;

/**
 * The alias a live member suggests (DetectClusterAliasQuery), else the name: an old master left
 * alone in its own cluster, dead or restarted, loses the alias to the cluster that carries on (as
 * recorded). The real one keeps aliases in a table that follows each promotion and that a failed,
 * still downtimed master does not update; alone is the state a recovery leaves such a master in,
 * while one promoted again later (a takeover and back) has replicas and keeps the alias.
 */
export function clusterAliasOf(all: readonly InstanceState[], clusterName: string, now = new Date()): string {
  const members = all.filter((i) => clusterNameOf(all, i) === clusterName);
  const [only] = members;
  if (members.length === 1 && only && isDowntimed(only, now) && only.downtime?.reason === LOST_IN_RECOVERY) return clusterName;
  const live = members.find((i) => i.lastCheckValid && i.suggestedClusterAlias !== '');
  return live?.suggestedClusterAlias ?? clusterName;
}

export type AnalysisCode = 'DeadMaster' | 'UnreachableMaster';

export interface Analysis {
  code: AnalysisCode;
  description: string;
  /** Only DeadMaster leads to a recovery. */
  actionable: boolean;
  master: InstanceState;
  replicas: InstanceState[];
}

export const DESCRIPTIONS: Record<AnalysisCode, string> = {
  DeadMaster: 'Master cannot be reached by orchestrator and none of its replicas is replicating',
  UnreachableMaster: 'Master cannot be reached by orchestrator but it has replicating replicas; possibly a network/host issue',
};

/**
 * A master that fails its check is DeadMaster when none of its replicas replicates (both threads
 * running), else UnreachableMaster. At the first failed check the replicas' IO threads count as
 * running: the real one's view of the replicas lagged the master's check, so a plain kill was
 * UnreachableMaster ~1 s before DeadMaster in every recording, while replicas whose SQL thread was
 * stopped made it DeadMaster at once (failover-unsuccessful).
 */
export function analyze(all: readonly InstanceState[], now: Date): Analysis[] {
  const out: Analysis[] = [];
  for (const m of all) {
    if (m.master !== null || m.lastCheckValid || isDowntimed(m, now)) continue;
    const replicas = replicasOf(all, m.key);
    if (replicas.length === 0) continue;
    const replicating = (r: InstanceState): boolean => r.sqlRunning && (r.ioRunning || m.failedChecks < 2);
    const dead = !replicas.some(replicating);
    const code: AnalysisCode = dead ? 'DeadMaster' : 'UnreachableMaster';
    out.push({ code, description: DESCRIPTIONS[code], actionable: dead, master: m, replicas });
  }
  return out;
}

const gtidTotal = (pos: string): number => [...gtidSequences(pos).values()].reduce((a, b) => a + b, 0);

/**
 * The reachable replica that applied the most; ties go to the lowest key, so runs repeat. A
 * downtime does not disqualify: 3.2.6 promoted downtimed replicas (hooks/failover-stopped-downtimed-replicas,
 * and pre-shutdown-ha's takeover picked one); a downtime only keeps the downtimed server's own
 * failure from being recovered.
 */
export function chooseSuccessor(replicas: readonly InstanceState[]): InstanceState | null {
  const candidates = replicas
    .filter((r) => r.lastCheckValid)
    .sort((a, b) => gtidTotal(b.gtidPosition) - gtidTotal(a.gtidPosition) || keyText(a.key).localeCompare(keyText(b.key)));
  return candidates[0] ?? null;
}

/**
 * FailMasterPromotionIfSQLThreadNotUpToDate: a candidate whose IO thread fetched more than its
 * SQL thread applied would lose those transactions when promoted.
 */
export function sqlThreadBehind(r: InstanceState): boolean {
  return !gtidCovers(r.gtidPosition, r.gtidReceived);
}

/**
 * Whether an instance last checked at `lastCheckedMs` is due for a check at `nowMs`: 3.2.6's
 * health tick (every second) reads the instances whose `last_checked < NOW() - INTERVAL
 * InstancePollSeconds SECOND` in its SQLite backend, whose times are whole seconds, so with
 * InstancePollSeconds 1 an instance is read every 2 s, not every second (ReadOutdatedInstanceKeys).
 */
export function dueForCheck(lastCheckedMs: number | undefined, nowMs: number, instancePollSeconds: number): boolean {
  if (lastCheckedMs === undefined) return true;
  return Math.floor(nowMs / 1000) - Math.floor(lastCheckedMs / 1000) > instancePollSeconds;
}
