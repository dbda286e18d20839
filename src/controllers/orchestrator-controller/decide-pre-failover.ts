// The PreFailover hold (docs/failover-hook.md "The PreFailover hold"). Orchestrator 3.2.6 runs its
// PreFailoverProcesses before it regroups a dead master's replicas, and on MariaDB with two or more
// replicas the regrouping begins with a plain STOP SLAVE on each. Whatever a replica had fetched
// but not applied then stays in its relay log: MariaDB does not go back to it once both threads
// stopped (docs/failure-modes.md "A failed promotion"), and DelayMasterPromotionIfSQLThreadNotUpToDate
// refuses that candidate. Commits the dead master acknowledged can be there and nowhere else. So the
// operator's hook endpoint answers a PreFailover call only once every replica whose SQL thread runs
// has applied all it fetched; or once they stop making progress, or at a deadline: a hook must
// never stop a failover for good.
import { PRE_FAILOVER_REASONS } from '../../api/constants.ts';
import type { NodeView, RoleView } from '../../topology/index.ts';

/**
 * A held call lets go once no replica it waits for has applied anything for this long: a SQL thread
 * that makes no progress (a lock, a stuck statement) will not catch up by waiting.
 */
export const PRE_FAILOVER_STALL_MS = 10_000;
/** And in any case after this long; the chart's hook curl waits a little longer. */
export const PRE_FAILOVER_HOLD_MS = 60_000;
/** How often the held call reads the replicas again. */
export const PRE_FAILOVER_POLL_MS = 100;

export interface HoldLimits {
  stallMs: number;
  holdMs: number;
}
export const HOLD_LIMITS: HoldLimits = { stallMs: PRE_FAILOVER_STALL_MS, holdMs: PRE_FAILOVER_HOLD_MS };

export type PreFailoverDecision =
  /** Nothing fetched is left unapplied on a replica that can still apply it. */
  | { kind: 'go' }
  /** These pods' SQL threads run and have relay log left: hold the call. */
  | { kind: 'hold'; pending: string[] };

/**
 * Every replica is looked at, whatever its source: in the clusters the operator makes they all
 * replicate from the master, and a replica applying its relay log harms no failover. A server that
 * cannot be read, or whose SQL thread is stopped (an error: nothing will apply the rest), is not
 * waited for; Orchestrator cannot promote the first, and waiting does not help the second.
 */
export function decidePreFailover(nodes: readonly NodeView<RoleView>[]): PreFailoverDecision {
  const pending = nodes
    .filter((n) => {
      const s = n.server;
      if (s === null || !s.reachable || s.replication === null) return false;
      return s.replication.sqlRunning && !s.replication.relayLogApplied;
    })
    .map((n) => n.pod);
  return pending.length === 0 ? { kind: 'go' } : { kind: 'hold', pending };
}

/** Each waited-for pod's applied position (its SQL thread's progress), to compare poll to poll. */
export function appliedPositions(nodes: readonly NodeView<RoleView>[], pods: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const n of nodes) {
    const s = n.server;
    if (pods.includes(n.pod) && s?.reachable && s.replication !== null) out.set(n.pod, s.replication.gtidApplied);
  }
  return out;
}

/** Whether any pod applied something since the previous poll. */
export function progressed(previous: ReadonlyMap<string, string>, now: ReadonlyMap<string, string>): boolean {
  for (const [pod, applied] of now) if (previous.has(pod) && previous.get(pod) !== applied) return true;
  return false;
}

/** Why a held call lets go now, or null to go on holding. Times in ms since the epoch. */
export function letGo(
  clock: { startedMs: number; lastProgressMs: number; nowMs: number },
  limits: HoldLimits,
): 'stalled' | 'deadline' | null {
  if (clock.nowMs - clock.startedMs >= limits.holdMs) return 'deadline';
  if (clock.nowMs - clock.lastProgressMs >= limits.stallMs) return 'stalled';
  return null;
}

/** What the hold did, for the call's answer, its Event and its log line. */
export type PreFailoverHold =
  /** `waited`: the pods it waited for (empty: none had relay log left). */
  | { kind: 'applied'; waitedMs: number; waited: string[] }
  /** Let go without it: `why` is a stall (nothing applied for stallMs) or the overall deadline. */
  | { kind: 'deadline'; waitedMs: number; pending: string[]; why: 'stalled' | 'deadline' }
  /** The servers could not be read at all (no operated Secret yet): the failover goes on at once. */
  | { kind: 'unread'; message: string };

/** The Event of a hold, or none when nothing had to be waited for. */
export function preFailoverEvent(h: PreFailoverHold): { type: 'Normal' | 'Warning'; reason: string; message: string } | null {
  const seconds = (ms: number): string => (ms / 1000).toFixed(1);
  switch (h.kind) {
    case 'applied':
      return h.waited.length === 0
        ? null
        : {
            type: 'Normal',
            reason: PRE_FAILOVER_REASONS.relayLogsApplied,
            message: `Orchestrator's failover held ${seconds(h.waitedMs)} s until ${h.waited.join(', ')} applied what they had fetched from the failed master`,
          };
    case 'deadline':
      return {
        type: 'Warning',
        reason: PRE_FAILOVER_REASONS.relayLogsNotApplied,
        message: `Orchestrator's failover let go after ${seconds(h.waitedMs)} s (${h.why === 'stalled' ? 'they applied nothing for a while' : 'the longest hold'}) with ${h.pending.join(', ')} still applying their relay logs: commits only there may be lost, or the promotion refused`,
      };
    case 'unread':
      return {
        type: 'Warning',
        reason: PRE_FAILOVER_REASONS.relayLogsNotApplied,
        message: `Orchestrator's failover was not held: the replicas could not be read (${h.message})`,
      };
  }
}
