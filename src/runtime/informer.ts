// A shared informer: keeps a cache of one kind equal to the server's objects and tells handlers
// about changes. It assumes the watch stream will lie (docs/architecture.md §2): list, then watch from the
// list's resourceVersion; relist on 410 Gone; a watchdog rebuilds a watch that says nothing for
// too long; a periodic relist repairs the cache by diffing (synthetic add/update/delete); errors
// back off. See docs/runtime.md ("How informers recover").
import { setTimeout as sleep } from 'node:timers/promises';
import { ObjectCache, type CacheQuery } from './cache.ts';
import { GoneError, KubeApiError } from './kube/errors.ts';
import { watchEventError, type KubeClient, type WatchEvent } from './kube/client.ts';
import { objectKey, selectorString, type KindRef, type KubeObject, type LabelSelector } from './kube/types.ts';
import { errorMessage, type Logger } from './logger.ts';
import { cachedCopy, StringTable, type Projection } from './projection.ts';

export interface InformerTarget extends KindRef {
  /** `''` or omitted: all namespaces. */
  namespace?: string;
  labelSelector?: LabelSelector;
  /** What the cache keeps of each object beyond the default trimming (projection.ts). */
  projection?: Projection;
}

export interface InformerHandlers<T> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

export type RelistReason = 'initial' | 'gone' | 'periodic' | 'error';
export type RestartReason = 'closed' | 'stalled' | 'error';

export interface InformerObserver {
  onRelist?(reason: RelistReason): void;
  onWatchRestart?(reason: RestartReason): void;
  onGone?(): void;
}

export interface InformerOptions {
  client: KubeClient;
  target: InformerTarget;
  log?: Logger;
  observer?: InformerObserver;
  /** Server-side timeout of each watch request. Default: random in [300, 600] s, as client-go. */
  watchTimeoutSeconds?: number;
  /** Watchdog: a watch that delivers no bytes for this long is rebuilt. Default: watch timeout + 30 s. */
  stallTimeoutMs?: number;
  /** Full relist (diffed into the cache) this often. Default 10 min; 0 disables. */
  relistPeriodMs?: number;
  /** Backoff after a failed list/watch: first delay and cap. Defaults 200 ms and 30 s. */
  backoff?: { baseMs?: number; maxMs?: number };
}

type WatchEnd = 'closed' | 'stalled' | 'relist' | 'gone' | 'aborted';

/** The identity of an informer: one per (kind, namespace, selector, projection) in a manager. */
export function informerId(t: InformerTarget): string {
  return `${t.apiVersion}|${t.kind}|${t.namespace ?? ''}|${selectorString(t.labelSelector)}|${t.projection?.name ?? ''}`;
}

export class Informer<T extends KubeObject = KubeObject> {
  readonly target: InformerTarget;
  readonly #opts: InformerOptions;
  readonly #cache = new ObjectCache<T>();
  readonly #strings = new StringTable();
  readonly #handlers = new Set<InformerHandlers<T>>();
  readonly #abort = new AbortController();
  readonly #log: Logger | undefined;
  #resourceVersion = '';
  #synced = false;
  #syncWaiters: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];
  #loop: Promise<void> | undefined;
  #failures = 0;
  #watching = false;

  constructor(opts: InformerOptions) {
    this.#opts = opts;
    this.target = opts.target;
    this.#log = opts.log?.child({ informer: `${opts.target.kind}`, namespace: opts.target.namespace || '*' });
  }

  get hasSynced(): boolean {
    return this.#synced;
  }

  /** True while a watch stream is open (tests wait for it before injecting faults). */
  get watching(): boolean {
    return this.#watching;
  }

  /** The resourceVersion the cache reflects (of the last list, event or bookmark). */
  get resourceVersion(): string {
    return this.#resourceVersion;
  }

  get(namespace: string, name: string): T | undefined {
    return this.#cache.get(namespace, name);
  }

  getByKey(key: string): T | undefined {
    return this.#cache.getByKey(key);
  }

  list(query?: CacheQuery): T[] {
    return this.#cache.list(query);
  }

  keys(): string[] {
    return this.#cache.keys();
  }

  /** Number of cached objects. */
  get size(): number {
    return this.#cache.size;
  }

  /** Registers handlers; a late subscriber first gets `onAdd` for every cached object. */
  addHandlers(h: InformerHandlers<T>): () => void {
    this.#handlers.add(h);
    if (this.#synced) for (const o of this.#cache.list()) this.#call(() => h.onAdd?.(o));
    return () => this.#handlers.delete(h);
  }

  /** Starts list-and-watch; `signal` (optional) stops it like `stop()`. */
  start(signal?: AbortSignal): void {
    if (signal) {
      if (signal.aborted) this.#abort.abort();
      else signal.addEventListener('abort', () => this.#abort.abort(), { once: true });
    }
    this.#loop ??= this.#run();
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#loop;
    for (const w of this.#syncWaiters) w.reject(new Error(`${this.target.kind} informer stopped before it synced`));
    this.#syncWaiters = [];
  }

  /** Resolves once the first list is in the cache; rejects if `signal` aborts first. */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(signal?.reason ?? new Error('aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = (): void => signal?.removeEventListener('abort', onAbort);
      this.#syncWaiters.push({
        resolve: () => {
          done();
          resolve();
        },
        reject: (err) => {
          done();
          reject(err);
        },
      });
    });
  }

  async #run(): Promise<void> {
    const signal = this.#abort.signal;
    let relist: RelistReason | undefined = 'initial';
    let nextRelistAt = 0;
    while (!signal.aborted) {
      try {
        if (relist) {
          this.#opts.observer?.onRelist?.(relist);
          await this.#relist();
          relist = undefined;
          nextRelistAt = this.#opts.relistPeriodMs === 0 ? Infinity : Date.now() + (this.#opts.relistPeriodMs ?? 600_000);
        }
        const watchStarted = performance.now();
        const end = await this.#watchOnce(nextRelistAt);
        if (end === 'aborted') break;
        // A stream the server ends at once, again and again, must not become a busy loop.
        if (end === 'closed' && performance.now() - watchStarted < 1000) {
          try {
            await sleep(this.#backoffDelay(), undefined, { signal });
          } catch {
            break;
          }
        } else {
          this.#failures = 0;
        }
        if (end === 'relist') relist = 'periodic';
        else if (end === 'gone') {
          this.#opts.observer?.onGone?.();
          relist = 'gone';
        } else {
          this.#opts.observer?.onWatchRestart?.(end);
          this.#log?.debug('watch ended; resuming', { reason: end, resourceVersion: this.#resourceVersion });
        }
      } catch (err) {
        if (signal.aborted) break;
        if (err instanceof GoneError) {
          this.#opts.observer?.onGone?.();
          // A watch too old for the server: list again at once. A list answered 410 (an expired
          // continue token) falls through to the backoff below.
          if (!relist) {
            relist = 'gone';
            continue;
          }
        }
        // An ERROR event other than 410 leaves the stream's position in doubt: list again.
        if (err instanceof KubeApiError && err.method === 'WATCH') relist = 'error';
        // Anything else: back off, then list again (a failed list) or resume the watch.
        if (!relist) this.#opts.observer?.onWatchRestart?.('error');
        const delay = this.#backoffDelay();
        this.#log?.warn('list/watch failed; retrying', { error: errorMessage(err), retryInMs: delay });
        try {
          await sleep(delay, undefined, { signal });
        } catch {
          break;
        }
        if (relist) relist = relist === 'initial' ? 'initial' : 'error';
      }
    }
  }

  #backoffDelay(): number {
    const base = this.#opts.backoff?.baseMs ?? 200;
    const max = this.#opts.backoff?.maxMs ?? 30_000;
    const d = Math.min(max, base * 2 ** Math.min(this.#failures, 20));
    this.#failures++;
    // Jitter so that many informers do not retry in step.
    return Math.round(d * (0.8 + Math.random() * 0.4));
  }

  async #relist(): Promise<void> {
    const { client, target } = this.#opts;
    const list = await client.listAll<T>(target, {
      namespace: target.namespace || undefined,
      labelSelector: target.labelSelector,
    });
    const fresh = new Map<string, T>();
    // A new string table for the new copies: strings only the old copies held are forgotten.
    this.#strings.reset();
    for (const o of list.items) fresh.set(objectKey(o), this.#cached(o));
    this.#strings.settle();
    const removed: T[] = [];
    for (const key of this.#cache.keys()) {
      if (!fresh.has(key)) {
        const old = this.#cache.delete(key);
        if (old) removed.push(old);
      }
    }
    const changes: Array<[T | undefined, T]> = [];
    for (const o of fresh.values()) {
      const old = this.#cache.set(o);
      if (!old || old.metadata?.resourceVersion !== o.metadata?.resourceVersion) changes.push([old, o]);
    }
    this.#resourceVersion = list.metadata?.resourceVersion ?? '';
    const wasSynced = this.#synced;
    this.#synced = true;
    if (wasSynced && (removed.length > 0 || changes.length > 0)) {
      this.#log?.info('relist repaired the cache', { added: changes.filter(([o]) => !o).length, removed: removed.length });
    }
    for (const o of removed) this.#emit('onDelete', o);
    for (const [old, o] of changes) {
      if (old) this.#emitUpdate(old, o);
      else this.#emit('onAdd', o);
    }
    if (!wasSynced) {
      for (const w of this.#syncWaiters) w.resolve();
      this.#syncWaiters = [];
    }
  }

  async #watchOnce(nextRelistAt: number): Promise<WatchEnd> {
    // A stop during the list that came before: an abort listener added now would never fire, and
    // the watch would hold the stop until its timeout (minutes).
    if (this.#abort.signal.aborted) return 'aborted';
    const { client, target } = this.#opts;
    const timeoutSeconds = this.#opts.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300);
    const stallMs = this.#opts.stallTimeoutMs ?? timeoutSeconds * 1000 + 30_000;
    const ac = new AbortController();
    let end: WatchEnd | undefined;
    const finish = (why: WatchEnd): void => {
      end ??= why;
      ac.abort();
    };
    const onOuterAbort = (): void => finish('aborted');
    this.#abort.signal.addEventListener('abort', onOuterAbort, { once: true });
    let watchdog = setTimeout(() => finish('stalled'), stallMs);
    const relistTimer = nextRelistAt === Infinity ? undefined : setTimeout(() => finish('relist'), Math.max(0, nextRelistAt - Date.now()));
    try {
      await client.watch<T>(
        target,
        {
          namespace: target.namespace || undefined,
          labelSelector: target.labelSelector,
          resourceVersion: this.#resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds,
          signal: ac.signal,
          onOpen: () => {
            this.#watching = true;
          },
          onData: () => {
            clearTimeout(watchdog);
            watchdog = setTimeout(() => finish('stalled'), stallMs);
          },
        },
        (ev) => {
          if (end) return;
          if (ev.type === 'ERROR') {
            const err = watchEventError(`${target.kind} watch`, ev.object);
            if (err instanceof GoneError) finish('gone');
            else throw err;
            return;
          }
          this.#apply(ev);
        },
      );
      return end ?? 'closed';
    } catch (err) {
      if (end) return end;
      throw err;
    } finally {
      this.#watching = false;
      clearTimeout(watchdog);
      if (relistTimer) clearTimeout(relistTimer);
      this.#abort.signal.removeEventListener('abort', onOuterAbort);
      ac.abort();
    }
  }

  /** What the cache keeps of a server object (projection.ts); handlers see the same. */
  #cached(o: T): T {
    return cachedCopy(o, this.target.projection, this.#strings);
  }

  #apply(ev: WatchEvent<T>): void {
    const rv = ev.object.metadata?.resourceVersion;
    if (rv) this.#resourceVersion = rv;
    if (ev.type === 'BOOKMARK') return;
    const obj = this.#cached(ev.object);
    if (ev.type === 'DELETED') {
      const old = this.#cache.delete(objectKey(obj));
      if (old) this.#emit('onDelete', obj);
      return;
    }
    const old = this.#cache.set(obj);
    if (old) this.#emitUpdate(old, obj);
    else this.#emit('onAdd', obj);
  }

  #emit(kind: 'onAdd' | 'onDelete', obj: T): void {
    for (const h of this.#handlers) this.#call(() => h[kind]?.(obj));
  }

  #emitUpdate(oldObj: T, newObj: T): void {
    for (const h of this.#handlers) this.#call(() => h.onUpdate?.(oldObj, newObj));
  }

  /** A throwing handler is logged and must not keep the others from hearing of the change. */
  #call(handler: () => void): void {
    try {
      handler();
    } catch (err) {
      this.#log?.error('informer handler threw', { error: errorMessage(err) });
    }
  }
}
