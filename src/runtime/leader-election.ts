// Leader election on a coordination.k8s.io/v1 Lease, with client-go's timing rules:
// - a Lease held by another is taken only after its record has not changed for leaseDuration,
//   measured on OUR clock from when we saw it change (so clock skew between hosts does not matter);
// - the leader renews every retryPeriod and steps down when it could not renew for renewDeadline;
// - every write carries the resourceVersion it read, so two candidates never both win.
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeClient } from './kube/client.ts';
import { isAlreadyExists, isConflict } from './kube/errors.ts';
import type { KubeObject } from './kube/types.ts';
import { errorMessage, type Logger } from './logger.ts';

export interface LeaseSpec {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number;
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

export interface LeaderElectionOptions {
  client: KubeClient;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  log?: Logger;
  onStartedLeading: () => void;
  /** Called when leadership is lost or given up; controllers must stop. */
  onStoppedLeading: () => void | Promise<void>;
  onNewLeader?: (identity: string) => void;
  /** Monotonic milliseconds for the expiry and renew-deadline rules; default `performance.now`. */
  now?: () => number;
}

/** Kubernetes MicroTime: RFC 3339 with exactly six fractional digits. */
export function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class LeaderElector {
  readonly #o: LeaderElectionOptions;
  readonly #now: () => number;
  #leader = false;
  #observedRecord = '';
  #observedAt = 0; // #now() when the record last changed
  #observedHolder = '';
  #stateKnown = false;

  constructor(opts: LeaderElectionOptions) {
    this.#o = opts;
    this.#now = opts.now ?? (() => performance.now());
  }

  get isLeader(): boolean {
    return this.#leader;
  }

  /** True once a first attempt has told us whether we lead (for /readyz). */
  get stateKnown(): boolean {
    return this.#stateKnown;
  }

  /** The holder seen in the last read of the Lease. */
  get observedHolder(): string {
    return this.#observedHolder;
  }

  get #ref() {
    return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: this.#o.namespace, name: this.#o.name };
  }

  /**
   * One attempt: create, take over an expired Lease, or renew ours. True when we hold it after.
   * `signal` bounds the attempt (a leader must not keep running on an answer that comes too late).
   */
  async tryAcquireOrRenew(signal?: AbortSignal): Promise<boolean> {
    const now = new Date();
    const durationSeconds = Math.max(1, Math.ceil(this.#o.leaseDurationMs / 1000));
    const lease = await this.#o.client.getIfExists<Lease>(this.#ref, { signal });
    if (!lease) {
      try {
        const fresh: Lease = {
          ...this.#ref,
          metadata: { name: this.#o.name, namespace: this.#o.namespace },
          spec: {
            holderIdentity: this.#o.identity,
            leaseDurationSeconds: durationSeconds,
            acquireTime: microTime(now),
            renewTime: microTime(now),
            leaseTransitions: 0,
          },
        };
        await this.#o.client.create<Lease>(fresh, { signal });
      } catch (err) {
        if (isAlreadyExists(err) || isConflict(err)) return false; // AlreadyExists: another candidate created it first
        throw err;
      }
      this.#observe({ holderIdentity: this.#o.identity, renewTime: microTime(now) });
      return true;
    }
    const spec = lease.spec ?? {};
    this.#observe(spec);
    const holder = spec.holderIdentity ?? '';
    const ours = holder === this.#o.identity;
    const expired = this.#now() - this.#observedAt > (spec.leaseDurationSeconds ?? durationSeconds) * 1000;
    if (holder && !ours && !expired) return false;
    const next: Lease = {
      ...lease,
      spec: {
        ...spec,
        holderIdentity: this.#o.identity,
        leaseDurationSeconds: durationSeconds,
        acquireTime: ours ? spec.acquireTime : microTime(now),
        renewTime: microTime(now),
        leaseTransitions: ours ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
      },
    };
    try {
      const updated = await this.#o.client.update<Lease>(next, { signal });
      this.#observe(updated.spec ?? {});
      return true;
    } catch (err) {
      if (isConflict(err)) return false;
      throw err;
    }
  }

  #observe(spec: LeaseSpec): void {
    const record = JSON.stringify([spec.holderIdentity ?? '', spec.renewTime ?? '', spec.acquireTime ?? '', spec.leaseTransitions ?? 0]);
    if (record !== this.#observedRecord) {
      this.#observedRecord = record;
      this.#observedAt = this.#now();
    }
    const holder = spec.holderIdentity ?? '';
    if (holder !== this.#observedHolder) {
      this.#observedHolder = holder;
      if (holder) this.#o.onNewLeader?.(holder);
    }
  }

  async #attempt(timeoutMs: number): Promise<boolean> {
    try {
      // AbortSignal.timeout() takes whole milliseconds only (it throws on 1299.9, which made
      // every renewal fail and the leader step down each renew deadline).
      return await this.tryAcquireOrRenew(AbortSignal.timeout(Math.max(1, Math.ceil(timeoutMs))));
    } catch (err) {
      this.#o.log?.warn('lease request failed', { lease: this.#o.name, error: errorMessage(err) });
      return false;
    }
  }

  /** Campaigns, leads, and campaigns again after losing, until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const jitter = (): number => Math.round(this.#o.retryPeriodMs * (1 + Math.random() * 0.2));
    while (!signal.aborted) {
      const acquired = await this.#attempt(this.#o.renewDeadlineMs);
      this.#stateKnown = true;
      if (signal.aborted) break;
      if (!acquired) {
        try {
          await sleep(jitter(), undefined, { signal });
        } catch {
          break;
        }
        continue;
      }
      this.#leader = true;
      this.#o.log?.info('became leader', { lease: this.#o.name, identity: this.#o.identity });
      this.#o.onStartedLeading();
      let lastRenew = this.#now();
      while (!signal.aborted) {
        try {
          await sleep(this.#o.retryPeriodMs, undefined, { signal });
        } catch {
          break;
        }
        // The attempt may not outlive the renew deadline: past it, another may take the Lease.
        const left = this.#o.renewDeadlineMs - (this.#now() - lastRenew);
        if (left > 0 && (await this.#attempt(left))) lastRenew = this.#now();
        else if (this.#observedHolder !== this.#o.identity || this.#now() - lastRenew > this.#o.renewDeadlineMs) {
          this.#o.log?.warn('lost leadership', { lease: this.#o.name, holder: this.#observedHolder });
          break;
        }
      }
      this.#leader = false;
      await this.#o.onStoppedLeading();
    }
  }

  /** Gives the Lease up (holderIdentity cleared) if we hold it, so a standby takes over at once. */
  async release(): Promise<void> {
    const signal = AbortSignal.timeout(this.#o.renewDeadlineMs);
    const lease = await this.#o.client.getIfExists<Lease>(this.#ref, { signal });
    if (!lease || lease.spec?.holderIdentity !== this.#o.identity) return;
    const now = microTime(new Date());
    await this.#o.client.update<Lease>(
      {
        ...lease,
        spec: { ...lease.spec, holderIdentity: null, leaseDurationSeconds: 1, acquireTime: now, renewTime: now },
      },
      { signal },
    );
    this.#leader = false;
  }
}
