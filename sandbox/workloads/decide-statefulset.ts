// What the StatefulSet controller does in one pass (pkg/controller/statefulset, v1.26), as a pure
// function of what it gathered: the revision to record, then the pod and claim writes in the
// order the real controller makes them, and the status. OrderedReady ("monotonic") stops at the
// first pod it creates, deletes or waits for; Parallel goes on. Scale-down removes the highest
// ordinal first; a RollingUpdate replaces the highest ordinal at or above `partition` that is not
// at the update revision, one pod at a time, each only after the one before it is Ready; OnDelete
// only replaces pods someone deleted.
import type {
  V1ControllerRevision,
  V1PersistentVolumeClaim,
  V1Pod,
  V1PodTemplateSpec,
  V1StatefulSet,
  V1StatefulSetStatus,
} from '@kubernetes/client-node';
import { LABEL } from './kinds.ts';
import { copy, isAvailable, isFailed, isRunningAndReady, isTerminating, podFromTemplate, sameJson, shortHash } from './pods.ts';

export interface StatefulSetState {
  sts: V1StatefulSet;
  /** Pods the StatefulSet controls. */
  pods: V1Pod[];
  /** Claims of the namespace by name. */
  claims: ReadonlyMap<string, V1PersistentVolumeClaim>;
  /** ControllerRevisions the StatefulSet controls. */
  revisions: V1ControllerRevision[];
  now: number;
}

export type StatefulSetAction =
  | { type: 'createClaim'; claim: V1PersistentVolumeClaim; pod: string }
  | { type: 'createPod'; pod: V1Pod }
  | { type: 'deletePod'; name: string; why: 'failed' | 'scale-down' | 'update' }
  | { type: 'labelPod'; name: string; labels: Record<string, string> };

export interface StatefulSetPlan {
  /** A ControllerRevision to create, or an existing one to renumber as the newest (a rollback). */
  revision?: { create: V1ControllerRevision } | { renumber: string; revision: number };
  actions: StatefulSetAction[];
  /** Old ControllerRevisions past `revisionHistoryLimit` that no pod uses. */
  prune: string[];
  /** Why the pass stopped before doing everything (OrderedReady waits, a claim still being deleted). */
  waiting?: string;
  status: V1StatefulSetStatus;
}

type TemplateData = { spec: { template: V1PodTemplateSpec & { $patch: 'replace' } } };

/** The revision's data: a strategic merge patch replacing the template (getPatch). */
function revisionData(sts: V1StatefulSet): TemplateData {
  return { spec: { template: { ...copy(sts.spec!.template), $patch: 'replace' } } };
}

function templateOf(rev: V1ControllerRevision): V1PodTemplateSpec {
  const { $patch: _p, ...template } = (rev.data as TemplateData).spec.template;
  return template;
}

export function ordinalOf(stsName: string, podName: string): number {
  const m = /^(.*)-(\d+)$/.exec(podName);
  return m && m[1] === stsName ? Number(m[2]) : -1;
}

export function revisionOf(pod: V1Pod): string | undefined {
  return pod.metadata?.labels?.[LABEL.revisionHash];
}

export function claimName(template: string, sts: string, ordinal: number): string {
  return `${template}-${sts}-${ordinal}`;
}

/** The update revision: the existing one with this template, else a new one numbered after the rest. */
function updateRevision(state: StatefulSetState): { rev: V1ControllerRevision; plan?: StatefulSetPlan['revision'] } {
  const { sts, revisions } = state;
  const name = sts.metadata!.name!;
  const data = revisionData(sts);
  const hash = shortHash(data, sts.status?.collisionCount ?? 0);
  const highest = Math.max(0, ...revisions.map((r) => r.revision));
  const existing = revisions.find((r) => r.metadata?.name === `${name}-${hash}`);
  if (existing) {
    if (existing.revision === highest) return { rev: existing };
    return { rev: { ...existing, revision: highest + 1 }, plan: { renumber: existing.metadata!.name!, revision: highest + 1 } };
  }
  const rev: V1ControllerRevision = {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: `${name}-${hash}`,
      namespace: sts.metadata!.namespace!,
      labels: { ...(sts.spec!.template.metadata?.labels ?? {}), [LABEL.revisionHash]: `${name}-${hash}` },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'StatefulSet', name, uid: sts.metadata!.uid!, controller: true, blockOwnerDeletion: true },
      ],
    },
    data,
    revision: highest + 1,
  };
  return { rev, plan: { create: rev } };
}

function claimsFor(sts: V1StatefulSet, ordinal: number): V1PersistentVolumeClaim[] {
  const name = sts.metadata!.name!;
  return (sts.spec!.volumeClaimTemplates ?? []).map((t) => {
    const { status: _s, ...claim } = copy(t);
    const meta = claim.metadata ?? {};
    delete meta.creationTimestamp;
    return {
      ...claim,
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        ...meta,
        name: claimName(meta.name ?? '', name, ordinal),
        namespace: sts.metadata!.namespace!,
        labels: { ...(meta.labels ?? {}), ...(sts.spec!.selector.matchLabels ?? {}) },
      },
    };
  });
}

/** The identity labels a pod of this ordinal carries (pod name and, as v1.28 added, its index). */
function identityLabels(podName: string, ordinal: number): Record<string, string> {
  return { [LABEL.stsPodName]: podName, [LABEL.podIndex]: String(ordinal) };
}

/** newStatefulSetPod: the template's pod with identity, storage and revision. */
export function statefulSetPod(sts: V1StatefulSet, template: V1PodTemplateSpec, revision: string, ordinal: number): V1Pod {
  const name = sts.metadata!.name!;
  const podName = `${name}-${ordinal}`;
  const pod = podFromTemplate(template, sts, sts.metadata!.namespace!);
  pod.metadata = {
    ...pod.metadata,
    name: podName,
    generateName: `${name}-`,
    labels: { ...pod.metadata!.labels, ...identityLabels(podName, ordinal), [LABEL.revisionHash]: revision },
  };
  const claims = (sts.spec!.volumeClaimTemplates ?? []).map((t) => t.metadata?.name ?? '');
  pod.spec = {
    ...pod.spec!,
    volumes: [
      ...claims.map((c) => ({ name: c, persistentVolumeClaim: { claimName: claimName(c, name, ordinal) } })),
      ...(pod.spec!.volumes ?? []).filter((v) => !claims.includes(v.name)),
    ],
    hostname: podName,
    ...(sts.spec!.serviceName ? { subdomain: sts.spec!.serviceName } : {}),
  };
  return pod;
}

function omitZero(status: V1StatefulSetStatus): V1StatefulSetStatus {
  const out: V1StatefulSetStatus = { ...status };
  for (const k of [
    'observedGeneration',
    'readyReplicas',
    'currentReplicas',
    'updatedReplicas',
    'currentRevision',
    'updateRevision',
  ] as const) {
    if (!out[k]) delete out[k];
  }
  return out;
}

export function decideStatefulSet(state: StatefulSetState): StatefulSetPlan {
  const { sts, pods, claims, now } = state;
  const spec = sts.spec!;
  const name = sts.metadata!.name!;
  const replicaCount = spec.replicas ?? 1;
  const minReadySeconds = spec.minReadySeconds ?? 0;
  const monotonic = (spec.podManagementPolicy ?? 'OrderedReady') === 'OrderedReady';
  const rollingUpdate = (spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
  const partition = rollingUpdate ? (spec.updateStrategy?.rollingUpdate?.partition ?? 0) : 0;

  const update = updateRevision(state);
  const current = state.revisions.find((r) => r.metadata?.name === sts.status?.currentRevision) ?? update.rev;
  const updateName = update.rev.metadata!.name!;
  let currentName = current.metadata!.name!;

  const replicas: (V1Pod | undefined)[] = Array.from({ length: replicaCount }, () => undefined);
  const condemned: V1Pod[] = [];
  for (const p of pods) {
    const ord = ordinalOf(name, p.metadata?.name ?? '');
    if (ord < 0) continue;
    if (ord < replicaCount) replicas[ord] = p;
    else condemned.push(p);
  }
  condemned.sort((a, b) => ordinalOf(name, b.metadata!.name!) - ordinalOf(name, a.metadata!.name!));

  // Status of what exists now (updateStatefulSet counts before its writes land).
  let replicasSeen = 0;
  let ready = 0;
  let available = 0;
  let currentReplicas = 0;
  let updatedReplicas = 0;
  for (const p of pods) {
    replicasSeen++;
    if (isRunningAndReady(p)) {
      ready++;
      if (isAvailable(p, minReadySeconds, now)) available++;
    }
    if (!isTerminating(p)) {
      if (revisionOf(p) === currentName) currentReplicas++;
      if (revisionOf(p) === updateName) updatedReplicas++;
    }
  }
  // completeRollingUpdate: every pod updated and ready makes the update revision the current one.
  if (rollingUpdate && updatedReplicas === replicasSeen && ready === replicasSeen) {
    currentName = updateName;
    currentReplicas = updatedReplicas;
  }
  const status = omitZero({
    observedGeneration: sts.metadata?.generation,
    replicas: replicasSeen,
    readyReplicas: ready,
    currentReplicas,
    updatedReplicas,
    currentRevision: currentName,
    updateRevision: updateName,
    collisionCount: sts.status?.collisionCount ?? 0,
    availableReplicas: available,
  });

  const plan: StatefulSetPlan = { actions: [], prune: prune(state, [currentName, updateName]), status };
  if (update.plan) plan.revision = update.plan;
  if (sts.metadata?.deletionTimestamp) return plan;

  const healthy = (p: V1Pod): boolean => isRunningAndReady(p) && !isTerminating(p);
  const firstUnhealthy = [...replicas, ...condemned].find((p) => p !== undefined && !healthy(p));
  const wait = (why: string): StatefulSetPlan => ({ ...plan, waiting: why });

  for (let i = 0; i < replicaCount; i++) {
    const pod = replicas[i];
    const podName = `${name}-${i}`;
    if (pod && isFailed(pod)) {
      // The deletion's event brings the next pass, which recreates it.
      if (!isTerminating(pod)) plan.actions.push({ type: 'deletePod', name: podName, why: 'failed' });
      if (monotonic) return wait(`pod ${podName} failed and is being recreated`);
      continue;
    }
    const needed = claimsFor(sts, i);
    const deleting = needed.find((c) => claims.get(c.metadata!.name!)?.metadata?.deletionTimestamp);
    if (!pod) {
      // A pod must not start on a claim that is going away (PodClaimIsStale): wait for it to go.
      if (deleting) {
        if (monotonic) return wait(`claim ${deleting.metadata!.name} of pod ${podName} is being deleted`);
        continue;
      }
      for (const c of needed) if (!claims.has(c.metadata!.name!)) plan.actions.push({ type: 'createClaim', claim: c, pod: podName });
      const useCurrent = rollingUpdate && i < partition;
      const template = useCurrent ? templateOf(current) : spec.template;
      plan.actions.push({ type: 'createPod', pod: statefulSetPod(sts, template, useCurrent ? current.metadata!.name! : updateName, i) });
      if (monotonic) return wait(`pod ${podName} was created and is not Ready yet`);
      continue;
    }
    if (monotonic && isTerminating(pod)) return wait(`pod ${podName} is terminating`);
    if (monotonic && !(isRunningAndReady(pod) && isAvailable(pod, minReadySeconds, now))) return wait(`pod ${podName} is not Ready`);
    const identity = identityLabels(podName, i);
    if (Object.entries(identity).some(([k, v]) => pod.metadata?.labels?.[k] !== v))
      plan.actions.push({ type: 'labelPod', name: podName, labels: identity });
    if (!deleting) {
      for (const c of needed) if (!claims.has(c.metadata!.name!)) plan.actions.push({ type: 'createClaim', claim: c, pod: podName });
    }
  }

  for (const pod of condemned) {
    const podName = pod.metadata!.name!;
    if (isTerminating(pod)) {
      if (monotonic) return wait(`pod ${podName} is terminating`);
      continue;
    }
    if (monotonic && !isRunningAndReady(pod) && pod !== firstUnhealthy) return wait(`pod ${firstUnhealthy?.metadata?.name} is not Ready`);
    plan.actions.push({ type: 'deletePod', name: podName, why: 'scale-down' });
    if (monotonic) return plan;
  }

  if (!rollingUpdate) return plan;
  for (let target = replicaCount - 1; target >= partition; target--) {
    const pod = replicas[target];
    if (!pod) continue;
    if (revisionOf(pod) !== updateName && !isTerminating(pod)) {
      plan.actions.push({ type: 'deletePod', name: pod.metadata!.name!, why: 'update' });
      return plan;
    }
    if (!healthy(pod)) return wait(`pod ${pod.metadata!.name} is not Ready after its update`);
  }
  return plan;
}

/** truncateHistory: revisions beyond the limit, oldest first, that neither the set nor a pod uses. */
function prune(state: StatefulSetState, live: string[]): string[] {
  const used = new Set([...live, ...state.pods.map(revisionOf).filter((r): r is string => r !== undefined)]);
  const old = state.revisions.filter((r) => !used.has(r.metadata!.name!)).sort((a, b) => a.revision - b.revision);
  const limit = state.sts.spec!.revisionHistoryLimit ?? 10;
  return old.slice(0, Math.max(0, old.length - limit)).map((r) => r.metadata!.name!);
}

/** True when the status the plan computed differs from the stored one. */
export function statusChanged(sts: V1StatefulSet, status: V1StatefulSetStatus): boolean {
  return !sameJson(sts.status ?? {}, status);
}
