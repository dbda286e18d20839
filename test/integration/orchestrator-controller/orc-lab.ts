// The orchestrator controller's component lab: the node tests' cluster (node-cluster.ts: the test
// API server or TEST_KUBECONFIG holding the MysqlCluster, its operated Secret and Pod objects over
// three real MariaDB servers), pod 0 the master and the others replicating from it, the
// Orchestrator stand-in knowing the servers by their pod FQDNs (its `hosts`), reached through a
// proxy the test can cut to play an Orchestrator that is down, and the controller running in this
// process with short periods, next to the node controller (configuring restarted pods, bringing an
// old master back), in one manager as the operator runs them. The stand-in's failover hooks call a
// test route served next to the controllers, which records the call into the controller's
// FailoverSignals and enqueues the cluster, as the operator's hook endpoint does. A gate the test
// holds keeps Orchestrator's PreFailover hook, and so the whole failover, from going on.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { LABEL_CLUSTER, LABEL_ROLE, ROLE } from '../../../src/api/constants.ts';
import type { MysqlCluster } from '../../../src/api/index.ts';
import { clusterOfOrchestratorAlias, names, podFqdn } from '../../../src/api/names.ts';
import { nodeController } from '../../../src/controllers/mysql-node/controller.ts';
import { orchestratorController } from '../../../src/controllers/orchestrator-controller/controller.ts';
import { HOOK_PROCESSES, type FailoverSignals, type HookProcess } from '../../../src/controllers/orchestrator-controller/hook-signals.ts';
import {
  DEFAULT_ORCHESTRATOR_OPTIONS,
  type OrchestratorControllerOptions,
} from '../../../src/controllers/orchestrator-controller/options.ts';
import { acceptHookCall, type PreFailoverHoldDeps } from '../../../src/controllers/orchestrator-controller/hook.ts';
import type { HttpRoute } from '../../../src/runtime/controller.ts';
import { loadConfig } from '../../../src/runtime/config.ts';
import type { KubeClient } from '../../../src/runtime/kube/client.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';
import { startInProcessOperator } from '../../support/in-process-operator.ts';
import type { Manager } from '../../../src/runtime/manager.ts';
import type { PodObject, ResolvePod } from '../../../src/topology/index.ts';
import { startOrchestratorStandIn, type StandIn } from '../../../sandbox/orchestrator/index.ts';
import { standInConfig } from '../../support/orchestrator-stand-in.ts';
import { TEST_SYSTEM_USERS } from '../../support/mariadb.ts';
import { watchMasters as watchMastersOf, type MasterWatch } from '../../support/master-watch.ts';
import { ReconcileLog } from '../../support/reconciles.ts';
import { CLUSTER, nodeCluster, podName, type NodeCluster } from '../mysql-node/node-cluster.ts';
import type { Json } from '../../support/json.ts';

export const OPERATOR_AGENT = 'mysql-operator/orchestrator-test';
const HOOK_PATH = '/test/orchestrator-hook';
const CLUSTER_REF = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster' };

/** A TCP proxy to `target` that can be cut (connections refused, open ones reset) and restored on the same port. */
export interface Cut {
  url: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
}

async function cuttableProxy(target: { host: string; port: number }): Promise<Cut> {
  const open = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = async (): Promise<void> => {
    const s = createServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const sock of [client, upstream]) {
        open.add(sock);
        sock.once('close', () => open.delete(sock));
        sock.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    port = (s.address() as { port: number }).port;
    server = s;
  };
  const cut = async (): Promise<void> => {
    const s = server;
    server = undefined;
    for (const sock of open) sock.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return { url: `http://127.0.0.1:${port}`, cut, restore: listen };
}

/** The stand-in's hook command: the call the chart's hooks make, to the test route. */
function hookCommand(process: HookProcess, urlFile: string): string {
  const query = `process=${process}&alias={failureClusterAlias}&failed={failedHost}:{failedPort}&successor={successorHost}:{successorPort}`;
  // -g: an unknown placeholder stays literal ({successorHost}), which curl would read as a glob.
  return `curl -sg -o /dev/null "$(cat '${urlFile}')${HOOK_PATH}?${query}"`;
}

/**
 * A hook command that returns once `gate` does not exist: while the test holds the gate, the
 * stand-in's recovery stays at its PreFailover hook, as a real Orchestrator's does (hooks are
 * synchronous). It polls because a hook process has nothing else to wait on.
 */
function gateCommand(gate: string): string {
  return `while [ -e '${gate}' ]; do sleep 0.05; done`;
}

/**
 * The operator's hook endpoint without its authentication (hook.ts owns that): the call goes to
 * the same `acceptHookCall`, PreFailover hold included, reading the servers as the controller does.
 */
function testHookRoute(signals: FailoverSignals, hold: PreFailoverHoldDeps, calls: HookProcess[]): HttpRoute {
  return {
    method: 'GET',
    path: HOOK_PATH,
    async handle(req, ctx) {
      const process = req.query.get('process') as HookProcess;
      const alias = req.query.get('alias') ?? '';
      const cluster = clusterOfOrchestratorAlias(alias);
      if (!HOOK_PROCESSES.includes(process) || cluster === null) return { status: 400 };
      calls.push(process);
      const known = (v: string | null): string | undefined => (v && !v.includes('{') ? v : undefined);
      const failed = known(req.query.get('failed'));
      const successor = known(req.query.get('successor'));
      const answer = await acceptHookCall(
        {
          process,
          alias,
          ...cluster,
          ...(failed && { failed }),
          ...(successor && { successor }),
        },
        ctx,
        { signals, hold },
      );
      return { status: answer.status === 202 ? 200 : answer.status, body: answer.body };
    },
  };
}

export interface OrcLab {
  nc: NodeCluster;
  ns: string;
  client: KubeClient;
  clusterKey: string;
  standIn: StandIn;
  orchestrator: Cut;
  manager: Manager;
  reconciles: ReconcileLog;
  /** GET of the stand-in's API (not through the proxy). */
  orc(path: string): Promise<{ status: number; body: Json }>;
  cluster(): Promise<MysqlCluster & KubeObject>;
  pods(): Promise<PodObject[]>;
  /** The text of the operator's /metrics page. */
  metrics(): Promise<string>;
  /** Waits for `n` reconciles of the cluster that began after now. */
  passes(n?: number): Promise<void>;
  /** Waits for `n` node controller reconciles of each pod that began after now. */
  nodePasses(n?: number): Promise<void>;
  /** While held, a failover Orchestrator begins waits in its PreFailover hook (before the hook call to the operator). */
  failoverGate: { hold(): void; release(): void };
  /** The processes of the hook calls the route received, in order. */
  hookCalls: HookProcess[];
  /** Calls the hook route as Orchestrator's hook command does, naming pods by ordinal: a failover the stand-in did not run. */
  callHook(process: HookProcess, failed: number, successor?: number): Promise<void>;
}

export function fqdn(ns: string, i: number): string {
  return podFqdn(podName(i), ns);
}

/** The lab, running, with every part cleaned up after the test. */
export interface OrcLabOptions {
  /**
   * Run the node controller next to the orchestrator controller (the default). A test that changes
   * the servers behind both controllers' backs, step by step, leaves it out: it would heal the
   * test's half-made topology (a detached writable replica made read-only and repointed).
   */
  nodeController?: boolean;
  /** Orchestrator's config keys over the recorded ones (standInConfig's `over`). */
  standIn?: Record<string, unknown>;
  /** The PreFailover hold's limits, for a test that lets them run out. */
  hold?: Pick<PreFailoverHoldDeps, 'limits'>;
}

export async function orcLab(t: TestContext, over: Partial<OrchestratorControllerOptions> = {}, opts: OrcLabOptions = {}): Promise<OrcLab> {
  const nc = await nodeCluster(t, 3);
  const { ns, client } = nc;
  const dir = mkdtempSync(join(tmpdir(), 'orc-ctl-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));

  // Pod 0 the master (read-only: the controller makes Orchestrator's master writable), 1 and 2 its replicas.
  const [s0] = nc.servers;
  for (const i of [1, 2]) {
    const n = await nc.root(i);
    await n.pointAt({ host: s0!.host, port: s0!.port }, TEST_SYSTEM_USERS.replication);
    await n.startReplication();
  }

  const urlFile = join(dir, 'hook-url');
  const hookCalls: HookProcess[] = [];
  const gate = join(dir, 'hold-failover');
  const hooks = {
    PreFailoverProcesses: [gateCommand(gate), hookCommand('PreFailover', urlFile)],
    PostMasterFailoverProcesses: [hookCommand('PostMasterFailover', urlFile)],
    PostUnsuccessfulFailoverProcesses: [hookCommand('PostUnsuccessfulFailover', urlFile)],
    PostGracefulTakeoverProcesses: [hookCommand('PostGracefulTakeover', urlFile)],
  };
  const hosts = Object.fromEntries(nc.servers.map((s, i) => [fqdn(ns, i), s.host]));
  const standIn = await startOrchestratorStandIn({
    config: standInConfig(names.orchestratorAlias(CLUSTER, ns), hooks, 1, opts.standIn),
    hosts,
  });
  const failoverGate = { hold: () => writeFileSync(gate, ''), release: () => rmSync(gate, { force: true }) };
  // Released before the stand-in stops: its poll loop waits for the hook of a recovery to end.
  t.after(async () => {
    failoverGate.release();
    await standIn.stop();
  });
  const u = new URL(standIn.url);
  const orchestrator = await cuttableProxy({ host: u.hostname, port: Number(u.port) });
  t.after(() => orchestrator.cut());

  await nc.createCluster(3);
  await nc.createOperatedSecret();
  for (let i = 0; i < 3; i++) await nc.createPod(i);
  // The cluster controller's part of the status, which Ready reads: every pod of the StatefulSet ready.
  await client.patchStatus({ ...CLUSTER_REF, namespace: ns, name: CLUSTER }, { status: { readyNodes: 3 } });

  // The resync as the node tests': a pod configured in the second its mysqld started is verified
  // again at the next one (docs/node-controller.md), which the tests wait for.
  const runtime = loadConfig([], {
    LEADER_ELECT: 'false',
    METRICS_ADDR: '127.0.0.1:0',
    WATCH_NAMESPACE: ns,
    WORKERS: '2',
    RESYNC_PERIOD: '2s',
  }).runtime;
  const byPod = new Map(nc.servers.map((s, i) => [podName(i), { host: s.host, port: s.port }]));
  const resolve: ResolvePod = (pod) => byPod.get(pod.name) ?? { host: pod.fqdn, port: 3306 };
  const spec = orchestratorController(
    {
      ...DEFAULT_ORCHESTRATOR_OPTIONS,
      orchestratorUri: `${orchestrator.url}/api`,
      resyncPeriodMs: 1000,
      forgetGraceMs: 3000,
      finalizerTimeoutMs: 60_000,
      ...over,
    },
    {
      resolve,
      routes: (signals) => [testHookRoute(signals, { resolve, servers: { connectTimeoutMs: 1000 }, ...opts.hold }, hookCalls)],
      servers: { connectTimeoutMs: 1000 },
    },
  );
  const reconciles = new ReconcileLog();
  reconciles.record(spec);
  const node = nodeController({ resolve, connectRetrySeconds: 1 });
  const nodeReconciles = new ReconcileLog();
  nodeReconciles.record(node);
  const { manager, stop } = await startInProcessOperator(
    nc.kube.kubeConfig,
    OPERATOR_AGENT,
    runtime,
    opts.nodeController === false ? [spec] : [spec, node],
  );
  t.after(stop);
  const addr = manager.httpAddress!;
  const operatorUrl = `http://127.0.0.1:${addr.port}`;
  writeFileSync(urlFile, operatorUrl);

  const clusterKey = `${ns}/${CLUSTER}`;
  const lab: OrcLab = {
    nc,
    ns,
    client,
    clusterKey,
    standIn,
    orchestrator,
    manager,
    reconciles,
    async orc(path) {
      const res = await fetch(`${standIn.url}${path}`);
      return { status: res.status, body: await res.json() };
    },
    cluster: () => client.get<MysqlCluster & KubeObject>({ ...CLUSTER_REF, namespace: ns, name: CLUSTER }),
    async pods() {
      const list = await client.list<PodObject>(
        { apiVersion: 'v1', kind: 'Pod' },
        { namespace: ns, labelSelector: { [LABEL_CLUSTER]: CLUSTER } },
      );
      return list.items;
    },
    async metrics() {
      return (await fetch(`${operatorUrl}/metrics`)).text();
    },
    passes: (n = 2) => reconciles.settled([clusterKey], reconciles.mark(), n),
    async nodePasses(n = 2) {
      const keys = (await lab.pods()).map((p) => `${ns}/${p.metadata?.name}`);
      await nodeReconciles.settled(keys, nodeReconciles.mark(), n);
    },
    failoverGate,
    hookCalls,
    async callHook(process, failed, successor) {
      const q = new URLSearchParams({ process, alias: names.orchestratorAlias(CLUSTER, ns), failed: `${fqdn(ns, failed)}:3306` });
      if (successor !== undefined) q.set('successor', `${fqdn(ns, successor)}:3306`);
      const res = await fetch(`${operatorUrl}${HOOK_PATH}?${q}`);
      if (res.status !== 200) throw new Error(`hook route answered ${res.status}`);
    },
  };
  return lab;
}

/** Pod names carrying role=master. */
export function masters(pods: readonly PodObject[]): string[] {
  return pods
    .filter((p) => p.metadata?.labels?.[LABEL_ROLE] === ROLE.master)
    .map((p) => p.metadata?.name ?? '')
    .sort();
}

/** The role=master watch (test/support/master-watch.ts) over the lab's cluster. */
export function watchMasters(lab: OrcLab, t: TestContext): Promise<MasterWatch> {
  return watchMastersOf(lab.client, lab.ns, CLUSTER, t);
}
