// What the sandbox shows of a MysqlCluster while it comes up (the progress display of `npm run
// sandbox`, the end-to-end tests, bench/sandbox-ready): its pods with readiness and role, and its
// conditions. Ready means what a user relies on: the Ready condition True and one pod labelled master.
import type { V1Pod } from '@kubernetes/client-node';
import {
  API_GROUP_VERSION,
  CLUSTER_CONDITION,
  CONDITION_STATUS,
  KIND_MYSQL_CLUSTER,
  LABEL_CLUSTER,
  LABEL_ROLE,
  ROLE,
} from '../src/api/constants.ts';
import type { KubeClient } from '../src/runtime/kube/client.ts';
import { until } from './index.ts';

export interface PodLine {
  name: string;
  /** `ready/total` containers. */
  ready: string;
  phase: string;
  role: string | undefined;
}

export interface ClusterView {
  name: string;
  namespace: string;
  ready: boolean;
  /** The pod labelled role=master, when exactly one is. */
  master: string | undefined;
  pods: PodLine[];
  conditions: { type: string; status: string; reason?: string; message?: string }[];
}

interface ClusterObject {
  metadata: { name: string };
  status?: { conditions?: ClusterView['conditions'] };
}

export function viewOf(cluster: ClusterObject | undefined, namespace: string, name: string, pods: readonly V1Pod[]): ClusterView {
  const conditions = cluster?.status?.conditions ?? [];
  const masters = pods.filter((p) => p.metadata?.labels?.[LABEL_ROLE] === ROLE.master).map((p) => p.metadata!.name!);
  const master = masters.length === 1 ? masters[0] : undefined;
  const readyCondition = conditions.some((c) => c.type === CLUSTER_CONDITION.ready && c.status === CONDITION_STATUS.true);
  return {
    name,
    namespace,
    ready: readyCondition && master !== undefined,
    master,
    pods: pods
      .map((p) => ({
        name: p.metadata!.name!,
        ready: `${(p.status?.containerStatuses ?? []).filter((c) => c.ready).length}/${p.spec?.containers.length ?? 0}`,
        phase: p.metadata?.deletionTimestamp ? 'Terminating' : (p.status?.phase ?? 'Pending'),
        role: p.metadata?.labels?.[LABEL_ROLE],
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    conditions,
  };
}

/** The view as lines for a terminal: one per pod, one per condition. */
export function describeView(v: ClusterView): string[] {
  return [
    ...v.pods.map((p) => `  pod ${p.name} ${p.ready} ${p.phase}${p.role ? ` role=${p.role}` : ''}`),
    ...v.conditions.map((c) => `  ${c.type}=${c.status}${c.reason ? ` ${c.reason}` : ''}${c.message ? `: ${c.message}` : ''}`),
  ];
}

export async function clusterView(client: KubeClient, namespace: string, name: string): Promise<ClusterView> {
  const cluster = await client.getIfExists<ClusterObject & { apiVersion: string; kind: string }>({
    apiVersion: API_GROUP_VERSION,
    kind: KIND_MYSQL_CLUSTER,
    namespace,
    name,
  });
  const pods = await client.list<V1Pod & { metadata: object }>(
    { apiVersion: 'v1', kind: 'Pod' },
    { namespace, labelSelector: `${LABEL_CLUSTER}=${name}` },
  );
  return viewOf(cluster, namespace, name, pods.items);
}

/** Waits until the cluster is Ready, calling `onChange` with each view that differs from the last. */
export async function waitForClusterReady(
  client: KubeClient,
  namespace: string,
  name: string,
  opts: { timeoutMs: number; onChange?: (view: ClusterView) => void; signal?: AbortSignal },
): Promise<ClusterView> {
  let last = '';
  let latest: ClusterView | undefined;
  try {
    return await until(
      `MysqlCluster ${namespace}/${name} to be Ready with a master`,
      async () => {
        const view = await clusterView(client, namespace, name);
        latest = view;
        const text = JSON.stringify(describeView(view));
        if (text !== last) opts.onChange?.(view);
        last = text;
        return view.ready ? view : undefined;
      },
      opts.timeoutMs,
      opts.signal,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${latest ? describeView(latest).join('\n') : ''}`);
  }
}
