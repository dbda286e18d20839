// The client-side request rate limit (client-go's token bucket, as controller-runtime configures
// it): `burst` requests may go at once, then `qps` per second on average. Each caller reserves
// the next token, possibly one not yet refilled, and is told how long to wait for it; so waiting
// requests leave in the order they asked and no queue is kept. A reservation abandoned by an
// abort is not given back (the bucket runs at most one token slow for it, never fast).
import { setTimeout as sleep } from 'node:timers/promises';

export interface Clock {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** Resolves after `ms`; rejects when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) => sleep(ms, undefined, signal ? { signal } : {}),
};

export interface TokenBucketOptions {
  /** Tokens refilled per second (> 0). */
  qps: number;
  /** Tokens the bucket holds when full (>= 1), and starts with. */
  burst: number;
  clock?: Clock;
  /** Told of every reservation and how long it waits (0 = went at once): metrics, tests. */
  onWait?: (ms: number) => void;
}

export class TokenBucket {
  readonly qps: number;
  readonly burst: number;
  readonly #opts: TokenBucketOptions;
  readonly #clock: Clock;
  /** Tokens at `#at`; negative when future tokens are reserved. */
  #tokens: number;
  #at: number;

  constructor(opts: TokenBucketOptions) {
    if (!(opts.qps > 0) || !Number.isFinite(opts.qps)) throw new Error(`token bucket qps must be a positive number, not ${opts.qps}`);
    if (!Number.isInteger(opts.burst) || opts.burst < 1)
      throw new Error(`token bucket burst must be a positive integer, not ${opts.burst}`);
    this.#opts = opts;
    this.qps = opts.qps;
    this.burst = opts.burst;
    this.#clock = opts.clock ?? systemClock;
    this.#tokens = opts.burst;
    this.#at = this.#clock.now();
  }

  /** A bucket with the same rate, size, clock and observer, and tokens of its own. */
  copy(): TokenBucket {
    return new TokenBucket(this.#opts);
  }

  /** Takes the next token: the milliseconds until it is refilled (0: at once). */
  reserve(): number {
    const now = this.#clock.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#at) * this.qps) / 1000);
    this.#at = now;
    this.#tokens -= 1;
    const wait = this.#tokens < 0 ? (-this.#tokens * 1000) / this.qps : 0;
    this.#opts.onWait?.(wait);
    return wait;
  }

  /** Reserves a token and waits for it; rejects if `signal` aborts first. Resolves with the wait. */
  async take(signal?: AbortSignal): Promise<number> {
    signal?.throwIfAborted();
    const wait = this.reserve();
    if (wait > 0) await this.#clock.sleep(wait, signal);
    return wait;
  }
}
