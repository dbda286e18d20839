// What a failover hook call means for a pass. The hook is a push, not a source of truth
// (hook-signals.ts): the labels follow Orchestrator's view only, and a signal only makes the
// controller look sooner and more often. Orchestrator answers /api/master with the new master
// ~0.2-0.4 s after its Post* hooks (FIELD-NOTES.md), so after one the controller polls every
// FAST_POLL_MS until the successor carries role=master, for at most SUCCESSOR_WAIT_MS.
import { instanceKey, sameInstance } from './gathered.ts';
import type { HookSignal } from './hook-signals.ts';

/** How long a PreFailover call holds FailoverInProgress when Orchestrator does not show the failover. */
export const PRE_FAILOVER_FRESH_MS = 10_000;
/** How long after a Post* call the controller polls fast for its successor. */
export const SUCCESSOR_WAIT_MS = 5_000;
export const FAST_POLL_MS = 75;

/** The signal while it still means something; undefined once it is stale (the wiring settles it). */
export function freshHook(s: HookSignal | undefined, now: Date): HookSignal | undefined {
  if (s === undefined) return undefined;
  const limit = s.process === 'PreFailover' ? PRE_FAILOVER_FRESH_MS : SUCCESSOR_WAIT_MS;
  return now.getTime() - s.at.getTime() <= limit ? s : undefined;
}

export type HookDecision =
  | { kind: 'none' }
  /** Wait for the next call (a PreFailover is followed by a Post* one, or goes stale). */
  | { kind: 'keep' }
  /** Done with the signal; `landedSeconds` when its successor now carries role=master. */
  | { kind: 'settle'; landedSeconds?: number }
  /** The successor is not labelled master yet: look again soon. */
  | { kind: 'poll'; afterMs: number };

/** `host:port` as Orchestrator's hooks pass it. */
export function hostPort(text: string): { host: string; port: number } | undefined {
  const i = text.lastIndexOf(':');
  const port = Number(text.slice(i + 1));
  return i > 0 && Number.isInteger(port) ? { host: text.slice(0, i), port } : undefined;
}

/**
 * `hook`: the fresh signal the pass gathered; `masterFqdn`: the pod carrying role=master once the
 * pass's label patches are applied; `now`: when they were.
 */
export function decideHook(hook: HookSignal | undefined, masterFqdn: string | undefined, now: Date): HookDecision {
  if (hook === undefined) return { kind: 'none' };
  if (hook.process === 'PreFailover') return { kind: 'keep' };
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
