// Which pod may carry role=master: Orchestrator's master, cross-checked with what its server says
// about itself this pass. When the two disagree no pod is the master (docs/architecture.md §3: never two
// role=master, and never one on a server that would refuse writes or replicates from another).
import { ORCHESTRATOR_REASONS } from '../../api/constants.ts';
import type { Instance } from '../../orchestrator/index.ts';
import { decideFailover } from './decide-failover.ts';
import { checkedRecently, isOrchestratorMaster, keyName, podNodes, sameInstance, type Gathered, type PodNode } from './gathered.ts';

export type MasterVerdict =
  | {
      kind: 'master';
      node: PodNode;
      /** Its server did not answer this pass (the error); kept on Orchestrator's word (keepUnanswered). */
      unanswered?: string;
    }
  | {
      kind: 'none';
      reason:
        | typeof ORCHESTRATOR_REASONS.orchestratorUnreachable
        | typeof ORCHESTRATOR_REASONS.noMaster
        | typeof ORCHESTRATOR_REASONS.masterDisagreement;
      message: string;
    };

/**
 * How old Orchestrator's last good check of the master may be for its word to stand in for the
 * server's: a few of its polls (the chart's InstancePollSeconds 1, a check every ~2 s). Its own
 * IsRecentlyChecked allows five poll periods, and its times are stored to the second.
 */
export const MASTER_SEEN_WITHIN_MS = 10_000;

/** Orchestrator's analyses of a master it cannot reach (DeadMaster*, UnreachableMaster*). */
const MASTER_DOWN = /^(Dead|Unreachable)Master/;

export function decideMaster(g: Gathered): MasterVerdict {
  const orc = g.orchestrator;
  if (orc.kind === 'unreachable') {
    return { kind: 'none', reason: ORCHESTRATOR_REASONS.orchestratorUnreachable, message: `Orchestrator is unreachable: ${orc.message}` };
  }
  if (orc.master === null) {
    return { kind: 'none', reason: ORCHESTRATOR_REASONS.noMaster, message: 'Orchestrator knows no master for the cluster' };
  }
  const orcMaster = keyName(orc.master.key);
  const node = podNodes(g).find((n) => isOrchestratorMaster(g, n));
  const disagree = (why: string): MasterVerdict => ({
    kind: 'none',
    reason: ORCHESTRATOR_REASONS.masterDisagreement,
    message: `Orchestrator's master ${orcMaster} ${why}`,
  });
  if (node === undefined) return disagree('is not a pod of the cluster');
  if (node.pod.deleting) return disagree('is being deleted');
  const s = node.server;
  if (s === null) return disagree('was not observed: its pod is not running');
  if (!s.reachable) {
    // Only a server that did not answer at all: one that refused our login or failed a read did answer.
    const veto = s.problem === 'unreachable' ? unansweredVeto(g, node, orc.master) : '';
    if (veto === undefined) return { kind: 'master', node, unanswered: s.message };
    return disagree(`does not answer: ${s.message}${veto ? `, ${veto}` : ''}`);
  }
  if (s.replication !== null) return disagree(`replicates from ${s.replication.sourceHost}:${s.replication.sourcePort}`);
  if (s.readOnly && g.cluster.spec?.readOnly !== true) return disagree('is read-only');
  return { kind: 'master', node };
}

/**
 * One pass whose connection to the master failed (a connect timeout on a loaded node, a name
 * lookup stuck behind others: docs/switchover.md) is not a dead master: taking the label off empties the master
 * Service until the next pass, seconds of refused writes for nothing. The label stays on
 * Orchestrator's word alone when that word is fresh and clean, no failover is under way, no other
 * server claims to be writable (so never two masters), and the previous pass did not miss it too.
 * Returns why the label may not stay, or undefined when it may.
 */
function unansweredVeto(g: Gathered, master: PodNode, said: Instance): string | undefined {
  if (g.masterUnansweredBefore === master.pod.name) return 'and did not answer the pass before either';
  const i = master.instance ?? said;
  if (!checkedRecently(i)) return "and Orchestrator's last check of it failed too";
  if (i.lastSeen === null || g.now.getTime() - i.lastSeen.getTime() > MASTER_SEEN_WITHIN_MS) {
    return `and Orchestrator last saw it at ${i.lastSeen?.toISOString() ?? 'no time'}`;
  }
  if (i.problems.length > 0) return `and Orchestrator sees ${i.problems.join(', ')}`;
  if (i.master !== null) return `and Orchestrator says it replicates from ${keyName(i.master)}`;
  if (i.readOnly && g.cluster.spec?.readOnly !== true) return 'and Orchestrator says it is read-only';
  const orc = g.orchestrator;
  const about =
    orc.kind === 'reachable'
      ? orc.analysis.filter((a) => sameInstance(a.instance, i.key) && MASTER_DOWN.test(a.analysis)).map((a) => a.analysis)
      : [];
  if (about.length > 0) return `and Orchestrator's analysis says ${about.join(', ')}`;
  if (decideFailover(g)?.inProgress !== false) return 'and Orchestrator is failing it over';
  const writable = podNodes(g)
    .filter((n) => n.pod.name !== master.pod.name && claimsWritable(n))
    .map((n) => n.pod.name);
  if (writable.length > 0) return `and ${writable.join(', ')} ${writable.length > 1 ? 'are' : 'is'} writable`;
  return undefined;
}

/** The server said so this pass, or, unanswered, Orchestrator's recent check did. */
function claimsWritable(n: PodNode): boolean {
  if (n.server?.reachable) return !n.server.readOnly;
  return n.instance !== undefined && checkedRecently(n.instance) && !n.instance.readOnly;
}
