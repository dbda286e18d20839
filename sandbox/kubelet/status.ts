// The pod status the kubelet reports, decided from what its containers did. Pure. The kubelet owns
// the phase, the container statuses, the IPs and four conditions; every other condition (readiness
// gates, the operator's own) belongs to someone else, so the status patch names only these and
// the strategic merge keeps the rest (conditions merge by `type`). A condition's transition time
// comes from the status the kubelet itself last computed, as the real kubelet's status manager
// keeps it: the informer's copy of the pod lags the kubelet's own writes, and deciding from it
// made two writes in flight flip the time back and forth, each write's event answering the next.
import type { V1Pod } from '@kubernetes/client-node';

export type ContainerState =
  | { waiting: { reason: string; message?: string } }
  | { running: { startedAt: string } }
  | {
      terminated: {
        exitCode: number;
        signal?: number;
        reason: string;
        message?: string;
        startedAt: string;
        finishedAt: string;
        containerID?: string;
      };
    };

/** What the kubelet knows of one container; the worker updates it, this module reads it. */
export interface ContainerRecord {
  name: string;
  image: string;
  state: ContainerState;
  lastState: ContainerState | undefined;
  restartCount: number;
  ready: boolean;
  started: boolean;
  containerID: string | undefined;
}

export interface PodRuntime {
  init: readonly ContainerRecord[];
  containers: readonly ContainerRecord[];
  /** Every init container completed. */
  initialized: boolean;
  /** An init container failed and the restart policy is Never. */
  initFailed: boolean;
  podIP: string | undefined;
  hostIP: string;
  startTime: string;
}

export const OWNED_CONDITIONS = ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'] as const;

/** RFC 3339 with seconds, as the API stores times. */
export function now(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

function isTerminated(r: ContainerRecord): r is ContainerRecord & { state: { terminated: { exitCode: number } } } {
  return 'terminated' in r.state;
}

/** Will the container run again? (Its exit is final for the pod's phase when not.) */
export function restarts(policy: string, exitCode: number): boolean {
  return policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
}

export function podPhase(pod: V1Pod, rt: PodRuntime): string {
  if (rt.initFailed) return 'Failed';
  if (!rt.initialized) return 'Pending';
  const policy = pod.spec?.restartPolicy ?? 'Always';
  const cs = rt.containers;
  if (cs.length > 0 && cs.every((c) => isTerminated(c) && !restarts(policy, c.state.terminated.exitCode))) {
    return cs.every((c) => isTerminated(c) && c.state.terminated.exitCode === 0) ? 'Succeeded' : 'Failed';
  }
  if (cs.some((c) => 'running' in c.state || c.restartCount > 0 || isTerminated(c))) return 'Running';
  return 'Pending';
}

export interface Condition {
  type: string;
  status: 'True' | 'False';
  /** null removes an earlier reason in the strategic merge (conditions merge field by field). */
  reason: string | null;
  message: string | null;
  lastProbeTime: null;
  lastTransitionTime: string;
}

interface PriorCondition {
  type: string;
  status: string;
  lastTransitionTime?: unknown;
}

function condition(prior: readonly PriorCondition[], type: string, ok: boolean, reason?: string, message?: string): Condition {
  const prev = prior.find((c) => c.type === type);
  const status = ok ? 'True' : 'False';
  const since = prev && prev.status === status && prev.lastTransitionTime ? String(prev.lastTransitionTime) : now();
  return {
    type,
    status,
    reason: ok ? null : (reason ?? null),
    message: ok ? null : (message ?? null),
    lastProbeTime: null,
    lastTransitionTime: since,
  };
}

function containerStatus(r: ContainerRecord): Record<string, unknown> {
  return {
    name: r.name,
    state: r.state,
    lastState: r.lastState ?? {},
    ready: r.ready,
    restartCount: r.restartCount,
    image: r.image,
    imageID: '',
    ...(r.containerID ? { containerID: r.containerID } : {}),
    started: r.started,
  };
}

export interface PodStatusPatch extends Record<string, unknown> {
  conditions: Condition[];
}

/**
 * The status patch: everything the kubelet owns, nothing else. `previous` is the patch this
 * kubelet computed last for the pod (none after a restart: then the API's copy is all there is).
 */
export function podStatusPatch(pod: V1Pod, rt: PodRuntime, previous?: PodStatusPatch): PodStatusPatch {
  const prior: readonly PriorCondition[] = previous?.conditions ?? pod.status?.conditions ?? [];
  const notReady = rt.containers.filter((c) => !c.ready).map((c) => c.name);
  const containersReady = notReady.length === 0 && rt.containers.length > 0;
  const gates = (pod.spec?.readinessGates ?? []).map((g) => g.conditionType);
  const gateProblem = gates.map((g) => ({ g, c: pod.status?.conditions?.find((c) => c.type === g) })).find(({ c }) => c?.status !== 'True');
  const pendingInit = rt.init.filter((c) => !(isTerminated(c) && c.state.terminated.exitCode === 0)).map((c) => c.name);
  const conditions: Condition[] = [
    condition(
      prior,
      'Initialized',
      rt.initialized,
      'ContainersNotInitialized',
      `containers with incomplete status: [${pendingInit.join(' ')}]`,
    ),
    condition(
      prior,
      'Ready',
      containersReady && !gateProblem,
      containersReady ? 'ReadinessGatesNotReady' : 'ContainersNotReady',
      containersReady
        ? gateProblem?.c
          ? `the status of pod readiness gate "${gateProblem.g}" is not "True", but ${gateProblem.c.status}`
          : `corresponding condition of pod readiness gate "${gateProblem?.g}" does not exist.`
        : `containers with unready status: [${notReady.join(' ')}]`,
    ),
    condition(prior, 'ContainersReady', containersReady, 'ContainersNotReady', `containers with unready status: [${notReady.join(' ')}]`),
  ];
  // The scheduler writes PodScheduled; a pod bound by hand (spec.nodeName set at create) has none.
  if (!pod.status?.conditions?.some((c) => c.type === 'PodScheduled')) conditions.unshift(condition(prior, 'PodScheduled', true));
  return {
    phase: podPhase(pod, rt),
    conditions,
    hostIP: rt.hostIP,
    hostIPs: [{ ip: rt.hostIP }],
    ...(rt.podIP ? { podIP: rt.podIP, podIPs: [{ ip: rt.podIP }] } : {}),
    startTime: rt.startTime,
    ...(rt.init.length > 0 ? { initContainerStatuses: rt.init.map(containerStatus) } : {}),
    containerStatuses: rt.containers.map(containerStatus),
  };
}
