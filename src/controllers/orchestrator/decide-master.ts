// Which pod may carry role=master: Orchestrator's master, cross-checked with what its server says
// about itself this pass. When the two disagree no pod is the master (DESIGN.md §3: never two
// role=master, and never one on a server that would refuse writes or replicates from another).
import { ORCHESTRATOR_REASONS } from '../../api/constants.ts';
import { isOrchestratorMaster, keyName, podNodes, type Gathered, type PodNode } from './gathered.ts';

export type MasterVerdict =
  | { kind: 'master'; node: PodNode }
  | {
      kind: 'none';
      reason: typeof ORCHESTRATOR_REASONS.orchestratorUnreachable | typeof ORCHESTRATOR_REASONS.noMaster | typeof ORCHESTRATOR_REASONS.masterDisagreement;
      message: string;
    };

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
  if (!s.reachable) return disagree(`does not answer: ${s.message}`);
  if (s.replication !== null) return disagree(`replicates from ${s.replication.sourceHost}:${s.replication.sourcePort}`);
  if (s.readOnly && g.cluster.spec?.readOnly !== true) return disagree('is read-only');
  return { kind: 'master', node };
}
