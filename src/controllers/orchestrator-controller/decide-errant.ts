// Errant transactions, every pass (issue 21): each replica's GTID history compared with the
// master's (src/mysql extraGtids: MariaDB gtid_binlog_state per domain and server_id, the master's
// clone position counting as its history; MySQL gtid_executed as sets). A replica holding a
// transaction the master lacks forks the data the moment it serves reads or is promoted; it gets
// the node condition ErrantTransactions=True, which keeps it healthy=no (decide-labels.ts), and a
// Warning Event naming the GTIDs. docs/errant-transactions.md.
import { CONDITION_STATUS, LABEL_ROLE, NODE_CONDITION, ORCHESTRATOR_REASONS, ROLE, type ConditionStatus } from '../../api/constants.ts';
import { names } from '../../api/names.ts';
import { extraGtids } from '../../mysql/gtid-set.ts';
import type { GtidView } from '../../topology/index.ts';
import { decideFailover } from './decide-failover.ts';
import { decideMaster } from './decide-master.ts';
import { podNodes, type Gathered } from './gathered.ts';

export interface ErrantNode {
  pod: string;
  fqdn: string;
  /** What it holds that the master lacks, in the server's notation. */
  gtids: string[];
  message: string;
}

export interface ErrantDecision {
  /**
   * The node condition ErrantTransactions by FQDN: compared this pass, else what the cached status
   * said (errant transactions do not go away by themselves); a node never compared is absent.
   */
  status: ReadonlyMap<string, ConditionStatus>;
  /** The replicas found holding transactions the master lacks this pass. */
  errant: ErrantNode[];
  /**
   * Some replica holds a transaction the master's view lacks, but that view was read before the
   * replica's: re-read the master's (Gathered.gtids.readLast) and decide again before calling it errant.
   */
  confirm?: string;
  /** Why nothing was compared this pass (the cached verdicts stand). */
  unchecked?: string;
}

type ReachableGtid = Extract<GtidView, { reachable: true }>;

function cachedStatus(g: Gathered): Map<string, ConditionStatus> {
  const out = new Map<string, ConditionStatus>();
  for (const n of g.cluster.status?.nodes ?? []) {
    const c = n.conditions?.find((x) => x.type === NODE_CONDITION.errantTransactions);
    if (c !== undefined) out.set(n.name, c.status);
  }
  return out;
}

function view(g: Gathered, pod: string): ReachableGtid | undefined {
  const v = g.gtids?.views.find((x) => x.pod === pod)?.gtid;
  return v?.reachable ? v : undefined;
}

/** Compares every observed replica with the master decide-master names; pure. */
export function decideErrant(g: Gathered): ErrantDecision {
  const status = cachedStatus(g);
  const unchecked = (why: string): ErrantDecision => ({ status, errant: [], unchecked: why });
  if (g.gtids === undefined) return unchecked('the GTID histories were not read');
  const failover = decideFailover(g);
  if (failover === undefined) return unchecked('Orchestrator is unreachable');
  if (failover.inProgress) return unchecked(`a failover is in progress: ${failover.message}`);
  const verdict = decideMaster(g);
  if (verdict.kind === 'none') return unchecked(verdict.message);
  const masterPod = verdict.node.pod;
  const master = view(g, masterPod.name);
  if (master === undefined) return unchecked(`the GTID history of the master ${masterPod.name} was not read`);

  const errant: ErrantNode[] = [];
  let confirm: string | undefined;
  status.set(masterPod.fqdn, CONDITION_STATUS.false);
  for (const n of podNodes(g)) {
    if (n.pod.name === masterPod.name) continue;
    const replica = view(g, n.pod.name);
    if (replica === undefined || replica.family !== master.family) continue;
    const gtids = extraGtids(replica.family, replica.gtidHistory, master.gtidHistory, master.backupGtidPurged ?? '');
    if (gtids.length === 0) {
      status.set(n.pod.fqdn, CONDITION_STATUS.false);
      continue;
    }
    if (g.gtids.readLast !== masterPod.name) {
      confirm = masterPod.name;
      continue;
    }
    status.set(n.pod.fqdn, CONDITION_STATUS.true);
    const message =
      `${n.pod.name} holds transactions the master ${masterPod.name} lacks: ${gtids.join(', ')}; it is labelled healthy=no ` +
      '(out of the read Services); remove them or rebuild the pod from a fresh clone (spec.rebuildErrantReplicas does it)';
    errant.push({ pod: n.pod.name, fqdn: n.pod.fqdn, gtids, message });
  }
  return { status, errant, ...(confirm !== undefined ? { confirm } : {}) };
}

/** Reason of the Warning Event for an errant replica (the node condition carries no reason). */
export const ERRANT_REASON = ORCHESTRATOR_REASONS.errantTransactions;

export type RebuildDecision =
  | { kind: 'none' }
  /** Delete the data claim, then the pod (guarded by its uid): the StatefulSet makes both again and the init container clones. */
  | { kind: 'rebuild'; pod: string; uid: string | undefined; claim: string; message: string }
  | { kind: 'hold'; reason: typeof ORCHESTRATOR_REASONS.errantTransactions; message: string };

/**
 * spec.rebuildErrantReplicas: which errant replica to rebuild from a fresh clone this pass, or why
 * none. One pod at a time, only while every pod of the cluster runs (a rebuild in progress holds
 * the next), only on errant transactions found this pass (not a carried verdict), only while the
 * master pod carries role=master (the master Service, a clone source, routes to it), and never
 * pod 0: its init container starts it empty when no clone source answers (decide-clone-source.ts),
 * and its claim is never deleted (as on scale-down).
 */
export function decideRebuild(g: Gathered, d: ErrantDecision): RebuildDecision {
  if (g.cluster.spec?.rebuildErrantReplicas !== true || d.errant.length === 0) return { kind: 'none' };
  const hold = (why: string): RebuildDecision => ({
    kind: 'hold',
    reason: ORCHESTRATOR_REASONS.errantTransactions,
    message: `errant ${d.errant.map((e) => e.pod).join(', ')} not rebuilt: ${why}`,
  });
  const nodes = podNodes(g);
  const notRunning = nodes.filter((n) => n.pod.deleting || !n.pod.mysqlRunning).map((n) => n.pod.name);
  if (notRunning.length > 0) return hold(`${notRunning.join(', ')} is not running (one pod at a time)`);
  if (nodes.length < (g.cluster.spec?.replicas ?? 1))
    return hold(`${nodes.length} of ${g.cluster.spec?.replicas} pods exist (one pod at a time)`);
  const verdict = decideMaster(g);
  if (verdict.kind !== 'master' || verdict.node.labels[LABEL_ROLE] !== ROLE.master)
    return hold('the master is not labelled yet (no clone source)');
  const target = nodes.find((n) => n.pod.ordinal !== 0 && d.errant.some((e) => e.pod === n.pod.name));
  const errant = d.errant.find((e) => e.pod === target?.pod.name);
  if (target === undefined || errant === undefined)
    return hold('pod 0 is never rebuilt by the operator (it may start empty); rebuild it by hand');
  const raw = g.pods.find((p) => p.metadata?.name === target.pod.name);
  const claim = names.pvc(g.cluster.metadata?.name ?? '', target.pod.ordinal);
  return {
    kind: 'rebuild',
    pod: target.pod.name,
    uid: raw?.metadata?.uid,
    claim,
    message:
      `${target.pod.name} rebuilt from a fresh clone (spec.rebuildErrantReplicas): PVC ${claim} and the pod deleted, ` +
      `discarding the transactions the master ${verdict.node.pod.name} lacks: ${errant.gtids.join(', ')}`,
  };
}
