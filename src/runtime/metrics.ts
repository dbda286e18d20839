// The runtime's Prometheus metrics, on a registry per manager (so tests can run several managers
// in one process). Names are listed in docs/runtime.md.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { InformerObserver } from './informer.ts';
import type { QueueObserver } from './work-queue.ts';

export class RuntimeMetrics {
  readonly registry: Registry;
  readonly queueDepth: Gauge<'controller'>;
  readonly queueAdds: Counter<'controller'>;
  readonly queueRetries: Counter<'controller'>;
  readonly reconcileDuration: Histogram<'controller'>;
  readonly reconcileTotal: Counter<'controller' | 'result'>;
  readonly reconcileErrors: Counter<'controller'>;
  readonly watchRestarts: Counter<'kind' | 'reason'>;
  readonly relists: Counter<'kind' | 'reason'>;
  readonly watchGone: Counter<'kind'>;
  readonly leader: Gauge<'lease'>;
  readonly leaderTransitions: Counter<'lease'>;
  readonly cachedObjects: Gauge<'kind' | 'namespace' | 'selector'>;
  readonly inFlight: Gauge<'controller'>;
  readonly reconcileTimeouts: Counter<'controller'>;
  readonly rateLimiterWait: Histogram;

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    const r = new Registry();
    this.registry = r;
    if (opts.defaultMetrics) collectDefaultMetrics({ register: r });
    this.queueDepth = new Gauge({
      name: 'workqueue_depth',
      help: 'Keys waiting in the work queue',
      labelNames: ['controller'],
      registers: [r],
    });
    this.queueAdds = new Counter({
      name: 'workqueue_adds_total',
      help: 'Keys added to the work queue (after de-duplication)',
      labelNames: ['controller'],
      registers: [r],
    });
    this.queueRetries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Keys re-queued with backoff after a failed reconcile',
      labelNames: ['controller'],
      registers: [r],
    });
    this.reconcileDuration = new Histogram({
      name: 'controller_reconcile_duration_seconds',
      help: 'Duration of reconciles',
      labelNames: ['controller'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [r],
    });
    this.reconcileTotal = new Counter({
      name: 'controller_reconcile_total',
      help: 'Reconciles by result',
      labelNames: ['controller', 'result'],
      registers: [r],
    });
    this.reconcileErrors = new Counter({
      name: 'controller_reconcile_errors_total',
      help: 'Reconciles that threw',
      labelNames: ['controller'],
      registers: [r],
    });
    this.watchRestarts = new Counter({
      name: 'informer_watch_restarts_total',
      help: 'Watches re-opened without a relist',
      labelNames: ['kind', 'reason'],
      registers: [r],
    });
    this.relists = new Counter({
      name: 'informer_relists_total',
      help: 'Full lists into the cache',
      labelNames: ['kind', 'reason'],
      registers: [r],
    });
    this.watchGone = new Counter({
      name: 'informer_watch_gone_total',
      help: '410 Gone answers to a watch',
      labelNames: ['kind'],
      registers: [r],
    });
    this.leader = new Gauge({
      name: 'leader_election_is_leader',
      help: '1 while this process holds the Lease',
      labelNames: ['lease'],
      registers: [r],
    });
    this.cachedObjects = new Gauge({
      name: 'informer_cached_objects',
      help: 'Objects in an informer cache',
      labelNames: ['kind', 'namespace', 'selector'],
      registers: [r],
    });
    this.inFlight = new Gauge({
      name: 'workqueue_in_flight',
      help: 'Keys being reconciled now',
      labelNames: ['controller'],
      registers: [r],
    });
    this.reconcileTimeouts = new Counter({
      name: 'controller_reconcile_timeouts_total',
      help: 'Reconciles abandoned at their deadline (--reconcile-timeout)',
      labelNames: ['controller'],
      registers: [r],
    });
    this.rateLimiterWait = new Histogram({
      name: 'rest_client_rate_limiter_duration_seconds',
      help: 'Time API requests waited for the client-side rate limiter (--kube-api-qps, --kube-api-burst)',
      buckets: [0, 0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [r],
    });
    this.leaderTransitions = new Counter({
      name: 'leader_election_transitions_total',
      help: 'Times this process gained or lost the Lease',
      labelNames: ['lease'],
      registers: [r],
    });
  }

  queueObserver(controller: string): QueueObserver {
    return {
      onAdd: () => this.queueAdds.inc({ controller }),
      onDepth: (d) => this.queueDepth.set({ controller }, d),
      onRetry: () => this.queueRetries.inc({ controller }),
      onTimeout: () => this.reconcileTimeouts.inc({ controller }),
      onHandled: (_key, seconds, err) => {
        this.reconcileDuration.observe({ controller }, seconds);
        this.reconcileTotal.inc({ controller, result: err === undefined ? 'success' : 'error' });
        if (err !== undefined) this.reconcileErrors.inc({ controller });
      },
    };
  }

  /** The `onWait` of a TokenBucket. */
  rateLimiterObserver(): (ms: number) => void {
    return (ms) => this.rateLimiterWait.observe(ms / 1000);
  }

  informerObserver(kind: string): InformerObserver {
    return {
      onRelist: (reason) => this.relists.inc({ kind, reason }),
      onWatchRestart: (reason) => this.watchRestarts.inc({ kind, reason }),
      onGone: () => this.watchGone.inc({ kind }),
    };
  }
}
