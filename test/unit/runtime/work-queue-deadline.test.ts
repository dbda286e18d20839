// The work queue's per-handler deadline: a handler past it is abandoned (signal aborted, worker
// freed, key retried with backoff), yet its key stays in flight until the handler settles.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HandlerTimeoutError, WorkQueue } from '../../../src/runtime/work-queue.ts';
import { eventually } from '../../support/wait.ts';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A queue whose key `stuck` hangs (ignoring its signal) until `release` on its first call. */
function stuckQueue() {
  const gate = deferred();
  const signals: AbortSignal[] = [];
  const calls: string[] = [];
  const handled: Array<{ key: string; err: unknown }> = [];
  const timeouts: string[] = [];
  let stuckRunning = 0;
  let maxStuckRunning = 0;
  const q = new WorkQueue({
    workers: 1,
    timeoutMs: 20,
    baseDelayMs: 5,
    handler: async (key, signal) => {
      calls.push(key);
      if (key !== 'stuck') return;
      signals.push(signal);
      stuckRunning++;
      maxStuckRunning = Math.max(maxStuckRunning, stuckRunning);
      if (signals.length === 1) await gate.promise;
      stuckRunning--;
    },
    observer: {
      onHandled: (key, _s, err) => handled.push({ key, err }),
      onTimeout: (key) => timeouts.push(key),
    },
  });
  return {
    q,
    calls,
    signals,
    handled,
    timeouts,
    release: gate.resolve,
    maxStuck: () => maxStuckRunning,
    count: (k: string) => calls.filter((c) => c === k).length,
  };
}

describe('WorkQueue deadline', () => {
  it('abandons a handler past its deadline: its signal aborts, the failure is reported, its worker takes the next key', async () => {
    const s = stuckQueue();
    s.q.start();
    s.q.add('stuck');
    await eventually('the deadline to pass', () => s.timeouts.length === 1);
    assert.equal(s.signals[0]?.aborted, true);
    assert.ok(s.signals[0]?.reason instanceof HandlerTimeoutError);
    assert.ok(s.handled[0]?.err instanceof HandlerTimeoutError, 'reported as a failure');
    assert.equal(s.q.failures('stuck'), 1, 'retried with backoff');
    s.q.add('other');
    await eventually('the only worker to handle another key', () => s.count('other') === 1);
    s.release();
    await s.q.shutdown();
  });

  it('keeps an abandoned key in flight until its handler settles, then handles it once more, never twice at once', async () => {
    const s = stuckQueue();
    s.q.start();
    s.q.add('stuck');
    await eventually('the deadline to pass', () => s.timeouts.length === 1);
    for (let i = 0; i < 5; i++) s.q.add('stuck');
    // Every chance to start a second call has passed: the adds, the backoff retry (its delay used
    // up), and a free worker that took another key and found nothing else queued.
    s.q.add('other');
    await eventually('another key handled and the retry added', () => s.count('other') === 1 && s.q.delayed === 0 && s.q.inFlight === 1);
    assert.equal(s.q.depth, 0, 'the abandoned key is not queued');
    assert.equal(s.count('stuck'), 1, 'not handled again while the abandoned call runs');
    assert.equal(s.q.inFlight, 1, 'the abandoned key is still in flight');
    s.release();
    await eventually('handled once more after it settled', () => s.count('stuck') === 2 && s.q.inFlight === 0);
    assert.equal(s.maxStuck(), 1);
    assert.equal(s.q.failures('stuck'), 0, 'the second call succeeded and forgot the failure');
    await s.q.shutdown();
  });

  it('a handler that honours its signal settles at the deadline and is retried', async () => {
    let calls = 0;
    const q = new WorkQueue({
      timeoutMs: 20,
      baseDelayMs: 5,
      handler: async (_key, signal) => {
        if (++calls > 1) return;
        await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
      },
    });
    q.start();
    q.add('k');
    await eventually('the retry succeeded', () => calls === 2 && q.inFlight === 0);
    await q.shutdown();
  });

  it('shutdown waits for abandoned handlers, within its bound', async () => {
    const s = stuckQueue();
    s.q.start();
    s.q.add('stuck');
    await eventually('the deadline to pass', () => s.timeouts.length === 1);
    assert.equal(await s.q.shutdown(10), false, 'the abandoned handler still runs');
    const drained = s.q.shutdown(10_000);
    s.release();
    assert.equal(await drained, true);
  });
});
