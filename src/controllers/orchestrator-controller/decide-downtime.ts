// Which lost-in-recovery downtimes to end in Orchestrator (end-downtime). A recovery downtimes the
// master it failed over from, and a graceful takeover the one it demoted, as `lost-in-recovery`,
// renewed for as long as Orchestrator thinks it lost. While downtimed, that server's own failure is
// never recovered once it is promoted again (a downtimed master's analysis is skipped), and the
// stand-in does not promote it at all; Orchestrator 3.2.6 ends it by itself only in a once-a-minute
// pass, and only a minute after it began. The operator knows sooner: once the old master is a
// healthy replica of the master, the downtime has nothing left to protect.
//
// Only that downtime, by its reason: never a backup's (`backup <ns>/<name>`, ended by the backup
// controller when its Job ends) nor one a person began for maintenance.
import { ORCHESTRATOR_REASONS } from '../../api/constants.ts';
import type { NodeStatus } from '../../api/index.ts';
import { DOWNTIME_LOST_IN_RECOVERY, type InstanceKey } from '../../orchestrator/index.ts';
import { decideFailover } from './decide-failover.ts';
import { healthyReplica } from './decide-labels.ts';
import { decideMaster } from './decide-master.ts';
import { checkedRecently, isOrchestratorMaster, keyName, podNodes, sameInstance, type Gathered, type PodNode } from './gathered.ts';

export interface DowntimeEnd {
  key: InstanceKey;
  /** Why it may end, for the Event. */
  message: string;
}

export interface DowntimeDecision {
  end: DowntimeEnd[];
  /** Why a lost-in-recovery downtime stays, for the hold Event. */
  held?: { reason: string; message: string };
}

const lostInRecovery = (n: PodNode): boolean => n.instance?.downtimed === true && n.instance.downtimeReason === DOWNTIME_LOST_IN_RECOVERY;

/**
 * What `n` is now that the downtime no longer protects: the master (promoted again while still
 * downtimed, say by a takeover back: its failure would go unrecovered) or a healthy replica of
 * Orchestrator's master `master`. Else why it is not yet either.
 */
function rejoined(g: Gathered, n: PodNode, nodes: readonly NodeStatus[], master: InstanceKey): { ok: string } | { not: string } {
  const i = n.instance!;
  if (isOrchestratorMaster(g, n)) {
    const verdict = decideMaster(g);
    return verdict.kind === 'master' && verdict.node.pod.name === n.pod.name
      ? { ok: 'is the master' }
      : { not: "Orchestrator's master, but its server disagrees" };
  }
  if (!checkedRecently(i)) return { not: 'Orchestrator has not checked it recently' };
  if (i.master === null || !sameInstance(i.master, master))
    return { not: `Orchestrator does not see it replicating from ${keyName(master)}` };
  if (!healthyReplica(n, nodes)) return { not: 'not yet replicating, caught up and read-only' };
  return { ok: `replicates from ${keyName(master)}, caught up and read-only` };
}

/**
 * `nodes` is the status.nodes decided this pass, so "healthy" here is what the `healthy` label
 * says. Nothing while Orchestrator is unreachable or failing over: it moves the topology itself
 * then, and a downtime ended under a recovery could let it recover the old master a second time.
 */
export function decideDowntime(g: Gathered, nodes: readonly NodeStatus[]): DowntimeDecision {
  const orc = g.orchestrator;
  if (orc.kind === 'unreachable') return { end: [] };
  const downtimed = podNodes(g).filter(lostInRecovery);
  if (downtimed.length === 0) return { end: [] };
  const failover = decideFailover(g);
  if (failover?.inProgress) return { end: [], held: { reason: ORCHESTRATOR_REASONS.failoverInProgress, message: failover.message } };
  // The labels' NoMaster Warning already says it; one about the downtime would only repeat it.
  if (orc.master === null) return { end: [] };
  const master = orc.master.key;

  const end: DowntimeEnd[] = [];
  const waiting: string[] = [];
  for (const n of downtimed) {
    const r = rejoined(g, n, nodes, master);
    if ('ok' in r)
      end.push({ key: n.key, message: `${keyName(n.key)} ${r.ok}: its ${DOWNTIME_LOST_IN_RECOVERY} downtime ended in Orchestrator` });
    else waiting.push(`${keyName(n.key)} (${r.not})`);
  }
  if (waiting.length === 0) return { end };
  const message = `Orchestrator keeps ${waiting.join(', ')} downtimed as ${DOWNTIME_LOST_IN_RECOVERY} until it is a healthy replica of ${keyName(master)}`;
  return { end, held: { reason: ORCHESTRATOR_REASONS.rejoinPending, message } };
}
