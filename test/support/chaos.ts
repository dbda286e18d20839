// The chaos scenarios of issue 22 (docs/failure-modes.md), used by test/e2e/chaos.test.ts and
// bench/chaos.ts: a 3-node cluster in a chosen replication mode, every pod's link delayed, clients
// writing through the master Service as root and as an application user, and one fault at a time
// with what it cost: time to the role move, write outage, acknowledged writes lost.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LABEL_CLUSTER, NODE_REASONS } from '../../src/api/constants.ts';
import { names } from '../../src/api/names.ts';
import { clusterView, waitForClusterReady, type ClusterView } from '../../sandbox/cluster-view.ts';
import type { Manifest } from '../../sandbox/examples.ts';
import type { Fault } from '../../sandbox/faults/pods.ts';
import { REPO, until, type Sandbox } from '../../sandbox/index.ts';
import type { MasterWatch } from './master-watch.ts';
import {
  applyExample,
  applyShopUser,
  killMysqld,
  serviceIP,
  setReplicas,
  sqlOnPod,
  sqlThroughService,
  type ExampleCluster,
  type ShopUser,
} from './sandbox.ts';
import { WritingClient } from './writing-client.ts';

export type ReplicationMode = 'async' | 'semiSync';
export const CHAOS_FAULTS = ['mysqld-kill', 'master-pod-loss', 'master-partition', 'switchover', 'replica-pod-loss'] as const;
export type ChaosFault = (typeof CHAOS_FAULTS)[number];

/**
 * The faults a run injects: CHAOS_ONLY (comma-separated names) narrows them, to look at one fault
 * closely; an unknown name is an error, not an empty run.
 */
export function chosenFaults(only = process.env.CHAOS_ONLY): readonly ChaosFault[] {
  if (!only) return CHAOS_FAULTS;
  const names = only.split(',').map((n) => n.trim());
  const unknown = names.filter((n) => !(CHAOS_FAULTS as readonly string[]).includes(n));
  if (unknown.length > 0) throw new Error(`CHAOS_ONLY names unknown faults: ${unknown.join(', ')} (known: ${CHAOS_FAULTS.join(', ')})`);
  return CHAOS_FAULTS.filter((f) => names.includes(f));
}

/**
 * Each pod's link to the other pods, each way (ms): binlog events reach a replica 2 × this after
 * they leave the master's server, while the client's acknowledgement (through the Service proxy on
 * the host, undelayed) is back at once; a master lost meanwhile takes them with it (its held
 * packets die with its delayer). A delay of the host's traffic too would hold the acknowledgements
 * as long as the events, and async would lose nothing (seen: 0 lost in a run delaying both).
 */
export const LINK_DELAY_MS = 50;
/** A write every 100 ms per client (each on a new connection through the proxy, as the failover test's). */
export const WRITE_EVERY_MS = 100;
const READY_MS = 300_000;

/**
 * Whether the installed CRD has `spec.replication.mode` (the semi-sync setting, branch
 * `semisync`). Without it the operator runs async replication only, which is the `async` mode.
 */
export function replicationFieldKnown(): boolean {
  return /\bsemiSync\b/.test(readFileSync(join(REPO, 'crds', 'mysqlclusters.mysql.presslabs.org.yaml'), 'utf8'));
}

/** Why a mode cannot run on this code, or false. */
export function modeSkip(mode: ReplicationMode): string | false {
  if (mode === 'semiSync' && !replicationFieldKnown()) return 'needs the semi-sync spec field spec.replication.mode (branch semisync)';
  return false;
}

/** The cluster spec's part choosing the mode: `spec.replication.mode` once the CRD has it. */
export function modeSpec(mode: ReplicationMode): Record<string, unknown> {
  if (replicationFieldKnown()) return { replication: { mode } };
  if (mode === 'async') return {}; // the only replication this code has
  throw new Error(modeSkip(mode) as string);
}

export interface ChaosLab {
  sb: Sandbox;
  c: ExampleCluster;
  shop: ShopUser;
  mode: ReplicationMode;
  table: string;
  /** The pods' uids whose link is delayed, with the fault. */
  delayed: Map<string, Fault>;
}

/** The example cluster at 3 nodes in `mode`, in its own namespace of `sb`, with the MysqlUser and the writes table. */
export async function startChaosCluster(sb: Sandbox, mode: ReplicationMode, namespace: string): Promise<ChaosLab> {
  await sb.kubectl(['create', 'namespace', namespace]);
  const c = (await applyExample(sb, 'mysqlcluster-mariadb.yaml', {
    namespace,
    edit: (docs: Manifest[]) => {
      setReplicas(docs, 3);
      for (const d of docs) if (d.kind === 'MysqlCluster') Object.assign(d.spec, modeSpec(mode));
    },
  }))!;
  const began = Date.now();
  await waitForClusterReady(sb.client, c.namespace, c.name, { timeoutMs: READY_MS });
  console.log(`chaos ${mode}: 3 nodes Ready ${((Date.now() - began) / 1000).toFixed(1)} s after apply`);
  const shop = await applyShopUser(sb, c);
  const table = `${shop.database}.writes`;
  // Retried: on a loaded machine a connect through the proxy may time out (mysql2's 3 s).
  await until(
    `${table} created through the master Service`,
    async () => {
      await sqlThroughService(sb, c, names.masterService(c.name), `CREATE TABLE IF NOT EXISTS ${table} (id INT PRIMARY KEY)`);
      return true;
    },
    120_000,
  );
  return { sb, c, shop, mode, table, delayed: new Map() };
}

/** Delays the link of every pod of the cluster not delayed yet (a pod made again has a new namespace). */
export async function delayEveryPod(lab: ChaosLab): Promise<void> {
  const pods = await lab.sb.client.list<{ metadata: { name: string; uid: string }; status?: { podIP?: string } }>(
    { apiVersion: 'v1', kind: 'Pod' },
    { namespace: lab.c.namespace, labelSelector: `${LABEL_CLUSTER}=${lab.c.name}` },
  );
  for (const p of pods.items) {
    if (lab.delayed.has(p.metadata.uid) || !p.status?.podIP) continue;
    lab.delayed.set(p.metadata.uid, await lab.sb.faults.delay(lab.c.namespace, p.metadata.name, LINK_DELAY_MS, { podsOnly: true }));
  }
}

export interface FaultOutcome {
  fault: ChaosFault;
  mode: ReplicationMode;
  target: string;
  /** Fault → role=master moved off the pod (the failover's detection and promotion); undefined when it did not move. */
  detectMs: number | undefined;
  /** Fault → the first write acknowledged through the master Service that began after it. */
  outageMs: number;
  acked: number;
  /** Acknowledged ids missing on the master once the cluster is Ready again. */
  lost: number[];
  /** What happened besides (a pod rebuilt for errant transactions, mysqld back in place). */
  notes: string[];
}

const events = async (lab: ChaosLab) =>
  (
    await lab.sb.client.list<{
      reason?: string;
      involvedObject?: { name?: string };
      lastTimestamp?: string;
      eventTime?: string;
      metadata: object;
    }>({ apiVersion: 'v1', kind: 'Event' }, { namespace: lab.c.namespace })
  ).items;

/**
 * Waits for the cluster to be Ready again. A pod the node controller holds out for errant
 * transactions (an async master cut off with commits no replica had) is rebuilt as a person
 * would: its claim and pod deleted. Says what it did.
 */
async function recover(lab: ChaosLab, since: number, notes: string[]): Promise<ClusterView> {
  const { sb, c } = lab;
  const rebuilt = new Set<string>();
  return until(
    `MysqlCluster ${c.namespace}/${c.name} Ready after the fault`,
    async () => {
      const v = await clusterView(sb.client, c.namespace, c.name);
      if (v.ready) return v;
      for (const e of await events(lab)) {
        const pod = e.involvedObject?.name;
        if (e.reason !== NODE_REASONS.errantTransactions || !pod || rebuilt.has(pod)) continue;
        if (Date.parse(e.lastTimestamp ?? e.eventTime ?? '') < since - 1000) continue;
        rebuilt.add(pod);
        notes.push(`${pod} held out for errant transactions: rebuilt (claim and pod deleted)`);
        const ordinal = Number(pod.slice(pod.lastIndexOf('-') + 1));
        await sb.kubectl(['delete', '-n', c.namespace, '--wait=false', `pvc/${names.pvc(c.name, ordinal)}`, `pod/${pod}`]);
      }
      return undefined;
    },
    READY_MS,
  );
}

/** Injects `fault`; resolves once it is in place (a partition: once undone, after the role moved or 30 s). */
async function inject(
  lab: ChaosLab,
  fault: ChaosFault,
  master: string,
  replica: string,
  watch: MasterWatch,
  notes: string[],
): Promise<{ at: number; target: string }> {
  const { sb, c } = lab;
  switch (fault) {
    case 'mysqld-kill':
      return { at: await killMysqld(sb, c.namespace, master), target: master };
    case 'master-pod-loss': {
      const at = Date.now();
      await sb.faults.losePod(c.namespace, master);
      return { at, target: master };
    }
    case 'replica-pod-loss': {
      const at = Date.now();
      await sb.faults.losePod(c.namespace, replica);
      return { at, target: replica };
    }
    case 'switchover': {
      // The operator's switchover: the master pod deleted gracefully, its preStop hands the role over.
      // The old master serves until the handover, so a write is acknowledged at once and the cluster
      // still says Ready: wait for the role to move, or the next fault starts from the old view (seen:
      // a replica-pod-loss that took the new master seconds after its promotion).
      const at = Date.now();
      const from = watch.masterChanges.length;
      const r = await sb.kubectl(['delete', 'pod', '-n', c.namespace, '--wait=false', master]);
      if (!r.ok) throw new Error(r.out);
      await until(
        'role=master to move off the deleted master',
        async () => (watch.masterChanges.slice(from).some((m) => m && m !== master) ? true : undefined),
        120_000,
      );
      return { at, target: master };
    }
    case 'master-partition': {
      const at = Date.now();
      const cut = await sb.faults.partition(c.namespace, master);
      const from = watch.masterChanges.length;
      try {
        await until(
          'role=master to move off the partitioned master',
          async () => (watch.masterChanges.slice(from).some((m) => m && m !== master) ? true : undefined),
          30_000,
        );
      } catch {
        notes.push('role=master did not move within 30 s of the partition');
      } finally {
        await cut.undo();
      }
      return { at, target: master };
    }
  }
}

/** One fault while both clients write; waits for the cluster to be Ready again and counts what was lost. */
export async function runFault(lab: ChaosLab, watch: MasterWatch, fault: ChaosFault, firstId: number): Promise<FaultOutcome> {
  const { sb, c } = lab;
  const view = await waitForClusterReady(sb.client, c.namespace, c.name, { timeoutMs: READY_MS });
  await delayEveryPod(lab);
  const master = view.master!;
  const replica = view.pods.map((p) => p.name).find((p) => p !== master)!;
  const host = await serviceIP(sb, c.namespace, names.masterService(c.name));
  // Generous give-up times: a write through the delayed links on a loaded machine takes seconds,
  // and one given up on while its INSERT commits is neither acknowledged nor a loss.
  const timeouts = { connectTimeoutMs: 10_000, queryTimeoutMs: 10_000 };
  const writers = [
    new WritingClient({ host, user: lab.shop.user, password: lab.shop.password, table: lab.table, ...timeouts }, firstId),
    new WritingClient({ host, user: 'root', password: c.rootPassword, table: lab.table, ...timeouts }, firstId + 500_000),
  ];
  const notes: string[] = [];
  let injected: { at: number; target: string };
  const changes = watch.masterChanges.length;
  for (const w of writers) w.start(WRITE_EVERY_MS);
  try {
    await until(
      'writes acknowledged through the master Service',
      async () => {
        if (writers.every((w) => w.acked().length > 0)) return true;
        throw new Error(writers.map((w) => `${w.records.length} writes, last error: ${w.failed().at(-1)?.error ?? 'none'}`).join('; '));
      },
      60_000,
    );
    injected = await inject(lab, fault, master, replica, watch, notes);
    const first = await until(
      'a write acknowledged through the master Service after the fault',
      async () => {
        const got = writers.map((w) => w.firstAckedAfter(injected.at)).filter((r) => r !== undefined);
        return got.length ? got.sort((a, b) => a.ackedAt! - b.ackedAt!)[0] : undefined;
      },
      180_000,
    );
    const outageMs = first.ackedAt! - injected.at;
    const resumed = Date.now();
    await until('both clients writing again', async () => (writers.every((w) => w.firstAckedAfter(resumed)) ? true : undefined), 120_000);
    for (const w of writers) await w.stop();
    const moved = watch.masterChanges.slice(changes).findIndex((m) => m !== master);
    const detectMs = moved < 0 ? undefined : watch.changedAt[changes + moved]! - injected.at;
    const after = await recover(lab, injected.at, notes);
    const acked = writers.flatMap((w) => w.acked());
    const ids = await until(
      `the ids on ${after.master}`,
      async () => sqlOnPod(sb, c, after.master!, `SELECT id FROM ${lab.table} WHERE id >= ${firstId} AND id < ${firstId + 1_000_000}`),
      60_000,
    );
    const rows = new Set(ids.map((r) => Number(r.id)));
    const lost = acked.filter((id) => !rows.has(id));
    return { fault, mode: lab.mode, target: injected.target, detectMs, outageMs, acked: acked.length, lost, notes };
  } finally {
    for (const w of writers) await w.stop();
  }
}

export function outcomeLine(o: FaultOutcome): string {
  const s = (ms: number | undefined) => (ms === undefined ? '-' : `${(ms / 1000).toFixed(2)} s`);
  return `chaos ${o.mode} ${o.fault} (${o.target}): role moved ${s(o.detectMs)}, write outage ${s(o.outageMs)}, ${o.acked} acknowledged, ${o.lost.length} lost${o.lost.length ? ` (${o.lost.slice(0, 10).join(', ')}${o.lost.length > 10 ? ', ...' : ''})` : ''}${o.notes.length ? `; ${o.notes.join('; ')}` : ''}`;
}
