// Benchmark of failover routing (issue 12): how long after Orchestrator promotes a replica the
// promoted pod carries `role=master` (the label the master Service selects on), with the failover
// hook wired and with polling only. Real parts: three MariaDB servers, the Orchestrator stand-in
// knowing them by pod FQDN, the orchestrator controller in a Manager against the test API server,
// its failover hook route called by the stand-in through hookCommand's `sh` + `curl` lines.
//
// Each failover: most are graceful takeovers (`graceful-master-takeover-auto`, the cheap reset:
// the demoted master keeps replicating); every KILL_EVERY-th is a SIGKILL of the master's
// mariadbd, which the stand-in detects and recovers; the bench then restarts the killed server as
// a replica of the new master (read-only, `MASTER_USE_GTID=current_pos`, as the node controller's
// rejoin does). Either way it ends the old master's `lost-in-recovery` downtime (the real
// Orchestrator expires it once the instance replicates; the stand-in has no expiry run). The next
// failover starts once Orchestrator sees every replica replicating and every pod is labelled and
// healthy, after a random pause within one resync period: real failovers come at any phase of
// the controller's timer, while `settled` always returns right after a pass, which would make
// polling look like a whole period every time.
//
// Promotion time: the first PostMasterFailover hook appends `date +%s%3N` and the successor, right
// after the stand-in made it writable and repointed the other replica. Label time: the moment
// this process's pod watch sees `role=master` on the successor. Both modes use the operator's
// default `--orchestrator-resync-period` (5 s). Headline ratio: p99 with polling only / p99 with
// the hook (above 1 = the hook routes writes to the new master sooner).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { TestContext } from 'node:test';
import { LABEL_CLUSTER, LABEL_HEALTHY, LABEL_ROLE, ROLE, HEALTHY } from '../src/api/constants.ts';
import { names } from '../src/api/names.ts';
import { orchestratorController } from '../src/controllers/orchestrator-controller/controller.ts';
import { failoverHookRoute } from '../src/controllers/orchestrator-controller/hook.ts';
import { hookProcessesConfig } from '../src/controllers/orchestrator-controller/hook-request.ts';
import { DEFAULT_ORCHESTRATOR_OPTIONS } from '../src/controllers/orchestrator-controller/options.ts';
import { connectNode } from '../src/mysql/index.ts';
import { loadConfig } from '../src/runtime/config.ts';
import { Informer } from '../src/runtime/informer.ts';
import { KubeClient } from '../src/runtime/kube/client.ts';
import { createLogger } from '../src/runtime/logger.ts';
import { Manager } from '../src/runtime/manager.ts';
import type { PodObject } from '../src/topology/index.ts';
import type { HookList } from '../sandbox/orchestrator/config.ts';
import { startOrchestratorStandIn } from '../sandbox/orchestrator/index.ts';
import { TEST_SYSTEM_USERS } from '../test/support/mariadb.ts';
import { standInConfig } from '../test/support/orchestrator-stand-in.ts';
import { eventually } from '../test/support/wait.ts';
import { CLUSTER, nodeCluster, podName } from '../test/integration/mysql-node/node-cluster.ts';
import { fqdn } from '../test/integration/orchestrator-controller/orc-lab.ts';

const quick = process.argv.includes('--quick');
// Each pass's step timings (reconcile.ts's debug line) and each hook call's arrival on stderr, to see where the time goes.
const timings = process.argv.includes('--timings');
const FAILOVERS = quick ? 6 : 100;
const KILL_EVERY = quick ? 3 : 5;
const SECRET = 'bench-failover-hook-secret';

type Mode = 'hook' | 'poll';

/** The scope of the run in progress, closed on Ctrl-C too. */
let current: { close(): Promise<void> } | undefined;
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.once(sig, () => void (current?.close() ?? Promise.resolve()).finally(() => process.exit(130)));

/** The cleanup registry the test harness expects from a node:test context, run in reverse at the end. */
function scope(): { t: TestContext; close(): Promise<void> } {
  const fns: Array<() => unknown> = [];
  const sc = {
    t: { after: (fn: () => unknown) => void fns.push(fn) } as unknown as TestContext,
    async close() {
      for (const fn of fns.splice(0).reverse())
        await Promise.resolve(fn()).catch((e: Error) => process.stderr.write(`cleanup: ${e.message}\n`));
    },
  };
  current = sc;
  return sc;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Nearest-rank percentile of seconds. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

interface Sample {
  kind: 'kill' | 'takeover';
  seconds: number;
}

async function run(mode: Mode): Promise<Sample[]> {
  const sc = scope();
  try {
    const nc = await nodeCluster(sc.t, 3);
    const { ns, client } = nc;
    const alias = names.orchestratorAlias(CLUSTER, ns);
    const dir = mkdtempSync(join(tmpdir(), 'bench-failover-'));
    sc.t.after(() => rmSync(dir, { recursive: true, force: true }));
    const secretFile = join(dir, 'secret');
    writeFileSync(secretFile, SECRET);
    const promotedLog = join(dir, 'promoted.log');
    writeFileSync(promotedLog, '');

    const [s0] = nc.servers;
    for (const i of [1, 2]) {
      const n = await nc.root(i);
      await n.pointAt({ host: s0!.host, port: s0!.port }, TEST_SYSTEM_USERS.replication);
      await n.startReplication();
    }

    const port = await freePort();
    const operatorUrl = `http://127.0.0.1:${port}`;
    const stamp = `echo "$(date +%s%3N) {successorHost}" >> '${promotedLog}'`;
    const wired: Partial<Record<HookList, string[]>> = mode === 'hook' ? hookProcessesConfig({ operatorUrl, secretFile }) : {};
    const hooks = { ...wired, PostMasterFailoverProcesses: [stamp, ...(wired.PostMasterFailoverProcesses ?? [])] };
    const hosts = Object.fromEntries(nc.servers.map((s, i) => [fqdn(ns, i), s.host]));
    const standIn = await startOrchestratorStandIn({ config: standInConfig(alias, hooks), hosts });
    sc.t.after(() => standIn.stop());
    const orc = async <T = unknown>(path: string): Promise<T> => (await fetch(`${standIn.url}${path}`)).json() as Promise<T>;

    await nc.createCluster(3);
    await nc.createOperatedSecret();
    for (let i = 0; i < 3; i++) await nc.createPod(i);
    await client.patchStatus(
      { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster', namespace: ns, name: CLUSTER },
      { status: { readyNodes: 3 } },
    );

    const runtime = loadConfig([], { LEADER_ELECT: 'false', METRICS_ADDR: `127.0.0.1:${port}`, WATCH_NAMESPACE: ns }).runtime;
    const opClient = new KubeClient(nc.kube.kubeConfig);
    const manager = new Manager({
      config: runtime,
      client: opClient,
      log: createLogger({
        level: timings ? 'debug' : 'error',
        stream: new Writable({
          write: (chunk, _e, cb) => {
            if (timings && /pass timings|failover hook call|failover successor/.test(String(chunk)))
              process.stderr.write(`${mode} ${Date.now()} ${chunk}`);
            cb();
          },
        }),
      }),
    });
    const byPod = new Map(nc.servers.map((s, i) => [podName(i), { host: s.host, port: s.port }]));
    const opts = { ...DEFAULT_ORCHESTRATOR_OPTIONS, orchestratorUri: `${standIn.url}/api`, failoverHookSecretFile: secretFile };
    manager.add(
      orchestratorController(opts, {
        resolve: (pod) => byPod.get(pod.name) ?? { host: pod.fqdn, port: 3306 },
        routes: (signals) => [failoverHookRoute({ options: opts, signals })],
        servers: { connectTimeoutMs: 1000 },
      }),
    );
    await manager.start();
    sc.t.after(async () => {
      await manager.stop();
      opClient.close();
    });

    // When each pod last became role=master, as this process's watch saw it.
    const pods = new Informer<PodObject>({
      client,
      target: { apiVersion: 'v1', kind: 'Pod', namespace: ns, labelSelector: { [LABEL_CLUSTER]: CLUSTER } },
    });
    const masterSince = new Map<string, number>();
    const seen = (old: PodObject | undefined, pod: PodObject): void => {
      const isMaster = pod.metadata?.labels?.[LABEL_ROLE] === ROLE.master;
      if (isMaster && old?.metadata?.labels?.[LABEL_ROLE] !== ROLE.master) masterSince.set(pod.metadata?.name ?? '', Date.now());
    };
    pods.addHandlers({ onAdd: (p) => seen(undefined, p), onUpdate: seen });
    pods.start();
    sc.t.after(() => pods.stop());

    const settled = async (master: number): Promise<void> => {
      await eventually(
        'Orchestrator sees both replicas replicating, none downtimed',
        async () => {
          const cluster = (await orc(`/api/cluster/alias/${alias}`)) as Array<{
            Key: { Hostname: string };
            Slave_IO_Running: boolean;
            Slave_SQL_Running: boolean;
            IsDowntimed: boolean;
          }>;
          const ok =
            cluster.length === 3 &&
            cluster.every((i) => !i.IsDowntimed && (i.Key.Hostname === fqdn(ns, master) || (i.Slave_IO_Running && i.Slave_SQL_Running)));
          if (!ok)
            throw new Error(JSON.stringify(cluster.map((i) => [i.Key.Hostname, i.Slave_IO_Running, i.Slave_SQL_Running, i.IsDowntimed])));
          return true;
        },
        120_000,
      );
      await eventually(
        `${podName(master)} labelled master, every pod healthy`,
        () =>
          pods.list().length === 3 &&
          pods
            .list()
            .every(
              (p) =>
                p.metadata?.labels?.[LABEL_HEALTHY] === HEALTHY.yes &&
                (p.metadata?.labels?.[LABEL_ROLE] === ROLE.master) === (p.metadata?.name === podName(master)),
            ),
        120_000,
      );
    };

    const promotions = (): Array<{ at: number; pod: string }> =>
      readFileSync(promotedLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const [ms, host] = l.split(' ');
          return { at: Number(ms), pod: (host ?? '').split('.')[0] ?? '' };
        });

    let master = 0;
    await settled(master);
    const samples: Sample[] = [];
    for (let i = 0; i < FAILOVERS; i++) {
      await sleep(Math.random() * opts.resyncPeriodMs);
      const before = promotions().length;
      const started = Date.now();
      const kill = i % KILL_EVERY === KILL_EVERY - 1;
      const victim = nc.servers[master]!;
      if (kill) {
        await victim.kill();
      } else {
        const r = await orc<{ Code: string; Message: string }>(`/api/graceful-master-takeover-auto/${alias}`);
        if (r.Code !== 'OK') throw new Error(`graceful takeover refused: ${r.Message}`);
      }
      const promotion = await eventually('the promotion', () => promotions()[before], 120_000);
      const next = Number(promotion.pod.replace(`${CLUSTER}-mysql-`, ''));
      const labelledAt = await eventually(
        `role=master on ${promotion.pod}`,
        () => {
          const at = masterSince.get(promotion.pod);
          return at !== undefined && at >= started ? at : undefined;
        },
        120_000,
      );
      samples.push({ kind: kill ? 'kill' : 'takeover', seconds: (labelledAt - promotion.at) / 1000 });
      if (timings) process.stderr.write(`${mode} promoted at ${promotion.at}, labelled at ${labelledAt}\n`);
      if (kill) {
        await victim.start();
        await nc.markStarted(master);
        const n = await connectNode(victim.rootParams());
        try {
          await n.setReadOnly(true);
          await n.pointAt(byPod.get(promotion.pod)!, TEST_SYSTEM_USERS.replication, { start: { kind: 'gtid', mariadbPos: 'current_pos' } });
          await n.startReplication();
        } finally {
          await n.close();
        }
      }
      await orc(`/api/end-downtime/${fqdn(ns, master)}/3306`);
      master = next;
      await settled(master);
      process.stderr.write(`${mode} ${i + 1}/${FAILOVERS} ${samples.at(-1)?.kind} ${samples.at(-1)?.seconds.toFixed(3)} s\n`);
    }
    return samples;
  } finally {
    await sc.close();
  }
}

// `--only=hook|poll` runs one mode (two machines' worth of time split in two runs); the other's figures are null.
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const hook = only === 'poll' ? [] : await run('hook');
const poll = only === 'hook' ? [] : await run('poll');
const round = (s: number): number => Math.round(s * 1000) / 1000;
const p = (samples: Sample[], q: number, kind?: Sample['kind']): number | null =>
  samples.length === 0
    ? null
    : round(
        percentile(
          samples.filter((x) => kind === undefined || x.kind === kind).map((x) => x.seconds),
          q,
        ),
      );
const figures = {
  failovers: FAILOVERS,
  // Per mode; both modes run the same sequence.
  kills: (hook.length > 0 ? hook : poll).filter((x) => x.kind === 'kill').length,
  takeovers: (hook.length > 0 ? hook : poll).filter((x) => x.kind === 'takeover').length,
  p50_hook_s: p(hook, 50),
  p99_hook_s: p(hook, 99),
  p50_poll_s: p(poll, 50),
  p99_poll_s: p(poll, 99),
  // By kind: a SIGKILL failover and a graceful takeover reach the controller by different paths
  // (the dead master drops out of Orchestrator's view; the demoted one stays, read-only).
  p99_hook_kill_s: p(hook, 99, 'kill'),
  p99_hook_takeover_s: p(hook, 99, 'takeover'),
  p99_poll_kill_s: p(poll, 99, 'kill'),
  p99_poll_takeover_s: p(poll, 99, 'takeover'),
};
console.log(
  JSON.stringify({
    bench: 'failover-routing',
    ...figures,
    ratio: figures.p99_poll_s === null || figures.p99_hook_s === null ? null : round(figures.p99_poll_s / figures.p99_hook_s),
  }),
);
