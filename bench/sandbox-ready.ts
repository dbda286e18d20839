// Benchmark of the sandbox (issue 13): seconds from `kubectl apply` of the MariaDB example to the
// cluster Ready (Ready=True and one pod labelled master) for 1, 3 and 5 nodes (--quick: 1 and 3),
// on one sandbox started once (its own start-up is left out), each size in a namespace of its own,
// deleted before the next size.
// Where the time goes: a pod watch stamps, as they happen, each pod's milestones (the API's own
// timestamps have second resolution). Pods start one after the other (OrderedReady), so these
// stretches, summed over the pods, add up to the time to Ready:
//   create_s     apply → pod 0 appears, and each pod Ready → the next one appears: the operator's
//                cluster controller and the StatefulSet controller;
//   schedule_s   pod appears → its init container runs: volume binding, scheduling, the kubelet;
//   init_s       init container runs → pod Initialized: the clone (pod 0: nothing to clone);
//   mysqld_s     Initialized → the mysql container started (startup probe passed: mysqld answers),
//                pod 0's first start initialising its data directory included;
//   configure_s  mysqld answers → NodeInitialized=True, what of the node controller's configuring
//                is left once mysqld answers (it starts polling the server at once);
//   readiness_s  started and configured → pod Ready: the readiness probes' period;
//   cluster_s    the last pod Ready → the cluster Ready: the orchestrator controller's labels and
//                conditions (Orchestrator's discovery of the new instances).
// The operator's share is create + configure + cluster over ready; mysqld's and the clone's are
// mysqld and init over ready. reconcile_s is the operator's reconcile time in the window
// (controller_reconcile_duration_seconds): reconciles overlap each other and the waits, so it is
// not a share of the path.
// first_master_s is pod 0's own: from its mysqld answering (the startup probe passed) to its
// role=master label (issue 20: at most 5 s, with the real Orchestrator as with the stand-in).
// The whole run is made with the Orchestrator stand-in, and again with a real `orchestrator`
// binary when one is on PATH (its figures prefixed `real_`), each on a sandbox of its own.
// Headline ratio: ready_3_s / ready_1_s with the stand-in (1.0 = a 3-node cluster is as quick as a
// single server; pods start one after the other, OrderedReady, so about 3 is what serial starts
// cost); real_over_standin_ready_3 compares the two Orchestrators.
import { existsSync, mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { CONTAINER, LABEL_ROLE, POD_CONDITION_NODE_INITIALIZED, ROLE } from '../src/api/constants.ts';
import { Informer } from '../src/runtime/informer.ts';
import type { KubeObject } from '../src/runtime/kube/types.ts';
import { waitForClusterReady } from '../sandbox/cluster-view.ts';
import { RELEASE, startSandbox, until, type Sandbox } from '../sandbox/index.ts';
import { applyMariaDBExample } from '../test/support/sandbox.ts';

const quick = process.argv.includes('--quick');
const SIZES = quick ? [1, 3] : [1, 3, 5];
const STRETCHES = ['create', 'schedule', 'init', 'mysqld', 'configure', 'readiness', 'cluster'] as const;
type Stretch = (typeof STRETCHES)[number];

interface Measure {
  nodes: number;
  readyS: number;
  /** Apply → the first role=master label. */
  masterS: number;
  /** Pod 0's mysqld answering → its role=master label. */
  firstMasterS: number;
  stretches: Record<Stretch, number>;
  reconcileS: number;
  load: number;
}

/** When each milestone of one pod was first seen, ms since apply. */
interface Milestones {
  seen?: number;
  initRunning?: number;
  initialized?: number;
  started?: number;
  configured?: number;
  ready?: number;
  /** Not on the path to Ready: when the pod was first seen labelled master. */
  master?: number;
}
const MILESTONES = ['seen', 'initRunning', 'initialized', 'started', 'configured', 'ready'] as const;

type Pod = V1Pod & KubeObject;

function reached(p: Pod): Record<keyof Milestones, boolean> {
  const cond = (type: string) => p.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
  const init = p.status?.initContainerStatuses?.find((c) => c.name === CONTAINER.init);
  const mysqld = p.status?.containerStatuses?.find((c) => c.name === CONTAINER.mysql);
  return {
    seen: true,
    initRunning: init?.state?.running !== undefined || init?.state?.terminated !== undefined,
    initialized: cond('Initialized'),
    started: mysqld?.started === true,
    configured: cond(POD_CONDITION_NODE_INITIALIZED),
    ready: cond('Ready'),
    master: p.metadata?.labels?.[LABEL_ROLE] === ROLE.master,
  };
}

/** A milestone's time, or the latest earlier one's when it was not seen apart (two in one update). */
function at(m: Milestones, k: (typeof MILESTONES)[number]): number {
  for (let i = MILESTONES.indexOf(k); i >= 0; i--) {
    const v = m[MILESTONES[i]!];
    if (v !== undefined) return v;
  }
  return 0;
}

function stretchesOf(pods: Milestones[], readyMs: number): Record<Stretch, number> {
  const s: Record<Stretch, number> = { create: 0, schedule: 0, init: 0, mysqld: 0, configure: 0, readiness: 0, cluster: 0 };
  let previousReady = 0;
  for (const m of pods) {
    const started = at(m, 'started');
    const settled = Math.max(started, m.configured ?? started);
    s.create += at(m, 'seen') - previousReady;
    s.schedule += at(m, 'initRunning') - at(m, 'seen');
    s.init += at(m, 'initialized') - at(m, 'initRunning');
    s.mysqld += started - at(m, 'initialized');
    s.configure += settled - started;
    s.readiness += at(m, 'ready') - settled;
    previousReady = at(m, 'ready');
  }
  s.cluster = readyMs - previousReady;
  for (const k of STRETCHES) s[k] /= 1000;
  return s;
}

const round = (x: number): number => Math.round(x * 10) / 10;

async function operatorReconcileSeconds(sb: Sandbox): Promise<number> {
  const svc = await sb.client.get<{ spec: { clusterIP: string; ports: { port: number }[] } } & { metadata: object }>({
    apiVersion: 'v1',
    kind: 'Service',
    namespace: RELEASE.namespace,
    name: `${RELEASE.name}-operator`,
  });
  const text = await (await fetch(`http://${svc.spec.clusterIP}:${svc.spec.ports[0]!.port}/metrics`)).text();
  return [...text.matchAll(/^controller_reconcile_duration_seconds_sum\{[^}]*\} (\S+)$/gm)].reduce((s, m) => s + Number(m[1]), 0);
}

async function measure(sb: Sandbox, nodes: number): Promise<Measure> {
  const namespace = `bench-${nodes}`;
  const ns = await sb.kubectl(['apply', '-f', '-'], `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  if (!ns.ok) throw new Error(ns.out);
  const pods = new Informer<Pod>({ client: sb.client, target: { apiVersion: 'v1', kind: 'Pod', namespace } });
  const milestones = new Map<string, Milestones>();
  let t0 = 0;
  const stamp = (p: Pod): void => {
    const now = Date.now() - t0;
    const m = milestones.get(p.metadata!.name!) ?? {};
    for (const [k, done] of Object.entries(reached(p)) as [keyof Milestones, boolean][]) if (done) m[k] ??= now;
    milestones.set(p.metadata!.name!, m);
  };
  pods.addHandlers({ onAdd: stamp, onUpdate: (_old, p) => stamp(p) });
  const watching = new AbortController();
  pods.start(watching.signal);
  await pods.waitForSync();
  const reconcileBefore = await operatorReconcileSeconds(sb);
  const load = loadavg()[0]!;
  t0 = Date.now();
  const c = await applyMariaDBExample(sb, nodes, namespace);
  await waitForClusterReady(sb.client, namespace, c.name, { timeoutMs: 600_000 });
  const readyMs = Date.now() - t0;
  const reconcileS = (await operatorReconcileSeconds(sb)) - reconcileBefore;
  watching.abort();
  await pods.stop();
  const ordered = [...milestones.entries()]
    .filter(([name]) => name.startsWith(`${c.name}-mysql-`))
    .sort(([a], [b]) => Number(a.split('-').pop()) - Number(b.split('-').pop()))
    .map(([, m]) => m);
  const pod0 = ordered[0] ?? {};
  const masterMs = Math.min(...ordered.map((m) => m.master ?? Infinity));
  const firstMasterS = pod0.master !== undefined ? (pod0.master - at(pod0, 'started')) / 1000 : NaN;
  await sb.client.delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace });
  await until(
    `namespace ${namespace} to be gone`,
    async () => ((await sb.client.getIfExists({ apiVersion: 'v1', kind: 'Namespace', name: namespace })) ? undefined : true),
    300_000,
  );
  return {
    nodes,
    readyS: readyMs / 1000,
    masterS: masterMs / 1000,
    firstMasterS,
    stretches: stretchesOf(ordered, readyMs),
    reconcileS,
    load,
  };
}

/** The `orchestrator` binary the kubelet would run, if PATH has one. */
function realOrchestrator(): string | undefined {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir !== '')
    .map((dir) => join(dir, 'orchestrator'))
    .find((f) => existsSync(f));
}

async function run(kind: string, orchestratorPath: string): Promise<Measure[]> {
  const sb = await startSandbox({ workDir: mkdtempSync(join(tmpdir(), 'bench-sandbox-ready-')), orchestratorPath });
  const results: Measure[] = [];
  try {
    await sb.ready;
    console.log(`${kind}: Orchestrator is ${await sb.orchestratorRunsAs()}`);
    for (const n of SIZES) {
      const m = await measure(sb, n);
      results.push(m);
      const parts = STRETCHES.map((k) => `${k} ${round(m.stretches[k])}`).join(', ');
      console.log(
        `${kind}, ${n} node(s): Ready in ${round(m.readyS)} s, first master ${round(m.masterS)} s after apply and ${round(m.firstMasterS)} s after pod 0's mysqld answered (load average ${m.load.toFixed(1)}); summed over pods: ${parts} s; operator reconciles ${round(m.reconcileS)} s`,
      );
    }
  } finally {
    await sb.stop();
  }
  return results;
}

const share = (r: Measure, ks: readonly Stretch[]): number =>
  Math.round((ks.reduce((a, k) => a + r.stretches[k], 0) / r.readyS) * 1000) / 1000;

function figuresOf(results: readonly Measure[], prefix: string): Record<string, number | null> {
  const figures: Record<string, number | null> = {};
  for (const n of [1, 3, 5]) {
    const r = results.find((x) => x.nodes === n);
    figures[`${prefix}ready_${n}_s`] = r ? round(r.readyS) : null;
    figures[`${prefix}master_${n}_s`] = r ? round(r.masterS) : null;
    figures[`${prefix}first_master_${n}_s`] = r && Number.isFinite(r.firstMasterS) ? round(r.firstMasterS) : null;
    for (const k of STRETCHES) figures[`${prefix}${k}_${n}_s`] = r ? round(r.stretches[k]) : null;
    figures[`${prefix}operator_share_${n}`] = r ? share(r, ['create', 'configure', 'cluster']) : null;
    figures[`${prefix}mysqld_share_${n}`] = r ? share(r, ['mysqld']) : null;
    figures[`${prefix}clone_share_${n}`] = r ? share(r, ['init']) : null;
    figures[`${prefix}reconcile_${n}_s`] = r ? round(r.reconcileS) : null;
    figures[`${prefix}load_${n}`] = r ? Math.round(r.load * 10) / 10 : null;
  }
  return figures;
}

const standIn = await run('stand-in', '');
const binary = realOrchestrator();
const real = binary ? await run(`real (${binary})`, process.env.PATH ?? '') : [];
const ready3 = (rs: readonly Measure[]) => rs.find((r) => r.nodes === 3)?.readyS;
const realRatio = real.length > 0 ? Math.round((ready3(real)! / ready3(standIn)!) * 100) / 100 : null;
console.log(
  JSON.stringify({
    bench: 'sandbox-ready',
    quick,
    real_orchestrator: binary !== undefined,
    ...figuresOf(standIn, ''),
    ...figuresOf(real, 'real_'),
    real_over_standin_ready_3: realRatio,
    ratio: Math.round((ready3(standIn)! / standIn.find((r) => r.nodes === 1)!.readyS) * 100) / 100,
  }),
);
