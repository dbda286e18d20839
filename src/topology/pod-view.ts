// What the topology reads from a Pod object: where its server answers and whether it runs. Pure.
import { CONTAINER, PORT } from '../api/constants.ts';
import { podFqdn, podOrdinal } from '../api/names.ts';
import type { KubeObject } from '../runtime/kube/types.ts';
import type { Endpoint, NodeView, RoleView, ServerView } from './server-view.ts';

export interface PodCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastProbeTime?: string | null;
}

export interface ContainerStatus {
  name: string;
  state?: { running?: { startedAt?: string } };
  started?: boolean;
}

/** The part of a core/v1 Pod the operator reads. */
export interface PodObject extends KubeObject {
  metadata?: KubeObject['metadata'] & { deletionTimestamp?: string };
  status?: {
    phase?: string;
    podIP?: string;
    conditions?: PodCondition[];
    containerStatuses?: ContainerStatus[];
  };
}

/** Maps a pod to the address its server answers on (tests map pod names to loopback servers). */
export type ResolvePod = (pod: { name: string; namespace: string; fqdn: string }) => Endpoint;

export const resolveByFqdn: ResolvePod = (pod) => ({ host: pod.fqdn, port: PORT.mysql });

export interface PodView {
  name: string;
  /** -1 when the name is not `<statefulset>-<n>`. */
  ordinal: number;
  fqdn: string;
  endpoint: Endpoint;
  /** Pod phase Running and the mysql container running. */
  mysqlRunning: boolean;
  /**
   * The kubelet says the mysql container started: its startup probe (mysqld answers) passed, or it
   * has none. Until then mysqld may still be initialising or recovering. Kubelets older than 1.16
   * do not report it: then a running container counts as started.
   */
  mysqlStarted: boolean;
  deleting: boolean;
}

export function podView(pod: PodObject, resolve: ResolvePod): PodView {
  const name = pod.metadata?.name ?? '';
  const namespace = pod.metadata?.namespace ?? '';
  const fqdn = podFqdn(name, namespace);
  return {
    name,
    ordinal: podOrdinal(name),
    fqdn,
    endpoint: resolve({ name, namespace, fqdn }),
    mysqlRunning: pod.status?.phase === 'Running' && mysqlContainer(pod)?.state?.running !== undefined,
    mysqlStarted: mysqlContainer(pod)?.started !== false,
    deleting: pod.metadata?.deletionTimestamp !== undefined,
  };
}

/** The views of a cluster's pods that are nodes of it (named `<statefulset>-<ordinal>`). */
export function nodePods(pods: readonly PodObject[], resolve: ResolvePod): PodView[] {
  return pods.map((p) => podView(p, resolve)).filter((p) => p.ordinal >= 0);
}

/** The status of the pod's mysql container, once the kubelet reported it. */
export function mysqlContainer(pod: PodObject): ContainerStatus | undefined {
  return pod.status?.containerStatuses?.find((c) => c.name === CONTAINER.mysql);
}

/** The pod as a node of the topology, with what its server said (null: not observed). */
export function asNode<S extends RoleView = ServerView>(p: PodView, server: S | null): NodeView<S> {
  return { pod: p.name, ordinal: p.ordinal, fqdn: p.fqdn, endpoint: p.endpoint, server };
}
