import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkQueue } from '../../../src/runtime/work-queue.ts';
import { eventually } from '../../support/wait.ts';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('WorkQueue', () => {
  it('handles a key added many times while in flight exactly once more afterwards, never concurrently', async () => {
    const gate = deferred();
    let running = 0;
    let maxRunning = 0;
    const calls: string[] = [];
    const q = new WorkQueue({
      workers: 4,
      handler: async (key) => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        calls.push(key);
        if (calls.length === 1) await gate.promise;
        running--;
      },
    });
    q.start();
    q.add('ns/a');
    await eventually('the first call', () => calls.length === 1);
    for (let i = 0; i < 50; i++) q.add('ns/a');
    assert.equal(q.depth, 0, 'a key in flight is not queued a second time');
    gate.resolve();
    // Done with the key (no longer in flight): had it been dirty again it would be queued now.
    await eventually('the second call to finish', () => calls.length === 2 && q.inFlight === 0);
    assert.equal(q.depth + q.delayed, 0, 'nothing left to run');
    assert.deepEqual(calls, ['ns/a', 'ns/a']);
    assert.equal(maxRunning, 1);
    assert.equal(await q.shutdown(), true);
  });

  it('de-duplicates keys waiting in the queue and runs distinct keys in parallel', async () => {
    const gate = deferred();
    const calls: string[] = [];
    let running = 0;
    let maxRunning = 0;
    const q = new WorkQueue({
      workers: 2,
      handler: async (key) => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        calls.push(key);
        await gate.promise;
        running--;
      },
    });
    for (const k of ['a', 'b', 'a', 'b', 'c', 'a']) q.add(k);
    assert.equal(q.depth, 3);
    q.start();
    await eventually('two keys in flight', () => calls.length === 2);
    gate.resolve();
    await eventually('the third key to finish', () => calls.length === 3 && running === 0);
    assert.deepEqual([...calls].sort(), ['a', 'b', 'c']);
    assert.equal(maxRunning, 2);
    await q.shutdown();
  });

  it('retries a failing key with growing backoff and forgets the failures on success', async () => {
    const attempts: number[] = [];
    const retries: number[] = [];
    const q = new WorkQueue({
      baseDelayMs: 5,
      maxDelayMs: 1000,
      handler: async () => {
        attempts.push(Date.now());
        if (attempts.length < 4) throw new Error('transient');
      },
      observer: { onRetry: (_k, delay) => retries.push(delay) },
    });
    q.start();
    q.add('k');
    await eventually('four attempts', () => attempts.length === 4);
    await eventually('the last attempt to finish', () => q.inFlight === 0);
    assert.deepEqual(retries, [5, 10, 20]);
    assert.equal(q.failures('k'), 0, 'success forgets the failures');
    await q.shutdown();
  });

  it('caps the backoff delay', () => {
    const q = new WorkQueue({ baseDelayMs: 100, maxDelayMs: 250, handler: async () => {} });
    assert.deepEqual([q.addRateLimited('x'), q.addRateLimited('x'), q.addRateLimited('x'), q.addRateLimited('x')], [100, 200, 250, 250]);
    q.forget('x');
    assert.equal(q.addRateLimited('x'), 100);
    void q.shutdown();
  });

  it('requeues a key after requeueAfterMs and keeps the earliest of two delays', async () => {
    const calls: string[] = [];
    const q = new WorkQueue({
      handler: async (key) => {
        calls.push(key);
        return calls.length === 1 ? { requeueAfterMs: 10 } : undefined;
      },
    });
    q.start();
    q.add('k');
    await eventually('the requeued call', () => calls.length === 2);
    q.addAfter('late', 60_000);
    q.addAfter('late', 5);
    assert.equal(q.delayed, 1, 'one pending delay per key');
    await eventually('the delayed key', () => calls.length === 3);
    assert.deepEqual(calls, ['k', 'k', 'late']);
    assert.equal(q.delayed, 0, 'the delay was used up');
    await q.shutdown();
  });

  it('resync enqueues every known key', async () => {
    const known = ['ns/a', 'ns/b', 'other/c'];
    const seen = new Set<string>();
    const q = new WorkQueue({ workers: 2, resyncPeriodMs: 10, resyncKeys: () => known, handler: async (k) => void seen.add(k) });
    q.start();
    await eventually('every known key', () => seen.size === 3);
    assert.deepEqual([...seen].sort(), known);
    await q.shutdown();
  });

  it('shutdown drains in-flight work and drops queued keys', async () => {
    const gate = deferred();
    let finished = 0;
    const calls: string[] = [];
    const q = new WorkQueue({
      handler: async (k) => {
        calls.push(k);
        await gate.promise;
        finished++;
      },
    });
    q.add('a');
    q.add('b');
    q.start();
    await eventually('the first call', () => calls.length === 1);
    const done = q.shutdown(10_000);
    q.add('c');
    gate.resolve();
    assert.equal(await done, true);
    assert.equal(finished, 1);
    assert.deepEqual(calls, ['a']);
  });

  it('shutdown reports when in-flight work outlives the bound', async () => {
    const gate = deferred();
    let started = false;
    const q = new WorkQueue({
      handler: async () => {
        started = true;
        await gate.promise;
      },
    });
    q.add('a');
    q.start();
    await eventually('the handler to start', () => started);
    assert.equal(await q.shutdown(10), false);
    gate.resolve();
  });
});
