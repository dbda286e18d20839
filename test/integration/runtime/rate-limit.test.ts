// The client-side rate limit against the test API server: a burst beyond `burst` is spread out in
// the order it was asked for, watches never wait for a token, and an aborted caller stops waiting.
// Measured through the waits the limiter reports and the server's request log, never the wall clock.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import { TokenBucket } from '../../../src/runtime/kube/token-bucket.ts';
import { kubeEnv, type KubeEnv } from '../../support/kube-env.ts';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const N = 6;

/** A client limited to `qps`/`burst`; `waits` gets the wait of every token it reserves (0: none). */
function limitedClient(
  t: TestContext,
  env: KubeEnv,
  qps: number,
  burst: number,
  userAgent: string,
): { client: KubeClient; waits: number[] } {
  const waits: number[] = [];
  const client = new KubeClient(env.kubeConfig, {
    rateLimiter: new TokenBucket({ qps, burst, onWait: (ms) => waits.push(ms) }),
    userAgent,
  });
  t.after(() => client.close());
  return { client, waits };
}

const delayed = (waits: number[]): number => waits.filter((ms) => ms > 0).length;

/** N concurrent lists, the i-th tagged `limit=i+1` so the server's log tells them apart. */
function burstOfLists(client: KubeClient, namespace: string): Promise<unknown[]> {
  return Promise.all(
    Array.from({ length: N }, (_, i) => client.request('GET', `/api/v1/namespaces/${namespace}/configmaps`, { query: { limit: i + 1 } })),
  );
}

describe('client-side rate limit', () => {
  it('with qps=5 and burst=1, a burst of requests goes out one token at a time, in the order asked', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    const agent = 'rate-limit-test/spread';
    const { client, waits } = limitedClient(t, env, 5, 1, agent);
    await burstOfLists(client, env.namespace);
    assert.equal(waits.length, N);
    assert.equal(delayed(waits), N - 1, 'every request after the first had to wait for a token');
    const skip = env.server
      ? false
      : "needs the test API server's request log: a real cluster does not say in which order it received requests";
    await t.test('the server received them in the order they were asked for', { skip }, () => {
      const seen = env.server!.requestLog.entries.filter((e) => e.userAgent === agent).map((e) => Number(e.query.limit));
      assert.deepEqual(
        seen,
        Array.from({ length: N }, (_, i) => i + 1),
      );
    });
  });

  it('with a burst as large as the requests, none waits', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    const { client, waits } = limitedClient(t, env, 5, N, 'rate-limit-test/burst');
    await burstOfLists(client, env.namespace);
    assert.deepEqual(
      waits,
      Array.from({ length: N }, () => 0),
    );
  });

  it('a watch takes no token, even from an empty bucket', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    const { client, waits } = limitedClient(t, env, 0.01, 2, 'rate-limit-test/watch');
    await client.list(CM, { namespace: env.namespace }); // discovery and the list empty the bucket for 100 s
    const before = waits.length;
    const stop = new AbortController();
    let opened = false;
    await client
      .watch(
        CM,
        {
          namespace: env.namespace,
          signal: stop.signal,
          onOpen: () => {
            opened = true;
            stop.abort();
          },
        },
        () => {},
      )
      .catch((err: unknown) => {
        if (!stop.signal.aborted) throw err;
      });
    assert.ok(opened, 'the server accepted the watch');
    assert.equal(waits.length, before, 'the watch reserved no token');
  });

  it('a request waiting for a token gives up when the signal of its client view aborts', async (t) => {
    const env = await kubeEnv(t, { crds: false });
    const { client, waits } = limitedClient(t, env, 0.01, 1, 'rate-limit-test/abort');
    await client.request('GET', `/api/v1/namespaces/${env.namespace}/configmaps`); // the only token for 100 s
    const deadline = new AbortController();
    const waiting = client.withSignal(deadline.signal).request('GET', `/api/v1/namespaces/${env.namespace}/configmaps`);
    deadline.abort();
    await assert.rejects(waiting, /aborted while waiting for the client rate limit/);
    assert.equal(delayed(waits), 1);
  });
});
