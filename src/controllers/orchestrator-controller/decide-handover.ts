// A master whose pod a scale-down removes is handed over first, to a replica that stays
// (docs/switchover.md, "Scale-down"). The preStop of the master's pod asks Orchestrator for an
// `-auto` takeover, whose target is Orchestrator's choice: often a pod the same scale-down removes
// next, so the master moves twice, and a second takeover that fails (its pod stopping, the
// operator restarting) leaves the cluster with no master until Orchestrator's recovery block
// expires. So the operator names the target itself: the replica that stays, replicates from the
// master without a problem and is the least behind. The cluster controller keeps the StatefulSet
// at its size meanwhile (src/controllers/cluster/decide-scale-down.ts).
import { ORCHESTRATOR_REASONS } from '../../api/constants.ts';
import type { InstanceKey } from '../../orchestrator/index.ts';
import { decideFailover } from './decide-failover.ts';
import type { MasterVerdict } from './decide-master.ts';
import { checkedRecently, keyName, podNodes, sameInstance, type Gathered, type PodNode } from './gathered.ts';

export type HandoverDecision =
  /** The master's pod stays (or nothing stays: a scale to 0). */
  | { kind: 'none' }
  | { kind: 'hold'; reason: string; message: string }
  /** Ask Orchestrator for a graceful takeover to `designated`. */
  | { kind: 'takeover'; from: string; designated: InstanceKey; to: string; message: string };

/** A replica of the master that stays, as a takeover target: Orchestrator's fresh view and its own server agree. */
function candidateProblem(n: PodNode, master: InstanceKey): string | undefined {
  const i = n.instance;
  if (n.pod.deleting || !n.pod.mysqlRunning) return 'its pod is not running';
  if (i === undefined) return 'Orchestrator does not know it';
  if (!checkedRecently(i)) return "Orchestrator's last check of it failed";
  if (i.master === null || !sameInstance(i.master, master)) return 'it does not replicate from the master';
  if (!i.ioThreadRunning || !i.sqlThreadRunning) return 'its replication is not running';
  if (i.downtimed) return 'it is downtimed';
  if (n.server === null || !n.server.reachable) return 'its server did not answer';
  return undefined;
}

export function decideHandover(g: Gathered, verdict: MasterVerdict): HandoverDecision {
  const replicas = g.cluster.spec?.replicas ?? 1;
  if (verdict.kind !== 'master' || replicas < 1 || verdict.node.pod.ordinal < replicas) return { kind: 'none' };
  const master = verdict.node;
  const why = `the master ${master.pod.name} is at ordinal ${master.pod.ordinal}, which spec.replicas ${replicas} removes`;
  const failover = decideFailover(g);
  if (failover?.inProgress) return { kind: 'hold', reason: ORCHESTRATOR_REASONS.failoverInProgress, message: failover.message };
  const staying = podNodes(g).filter((n) => n.pod.ordinal < replicas);
  const problems = staying.map((n) => ({ n, problem: candidateProblem(n, master.key) }));
  const fit = problems.filter((p) => p.problem === undefined).map((p) => p.n);
  if (fit.length === 0) {
    const said = problems.map((p) => `${p.n.pod.name}: ${p.problem}`).join('; ');
    return {
      kind: 'hold',
      reason: ORCHESTRATOR_REASONS.noHandoverCandidate,
      message: `${why}, and no pod that stays can take it over${said ? ` (${said})` : ''}`,
    };
  }
  const lag = (n: PodNode): number => n.instance?.lagSeconds ?? Number.MAX_SAFE_INTEGER;
  const best = [...fit].sort((a, b) => lag(a) - lag(b) || a.pod.ordinal - b.pod.ordinal)[0]!;
  return {
    kind: 'takeover',
    from: master.pod.name,
    designated: best.key,
    to: best.pod.name,
    message: `${why}: Orchestrator hands it over to ${best.pod.name} (${keyName(best.key)}) before the StatefulSet shrinks`,
  };
}
