// The finalizer mysql.presslabs.org/registered-in-orchestrator (docs/compatibility.md): a cluster registered
// with Orchestrator is forgotten there before it goes away, or Orchestrator keeps polling servers
// that no longer exist and keeps their recoveries in its audit.
//
// Policy: the finalizer is added just before the first instance is registered, so a cluster that
// was never registered (Orchestrator not deployed, or never reachable) never waits on it. On
// deletion every instance Orchestrator knows for the cluster is forgotten and the finalizer is
// removed in the same pass. While Orchestrator is unreachable the deletion waits, saying so, for
// at most `timeoutMs` after the deletion began; then the finalizer is removed without forgetting
// (a Warning Event names the instances left behind): deleting a cluster never hangs on Orchestrator.
import { FINALIZER_ORCHESTRATOR, ORCHESTRATOR_REASONS } from '../../api/constants.ts';
import type { InstanceKey } from '../../orchestrator/index.ts';
import type { Registration } from './decide-registration.ts';
import { keyName, podNodes, type Gathered } from './gathered.ts';

export type FinalizerDecision =
  | { kind: 'none' }
  /** Add the finalizer before the registrations of this pass. */
  | { kind: 'add' }
  /** Deleting: forget these, then remove the finalizer. */
  | { kind: 'forget'; keys: InstanceKey[] }
  /** Deleting, Orchestrator unreachable: look again in `retryAfterMs`. */
  | { kind: 'wait'; reason: string; message: string; retryAfterMs: number }
  /** Deleting, Orchestrator unreachable for too long: remove the finalizer, forgetting nothing. */
  | { kind: 'release'; reason: string; message: string };

export function hasFinalizer(g: Gathered): boolean {
  return g.cluster.metadata?.finalizers?.includes(FINALIZER_ORCHESTRATOR) ?? false;
}

export function isDeleting(g: Gathered): boolean {
  return g.cluster.metadata?.deletionTimestamp !== undefined;
}

/** `registration`: decideRegistration's answer for the pass (ignored while deleting). */
export function decideFinalizer(g: Gathered, registration: Registration, timeoutMs: number): FinalizerDecision {
  const orc = g.orchestrator;
  if (!isDeleting(g)) {
    const registered = orc.kind === 'reachable' && (orc.instances.length > 0 || registration.discover.length > 0);
    return registered && !hasFinalizer(g) ? { kind: 'add' } : { kind: 'none' };
  }
  if (!hasFinalizer(g)) return { kind: 'none' };
  if (orc.kind === 'reachable') return { kind: 'forget', keys: orc.instances.map((i) => i.key) };

  // Typed a Date by client-node, a string as decoded from JSON: new Date() reads both.
  const at = g.cluster.metadata?.deletionTimestamp;
  const since = at === undefined ? NaN : new Date(at).getTime();
  const waitedMs = Number.isNaN(since) ? Infinity : g.now.getTime() - since;
  const pods =
    podNodes(g)
      .map((n) => keyName(n.key))
      .join(', ') || 'none';
  if (waitedMs >= timeoutMs) {
    return {
      kind: 'release',
      reason: ORCHESTRATOR_REASONS.forgetAbandoned,
      message: `Orchestrator was unreachable for ${Math.round(timeoutMs / 1000)}s after the deletion began (${orc.message}); the finalizer is removed without forgetting the cluster's instances (pods: ${pods}): forget them in Orchestrator by hand`,
    };
  }
  return {
    kind: 'wait',
    reason: ORCHESTRATOR_REASONS.orchestratorUnreachable,
    message: `waiting to forget the cluster's instances: Orchestrator is unreachable: ${orc.message}; the finalizer is removed anyway ${Math.round((timeoutMs - waitedMs) / 1000)}s from now`,
    retryAfterMs: Math.min(timeoutMs - waitedMs, 5_000),
  };
}
