// The failover hook's fast path (docs/failover-hook.md "Successor fast path"): while a failover
// hook call is fresh, the promoted instance may carry role=master as soon as the servers
// themselves prove the promotion. The candidate is the successor a PostMasterFailover or
// PostGracefulTakeover call names (without waiting for Orchestrator's /api/master to name it too),
// or, after a PreFailover call, whichever instance /api/master names (the Post* call comes 0.1-0.3 s
// after the promotion: a shell and curl spawned by Orchestrator). The proof: the candidate's
// server is writable and replicates from no one, and no other server of the cluster may take
// writes (each is read-only, refuses connections, or its mysqld does not run). Anything less and
// the normal verdict (decide-master.ts) stands. A Post* call is fresh for SUCCESSOR_WAIT_MS only,
// after which Orchestrator's view alone counts again.
import { HEALTHY, LABEL_HEALTHY, LABEL_ROLE, ORCHESTRATOR_REASONS, ROLE } from '../../api/constants.ts';
import type { InstanceKey } from '../../orchestrator/index.ts';
import type { PodView, RoleView } from '../../topology/index.ts';
import type { LabelPatch } from './decide-labels.ts';
import { hostPort, SUCCESSOR_WAIT_MS } from './decide-hook.ts';
import { decideMaster, type MasterVerdict } from './decide-master.ts';
import { instanceKey, keyName, podNodes, roleLabel, sameInstance, type Gathered } from './gathered.ts';
import type { HookSignal } from './hook-signals.ts';

export interface SuccessorNode {
  pod: PodView;
  /** The pod's role label as cached. */
  role: string | undefined;
  /** What its server said this pass; null when it was not observed. */
  server: RoleView | null;
}

/** The instance the fast path may label master, and who named it (for messages). */
export interface Candidate {
  key: InstanceKey;
  namedBy: string;
}

export type SuccessorProof = { kind: 'proven'; successor: SuccessorNode } | { kind: 'unproven'; message: string };

export type SuccessorDecision =
  /** No candidate, or it already carries role=master. */
  | { kind: 'none' }
  /** The servers do not prove the promotion (yet): the full pass decides as usual. */
  | { kind: 'wait'; message: string }
  /** Demotions first, the promotion last (labelRounds keeps that order). */
  | { kind: 'label'; successor: SuccessorNode; demoted: string[]; patches: LabelPatch[] };

/** The successor a fresh PostMasterFailover or PostGracefulTakeover call names. */
export function hookCandidate(hook: HookSignal | undefined): Candidate | undefined {
  if (hook === undefined || (hook.process !== 'PostMasterFailover' && hook.process !== 'PostGracefulTakeover')) return undefined;
  const key = hook.successor === undefined ? undefined : hostPort(hook.successor);
  return key === undefined ? undefined : { key, namedBy: `the ${hook.process} hook` };
}

/** The master /api/master names, as a candidate while a PreFailover call is fresh. */
export function orchestratorCandidate(key: InstanceKey): Candidate {
  return { key, namedBy: "Orchestrator's /api/master" };
}

function candidateNode<N extends { pod: PodView }>(c: Candidate, nodes: readonly N[]): N | undefined {
  return nodes.find((n) => sameInstance(instanceKey(n.pod.fqdn), c.key));
}

/** The candidate is not labelled master yet: worth reading the servers for. */
export function successorPending(c: Candidate | undefined, nodes: ReadonlyArray<Pick<SuccessorNode, 'pod' | 'role'>>): c is Candidate {
  return c !== undefined && candidateNode(c, nodes)?.role !== ROLE.master;
}

/**
 * Whether another server could still take writes. A pod whose mysqld runs but was not observed, or
 * answered with anything but a refused or timed-out connection (access denied, say), might.
 */
function mayTakeWrites(n: SuccessorNode): boolean {
  if (n.server === null) return n.pod.mysqlRunning;
  return n.server.reachable ? !n.server.readOnly : n.server.problem !== 'unreachable';
}

export function proveSuccessor(c: Candidate, nodes: readonly SuccessorNode[]): SuccessorProof {
  const successor = candidateNode(c, nodes);
  const unproven = (why: string): SuccessorProof => ({ kind: 'unproven', message: `${keyName(c.key)}, named by ${c.namedBy}, ${why}` });
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

/** The fast pass's decision: which labels to patch for the candidate, before anything else is gathered. */
export function decideSuccessor(c: Candidate | undefined, nodes: readonly SuccessorNode[]): SuccessorDecision {
  if (!successorPending(c, nodes)) return { kind: 'none' };
  const proof = proveSuccessor(c, nodes);
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
  return withHookSuccessor(g, decideMaster(g));
}

function withHookSuccessor(g: Gathered, verdict: MasterVerdict): MasterVerdict {
  const candidate = hookCandidate(g.hook);
  if (verdict.kind === 'master' || verdict.reason === ORCHESTRATOR_REASONS.orchestratorUnreachable || candidate === undefined)
    return verdict;
  const nodes = podNodes(g);
  const proof = proveSuccessor(
    candidate,
    nodes.map((n) => ({ pod: n.pod, role: roleLabel(n), server: n.server })),
  );
  if (proof.kind === 'unproven') return verdict;
  return { kind: 'master', node: nodes.find((n) => n.pod.name === proof.successor.pod.name)! };
}

/** The labels name the hook's successor master while Orchestrator does not (yet). */
export function masterAheadOfOrchestrator(g: Gathered): boolean {
  const verdict = decideMaster(g);
  return verdict.kind === 'none' && withHookSuccessor(g, verdict).kind === 'master';
}

/**
 * How soon a probe-only pass looks again. A probe is a connection and two statements per server
 * and one Orchestrator route; the promotion it watches for comes 0.1-0.5 s after the PreFailover
 * call, and every millisecond between the promotion and the next probe is one the label waits.
 */
export const PROBE_POLL_MS = 25;

/**
 * A pass may be the fast path's reads alone: after a PreFailover call, while Orchestrator still
 * names the failing master (nothing promoted yet), once a full pass has seen the call (it recorded
 * FailoverInProgress; read-only, forgetting and acknowledgements hold during a failover anyway).
 * A full pass takes 0.1-0.5 s on a loaded machine, and a promotion that lands during one waits for
 * it; the reads take tens of milliseconds. Every PROBE_POLL_MS, for at most SUCCESSOR_WAIT_MS after the call.
 */
export function probeOnly(hook: HookSignal | undefined, candidate: Candidate | undefined, fullPassSawCall: boolean, now: Date): boolean {
  if (hook?.process !== 'PreFailover' || hook.failed === undefined || candidate === undefined || !fullPassSawCall) return false;
  const failed = hostPort(hook.failed);
  return failed !== undefined && sameInstance(failed, candidate.key) && now.getTime() - hook.at.getTime() <= SUCCESSOR_WAIT_MS;
}
