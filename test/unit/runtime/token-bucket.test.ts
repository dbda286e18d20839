import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TokenBucket, type Clock } from '../../../src/runtime/kube/token-bucket.ts';

/** A clock that moves only when told; `sleep` records the wait and resolves at once. */
function manualClock(): Clock & { advance(ms: number): void; slept: number[] } {
  let t = 1000;
  const slept: number[] = [];
  return {
    now: () => t,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      slept.push(ms);
    },
    advance: (ms) => (t += ms),
    slept,
  };
}

describe('TokenBucket', () => {
  it('lets a burst through at once, then spaces the rest by 1/qps in the order they asked', () => {
    const clock = manualClock();
    const bucket = new TokenBucket({ qps: 10, burst: 3, clock });
    const waits = Array.from({ length: 6 }, () => bucket.reserve());
    assert.deepEqual(waits.map(Math.round), [0, 0, 0, 100, 200, 300]);
  });

  it('refills at qps up to the burst, never beyond', () => {
    const clock = manualClock();
    const bucket = new TokenBucket({ qps: 5, burst: 2, clock });
    bucket.reserve();
    bucket.reserve();
    clock.advance(200); // one token back
    assert.equal(bucket.reserve(), 0);
    assert.ok(bucket.reserve() > 0, 'the bucket was empty again');
    clock.advance(60_000); // a long idle time refills only up to burst
    assert.equal(bucket.reserve(), 0);
    assert.equal(bucket.reserve(), 0);
    assert.ok(bucket.reserve() > 0, 'no more than burst tokens after a long idle time');
  });

  it('counts future reservations against the refill (a waiting caller is not overtaken)', () => {
    const clock = manualClock();
    const bucket = new TokenBucket({ qps: 1, burst: 1, clock });
    assert.equal(bucket.reserve(), 0);
    assert.equal(Math.round(bucket.reserve()), 1000);
    clock.advance(500);
    assert.equal(Math.round(bucket.reserve()), 1500, 'behind the one already waiting for the token at 1000 ms');
  });

  it('take() sleeps for the reserved wait on the clock it was given and reports it', async () => {
    const clock = manualClock();
    const seen: number[] = [];
    const bucket = new TokenBucket({ qps: 4, burst: 1, clock, onWait: (ms) => seen.push(ms) });
    assert.equal(await bucket.take(), 0);
    assert.equal(Math.round(await bucket.take()), 250);
    assert.deepEqual(clock.slept.map(Math.round), [250]);
    assert.deepEqual(seen.map(Math.round), [0, 250]);
  });

  it('take() rejects on an aborted signal without reserving', async () => {
    const reserved: number[] = [];
    const bucket = new TokenBucket({ qps: 1, burst: 1, clock: manualClock(), onWait: (ms) => reserved.push(ms) });
    await assert.rejects(bucket.take(AbortSignal.abort()));
    assert.deepEqual(reserved, []);
  });

  it('a copy has the same rate and size and tokens of its own', () => {
    const clock = manualClock();
    const bucket = new TokenBucket({ qps: 1, burst: 1, clock });
    bucket.reserve();
    const copy = bucket.copy();
    assert.equal(copy.reserve(), 0);
    assert.ok(copy.reserve() > 0);
  });

  it('refuses a rate or size that would not limit (programmer error)', () => {
    assert.throws(() => new TokenBucket({ qps: 0, burst: 1 }), /qps/);
    assert.throws(() => new TokenBucket({ qps: -1, burst: 1 }), /qps/);
    assert.throws(() => new TokenBucket({ qps: 1, burst: 0 }), /burst/);
  });
});
