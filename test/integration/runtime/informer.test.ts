// The informer against the project's test API server under injected faults: after each fault,
// the cache (and a copy kept only from handler calls) ends equal to the server's objects.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { Informer, type RelistReason, type RestartReason } from '../../../src/runtime/informer.ts';
import { KubeClient } from '../../../src/runtime/kube/client.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { kubeEnv, type KubeEnv } from '../../support/kube-env.ts';
import { memoryLogger } from './helpers.ts';
import { eventually } from '../../support/wait.ts';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };

interface Fixture {
  env: KubeEnv;
  client: KubeClient;
  informer: Informer;
  /** What handlers told us: key → resourceVersion. */
  mirror: Map<string, string>;
  counts: { relist: Record<string, number>; restart: Record<string, number>; gone: number };
  put(name: string, data: Record<string, string>): Promise<void>;
  remove(name: string): Promise<void>;
  converged(): Promise<boolean>;
}

async function setup(
  t: TestContext,
  opts: { stallTimeoutMs?: number; relistPeriodMs?: number; watchTimeoutSeconds?: number } = {},
): Promise<Fixture> {
  const env = await kubeEnv(t, { crds: false });
  const client = new KubeClient(env.kubeConfig);
  const counts = { relist: {} as Record<string, number>, restart: {} as Record<string, number>, gone: 0 };
  const { log } = memoryLogger();
  const informer = new Informer({
    client,
    target: { ...CM, namespace: env.namespace, labelSelector: { app: 'informer-test' } },
    log,
    backoff: { baseMs: 20, maxMs: 500 },
    stallTimeoutMs: opts.stallTimeoutMs,
    relistPeriodMs: opts.relistPeriodMs ?? 0,
    watchTimeoutSeconds: opts.watchTimeoutSeconds,
    observer: {
      onRelist: (r: RelistReason) => {
        counts.relist[r] = (counts.relist[r] ?? 0) + 1;
      },
      onWatchRestart: (r: RestartReason) => {
        counts.restart[r] = (counts.restart[r] ?? 0) + 1;
      },
      onGone: () => void counts.gone++,
    },
  });
  const mirror = new Map<string, string>();
  const record = (o: KubeObject): void =>
    void mirror.set(`${o.metadata?.namespace}/${o.metadata?.name}`, o.metadata?.resourceVersion ?? '');
  informer.addHandlers({
    onAdd: record,
    onUpdate: (_old, o) => record(o),
    onDelete: (o) => void mirror.delete(`${o.metadata?.namespace}/${o.metadata?.name}`),
  });
  t.after(async () => {
    env.server?.faults.clear();
    await informer.stop();
    client.close();
  });

  const serverState = async (): Promise<Map<string, string>> => {
    const list = await client.listAll(CM, { namespace: env.namespace, labelSelector: { app: 'informer-test' } });
    return new Map(list.items.map((o) => [`${o.metadata?.namespace}/${o.metadata?.name}`, o.metadata?.resourceVersion ?? '']));
  };
  const cacheState = (): Map<string, string> =>
    new Map(informer.list().map((o) => [`${o.metadata?.namespace}/${o.metadata?.name}`, o.metadata?.resourceVersion ?? '']));
  const sorted = (m: Map<string, string>): Array<[string, string]> => [...m].sort(([a], [b]) => (a < b ? -1 : 1));

  return {
    env,
    client,
    informer,
    mirror,
    counts,
    async put(name, data) {
      const cur = await client.getIfExists({ ...CM, namespace: env.namespace, name });
      const obj = { ...CM, metadata: { name, namespace: env.namespace, labels: { app: 'informer-test' } }, data };
      if (cur) await client.update({ ...obj, metadata: { ...obj.metadata, resourceVersion: cur.metadata?.resourceVersion } });
      else await client.create(obj);
    },
    async remove(name) {
      await client.delete({ ...CM, namespace: env.namespace, name });
    },
    async converged() {
      const want = sorted(await serverState());
      return JSON.stringify(sorted(cacheState())) === JSON.stringify(want) && JSON.stringify(sorted(mirror)) === JSON.stringify(want);
    },
  };
}

async function assertConverged(f: Fixture, what: string): Promise<void> {
  await eventually(`${what}: cache equal to the server's objects`, () => f.converged());
  assert.ok(await f.converged());
}

describe('informer', () => {
  it('lists, then follows the watch: the cache equals the server after adds, updates and deletes', async (t) => {
    const f = await setup(t);
    await f.put('a', { v: '1' });
    await f.put('b', { v: '1' });
    f.informer.start();
    await f.informer.waitForSync();
    await assertConverged(f, 'initial list');
    await f.put('a', { v: '2' });
    await f.put('c', { v: '1' });
    await f.remove('b');
    await assertConverged(f, 'watch events');
    assert.equal(f.counts.relist.initial, 1);
  });

  it('when the server drops the watch, resumes from the last resourceVersion and misses nothing', async (t) => {
    const f = await setup(t);
    if (!f.env.server) return t.skip('needs fault injection (not on a real cluster)');
    await f.put('a', { v: '1' });
    f.informer.start();
    await f.informer.waitForSync();
    for (const graceful of [false, true]) {
      await eventually('a watch is open', () => f.informer.watching);
      f.env.server.faults.dropWatches({ graceful });
      await f.put('a', { v: graceful ? 'g' : 'cut' });
      await f.put(`new-${graceful}`, { v: '1' });
      await f.remove('a');
      await f.put('a', { v: 'back' });
      await assertConverged(f, `after dropping the watch (graceful=${graceful})`);
    }
    const restarts = (f.counts.restart.closed ?? 0) + (f.counts.restart.error ?? 0);
    assert.ok(restarts >= 2, `watch restarts counted: ${JSON.stringify(f.counts.restart)}`);
    assert.equal(f.counts.relist.initial, 1);
  });

  it('when the server answers 410 Gone, relists and ends equal to the server', async (t) => {
    const f = await setup(t);
    if (!f.env.server) return t.skip('needs fault injection (not on a real cluster)');
    for (const n of ['a', 'b', 'c']) await f.put(n, { v: '1' });
    f.informer.start();
    await f.informer.waitForSync();
    await assertConverged(f, 'initial');
    await eventually('a watch is open', () => f.informer.watching);
    f.env.server.faults.silenceWatches();
    await f.remove('a'); // lost by the silenced stream
    await f.put('b', { v: '2' });
    await f.put('d', { v: '1' });
    f.env.server.faults.expireWatchWindow();
    f.env.server.faults.unsilenceWatches();
    f.env.server.faults.dropWatches();
    await assertConverged(f, 'after 410');
    assert.ok(f.counts.gone >= 1, 'a 410 was seen');
    assert.ok((f.counts.relist.gone ?? 0) >= 1, 'and answered with a relist');
  });

  it('when the watch goes silent, the watchdog rebuilds it and the missed events arrive', async (t) => {
    const f = await setup(t, { stallTimeoutMs: 400 });
    if (!f.env.server) return t.skip('needs fault injection (not on a real cluster)');
    await f.put('a', { v: '1' });
    f.informer.start();
    await f.informer.waitForSync();
    f.env.server.faults.silenceWatches();
    await f.put('a', { v: '2' });
    await f.put('b', { v: '1' });
    await eventually('the watchdog fired', () => (f.counts.restart.stalled ?? 0) >= 1);
    f.env.server.faults.unsilenceWatches();
    await assertConverged(f, 'after a silent watch');
  });

  it('a periodic relist repairs the cache even while the stream stays silent, with synthetic events', async (t) => {
    const f = await setup(t, { relistPeriodMs: 300 });
    if (!f.env.server) return t.skip('needs fault injection (not on a real cluster)');
    for (const n of ['a', 'b']) await f.put(n, { v: '1' });
    f.informer.start();
    await f.informer.waitForSync();
    f.env.server.faults.silenceWatches();
    await f.remove('a');
    await f.put('b', { v: '2' });
    await f.put('c', { v: '1' });
    await assertConverged(f, 'periodic relist during silence');
    assert.ok((f.counts.relist.periodic ?? 0) >= 1);
  });

  // Seen as an operator that could not start (its metrics port taken) and then never stopped: its
  // informers were stopped during their first list, and each went on to a watch of minutes.
  it('a stop while the first list is in flight ends the informer once the list is answered, with no watch', {
    timeout: 30_000,
  }, async (t) => {
    const f = await setup(t);
    if (!f.env.server) return t.skip('needs fault injection (not on a real cluster)');
    const faults = f.env.server.faults;
    faults.pause();
    f.informer.start();
    await eventually('the list held by the server', () => faults.heldRequests >= 1);
    const stopped = f.informer.stop();
    faults.resume();
    await stopped;
    assert.equal(f.counts.relist.initial, 1);
    assert.equal(f.informer.watching, false, 'no watch was opened after the stop');
  });

  it('when list requests fail, backs off and syncs once the server answers again', async (t) => {
    const f = await setup(t);
    if (!f.env.server) return t.skip('needs fault injection (not on a real cluster)');
    await f.put('a', { v: '1' });
    f.env.server.faults.failNext({ verb: 'list', resource: 'configmaps' }, { status: 500, count: 3 });
    f.informer.start();
    await f.informer.waitForSync();
    await assertConverged(f, 'after failed lists');
    assert.equal(f.counts.relist.initial, 4, 'three failed lists, then one that worked');
  });

  it('when a relist itself answers 410, backs off and lists again', async (t) => {
    const f = await setup(t);
    if (!f.env.server) return t.skip('needs fault injection (not on a real cluster)');
    await f.put('a', { v: '1' });
    f.env.server.faults.failNext({ verb: 'list', resource: 'configmaps' }, { status: 410, count: 2 });
    f.informer.start();
    await f.informer.waitForSync();
    await assertConverged(f, 'after 410 lists');
    assert.equal(f.counts.gone, 2);
  });

  it('survives all the faults in a row and still ends equal to the server', async (t) => {
    // Events dropped by a silenced stream that later resumes are found by the periodic relist only.
    const f = await setup(t, { stallTimeoutMs: 400, watchTimeoutSeconds: 1, relistPeriodMs: 1000 });
    if (!f.env.server) return t.skip('needs fault injection (not on a real cluster)');
    const faults = f.env.server.faults;
    f.informer.start();
    await f.informer.waitForSync();
    const steps: Array<() => void> = [
      () => faults.dropWatches(),
      () => faults.expireWatchWindow(),
      () => faults.silenceWatches(),
      () => faults.unsilenceWatches(),
      () => faults.dropWatches({ graceful: true }),
      () => faults.failNext({ verb: 'watch', resource: 'configmaps' }, { status: 503, count: 2 }),
    ];
    for (let round = 0; round < 3; round++) {
      for (const [i, step] of steps.entries()) {
        step();
        await f.put(`o${i}`, { v: String(round) });
        if (i % 2 === 0) await f.remove(`o${(i + 3) % steps.length}`);
      }
      faults.unsilenceWatches();
      faults.dropWatches();
      await assertConverged(f, `round ${round}`);
    }
  });
});
