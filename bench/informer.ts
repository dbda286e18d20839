// Benchmark of the runtime's informer and work queue against the test API server.
// N ConfigMaps (5,000; --quick: 500) exist; then a burst of N updates is written in-process.
// Measured for our informer and, in the same run, for client-node's own informer (makeInformer)
// watching the same burst: time to sync the initial list and time until every update has reached
// the handlers through the watch.
// Headline ratio: client-node's (sync + delivery) time / ours (above 1: ours is faster).
// Also: the work queue's de-duplication, N events over 50 keys with a 2 ms reconcile, as
// reconciles run and time against handling every event one by one.
import { performance } from 'node:perf_hooks';
import { CoreV1Api, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { startApiServer } from '../sandbox/apiserver/index.ts';
import { Informer } from '../src/runtime/informer.ts';
import { KubeClient } from '../src/runtime/kube/client.ts';
import { WorkQueue } from '../src/runtime/work-queue.ts';
import { pool } from './support/pool.ts';

const quick = process.argv.includes('--quick');
const N = quick ? 500 : 5_000;
const NS = 'default';
const CONCURRENCY = 16;

const server = await startApiServer({ token: null });
const kc = server.kubeConfig();
const writer = new KubeClient(kc);

async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 1));
}

const cm = (i: number, round: number) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `cm-${i}`, namespace: NS, labels: { bench: 'informer' } },
  data: { round: String(round), payload: 'x'.repeat(200) },
});

await pool(N, CONCURRENCY, async (i) => void (await writer.create(cm(i, 0))));
let round = 0;

// Updates are written in-process (no HTTP), so the delivery figures are the watch path alone:
// server encoding, the stream, the client's parsing and cache.
const service = server.internals.service;
const def = service.resources.find('', 'v1', 'configmaps')!;
const wopts = { manager: 'bench', dryRun: false, fieldValidation: 'Ignore', warnings: [] as string[] };
function burst(): void {
  round++;
  for (let i = 0; i < N; i++) {
    const cur = service.get(def, NS, `cm-${i}`);
    service.update(def, NS, `cm-${i}`, { ...cur, data: { ...cur.data, round: String(round) } }, undefined, wopts);
  }
}

type Cached = V1ConfigMap & { metadata: { name: string } };

// Our informer.
const client = new KubeClient(kc);
const ours = new Informer<Cached>({
  client,
  target: { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, labelSelector: { bench: 'informer' } },
  relistPeriodMs: 0,
});
let t0 = performance.now();
ours.start();
await ours.waitForSync();
const oursSyncMs = performance.now() - t0;
await until(() => ours.watching);

// client-node's informer.
const api = kc.makeApiClient(CoreV1Api);
const theirs = makeInformer<V1ConfigMap>(
  kc,
  `/api/v1/namespaces/${NS}/configmaps`,
  () => api.listNamespacedConfigMap({ namespace: NS, labelSelector: 'bench=informer' }),
  'bench=informer',
);
let connected = false;
theirs.on('connect', () => {
  connected = true;
});
t0 = performance.now();
await theirs.start();
await until(() => theirs.list(NS).length === N);
const theirsSyncMs = performance.now() - t0;
await until(() => connected);
await new Promise((r) => setTimeout(r, 200));

// One burst of N updates, seen by both.
const want = String(round + 1);
let oursSeen = 0;
let theirsSeen = 0;
let oursDone = 0;
let theirsDone = 0;
ours.addHandlers({
  onUpdate: (_o, n) => {
    if (n.data?.round === want && ++oursSeen === N) oursDone = performance.now();
  },
});
theirs.on('update', (o) => {
  if (o.data?.round === want && ++theirsSeen === N) theirsDone = performance.now();
});
const burstStart = performance.now();
burst();
const writeOnlyMs = performance.now() - burstStart;
await until(() => oursSeen >= N && theirsSeen >= N);
const oursDeliveryMs = oursDone - burstStart;
const theirsDeliveryMs = theirsDone - burstStart;
await ours.stop();
await theirs.stop();
client.close();

// Work queue: N events over 50 keys, reconcile takes 2 ms, 4 workers.
const KEYS = 50;
let reconciles = 0;
const q = new WorkQueue({
  workers: 4,
  handler: async () => {
    reconciles++;
    await new Promise((r) => setTimeout(r, 2));
  },
});
q.start();
const qStart = performance.now();
for (let i = 0; i < N; i++) {
  q.add(`ns/k${i % KEYS}`);
  if (i % 100 === 0) await new Promise((r) => setImmediate(r));
}
await until(() => q.depth === 0 && q.inFlight === 0);
const queueMs = performance.now() - qStart;
await q.shutdown();
const perEventMs = (N * 2) / 4; // every event reconciled, 4 in parallel

writer.close();
await server.stop();

const round1 = (x: number): number => Math.round(x * 10) / 10;
console.log(`objects: ${N}; in-process burst of ${N} updates written in ${round1(writeOnlyMs)} ms`);
console.log(`ours:        sync ${round1(oursSyncMs)} ms, ${N} updates delivered in ${round1(oursDeliveryMs)} ms`);
console.log(`client-node: sync ${round1(theirsSyncMs)} ms, ${N} updates delivered in ${round1(theirsDeliveryMs)} ms`);
console.log(
  `work queue: ${N} events over ${KEYS} keys -> ${reconciles} reconciles in ${round1(queueMs)} ms (one by one: >= ${perEventMs} ms)`,
);
console.log(
  JSON.stringify({
    bench: 'informer',
    objects: N,
    ours_sync_ms: round1(oursSyncMs),
    ours_delivery_ms: round1(oursDeliveryMs),
    clientnode_sync_ms: round1(theirsSyncMs),
    clientnode_delivery_ms: round1(theirsDeliveryMs),
    write_only_ms: round1(writeOnlyMs),
    queue_events: N,
    queue_reconciles: reconciles,
    queue_ms: round1(queueMs),
    ratio: Math.round(((theirsSyncMs + theirsDeliveryMs) / (oursSyncMs + oursDeliveryMs)) * 100) / 100,
  }),
);
