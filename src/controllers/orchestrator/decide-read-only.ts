// Which servers to make writable or read-only, through Orchestrator (set-writeable, set-read-only):
// the master writable unless spec.readOnly, every other server read-only, among them an old master
// that came back writable after a failover (FIELD-NOTES.md: nothing else closes that split brain).
import { ORCHESTRATOR_REASONS } from '../../api/constants.ts';
import type { InstanceKey } from '../../orchestrator/index.ts';
import { decideFailover } from './decide-failover.ts';
import { masterAheadOfOrchestrator } from './decide-successor.ts';
import { checkedRecently, isOrchestratorMaster, podNodes, type Gathered, type PodNode } from './gathered.ts';

export interface ReadOnlyChange {
  key: InstanceKey;
  readOnly: boolean;
}

export type ReadOnlyDecision = { kind: 'change'; changes: ReadOnlyChange[] } | { kind: 'hold'; reason: string; message: string };

/**
 * The master may be made writable only when Orchestrator and its server both say it replicates
 * from no one; otherwise it is left as it is until they agree.
 */
function mayWrite(g: Gathered, n: PodNode): boolean | undefined {
  if (!isOrchestratorMaster(g, n)) return false;
  const notReplica = n.instance?.master === null && (n.server === null || !n.server.reachable || n.server.replication === null);
  return notReplica ? true : undefined;
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
  for (const n of podNodes(g)) {
    if (n.instance === undefined || !checkedRecently(n.instance) || n.pod.deleting) continue;
    const writable = clusterReadOnly ? false : mayWrite(g, n);
    if (writable === undefined) continue;
    const current = n.server?.reachable ? n.server.readOnly : n.instance.readOnly;
    if (current === !writable) continue;
    (writable ? toWritable : toReadOnly).push({ key: n.key, readOnly: !writable });
  }
  return { kind: 'change', changes: [...toReadOnly, ...toWritable] };
}
