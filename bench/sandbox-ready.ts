// Benchmark of the sandbox (issue 13): seconds from `kubectl apply` of the MariaDB example to the
// cluster Ready (Ready=True and one pod labelled master) for 1, 3 and 5 nodes (--quick: 1 and 3),
// on one sandbox started once (its own start-up is left out), each size in a namespace of its own,
// deleted before the next size.
// Where the time goes, per size, from the kubelet's container timestamps and the operator's metrics
// (second resolution, as the API gives them):
//   schedule_s         sum over pods of pod created → first init container started: volume
//                      binding, scheduling and the kubelet's start of the pod;
//   init_s             sum over pods of the init containers' run time (clone-and-init, the
//                      install-db of mysql-init-only): the clone and the data directory;
//   start_to_ready_s   sum over pods of mysql container start → pod Ready, split into
//   start_to_configured_s  mysql start → NodeInitialized=True: mysqld's start (the image's
//                      first-start initialisation on a new data directory) and the node
//                      controller's configure step, and
//   configured_to_ready_s  NodeInitialized=True → pod Ready: the wait for the readiness probe;
//   reconcile_s        the operator's reconcile time in the window (controller_reconcile_duration_seconds).
// Headline ratio: ready_3_s / ready_1_s (1.0 = a 3-node cluster is as quick as a single server;
// pods start one after the other, OrderedReady, so about 3 is what serial starts cost).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { LABEL_CLUSTER, POD_CONDITION_NODE_INITIALIZED } from '../src/api/constants.ts';
import { waitForClusterReady } from '../sandbox/cluster-view.ts';
import { RELEASE, startSandbox, until, type Sandbox } from '../sandbox/index.ts';
import { applyMariaDBExample } from '../test/support/sandbox.ts';

const quick = process.argv.includes('--quick');
const SIZES = quick ? [1, 3] : [1, 3, 5];

interface Measure {
  nodes: number;
  readyS: number;
  scheduleS: number;
  initS: number;
  startToReadyS: number;
  startToConfiguredS: number;
  configuredToReadyS: number;
  reconcileS: number;
}

const seconds = (from?: Date | string, to?: Date | string): number => (from && to ? (new Date(to).getTime() - new Date(from).getTime()) / 1000 : 0);
const round = (x: number): number => Math.round(x * 10) / 10;

async function operatorReconcileSeconds(sb: Sandbox): Promise<number> {
  const svc = await sb.client.get<{ spec: { clusterIP: string; ports: { port: number }[] } } & { metadata: object }>({
    apiVersion: 'v1', kind: 'Service', namespace: RELEASE.namespace, name: `${RELEASE.name}-operator`,
  });
  const text = await (await fetch(`http://${svc.spec.clusterIP}:${svc.spec.ports[0]!.port}/metrics`)).text();
  return [...text.matchAll(/^controller_reconcile_duration_seconds_sum\{[^}]*\} (\S+)$/gm)].reduce((s, m) => s + Number(m[1]), 0);
}

async function measure(sb: Sandbox, nodes: number): Promise<Measure> {
  const namespace = `bench-${nodes}`;
  const ns = await sb.kubectl(['apply', '-f', '-'], `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  if (!ns.ok) throw new Error(ns.out);
  const reconcileBefore = await operatorReconcileSeconds(sb);
  const t0 = Date.now();
  const c = await applyMariaDBExample(sb, nodes, namespace);
  await waitForClusterReady(sb.client, namespace, c.name, { timeoutMs: 600_000 });
  const readyS = (Date.now() - t0) / 1000;
  const reconcileS = (await operatorReconcileSeconds(sb)) - reconcileBefore;
  const pods = (await sb.client.list<V1Pod & { metadata: object }>({ apiVersion: 'v1', kind: 'Pod' }, { namespace, labelSelector: `${LABEL_CLUSTER}=${c.name}` })).items;
  let scheduleS = 0;
  let initS = 0;
  let startToReadyS = 0;
  let startToConfiguredS = 0;
  let configuredToReadyS = 0;
  for (const p of pods) {
    const inits = p.status?.initContainerStatuses ?? [];
    scheduleS += seconds(p.metadata?.creationTimestamp, inits[0]?.state?.terminated?.startedAt);
    for (const s of inits) initS += seconds(s.state?.terminated?.startedAt, s.state?.terminated?.finishedAt);
    const started = p.status?.containerStatuses?.find((s) => s.name === 'mysql')?.state?.running?.startedAt;
    const condition = (type: string) => p.status?.conditions?.find((x) => x.type === type && x.status === 'True')?.lastTransitionTime;
    const configured = condition(POD_CONDITION_NODE_INITIALIZED);
    const ready = condition('Ready');
    startToReadyS += seconds(started, ready);
    startToConfiguredS += seconds(started, configured);
    configuredToReadyS += seconds(configured, ready);
  }
  await sb.client.delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace });
  await until(`namespace ${namespace} to be gone`, async () => (await sb.client.getIfExists({ apiVersion: 'v1', kind: 'Namespace', name: namespace })) ? undefined : true, 300_000);
  return { nodes, readyS, scheduleS, initS, startToReadyS, startToConfiguredS, configuredToReadyS, reconcileS };
}

const sb = await startSandbox({ workDir: mkdtempSync(join(tmpdir(), 'bench-sandbox-ready-')) });
const results: Measure[] = [];
try {
  await sb.ready;
  for (const n of SIZES) {
    const m = await measure(sb, n);
    results.push(m);
    console.log(
      `${n} node(s): Ready in ${round(m.readyS)} s; summed over pods: created → init ${round(m.scheduleS)} s, init containers ${round(m.initS)} s, ` +
        `mysql start → Ready ${round(m.startToReadyS)} s (→ configured ${round(m.startToConfiguredS)} s, → Ready ${round(m.configuredToReadyS)} s); operator reconciles ${round(m.reconcileS)} s`,
    );
  }
} finally {
  await sb.stop();
}
const by = (n: number) => results.find((r) => r.nodes === n);
const figures: Record<string, number | boolean | null> = { quick };
for (const n of [1, 3, 5]) {
  const r = by(n);
  figures[`ready_${n}_s`] = r ? round(r.readyS) : null;
  figures[`schedule_${n}_s`] = r ? round(r.scheduleS) : null;
  figures[`init_${n}_s`] = r ? round(r.initS) : null;
  figures[`start_to_ready_${n}_s`] = r ? round(r.startToReadyS) : null;
  figures[`start_to_configured_${n}_s`] = r ? round(r.startToConfiguredS) : null;
  figures[`configured_to_ready_${n}_s`] = r ? round(r.configuredToReadyS) : null;
  figures[`reconcile_${n}_s`] = r ? round(r.reconcileS) : null;
  figures[`reconcile_share_${n}`] = r ? Math.round((r.reconcileS / r.readyS) * 1000) / 1000 : null;
}
console.log(JSON.stringify({ bench: 'sandbox-ready', ...figures, ratio: Math.round((by(3)!.readyS / by(1)!.readyS) * 100) / 100 }));
