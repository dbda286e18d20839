// A keyed, de-duplicating, level-triggered work queue with its workers (client-go's workqueue
// semantics): a key is queued at most once; a key is handled by at most one worker at a time; a
// key added while it is being handled is marked dirty and handled once more afterwards.
// Failures are retried with per-key exponential backoff; success forgets the failures.
// A handler still running at its deadline is abandoned: its signal aborts, its worker takes the
// next key, and the key is retried with backoff, but the key stays in flight until the abandoned
// promise settles, so it is still never handled twice at once.

export interface HandlerResult {
  /** Handle this key again after this delay (level-triggered polling, e.g. waiting for a pod). */
  requeueAfterMs?: number;
}

/** `signal` aborts at the handler's deadline (`timeoutMs`). */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler with nothing to ask resolves to nothing; `void` lets a plain `async` function without `return` be one, where `undefined` would not
export type KeyHandler = (key: string, signal: AbortSignal) => Promise<HandlerResult | void>;

/** What a handler abandoned at its deadline is failed with (the reason of its signal, too). */
export class HandlerTimeoutError extends Error {
  constructor(key: string, timeoutMs: number) {
    super(`handling ${key} took longer than its ${timeoutMs} ms deadline`);
    this.name = 'HandlerTimeoutError';
  }
}

export interface QueueObserver {
  /** A key entered the queue (after de-duplication). */
  onAdd?(): void;
  /** Number of keys waiting (not in flight). */
  onDepth?(depth: number): void;
  /** A failed key is scheduled for a retry. */
  onRetry?(key: string, delayMs: number, err: unknown): void;
  /** A handler finished; `err` set when it threw or was abandoned at its deadline. */
  onHandled?(key: string, seconds: number, err: unknown): void;
  /** A handler passed its deadline and was abandoned (reported before `onHandled`). */
  onTimeout?(key: string): void;
}

export interface WorkQueueOptions {
  handler: KeyHandler;
  /** Concurrent workers (distinct keys in flight at once). Default 1. */
  workers?: number;
  /** First retry delay after a failure; doubles per consecutive failure of the key. Default 100 ms. */
  baseDelayMs?: number;
  /** Retry delay cap. Default 5 min. */
  maxDelayMs?: number;
  /**
   * Deadline of one handler call. Past it the handler's signal aborts and it is abandoned (see
   * above); an abandoned handler no longer occupies a worker. 0/undefined: no deadline.
   */
  timeoutMs?: number;
  /** Every this many ms, `resyncKeys()` are all added. 0/undefined: no resync. */
  resyncPeriodMs?: number;
  /** The keys a resync adds (a controller passes the keys of its primary cache). */
  resyncKeys?: () => Iterable<string>;
  observer?: QueueObserver;
}

interface Waiting {
  at: number;
  timer: NodeJS.Timeout;
}

interface Outcome {
  /** What the handler resolved to. */
  result?: Awaited<ReturnType<KeyHandler>>;
  error?: unknown;
}

export class WorkQueue {
  readonly #opts: Required<Pick<WorkQueueOptions, 'workers' | 'baseDelayMs' | 'maxDelayMs'>> & WorkQueueOptions;
  readonly #queue: string[] = [];
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #waiting = new Map<string, Waiting>();
  readonly #failures = new Map<string, number>();
  #wake: Array<() => void> = [];
  #shuttingDown = false;
  #started = false;
  #workers: Promise<void>[] = [];
  /** Handlers abandoned at their deadline and still running; their keys are in flight. */
  readonly #abandoned = new Set<Promise<void>>();
  #resyncTimer: NodeJS.Timeout | undefined;

  constructor(opts: WorkQueueOptions) {
    this.#opts = { workers: 1, baseDelayMs: 100, maxDelayMs: 5 * 60_000, ...opts };
    if (this.#opts.workers < 1) throw new Error('workers must be >= 1');
  }

  /** Keys waiting to be handled (not counting those in flight or delayed). */
  get depth(): number {
    return this.#queue.length;
  }

  get inFlight(): number {
    return this.#processing.size;
  }

  /** Keys waiting for a delayed add (`addAfter`, a backoff retry, `requeueAfterMs`). */
  get delayed(): number {
    return this.#waiting.size;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Consecutive failures of `key` since its last success. */
  failures(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  add(key: string): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    this.#opts.observer?.onAdd?.();
    if (this.#processing.has(key)) return; // re-queued by done()
    this.#queue.push(key);
    this.#depthChanged();
    this.#wake.shift()?.();
  }

  /** Adds `key` after `ms`; an earlier pending delay for the key wins. */
  addAfter(key: string, ms: number): void {
    if (this.#shuttingDown) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = Date.now() + ms;
    const prev = this.#waiting.get(key);
    if (prev && prev.at <= at) return;
    if (prev) clearTimeout(prev.timer);
    const timer = setTimeout(() => {
      this.#waiting.delete(key);
      this.add(key);
    }, ms);
    this.#waiting.set(key, { at, timer });
  }

  /** Adds `key` after its backoff delay and counts a failure. Returns the delay. */
  addRateLimited(key: string): number {
    const n = this.failures(key);
    this.#failures.set(key, n + 1);
    const delay = Math.min(this.#opts.maxDelayMs, this.#opts.baseDelayMs * 2 ** Math.min(n, 30));
    this.addAfter(key, delay);
    return delay;
  }

  /** Clears the failure count of `key` (its next failure waits `baseDelayMs` again). */
  forget(key: string): void {
    this.#failures.delete(key);
  }

  /** Adds every key of `resyncKeys()` now. */
  resync(): void {
    for (const key of this.#opts.resyncKeys?.() ?? []) this.add(key);
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    for (let i = 0; i < this.#opts.workers; i++) this.#workers.push(this.#worker());
    if (this.#opts.resyncPeriodMs) {
      this.#resyncTimer = setInterval(() => this.resync(), this.#opts.resyncPeriodMs);
    }
  }

  /**
   * Stops taking work: pending and delayed keys are dropped, workers exit after their current
   * key. Resolves `true` when every in-flight handler finished within `timeoutMs`.
   */
  async shutdown(timeoutMs = 30_000): Promise<boolean> {
    this.#shuttingDown = true;
    if (this.#resyncTimer) clearInterval(this.#resyncTimer);
    for (const w of this.#waiting.values()) clearTimeout(w.timer);
    this.#waiting.clear();
    this.#queue.length = 0;
    this.#dirty.clear();
    this.#depthChanged();
    for (const wake of this.#wake) wake();
    this.#wake = [];
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    // Workers first: one may abandon its handler while shutting down.
    const drained = Promise.all([...this.#workers])
      .then(() => Promise.all([...this.#abandoned]))
      .then(() => true as const);
    const result = await Promise.race([drained, bound]);
    clearTimeout(timer);
    return result;
  }

  async #next(): Promise<string | undefined> {
    while (!this.#shuttingDown) {
      const key = this.#queue.shift();
      if (key !== undefined) {
        this.#depthChanged();
        this.#dirty.delete(key);
        this.#processing.add(key);
        return key;
      }
      await new Promise<void>((resolve) => this.#wake.push(resolve));
    }
    return undefined;
  }

  #done(key: string): void {
    this.#processing.delete(key);
    if (this.#dirty.has(key) && !this.#shuttingDown) {
      this.#queue.push(key);
      this.#depthChanged();
      this.#wake.shift()?.();
    }
  }

  async #worker(): Promise<void> {
    for (;;) {
      const key = await this.#next();
      if (key === undefined) return;
      const started = performance.now();
      const { outcome, abandoned } = await this.#handle(key);
      const { result, error } = outcome;
      this.#opts.observer?.onHandled?.(key, (performance.now() - started) / 1000, error);
      if (error !== undefined) {
        if (!this.#shuttingDown) {
          const delay = this.addRateLimited(key);
          this.#opts.observer?.onRetry?.(key, delay, error);
        }
      } else {
        this.forget(key);
        if (result?.requeueAfterMs !== undefined) this.addAfter(key, result.requeueAfterMs);
      }
      if (!abandoned) this.#done(key);
    }
  }

  /** Runs the handler of `key` until it settles or, with a deadline, until the deadline passes. */
  async #handle(key: string): Promise<{ outcome: Outcome; abandoned: boolean }> {
    const abort = new AbortController();
    const settled: Promise<Outcome> = Promise.resolve()
      .then(() => this.#opts.handler(key, abort.signal))
      .then(
        (result) => ({ result }),
        (err: unknown) => ({ error: err ?? new Error('handler threw a nullish value') }),
      );
    const timeoutMs = this.#opts.timeoutMs;
    if (!timeoutMs) return { outcome: await settled, abandoned: false };
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), timeoutMs);
    });
    const outcome = await Promise.race([settled, expired]);
    clearTimeout(timer);
    if (outcome) return { outcome, abandoned: false };
    const error = new HandlerTimeoutError(key, timeoutMs);
    abort.abort(error);
    this.#opts.observer?.onTimeout?.(key);
    const released: Promise<void> = settled.then(() => {
      this.#abandoned.delete(released);
      this.#done(key);
    });
    this.#abandoned.add(released);
    return { outcome: { error }, abandoned: true };
  }

  #depthChanged(): void {
    this.#opts.observer?.onDepth?.(this.#queue.length);
  }
}
