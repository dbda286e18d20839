// What the node controller reads from a Pod object. Pure.
import { CONDITION_STATUS, CONTAINER, POD_CONDITION_NODE_INITIALIZED, PORT } from '../../api/constants.ts';
import { podFqdn, podOrdinal } from '../../api/names.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';
import type { Endpoint, NodeView, PodView, ServerView } from './node-state.ts';

export interface PodCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastProbeTime?: string | null;
}

/** The part of a core/v1 Pod this controller reads. */
export interface PodObject extends KubeObject {
  metadata?: KubeObject['metadata'] & { deletionTimestamp?: string };
  status?: {
    phase?: string;
    podIP?: string;
    conditions?: PodCondition[];
    containerStatuses?: Array<{ name: string; state?: { running?: { startedAt?: string } } }>;
  };
}

/** Maps a pod to the address its server answers on (tests map pod names to loopback servers). */
export type ResolvePod = (pod: { name: string; namespace: string; fqdn: string }) => Endpoint;

export const resolveByFqdn: ResolvePod = (pod) => ({ host: pod.fqdn, port: PORT.mysql });

export function podView(pod: PodObject, resolve: ResolvePod): PodView {
  const name = pod.metadata?.name ?? '';
  const namespace = pod.metadata?.namespace ?? '';
  const fqdn = podFqdn(name, namespace);
  const mysql = pod.status?.containerStatuses?.find((c) => c.name === CONTAINER.mysql);
  return {
    name,
    ordinal: podOrdinal(name),
    fqdn,
    endpoint: resolve({ name, namespace, fqdn }),
    mysqlRunning: pod.status?.phase === 'Running' && mysql?.state?.running !== undefined,
    deleting: pod.metadata?.deletionTimestamp !== undefined,
    verifiedSinceStart: verifiedSince(pod.status?.conditions, mysql?.state?.running?.startedAt),
  };
}

/** The pod as a node of the topology, with what its server said (null: not observed). */
export function asNode(p: PodView, server: ServerView | null): NodeView {
  return { pod: p.name, ordinal: p.ordinal, fqdn: p.fqdn, endpoint: p.endpoint, server };
}

function verifiedSince(conditions: readonly PodCondition[] | undefined, startedAt: string | undefined): boolean {
  const c = conditions?.find((x) => x.type === POD_CONDITION_NODE_INITIALIZED);
  if (c?.status !== CONDITION_STATUS.true || !c.lastProbeTime) return false;
  if (!startedAt) return true;
  // Kubernetes times have whole seconds: a check in the very second of a start may have preceded
  // it, so only a later second counts.
  return Math.floor(Date.parse(c.lastProbeTime) / 1000) > Math.floor(Date.parse(startedAt) / 1000);
}
