// What the orchestrator controller remembers between passes, and the clusters gauge made from it.
import { CONDITION_STATUS, type ConditionStatus } from '../../api/constants.ts';
import type { HookSignal } from './hook-signals.ts';
import type { OrchestratorMetrics } from './metrics.ts';

/**
 * What the controller remembers between passes, per cluster key: the Ready status (for the
 * clusters gauge), the recoveries already counted, and the last reason each kind of decision held
 * for (so a hold is an Event when it changes, not on every pass).
 */
export class ControllerMemory {
  readonly ready = new Map<string, ConditionStatus>();
  readonly failoversSeen = new Map<string, Set<string>>();
  /** The pod kept labelled master on the last pass though its server did not answer. */
  readonly masterUnanswered = new Map<string, string>();
  /** The master pod the operator made read-only for spec.readOnly (decide-read-only.ts). */
  readonly frozenBySpec = new Map<string, string>();
  /** Hook calls whose successor the fast path labelled (and observed in the hook-to-labels histogram). */
  readonly hookLanded = new WeakSet<HookSignal>();
  /** Hook calls a full pass has gathered (decide-successor.ts probeOnly). */
  readonly fullPassSaw = new WeakSet<HookSignal>();
  readonly #holds = new Map<string, string>();

  /** True when `kind` of the cluster now holds for another reason than last pass (or did not hold). */
  holdChanged(cluster: string, kind: string, reason: string | undefined): boolean {
    const k = `${cluster}\u0000${kind}`;
    const before = this.#holds.get(k);
    if (reason === undefined) this.#holds.delete(k);
    else this.#holds.set(k, reason);
    return reason !== undefined && reason !== before;
  }

  forget(cluster: string): void {
    this.ready.delete(cluster);
    this.failoversSeen.delete(cluster);
    this.masterUnanswered.delete(cluster);
    this.frozenBySpec.delete(cluster);
    for (const k of this.#holds.keys()) if (k.startsWith(`${cluster}\u0000`)) this.#holds.delete(k);
  }
}

/** The clusters gauge from the remembered Ready status of each. */
export function countReady(memory: ControllerMemory, gauge: OrchestratorMetrics['clustersByReady']): void {
  for (const status of Object.values(CONDITION_STATUS)) {
    gauge.set({ ready: status }, [...memory.ready.values()].filter((s) => s === status).length);
  }
}
