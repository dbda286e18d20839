// Which servers to make writable or read-only, through Orchestrator (set-writeable, set-read-only):
// every server but the master read-only, among them an old master that came back writable after a
// failover (docs/field-notes.md: nothing else closes that split brain); the master writable unless
// spec.readOnly, but only at bootstrap or after a promotion Orchestrator reports, and never while a
// takeover or a recovery is signalled: a freeze is Orchestrator's, the operator never undoes it.
import { ORCHESTRATOR_REASONS } from '../../api/constants.ts';
import type { InstanceKey } from '../../orchestrator/index.ts';
import { decideFailover } from './decide-failover.ts';
import { hookCandidate, masterAheadOfOrchestrator } from './decide-successor.ts';
import { checkedRecently, isOrchestratorMaster, podNodes, sameInstance, type Gathered, type PodNode } from './gathered.ts';

export interface ReadOnlyChange {
  key: InstanceKey;
  readOnly: boolean;
  /** The pod, when the instance is Orchestrator's master (the operator remembers freezing it for spec.readOnly). */
  master?: string;
}

export interface ReadOnlyHold {
  reason: string;
  message: string;
}

/** `held`: the master left read-only (a freeze the operator does not undo) beside the other changes. */
export type ReadOnlyDecision = { kind: 'change'; changes: ReadOnlyChange[]; held?: ReadOnlyHold } | ({ kind: 'hold' } & ReadOnlyHold);

/**
 * A master is made writable only on evidence that nobody froze it on purpose (issue 21: the
 * operator used to undo the freeze of a graceful takeover waiting for its designated replica):
 * - bootstrap: its server is read-only since its start (`configured` still 0: the init-file sets
 *   read_only=1 and configured=0 at every start, and the node controller marks a master configured
 *   only once it is writable), so the freeze is the init-file's;
 * - a promotion Orchestrator reports: its newest recovery ended by promoting this instance and is
 *   not acknowledged yet, or a fresh Post* hook call names it and Orchestrator agrees;
 * - the operator froze it itself for `spec.readOnly`, which is now off (`frozenBySpec`).
 * Orchestrator and its server must both say it replicates from no one.
 */
function mayWrite(g: Gathered, n: PodNode): boolean | { leave: string | undefined } {
  if (!isOrchestratorMaster(g, n)) return false;
  const s = n.server;
  if (n.instance?.master !== null || s === null || !s.reachable || s.replication !== null) return { leave: undefined };
  if (!s.readOnly || !s.configured || promotedByOrchestrator(g, n) || g.frozenBySpec === n.pod.name) return true;
  return {
    leave:
      `${n.pod.name} is Orchestrator's master and read-only, but not since its start and no promotion Orchestrator ` +
      'reported names it: it was frozen while it ran (a graceful takeover waiting for its replica, or one Orchestrator ' +
      'gave up), and the operator does not undo a freeze; a person makes it writable (orchestrator-client -c set-writeable) ' +
      'once no takeover runs',
  };
}

function promotedByOrchestrator(g: Gathered, n: PodNode): boolean {
  if (g.orchestrator.kind !== 'reachable') return false;
  const newest = g.orchestrator.recoveries[0];
  if (newest?.ended && newest.successful && !newest.acknowledged && newest.successor !== null && sameInstance(newest.successor, n.key))
    return true;
  const named = hookCandidate(g.hook);
  return named !== undefined && sameInstance(named.key, n.key);
}

/**
 * Only instances Orchestrator checked recently are touched (it performs the change, and an
 * instance it cannot reach would fail or act on a stale view); nothing during a failover, when
 * Orchestrator sets read_only itself. Read-only changes come first, the writable master last, so
 * at no step are two servers writable.
 */
export function decideReadOnly(g: Gathered): ReadOnlyDecision {
  const failover = decideFailover(g);
  if (g.orchestrator.kind === 'unreachable' || failover === undefined) {
    const message = g.orchestrator.kind === 'unreachable' ? g.orchestrator.message : '';
    return { kind: 'hold', reason: ORCHESTRATOR_REASONS.orchestratorUnreachable, message: `Orchestrator is unreachable: ${message}` };
  }
  if (failover.inProgress) return { kind: 'hold', reason: ORCHESTRATOR_REASONS.failoverInProgress, message: failover.message };
  // Orchestrator's master of a moment ago would be made writable under the promoted one.
  if (masterAheadOfOrchestrator(g)) {
    const message = `Orchestrator does not name the ${g.hook?.process} hook's successor ${g.hook?.successor} master yet`;
    return { kind: 'hold', reason: ORCHESTRATOR_REASONS.failoverInProgress, message };
  }

  const clusterReadOnly = g.cluster.spec?.readOnly === true;
  const toReadOnly: ReadOnlyChange[] = [];
  const toWritable: ReadOnlyChange[] = [];
  let held: ReadOnlyHold | undefined;
  for (const n of podNodes(g)) {
    if (n.instance === undefined || !checkedRecently(n.instance) || n.pod.deleting) continue;
    const writable = clusterReadOnly ? false : mayWrite(g, n);
    if (typeof writable !== 'boolean') {
      if (writable.leave !== undefined) held = { reason: ORCHESTRATOR_REASONS.masterFrozen, message: writable.leave };
      continue;
    }
    const current = n.server?.reachable ? n.server.readOnly : n.instance.readOnly;
    if (current === !writable) continue;
    (writable ? toWritable : toReadOnly).push({
      key: n.key,
      readOnly: !writable,
      ...(isOrchestratorMaster(g, n) ? { master: n.pod.name } : {}),
    });
  }
  return { kind: 'change', changes: [...toReadOnly, ...toWritable], ...(held ? { held } : {}) };
}
