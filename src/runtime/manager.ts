// The Manager runs controllers the way controller-runtime does: one shared informer per
// (kind, namespace, selector) for all controllers, caches warm on every replica, controllers
// (queues and workers) only while this process holds the leader Lease, /healthz /readyz /metrics,
// and a graceful shutdown that finishes in-flight reconciles and releases the Lease.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.ts';
import { ownerKeys, type ControllerContext, type ControllerSpec, type SecondaryWatch, type WatchTarget } from './controller.ts';
import { KubeEventRecorder, type EventRecorder } from './events.ts';
import { Informer, informerId, type InformerTarget } from './informer.ts';
import type { KubeClient } from './kube/client.ts';
import { objectKey, parseKey, selectorString, type KubeObject } from './kube/types.ts';
import { LeaderElector } from './leader-election.ts';
import { errorMessage, type Logger } from './logger.ts';
import { RuntimeMetrics } from './metrics.ts';
import { WorkQueue } from './work-queue.ts';

export interface ManagerOptions {
  config: Config;
  client: KubeClient;
  log: Logger;
  metrics?: RuntimeMetrics;
  events?: EventRecorder;
  /** Informer tuning (tests shorten these). */
  informer?: { watchTimeoutSeconds?: number; stallTimeoutMs?: number; relistPeriodMs?: number };
}

interface Running {
  queue: WorkQueue;
  abort: AbortController;
  unsubscribe: Array<() => void>;
  ctx: ControllerContext;
}

const MAX_BODY = 1 << 20;

/** `owns` and `watches` as one list: an owned kind maps to its owners' keys. */
function secondaryWatches(spec: ControllerSpec): SecondaryWatch[] {
  const owned = (spec.owns ?? []).map((target) => ({ target, map: (obj: KubeObject) => ownerKeys(obj, spec.for) }));
  return [...owned, ...(spec.watches ?? [])];
}

export class Manager {
  readonly config: Config;
  readonly client: KubeClient;
  readonly log: Logger;
  readonly metrics: RuntimeMetrics;
  readonly events: EventRecorder;
  readonly #opts: ManagerOptions;
  readonly #controllers: ControllerSpec[] = [];
  readonly #informers = new Map<string, Informer>();
  readonly #running = new Map<string, Running>();
  readonly #abort = new AbortController();
  /** Aborted to stop campaigning: at stop, or after a step-down that left work running. */
  readonly #campaign = new AbortController();
  #fatal: (err: Error) => void = () => {};
  /**
   * Resolves when this manager can no longer run safely and the process should exit (non-zero):
   * leadership was lost while reconciles kept running. Never rejects; pending while all is well.
   */
  readonly fatal: Promise<Error> = new Promise((resolve) => (this.#fatal = resolve));
  #elector: LeaderElector | undefined;
  #electorLoop: Promise<void> | undefined;
  #campaigning = false;
  #server: http.Server | undefined;
  #started = false;
  #stopping: Promise<void> | undefined;
  #leader = false;

  constructor(opts: ManagerOptions) {
    this.#opts = opts;
    this.config = opts.config;
    this.client = opts.client;
    this.log = opts.log;
    this.metrics = opts.metrics ?? new RuntimeMetrics();
    this.events = opts.events ?? new KubeEventRecorder(opts.client, { log: opts.log });
  }

  /** Gauges read at scrape time. */
  #collectGauges(): void {
    this.metrics.cachedObjects.reset();
    for (const inf of this.#informers.values()) {
      const t = inf.target;
      this.metrics.cachedObjects.set({ kind: t.kind, namespace: t.namespace || '*', selector: selectorString(t.labelSelector) }, inf.size);
    }
    this.metrics.inFlight.reset();
    for (const [name, r] of this.#running) this.metrics.inFlight.set({ controller: name }, r.queue.inFlight);
  }

  /** Registers a controller; must be called before `start()`. */
  add(spec: ControllerSpec): void {
    if (this.#started) throw new Error(`controller ${spec.name} added after start`);
    if (this.#controllers.some((c) => c.name === spec.name)) throw new Error(`duplicate controller name ${spec.name}`);
    for (const r of spec.routes ?? []) {
      if (['/healthz', '/readyz', '/metrics'].includes(r.path) || this.#route(r.method, r.path)) {
        throw new Error(`controller ${spec.name}: route ${r.method} ${r.path} is taken`);
      }
    }
    this.#controllers.push(spec);
  }

  #route(method: string, path: string): { spec: ControllerSpec; route: NonNullable<ControllerSpec['routes']>[number] } | undefined {
    for (const spec of this.#controllers) {
      const route = spec.routes?.find((r) => r.method === method && r.path === path);
      if (route) return { spec, route };
    }
    return undefined;
  }

  get controllerNames(): string[] {
    return this.#controllers.map((c) => c.name);
  }

  /** True while this process leads (always true with leader election off, once started). */
  get isLeader(): boolean {
    return this.#leader;
  }

  /**
   * True while leader election runs (campaigning, leading or standing by); false once it is over
   * for good: after stop, or after a step-down that left reconciles running (see `fatal`).
   */
  get campaigning(): boolean {
    return this.#campaigning;
  }

  /** Names of the controllers whose workers are running now. */
  get runningControllers(): string[] {
    return [...this.#running.keys()];
  }

  /** Ready: every informer synced and leadership state known. */
  get ready(): boolean {
    if (!this.#started || this.#stopping) return false;
    if (this.#elector && !this.#elector.stateKnown) return false;
    return [...this.#informers.values()].every((i) => i.hasSynced);
  }

  /** The URL of the health/metrics server once started. */
  get httpAddress(): AddressInfo | undefined {
    const a = this.#server?.address();
    return a && typeof a === 'object' ? a : undefined;
  }

  #resolve(t: WatchTarget): InformerTarget {
    return { ...t, namespace: t.namespace ?? this.config.namespace };
  }

  /** The shared informer for `target` (created and started on first request). */
  informerFor<T extends KubeObject = KubeObject>(target: WatchTarget): Informer<T> {
    const resolved = this.#resolve(target);
    const id = informerId(resolved);
    let inf = this.#informers.get(id);
    if (!inf) {
      inf = new Informer({
        client: this.client,
        target: resolved,
        log: this.log,
        observer: this.metrics.informerObserver(resolved.kind),
        ...this.#opts.informer,
      });
      this.#informers.set(id, inf);
      if (this.#started && !this.#abort.signal.aborted) inf.start();
    }
    return inf as unknown as Informer<T>;
  }

  async #syncedInformer<T extends KubeObject>(target: WatchTarget, signal: AbortSignal): Promise<Informer<T>> {
    const inf = this.informerFor<T>(target);
    await inf.waitForSync(signal);
    return inf;
  }

  /**
   * Starts informers, the HTTP server and leader election; controllers start when leading.
   * Resolves once the HTTP server listens.
   */
  async start(): Promise<void> {
    if (this.#started) throw new Error('manager already started');
    for (const c of this.#controllers) {
      this.informerFor(c.for);
      for (const w of secondaryWatches(c)) this.informerFor(w.target);
    }
    this.#started = true;
    for (const inf of this.#informers.values()) inf.start();
    await this.#listen();
    const lease = this.config.leaderElectionId;
    if (!this.config.leaderElect) {
      this.#becomeLeader();
      return;
    }
    this.#elector = new LeaderElector({
      // A bucket of its own, as client-go's lock has: renewals must not queue behind a burst of
      // reconciles past the renew deadline.
      client: this.client.withRateLimiter(this.client.rateLimiter?.copy()),
      namespace: this.config.leaderElectionNamespace,
      name: lease,
      identity: this.config.identity,
      leaseDurationMs: this.config.leaseDurationMs,
      renewDeadlineMs: this.config.renewDeadlineMs,
      retryPeriodMs: this.config.retryPeriodMs,
      log: this.log,
      onStartedLeading: () => this.#becomeLeader(),
      onStoppedLeading: () => this.#stopLeading(),
      onNewLeader: (holder) => this.log.info('leader observed', { lease, holder }),
    });
    this.#campaigning = true;
    this.#electorLoop = this.#elector.run(this.#campaign.signal).finally(() => {
      this.#campaigning = false;
    });
  }

  #becomeLeader(): void {
    this.#leader = true;
    this.metrics.leader.set({ lease: this.config.leaderElectionId }, 1);
    this.metrics.leaderTransitions.inc({ lease: this.config.leaderElectionId });
    for (const c of this.#controllers) this.#startController(c);
  }

  async #stopLeading(): Promise<void> {
    this.#leader = false;
    this.metrics.leader.set({ lease: this.config.leaderElectionId }, 0);
    this.metrics.leaderTransitions.inc({ lease: this.config.leaderElectionId });
    if (this.#abort.signal.aborted) return; // a stop: #stop drains the controllers itself
    // A standby may take over once the Lease expires, which is at least this long after we gave
    // up renewing. Work still running then could overlap the new leader's: a leader that cannot
    // drain by then stops campaigning and asks the process to exit, as controller-runtime does.
    const { leaseDurationMs, renewDeadlineMs, retryPeriodMs, shutdownTimeoutMs } = this.config;
    const handoverMs = Math.min(shutdownTimeoutMs, Math.max(0, leaseDurationMs - renewDeadlineMs - retryPeriodMs));
    if (await this.#stopControllers(handoverMs)) return;
    this.#campaign.abort();
    this.log.error('lost leadership with reconciles still running; giving up leadership for good', { lease: this.config.leaderElectionId });
    this.#fatal(new Error('lost leadership with reconciles still running'));
  }

  #startController(spec: ControllerSpec): void {
    const log = this.log.child({ controller: spec.name });
    const abort = new AbortController();
    const primary = this.informerFor(spec.for);
    const ctx: ControllerContext = {
      client: this.client,
      informer: (t) => this.#syncedInformer(t, abort.signal),
      events: this.events,
      log,
      signal: abort.signal,
      registry: this.metrics.registry,
      enqueue: (key, afterMs) => (afterMs ? queue.addAfter(key, afterMs) : queue.add(key)),
    };
    const metered = this.metrics.queueObserver(spec.name);
    const timeoutMs = spec.reconcileTimeoutMs ?? this.config.reconcileTimeoutMs;
    const queue: WorkQueue = new WorkQueue({
      workers: spec.workers ?? this.config.workers,
      baseDelayMs: spec.backoff?.baseMs ?? 500,
      maxDelayMs: spec.backoff?.maxMs ?? 5 * 60_000,
      resyncPeriodMs: spec.resyncPeriodMs ?? this.config.resyncPeriodMs,
      timeoutMs,
      resyncKeys: () => primary.keys(),
      observer: {
        ...metered,
        onHandled: (key, seconds, err) => {
          metered.onHandled?.(key, seconds, err);
          if (err === undefined) log.debug('reconciled', { object: key, ms: Math.round(seconds * 1000) });
        },
        onTimeout: (key) => {
          metered.onTimeout?.(key);
          log.warn('reconcile passed its deadline; abandoned (the object stays in flight until it settles)', {
            object: key,
            timeoutMs,
          });
        },
        onRetry: (key, delayMs, err) => {
          metered.onRetry?.(key, delayMs, err);
          log.warn('reconcile failed; retrying', { object: key, retryInMs: delayMs, error: errorMessage(err) });
        },
      },
      handler: async (key, deadline) => {
        const { namespace, name } = parseKey(key);
        const signal = AbortSignal.any([abort.signal, deadline]);
        const bounded: ControllerContext = {
          ...ctx,
          client: ctx.client.withSignal(signal),
          informer: (t) => this.#syncedInformer(t, signal),
          signal,
        };
        return spec.reconcile({ namespace, name, key }, bounded);
      },
    });
    const enqueue = (keys: string[]): void => {
      for (const k of keys) queue.add(k);
    };
    const unsubscribe: Array<() => void> = [];
    const own = (obj: KubeObject): void => enqueue([objectKey(obj)]);
    unsubscribe.push(primary.addHandlers({ onAdd: own, onUpdate: (_o, n) => own(n), onDelete: own }));
    for (const w of secondaryWatches(spec)) {
      const map = (obj: KubeObject): void => enqueue(w.map(obj));
      unsubscribe.push(
        this.informerFor(w.target).addHandlers({
          onAdd: map,
          onUpdate: (o, n) => {
            map(o);
            map(n);
          },
          onDelete: map,
        }),
      );
    }
    this.#running.set(spec.name, { queue, abort, unsubscribe, ctx });
    queue.start();
    if (spec.start) {
      Promise.resolve()
        .then(() => spec.start?.(ctx, (key) => queue.add(key)))
        .catch((err: unknown) => log.error('controller start hook failed', { error: errorMessage(err) }));
    }
    log.info('controller started', { workers: spec.workers ?? this.config.workers });
  }

  /** Stops every controller; true when all their reconciles finished within `boundMs`. */
  async #stopControllers(boundMs = this.config.shutdownTimeoutMs): Promise<boolean> {
    const running = [...this.#running.entries()];
    this.#running.clear();
    const drained = await Promise.all(
      running.map(async ([name, r]) => {
        for (const u of r.unsubscribe) u();
        r.abort.abort();
        const done = await r.queue.shutdown(boundMs);
        this.log.info('controller stopped', { controller: name, drained: done });
        return done;
      }),
    );
    return drained.every(Boolean);
  }

  async #listen(): Promise<void> {
    const server = http.createServer((req, res) => {
      void this.#serve(req, res);
    });
    this.#server = server;
    const { host, port } = this.config.metricsAddr;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  }

  async #serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const send = (code: number, body: string, type = 'text/plain; charset=utf-8'): void => {
      res.writeHead(code, { 'Content-Type': type });
      res.end(body);
    };
    try {
      if (path === '/healthz') return send(200, 'ok\n');
      if (path === '/readyz') return this.ready ? send(200, 'ok\n') : send(503, 'not ready\n');
      if (path === '/metrics') {
        this.#collectGauges();
        return send(200, await this.metrics.registry.metrics(), this.metrics.registry.contentType);
      }
      const found = this.#route(req.method ?? 'GET', path ?? '/');
      if (!found) return send(404, 'not found\n');
      const running = this.#running.get(found.spec.name);
      if (!running) return send(503, 'not leading\n');
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const c of req) {
        size += (c as Buffer).length;
        if (size > MAX_BODY) return send(413, 'body too large\n');
        chunks.push(c as Buffer);
      }
      const url = new URL(req.url ?? '/', 'http://operator');
      const answer = await found.route.handle(
        { query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') },
        running.ctx,
      );
      if (typeof answer.body === 'string' || answer.body === undefined) return send(answer.status, answer.body ?? '');
      send(answer.status, JSON.stringify(answer.body), 'application/json');
    } catch (err) {
      send(500, `${errorMessage(err)}\n`);
    }
  }

  /**
   * Stops taking work, lets in-flight reconciles finish (bounded by --shutdown-timeout), releases
   * the Lease (unless `release: false`, which simulates a crash for tests), stops informers and
   * the HTTP server.
   */
  stop(opts: { release?: boolean } = {}): Promise<void> {
    this.#stopping ??= this.#stop(opts.release ?? true);
    return this.#stopping;
  }

  async #stop(release: boolean): Promise<void> {
    this.#abort.abort();
    this.#campaign.abort();
    await this.#electorLoop; // stops renewing
    await this.#stopControllers();
    if (release && this.#elector) {
      try {
        await this.#elector.release();
        this.log.info('released leadership', { lease: this.config.leaderElectionId });
      } catch (err) {
        this.log.warn('could not release the lease', { error: errorMessage(err) });
      }
    }
    this.#leader = false;
    await Promise.all([...this.#informers.values()].map((i) => i.stop()));
    if (this.events instanceof KubeEventRecorder) await this.events.flush();
    await new Promise<void>((resolve) => {
      if (!this.#server) return resolve();
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}
