// What a failover hook call means for a pass. The hook is a push, not a source of truth
// (hook-signals.ts): a signal makes the controller look sooner and more often, and names a
// candidate the servers must prove before it is labelled master (decide-successor.ts). A failover
// promotes within a second or so of its PreFailover call, and Orchestrator's Post* calls come
// 0.1-0.3 s after the promotion (a shell and curl it spawns), so from a PreFailover call until the
// successor carries role=master the controller looks every FAST_POLL_MS, for at most
// SUCCESSOR_WAIT_MS after a call; and until Orchestrator itself names the successor after a Post*
// call, since the labels only lead its answer while the call is fresh.
import { instanceKey, sameInstance } from './gathered.ts';
import type { HookSignal } from './hook-signals.ts';

/** How long a PreFailover call holds FailoverInProgress when Orchestrator does not show the failover. */
export const PRE_FAILOVER_FRESH_MS = 10_000;
/**
 * How long a PreGracefulTakeover call does: 3.2.6 freezes the master after it and waits up to
 * ReasonableMaintenanceReplicationLagSeconds (20 s by default; the chart keeps it) for the designated
 * replica before its recovery shows in the API, and gives up without another hook when it does not
 * catch up (the master stays frozen: decide-read-only.ts does not undo it).
 */
export const PRE_TAKEOVER_FRESH_MS = 30_000;
/** How long after a Post* call the controller polls fast for its successor. */
export const SUCCESSOR_WAIT_MS = 5_000;
export const FAST_POLL_MS = 75;

/** The signal while it still means something; undefined once it is stale (the wiring settles it). */
export function freshHook(s: HookSignal | undefined, now: Date): HookSignal | undefined {
  if (s === undefined) return undefined;
  const limit =
    s.process === 'PreFailover' ? PRE_FAILOVER_FRESH_MS : s.process === 'PreGracefulTakeover' ? PRE_TAKEOVER_FRESH_MS : SUCCESSOR_WAIT_MS;
  return now.getTime() - s.at.getTime() <= limit ? s : undefined;
}

export type HookDecision =
  | { kind: 'none' }
  /** Wait for the next call (a PreFailover long past: aborted, or its recovery is slow); it goes stale. */
  | { kind: 'keep' }
  /** Done with the signal; `landedSeconds` when its successor now carries role=master. */
  | { kind: 'settle'; landedSeconds?: number }
  /** The promotion is not labelled yet, or Orchestrator does not name the successor yet: look again soon. */
  | { kind: 'poll'; afterMs: number };

/** `host:port` as Orchestrator's hooks pass it. */
export function hostPort(text: string): { host: string; port: number } | undefined {
  const i = text.lastIndexOf(':');
  const port = Number(text.slice(i + 1));
  return i > 0 && Number.isInteger(port) ? { host: text.slice(0, i), port } : undefined;
}

/**
 * `hook`: the fresh signal the pass gathered; `masterFqdn`: Orchestrator's master when its server
 * agrees (decide-master.ts), so a Post* call is settled once Orchestrator names its successor, not
 * when the fast path labelled it; `now`: when the pass's labels were patched.
 */
export function decideHook(hook: HookSignal | undefined, masterFqdn: string | undefined, now: Date): HookDecision {
  if (hook === undefined) return { kind: 'none' };
  // Its successor is the designated replica, not promoted yet: wait for the next call.
  if (hook.process === 'PreGracefulTakeover') return { kind: 'keep' };
  if (hook.process === 'PreFailover')
    return now.getTime() - hook.at.getTime() <= SUCCESSOR_WAIT_MS ? { kind: 'poll', afterMs: FAST_POLL_MS } : { kind: 'keep' };
  const successor = hook.successor === undefined ? undefined : hostPort(hook.successor);
  if (hook.process === 'PostUnsuccessfulFailover' || successor === undefined) return { kind: 'settle' };
  if (masterFqdn !== undefined && sameInstance(instanceKey(masterFqdn), successor)) {
    return { kind: 'settle', landedSeconds: Math.max(0, now.getTime() - hook.at.getTime()) / 1000 };
  }
  return { kind: 'poll', afterMs: FAST_POLL_MS };
}

/**
 * A hook call came after the pass gathered (the route has enqueued the cluster again): Orchestrator
 * has moved on since the view the pass decided on, so it stops before its next write and the pass
 * after it, which starts at once, decides on a view that holds the call. Without this a Post* call
 * waits for the status, read-only and acknowledgement writes of a pass that began before it.
 */
export function superseded(seen: HookSignal | undefined, latest: HookSignal | undefined): boolean {
  return latest !== undefined && latest !== seen;
}
