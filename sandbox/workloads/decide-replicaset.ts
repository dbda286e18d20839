// One pass of the ReplicaSet controller (pkg/controller/replicaset, v1.26): as many active pods
// as `replicas`; surplus pods go in the real controller's order of preference (not yet on a
// node, pending, not Ready, then the newest), and the status counts what runs.
import type { V1Pod, V1ReplicaSet, V1ReplicaSetStatus } from '@kubernetes/client-node';
import { isActive, isAvailable, isReady, podFromTemplate, sameJson } from './pods.ts';

export interface ReplicaSetState {
  rs: V1ReplicaSet;
  /** Pods the ReplicaSet controls. */
  pods: V1Pod[];
  now: number;
}

export interface ReplicaSetPlan {
  create: V1Pod[];
  delete: string[];
  status?: V1ReplicaSetStatus;
}

/** Lower deletes first (getPodsToDelete's ranking, without the co-location terms). */
function deletionRank(p: V1Pod): [number, number, number, number] {
  return [
    p.spec?.nodeName ? 1 : 0,
    p.status?.phase === 'Running' ? 1 : 0,
    isReady(p) ? 1 : 0,
    -Date.parse(String(p.metadata?.creationTimestamp ?? 0)),
  ];
}

function compareRank(a: V1Pod, b: V1Pod): number {
  const ra = deletionRank(a);
  const rb = deletionRank(b);
  for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i]! - rb[i]!;
  return 0;
}

export function decideReplicaSet(s: ReplicaSetState): ReplicaSetPlan {
  const { rs, now } = s;
  const active = s.pods.filter(isActive);
  const want = rs.spec?.replicas ?? 1;
  const plan: ReplicaSetPlan = { create: [], delete: [] };
  if (!rs.metadata?.deletionTimestamp) {
    for (let i = active.length; i < want; i++) {
      const pod = podFromTemplate(rs.spec!.template!, rs, rs.metadata!.namespace!);
      pod.metadata!.generateName = `${rs.metadata!.name}-`;
      plan.create.push(pod);
    }
    if (active.length > want)
      plan.delete = [...active]
        .sort(compareRank)
        .slice(0, active.length - want)
        .map((p) => p.metadata!.name!);
  }
  const templateLabels = Object.entries(rs.spec?.template?.metadata?.labels ?? {});
  const minReadySeconds = rs.spec?.minReadySeconds ?? 0;
  const status: V1ReplicaSetStatus = JSON.parse(
    JSON.stringify({
      replicas: active.length,
      fullyLabeledReplicas: active.filter((p) => templateLabels.every(([k, v]) => p.metadata?.labels?.[k] === v)).length || undefined,
      readyReplicas: active.filter(isReady).length || undefined,
      availableReplicas: active.filter((p) => isAvailable(p, minReadySeconds, now)).length || undefined,
      observedGeneration: rs.metadata?.generation,
      conditions: rs.status?.conditions,
    }),
  ) as V1ReplicaSetStatus;
  if (!sameJson(rs.status ?? {}, status)) plan.status = status;
  return plan;
}
