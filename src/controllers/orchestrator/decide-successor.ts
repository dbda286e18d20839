// The failover hook's fast path (docs/failover-hook.md "Successor fast path"): after a
// PostMasterFailover or PostGracefulTakeover call, its successor may carry role=master as soon as
// the servers themselves prove the promotion, without waiting for Orchestrator's /api/master to name
// it. The proof: the successor's server is writable and replicates from no one, and no other
// server of the cluster can take writes (each is read-only, unreachable, or its mysqld does not
// run). Anything less and the normal verdict (decide-master.ts) stands. The hook names the
// candidate, the servers decide; the signal is fresh for SUCCESSOR_WAIT_MS only, after which
// Orchestrator's view alone counts again.
import { HEALTHY, LABEL_HEALTHY, LABEL_ROLE, ORCHESTRATOR_REASONS, ROLE } from '../../api/constants.ts';
import type { InstanceKey } from '../../orchestrator/index.ts';
import type { PodView, RoleView } from '../../topology/index.ts';
import type { LabelPatch } from './decide-labels.ts';
import { hostPort } from './decide-hook.ts';
import { decideMaster, type MasterVerdict } from './decide-master.ts';
import { instanceKey, podNodes, roleLabel, sameInstance, type Gathered } from './gathered.ts';
import type { HookSignal } from './hook-signals.ts';

export interface SuccessorNode {
  pod: PodView;
  /** The pod's role label as cached. */
  role: string | undefined;
  /** What its server said this pass; null when it was not observed. */
  server: RoleView | null;
}

export type SuccessorProof = { kind: 'proven'; successor: SuccessorNode } | { kind: 'unproven'; message: string };

export type SuccessorDecision =
  /** No Post* call naming a successor, or the successor already carries role=master. */
  | { kind: 'none' }
  /** The servers do not prove the promotion (yet): the full pass decides as usual. */
  | { kind: 'wait'; message: string }
  /** Demotions first, the promotion last (labelRounds keeps that order). */
  | { kind: 'label'; successor: SuccessorNode; demoted: string[]; patches: LabelPatch[] };

function successorKey(hook: HookSignal | undefined): InstanceKey | undefined {
  if (hook === undefined || (hook.process !== 'PostMasterFailover' && hook.process !== 'PostGracefulTakeover')) return undefined;
  return hook.successor === undefined ? undefined : hostPort(hook.successor);
}

/** The pod a fresh Post* call names as the promoted instance, if it names one of these. */
export function hookSuccessor<N extends { pod: PodView }>(hook: HookSignal | undefined, nodes: readonly N[]): N | undefined {
  const key = successorKey(hook);
  return key === undefined ? undefined : nodes.find((n) => sameInstance(instanceKey(n.pod.fqdn), key));
}

/** A Post* call names a successor that does not carry role=master yet: worth a fast pass. */
export function successorPending(hook: HookSignal | undefined, nodes: ReadonlyArray<Pick<SuccessorNode, 'pod' | 'role'>>): boolean {
  return successorKey(hook) !== undefined && hookSuccessor(hook, nodes)?.role !== ROLE.master;
}

/**
 * Whether another server could still take writes. A pod whose mysqld runs but was not observed, or
 * answered with anything but a refused or timed-out connection (access denied, say), might.
 */
function mayTakeWrites(n: SuccessorNode): boolean {
  if (n.server === null) return n.pod.mysqlRunning;
  return n.server.reachable ? !n.server.readOnly : n.server.problem !== 'unreachable';
}

export function proveSuccessor(hook: HookSignal, nodes: readonly SuccessorNode[]): SuccessorProof {
  const successor = hookSuccessor(hook, nodes);
  const named = `${hook.process} hook's successor ${hook.successor ?? '(none)'}`;
  const unproven = (why: string): SuccessorProof => ({ kind: 'unproven', message: `the ${named} ${why}` });
  if (successor === undefined) return unproven('is not a pod of the cluster');
  if (successor.pod.deleting) return unproven('is being deleted');
  const s = successor.server;
  if (s === null) return unproven('was not observed');
  if (!s.reachable) return unproven(`does not answer: ${s.message}`);
  if (s.readOnly) return unproven('is read-only');
  if (s.replication !== null) return unproven(`replicates from ${s.replication.sourceHost}:${s.replication.sourcePort}`);
  const writable = nodes.filter((n) => n !== successor && mayTakeWrites(n)).map((n) => n.pod.name);
  if (writable.length > 0) return unproven(`is not the only server that may take writes: ${writable.join(', ')}`);
  return { kind: 'proven', successor };
}

/** The fast pass's decision: which labels to patch for the hook's successor, before Orchestrator is asked. */
export function decideSuccessor(hook: HookSignal | undefined, nodes: readonly SuccessorNode[]): SuccessorDecision {
  if (hook === undefined || !successorPending(hook, nodes)) return { kind: 'none' };
  const proof = proveSuccessor(hook, nodes);
  if (proof.kind === 'unproven') return { kind: 'wait', message: proof.message };
  const demoted = nodes.filter((n) => n !== proof.successor && n.role === ROLE.master).map((n) => n.pod.name);
  const patches: LabelPatch[] = [
    ...demoted.map((pod) => ({ pod, labels: { [LABEL_ROLE]: ROLE.replica, [LABEL_HEALTHY]: HEALTHY.no } })),
    { pod: proof.successor.pod.name, labels: { [LABEL_ROLE]: ROLE.master, [LABEL_HEALTHY]: HEALTHY.yes } },
  ];
  return { kind: 'label', successor: proof.successor, demoted, patches };
}

/**
 * The master the labels follow: decide-master's verdict, or, while that names none for another
 * reason than Orchestrator being unreachable (nothing is relabelled then), the successor of a fresh
 * Post* call the servers prove (so the full pass keeps what the fast pass labelled while
 * Orchestrator's answer lags behind its hook).
 */
export function masterVerdict(g: Gathered): MasterVerdict {
  const verdict = decideMaster(g);
  if (verdict.kind === 'master' || verdict.reason === ORCHESTRATOR_REASONS.orchestratorUnreachable || g.hook === undefined) return verdict;
  const nodes = podNodes(g);
  const proof = proveSuccessor(g.hook, nodes.map((n) => ({ pod: n.pod, role: roleLabel(n), server: n.server })));
  if (proof.kind === 'unproven') return verdict;
  return { kind: 'master', node: nodes.find((n) => n.pod.name === proof.successor.pod.name)! };
}

/** The labels name the hook's successor master while Orchestrator does not (yet). */
export function masterAheadOfOrchestrator(g: Gathered): boolean {
  return decideMaster(g).kind === 'none' && masterVerdict(g).kind === 'master';
}
