// Semi-sync follows the role (docs/semi-sync.md): the master side on the master the pass labels,
// the replica side on every server that replicates. Pure; semi-sync-step.ts acts.
import { CLUSTER_REASONS, CONDITION_STATUS, type ConditionStatus } from '../../api/constants.ts';
import type { SemiSyncState, SemiSyncWanted } from '../../mysql/index.ts';
import type { ReplicationSettings } from '../shared/replication-mode.ts';
import type { MasterVerdict } from './decide-master.ts';
import type { PodNode } from './gathered.ts';

export interface SemiSyncTarget {
  node: PodNode;
  role: 'master' | 'replica';
  wanted: SemiSyncWanted;
}

export type SemiSyncDecision =
  /** An anchor-era cluster without spec.replication: its servers keep what they have. */
  { kind: 'unmanaged' } | { kind: 'set'; targets: SemiSyncTarget[]; master: PodNode | undefined };

export function decideSemiSync(settings: ReplicationSettings, verdict: MasterVerdict, nodes: readonly PodNode[]): SemiSyncDecision {
  if (settings.from === 'anchorDefault') return { kind: 'unmanaged' };
  const on = settings.mode === 'semiSync';
  const master = verdict.kind === 'master' && verdict.unanswered === undefined ? verdict.node : undefined;
  // The master side is turned on only once enough replicas replicate (their IO thread connected):
  // on a new cluster, before its first replica exists, a waiting commit (the heartbeat's) would
  // block the backup that clones that replica from the master. Once on, it stays on ('keep').
  const replicating = nodes.filter(
    (n) => n.pod.name !== master?.pod.name && n.server?.reachable === true && n.server.replication?.ioState === 'running',
  ).length;
  const masterSide: SemiSyncWanted['master'] = !on ? false : replicating >= settings.acks ? true : 'keep';
  const side = (role: 'master' | 'replica'): SemiSyncWanted => ({
    master: role === 'master' ? masterSide : false,
    replica: on && role === 'replica',
    acks: settings.acks,
    timeoutMs: settings.fallbackMs,
  });
  const targets: SemiSyncTarget[] = [];
  for (const node of nodes) {
    const s = node.server;
    if (s === null || !s.reachable || node.pod.deleting) continue;
    if (master !== undefined && node.pod.name === master.pod.name) targets.push({ node, role: 'master', wanted: side('master') });
    else if (s.replication !== null) targets.push({ node, role: 'replica', wanted: side('replica') });
  }
  return { kind: 'set', targets, master };
}

export interface SemiSyncCondition {
  status: ConditionStatus;
  reason: string;
  message: string;
  /** The master waits now (the metric). */
  waiting: boolean;
  waitSessions: number;
}

/**
 * The SemiSyncWaiting condition from what the master said after its settings were set. True
 * while commits wait (sessions waiting, or fewer semi-sync replicas connected than must
 * acknowledge): the price of losing nothing, said where the owner looks.
 */
export function semiSyncCondition(
  settings: ReplicationSettings,
  master: string | undefined,
  state: SemiSyncState | undefined,
): SemiSyncCondition {
  const none = { waiting: false, waitSessions: 0 };
  if (settings.mode !== 'semiSync') {
    return {
      ...none,
      status: CONDITION_STATUS.false,
      reason: CLUSTER_REASONS.semiSyncOff,
      message: 'replication is asynchronous: commits do not wait for replicas',
    };
  }
  if (master === undefined || state === undefined) {
    return { ...none, status: CONDITION_STATUS.unknown, reason: CLUSTER_REASONS.semiSyncOff, message: 'no master known this pass' };
  }
  if (state.masterEnabled && !state.masterActive && settings.fallbackMs !== undefined) {
    return {
      ...none,
      status: CONDITION_STATUS.false,
      reason: CLUSTER_REASONS.semiSyncFellBack,
      message: `${master} fell back to asynchronous replication after ${settings.fallbackMs / 1000}s without an acknowledgement: commits since are not on any replica when they return`,
    };
  }
  if (!state.masterEnabled) {
    return {
      ...none,
      status: CONDITION_STATUS.false,
      reason: CLUSTER_REASONS.semiSyncPending,
      message: `semi-sync starts on ${master} once ${settings.acks} replica(s) replicate; until then commits do not wait`,
    };
  }
  if (state.waitSessions > 0 || state.clients < settings.acks) {
    return {
      status: CONDITION_STATUS.true,
      reason: CLUSTER_REASONS.semiSyncNoAck,
      message: `commits on ${master} wait until ${settings.acks} replica(s) acknowledge; ${state.clients} semi-sync replica(s) connected (no fallback to async: this is the price of losing nothing)`,
      waiting: true,
      waitSessions: state.waitSessions,
    };
  }
  return {
    ...none,
    status: CONDITION_STATUS.false,
    reason: CLUSTER_REASONS.semiSyncAcknowledged,
    message: `${state.clients} replica(s) acknowledge the commits of ${master}`,
  };
}
