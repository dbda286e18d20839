// What Orchestrator's failover hooks told the operator, per cluster, kept in memory until the
// controller's own look at Orchestrator confirms it. A hook is a push, not a source of truth: the
// controller relabels only from Orchestrator's view (gathered by polling); a signal tells it to look
// now and again soon, and to hold while a failover runs. The hook route records; the controller reads.

/**
 * The Orchestrator hook processes the chart wires to the operator's endpoint. PreGracefulTakeover
 * and PreFailover are the ones 3.2.6 runs before it freezes a master (read_only=1 on the master a
 * takeover demotes; on a dead master once a replica is promoted): while one is fresh, nothing is
 * made writable (decide-read-only.ts).
 */
export const HOOK_PROCESSES = [
  'PreGracefulTakeover',
  'PreFailover',
  'PostMasterFailover',
  'PostGracefulTakeover',
  'PostUnsuccessfulFailover',
] as const;
export type HookProcess = (typeof HOOK_PROCESSES)[number];

export interface HookSignal {
  process: HookProcess;
  /** `namespace/name` of the MysqlCluster the hook's cluster alias names. */
  clusterKey: string;
  /** `host:port` of the failed instance, when the hook passed it. */
  failed?: string;
  /** `host:port` of the promoted instance, when the hook passed it (Post* of a successful recovery; PreGracefulTakeover's designated replica). */
  successor?: string;
  /** When the operator received the call. */
  at: Date;
}

/** The newest signal of each cluster. One instance per operator process, shared by the route and the controller. */
export class FailoverSignals {
  readonly #latest = new Map<string, HookSignal>();

  record(signal: HookSignal): void {
    this.#latest.set(signal.clusterKey, signal);
  }

  /**
   * The same call, received again now: a held PreFailover call (hook.ts) whose failover goes on only
   * from its answer. Only while no newer call came since; true when renewed.
   */
  renew(signal: HookSignal): boolean {
    if (this.#latest.get(signal.clusterKey) !== signal) return false;
    this.#latest.set(signal.clusterKey, { ...signal, at: new Date() });
    return true;
  }

  latest(clusterKey: string): HookSignal | undefined {
    return this.#latest.get(clusterKey);
  }

  /** Forgets the cluster's signal once the controller has acted on it (only if no newer one came since). */
  settle(signal: HookSignal): void {
    if (this.#latest.get(signal.clusterKey) === signal) this.#latest.delete(signal.clusterKey);
  }
}
