// Benchmark of the test API server (sandbox/apiserver): N objects (10,000; --quick: 1,000) created
// over HTTP, read, listed and watched. Prints requests per second, memory, and the headline
// ratio: for a live burst of N writes, the time until the last event reaches an HTTP watch client
// / the time until it reaches a listener subscribed to the store in-process (the direct emit),
// both timed from the same start, so the ratio is the cost of delivery over the wire.
// Also measured: the N retained events replayed to a watch from an older resourceVersion, against
// a bare in-process loop over them (sub-millisecond, so that ratio is reported but too noisy to
// be the headline).
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { startApiServer } from '../sandbox/apiserver/index.ts';
import { pool } from './support/pool.ts';

const quick = process.argv.includes('--quick');
const N = quick ? 1_000 : 10_000;
const CONCURRENCY = 16;

const server = await startApiServer({ token: null });
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
const base = new URL(server.url);

function call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        method,
        path,
        agent,
        headers: {
          Accept: 'application/json',
          ...(data ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}

const NS = '/api/v1/namespaces/default/configmaps';
const nameOf = (i: number): string => `cm-${String(i).padStart(5, '0')}`;

/** Watches NS over HTTP from resourceVersion `rv` until N events (lines) arrived; resolves with the time of the N-th. */
function watchEvents(rv: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let seen = 0;
    let last = 0;
    const req = request({ host: base.hostname, port: base.port, path: `${NS}?watch=1&resourceVersion=${rv}`, agent: false }, (res) => {
      let buf = '';
      res.on('data', (c: Buffer) => {
        buf += c.toString();
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          buf = buf.slice(nl + 1);
          if (++seen === N) {
            last = performance.now();
            req.destroy();
            resolve(last);
          }
        }
      });
    });
    req.on('error', (e) => (seen === N ? resolve(last) : reject(e)));
    req.end();
  });
}

const createMs = await pool(N, CONCURRENCY, async (i) => {
  const r = await call('POST', NS, {
    metadata: { name: nameOf(i), labels: { bench: 'true', shard: String(i % 10) } },
    data: { key: `value-${i}` },
  });
  if (r.status !== 201) throw new Error(`create ${i}: ${r.status} ${r.text}`);
});
const mem = process.memoryUsage();

const gets = Math.min(N, 2_000);
const getMs = await pool(gets, CONCURRENCY, async (i) => {
  const r = await call('GET', `${NS}/${nameOf(i)}`);
  if (r.status !== 200) throw new Error(`get ${i}: ${r.status}`);
});

let t = performance.now();
const full = await call('GET', NS);
const listMs = performance.now() - t;
const listed = (JSON.parse(full.text) as { items: unknown[] }).items.length;
t = performance.now();
let pages = 0;
let token = '';
do {
  const r = JSON.parse((await call('GET', `${NS}?limit=500${token ? `&continue=${token}` : ''}`)).text) as {
    metadata: { continue?: string };
  };
  token = r.metadata.continue ?? '';
  pages++;
} while (token);
const pagedMs = performance.now() - t;
t = performance.now();
const selected = (JSON.parse((await call('GET', `${NS}?labelSelector=shard%3D3`)).text) as { items: unknown[] }).items.length;
const selectorMs = performance.now() - t;

// Watch: an HTTP watch and an in-process listener see the same burst of N updates.
const service = server.internals.service;
const def = service.resources.find('', 'v1', 'configmaps')!;
const startRv = service.store.currentRv();
const watchDone = watchEvents(startRv);
await new Promise((r) => setTimeout(r, 100));
let localSeen = 0;
let localLast = 0;
const unsubscribe = service.store.subscribe(() => {
  localSeen++;
  if (localSeen === N) localLast = performance.now();
});
const opts = { manager: 'bench', dryRun: false, fieldValidation: 'Ignore', warnings: [] as string[] };
const burstStart = performance.now();
for (let i = 0; i < N; i++) {
  const old = service.get(def, 'default', nameOf(i));
  service.commit(def, old, { ...old, data: { key: `updated-${i}` } }, opts, undefined);
}
const httpLast = await watchDone;
unsubscribe();
const inProcessMs = localLast - burstStart;
const watchMs = httpLast - burstStart;

// Replay: the same N events again, over HTTP from the watch window vs emitted in-process.
t = performance.now();
await watchEvents(startRv);
const replayHttpMs = performance.now() - t;
const events = service.store.eventsSince(startRv)!;
let emitted = 0;
const listener = (ev: { object: unknown }) => {
  if (ev.object) emitted++;
};
// The direct emit is sub-millisecond: the median of 21 rounds keeps it steady.
const rounds: number[] = [];
for (let r = 0; r < 21; r++) {
  emitted = 0;
  t = performance.now();
  for (const ev of events) listener(ev);
  rounds.push(performance.now() - t);
  if (emitted !== N) throw new Error(`in-process emit saw ${emitted} events`);
}
const replayInProcessMs = rounds.sort((a, b) => a - b)[10]!;

const rps = (count: number, ms: number) => Math.round((count / ms) * 1000);
const figures = {
  bench: 'apiserver',
  objects: N,
  createPerSec: rps(N, createMs),
  getPerSec: rps(gets, getMs),
  listAllMs: Math.round(listMs),
  listedItems: listed,
  listPagedMs: Math.round(pagedMs),
  pages,
  labelSelectorMs: Math.round(selectorMs),
  selectedItems: selected,
  burstHttpWatchMs: Math.round(watchMs),
  burstInProcessMs: Math.round(inProcessMs),
  replayHttpWatchMs: Math.round(replayHttpMs * 10) / 10,
  replayInProcessEmitMs: Math.round(replayInProcessMs * 1000) / 1000,
  watchEventsPerSec: rps(N, replayHttpMs),
  rssMB: Math.round(mem.rss / 1e6),
  heapUsedMB: Math.round(mem.heapUsed / 1e6),
  replayRatio: Math.round(replayHttpMs / replayInProcessMs),
  ratio: Math.round((watchMs / inProcessMs) * 100) / 100,
};
console.log(`created ${N} ConfigMaps at ${figures.createPerSec} req/s (${CONCURRENCY} in flight), ${figures.getPerSec} GET/s`);
console.log(
  `list of ${listed}: ${figures.listAllMs} ms; paged (${pages} x 500): ${figures.listPagedMs} ms; label selector (${selected}): ${figures.labelSelectorMs} ms`,
);
console.log(
  `watch, live burst of ${N} writes: last event over HTTP after ${figures.burstHttpWatchMs} ms, in-process after ${figures.burstInProcessMs} ms (ratio ${figures.ratio})`,
);
console.log(
  `watch, ${N} retained events: ${figures.replayHttpWatchMs} ms over HTTP vs ${figures.replayInProcessEmitMs} ms emitted in-process (ratio ${figures.replayRatio})`,
);
console.log(`memory after create: rss ${figures.rssMB} MB, heap ${figures.heapUsedMB} MB`);
agent.destroy();
await server.stop();
console.log(JSON.stringify(figures));
