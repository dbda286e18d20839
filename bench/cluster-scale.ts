// Benchmark of the cluster controller at scale (issue 4): N MysqlClusters exist before the
// operator starts; we measure the time until every one is Synced (cold start), the operator's
// RSS, the writes it makes per minute once converged (must be 0) and the cost per cluster.
// The operator runs as its own process (src/main.ts, with the V8 flags `npm start` gives it)
// against the test API server, so its RSS is its own. Sizes: 100 and 1,000 (--quick: 10 and 50).
// Per-cluster time counts from the operator's first write (process start-up and the initial lists
// are left out, they do not grow with N).
// Headline ratio: per-cluster time at the large size divided by that at the small size (1.0 =
// linear scaling, above 1 = each cluster costs more as the fleet grows).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MysqlCluster } from '../src/api/index.ts';
import { KubeClient } from '../src/runtime/kube/client.ts';
import type { KubeObject } from '../src/runtime/kube/types.ts';
import { startApiServer } from '../sandbox/apiserver/index.ts';
import { projectCrds } from '../test/support/kube-env.ts';

const quick = process.argv.includes('--quick');
const SIZES = quick ? [10, 50] : [100, 1000];
const STEADY_MS = quick ? 10_000 : 30_000;
const RESYNC = '5s';
const CLUSTER = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster' };
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NODE = process.execPath;
// The operator starts as `npm start` starts it, V8 flags included (its RSS depends on them):
// package.json's `node <flags> src/main.ts`.
const START = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(/\s+/);
if (START[0] !== 'node' || START.length < 2) throw new Error(`package.json scripts.start is not "node [flags] <main>": ${START.join(' ')}`);
const OPERATOR = [...START.slice(1, -1), join(ROOT, START[START.length - 1]!)];

interface Run {
  clusters: number;
  convergeMs: number;
  /** From the operator's first write to the last cluster synced: process start-up left out. */
  workMs: number;
  perClusterMs: number;
  convergeWrites: number;
  rssMiB: number;
  /** Where the RSS goes, from the operator's /metrics at the same moment: V8 heap used and committed, external (Buffers). */
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
  /** Garbage collection over the whole run: total pause time, and pauses longer than 100 ms. */
  gcMs: number;
  gcPausesOver100ms: number;
  steadyWritesPerMinute: number;
  steadyRequests: number;
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

/** A port nobody listens on now, for the operator's --metrics-addr. */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** Heap, external memory and GC pauses from prom-client's default metrics of the operator. */
async function memoryMetrics(
  port: number,
): Promise<Pick<Run, 'heapUsedMiB' | 'heapTotalMiB' | 'externalMiB' | 'gcMs' | 'gcPausesOver100ms'>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const sum = (re: RegExp): number => [...text.matchAll(re)].reduce((a, m) => a + Number(m[1]), 0);
  const mib = (name: string): number => Math.round(sum(new RegExp(`^${name} (\\S+)$`, 'gm')) / 1048576);
  return {
    heapUsedMiB: mib('nodejs_heap_size_used_bytes'),
    heapTotalMiB: mib('nodejs_heap_size_total_bytes'),
    externalMiB: mib('nodejs_external_memory_bytes'),
    gcMs: Math.round(sum(/^nodejs_gc_duration_seconds_sum\{[^}]*\} (\S+)$/gm) * 1000),
    gcPausesOver100ms:
      sum(/^nodejs_gc_duration_seconds_count\{[^}]*\} (\S+)$/gm) - sum(/^nodejs_gc_duration_seconds_bucket\{le="0\.1",[^}]*\} (\S+)$/gm),
  };
}

async function runOnce(n: number): Promise<Run> {
  const server = await startApiServer({ crds: projectCrds() });
  const dir = mkdtempSync(join(tmpdir(), 'cluster-scale-'));
  const kubeconfig = join(dir, 'kubeconfig');
  server.writeKubeconfig(kubeconfig);
  const client = new KubeClient(server.kubeConfig(), { userAgent: 'bench/1.0' });
  const ns = 'bench';
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await client.create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'db-secret', namespace: ns },
    stringData: { ROOT_PASSWORD: 'x' },
  } as KubeObject);
  for (let i = 0; i < n; i++) {
    await client.create({
      ...CLUSTER,
      metadata: { name: `db-${i}`, namespace: ns },
      spec: {
        replicas: 3,
        secretName: 'db-secret',
        mysqlVersion: i % 2 ? '8.0' : 'mariadb-10.11',
        mysqlConf: { max_connections: 100 + i },
      },
    } as KubeObject);
  }
  const byOperator = (e: { userAgent?: string }): boolean => !!e.userAgent?.startsWith('mysql-operator');

  const started = Date.now();
  const metricsPort = await freePort();
  const child = spawn(
    NODE,
    [
      ...OPERATOR,
      '--kubeconfig',
      kubeconfig,
      '--namespace',
      ns,
      '--metrics-addr',
      `127.0.0.1:${metricsPort}`,
      '--resync-period',
      RESYNC,
      '--log-level',
      'error',
    ],
    {
      cwd: ROOT,
      env: { ...process.env, LEADER_ELECT: 'false' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    let synced = 0;
    for (;;) {
      const list = await client.list<MysqlCluster & KubeObject>(CLUSTER, { namespace: ns });
      synced = list.items.filter((c) => c.status?.conditions?.some((x) => x.type === 'Synced' && x.status === 'True')).length;
      if (synced === n) break;
      if (Date.now() - started > 600_000) throw new Error(`only ${synced}/${n} clusters synced after 10 min`);
      // A list of every cluster is heavy for the in-process API server: poll gently.
      await sleep(500);
    }
    const convergeMs = Date.now() - started;
    const operatorWrites = server.requestLog.writes().filter(byOperator);
    const convergeWrites = operatorWrites.length;
    const firstWrite = operatorWrites[0]?.time ?? started;
    const workMs = Date.now() - firstWrite;
    // Let in-flight work settle, then watch a steady window spanning several resyncs.
    await sleep(2_000);
    const mark = server.requestLog.mark();
    await sleep(STEADY_MS);
    const steady = server.requestLog.since(mark).filter(byOperator);
    const writes = server.requestLog.writes(mark).filter(byOperator);
    const steadyWrites = writes.length;
    if (steadyWrites)
      console.log(
        `steady-state writes: ${writes.map((w) => `${w.verb} ${w.resource}${w.subresource ? `/${w.subresource}` : ''} ${w.name} (${w.status})`).join(', ')}`,
      );
    return {
      clusters: n,
      convergeMs,
      workMs,
      perClusterMs: Math.round((workMs / n) * 100) / 100,
      convergeWrites,
      rssMiB: rssMiB(child.pid!),
      ...(await memoryMetrics(metricsPort)),
      steadyWritesPerMinute: Math.round((steadyWrites * 60_000) / STEADY_MS),
      // Reads the operator made in the window: 0 means it served everything from its caches.
      steadyRequests: steady.length,
    };
  } finally {
    child.kill('SIGTERM');
    await exited;
    client.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const runs: Run[] = [];
for (const n of SIZES) {
  const r = await runOnce(n);
  runs.push(r);
  console.log(
    `${r.clusters} clusters: converged in ${r.convergeMs} ms from a cold start, ${r.workMs} ms of work (${r.perClusterMs} ms/cluster, ${r.convergeWrites} writes), ` +
      `operator RSS ${r.rssMiB} MiB (V8 heap ${r.heapUsedMiB} used of ${r.heapTotalMiB}, external ${r.externalMiB}; GC ${r.gcMs} ms, ${r.gcPausesOver100ms} pauses > 100 ms), steady state ${r.steadyWritesPerMinute} writes/min, ${r.steadyRequests} requests in ${STEADY_MS / 1000} s`,
  );
}
const [small, large] = [runs[0]!, runs[runs.length - 1]!];
console.log(
  JSON.stringify({
    bench: 'cluster-scale',
    quick,
    runs,
    perClusterConvergeMsSmall: small.perClusterMs,
    perClusterConvergeMsLarge: large.perClusterMs,
    // What one more cluster costs, without the fixed start-up share that inflates small runs.
    marginalMsPerCluster: Math.round(((large.workMs - small.workMs) / (large.clusters - small.clusters)) * 100) / 100,
    rssMiBLarge: large.rssMiB,
    steadyWritesPerMinute: Math.max(...runs.map((r) => r.steadyWritesPerMinute)),
    ratio: Math.round((large.perClusterMs / small.perClusterMs) * 100) / 100,
  }),
);
