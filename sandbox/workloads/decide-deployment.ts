// One pass of the Deployment controller (pkg/controller/deployment, v1.26): the ReplicaSet whose
// template is the Deployment's (named `<deployment>-<pod-template-hash>`) is the new one, the rest
// are old. RollingUpdate scales the new one up within maxSurge and the old ones down within
// maxUnavailable (unhealthy old pods first); Recreate empties the old ones before the new one
// grows. The status sums the ReplicaSets' and says Available and Progressing as the real one does.
import type { V1Deployment, V1DeploymentCondition, V1DeploymentStatus, V1PodTemplateSpec, V1ReplicaSet } from '@kubernetes/client-node';
import { kubeTime } from '../../src/runtime/kube/time.ts';
import { ANNOTATION, LABEL } from './kinds.ts';
import { controllerRef, copy, sameJson, shortHash } from './pods.ts';

export interface DeploymentState {
  deployment: V1Deployment;
  /** ReplicaSets the Deployment controls. */
  replicaSets: V1ReplicaSet[];
  now: number;
}

export interface DeploymentPlan {
  create?: V1ReplicaSet;
  /** New `spec.replicas` per ReplicaSet name. */
  scale: { name: string; replicas: number }[];
  /** Old empty ReplicaSets past revisionHistoryLimit. */
  remove: string[];
  status?: V1DeploymentStatus;
}

function withoutHash(t: V1PodTemplateSpec | undefined): unknown {
  const c = copy(t ?? {});
  if (c.metadata?.labels) delete c.metadata.labels[LABEL.podTemplateHash];
  return c;
}

/** intstr.GetScaledValueFromIntOrPercent. */
function scaled(v: number | string | undefined, total: number, roundUp: boolean, fallback: string): number {
  const value = v ?? fallback;
  if (typeof value === 'number') return value;
  const pct = Number(value.replace(/%$/, ''));
  const exact = (pct * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

function revisionOf(rs: V1ReplicaSet): number {
  return Number(rs.metadata?.annotations?.[ANNOTATION.deploymentRevision] ?? 0);
}

function condition(
  prev: V1DeploymentCondition[] | undefined,
  type: string,
  status: string,
  reason: string,
  message: string,
  now: string,
): V1DeploymentCondition {
  const old = prev?.find((c) => c.type === type);
  if (old && old.status === status && old.reason === reason && old.message === message) return old;
  const transition = old && old.status === status ? old.lastTransitionTime : now;
  return { type, status, lastUpdateTime: now as unknown as Date, lastTransitionTime: transition as unknown as Date, reason, message };
}

export function decideDeployment(s: DeploymentState): DeploymentPlan {
  const { deployment: d } = s;
  const spec = d.spec!;
  const name = d.metadata!.name!;
  const desired = spec.replicas ?? 1;
  const now = kubeTime(new Date(s.now));
  const plan: DeploymentPlan = { scale: [], remove: [] };
  const rolling = (spec.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
  const maxSurge = rolling ? scaled(spec.strategy?.rollingUpdate?.maxSurge, desired, true, '25%') : 0;
  let maxUnavailable = rolling ? scaled(spec.strategy?.rollingUpdate?.maxUnavailable, desired, false, '25%') : desired;
  if (rolling && maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;

  const hash = shortHash(spec.template, d.status?.collisionCount ?? 0);
  let newRS = s.replicaSets.find((rs) => sameJson(withoutHash(rs.spec?.template), withoutHash(spec.template)));
  const old = s.replicaSets.filter((rs) => rs !== newRS).sort((a, b) => revisionOf(a) - revisionOf(b));
  const replicasOf = new Map(s.replicaSets.map((rs) => [rs.metadata!.name!, rs.spec?.replicas ?? 0]));
  const oldActive = old.reduce((n, rs) => n + (rs.status?.replicas ?? 0), 0);
  const total = (): number => [...replicasOf.values()].reduce((a, b) => a + b, 0);
  const paused = spec.paused === true || Boolean(d.metadata?.deletionTimestamp);

  if (!newRS && !paused) {
    const rsName = `${name}-${hash}`;
    const template = copy(spec.template);
    template.metadata = { ...template.metadata, labels: { ...(template.metadata?.labels ?? {}), [LABEL.podTemplateHash]: hash } };
    newRS = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: rsName,
        namespace: d.metadata!.namespace!,
        labels: template.metadata.labels,
        annotations: {
          [ANNOTATION.deploymentRevision]: String(Math.max(0, ...old.map(revisionOf)) + 1),
          [ANNOTATION.desiredReplicas]: String(desired),
          [ANNOTATION.maxReplicas]: String(desired + maxSurge),
        },
        ownerReferences: [controllerRef(d)],
      },
      spec: {
        replicas: 0,
        minReadySeconds: spec.minReadySeconds ?? 0,
        selector: { ...spec.selector, matchLabels: { ...(spec.selector.matchLabels ?? {}), [LABEL.podTemplateHash]: hash } },
        template,
      },
    };
    plan.create = newRS;
    replicasOf.set(rsName, 0);
  }

  if (newRS && !paused) {
    const newName = newRS.metadata!.name!;
    const current = replicasOf.get(newName) ?? 0;
    if (!rolling) {
      for (const rs of old) replicasOf.set(rs.metadata!.name!, 0);
      if (oldActive === 0) replicasOf.set(newName, desired);
    } else {
      // NewRSNewReplicas
      if (current > desired) replicasOf.set(newName, desired);
      else if (current < desired) {
        const room = desired + maxSurge - total();
        if (room > 0) replicasOf.set(newName, current + Math.min(room, desired - current));
      }
      // reconcileOldReplicaSets: unhealthy old pods first, then down to minAvailable.
      const minAvailable = desired - maxUnavailable;
      const newUnavailable = (replicasOf.get(newName) ?? 0) - (newRS.status?.availableReplicas ?? 0);
      let budget = total() - minAvailable - Math.max(0, newUnavailable);
      for (const rs of old) {
        if (budget <= 0) break;
        const n = rs.metadata!.name!;
        const unhealthy = Math.max(0, (replicasOf.get(n) ?? 0) - (rs.status?.availableReplicas ?? 0));
        const cut = Math.min(budget, unhealthy);
        replicasOf.set(n, (replicasOf.get(n) ?? 0) - cut);
        budget -= cut;
      }
      const available = s.replicaSets.reduce((a, rs) => a + (rs.status?.availableReplicas ?? 0), 0);
      let down = Math.min(budget, available - minAvailable);
      for (const rs of old) {
        if (down <= 0) break;
        const n = rs.metadata!.name!;
        const cut = Math.min(down, replicasOf.get(n) ?? 0);
        replicasOf.set(n, (replicasOf.get(n) ?? 0) - cut);
        down -= cut;
      }
    }
    for (const rs of s.replicaSets) {
      const n = rs.metadata!.name!;
      if ((rs.spec?.replicas ?? 0) !== replicasOf.get(n)) plan.scale.push({ name: n, replicas: replicasOf.get(n)! });
    }
    if (plan.create) plan.create.spec!.replicas = replicasOf.get(newName)!;
    const empty = old.filter((rs) => (replicasOf.get(rs.metadata!.name!) ?? 0) === 0 && (rs.status?.replicas ?? 0) === 0);
    plan.remove = empty.slice(0, Math.max(0, empty.length - (spec.revisionHistoryLimit ?? 10))).map((rs) => rs.metadata!.name!);
  }

  const sum = (f: (rs: V1ReplicaSet) => number | undefined): number => s.replicaSets.reduce((a, rs) => a + (f(rs) ?? 0), 0);
  const available = sum((rs) => rs.status?.availableReplicas);
  const updated = newRS?.status?.replicas ?? 0;
  const replicas = sum((rs) => rs.status?.replicas);
  const complete =
    updated === desired &&
    replicas === desired &&
    available === desired &&
    (newRS?.status?.observedGeneration ?? 0) >= (newRS?.metadata?.generation ?? 0);
  const rsName = newRS?.metadata?.name ?? `${name}-${hash}`;
  const progressing = plan.create
    ? condition(d.status?.conditions, 'Progressing', 'True', 'NewReplicaSetCreated', `Created new replica set "${rsName}"`, now)
    : complete
      ? condition(
          d.status?.conditions,
          'Progressing',
          'True',
          'NewReplicaSetAvailable',
          `ReplicaSet "${rsName}" has successfully progressed.`,
          now,
        )
      : condition(d.status?.conditions, 'Progressing', 'True', 'ReplicaSetUpdated', `ReplicaSet "${rsName}" is progressing.`, now);
  const availableCond =
    available >= desired - maxUnavailable
      ? condition(d.status?.conditions, 'Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.', now)
      : condition(
          d.status?.conditions,
          'Available',
          'False',
          'MinimumReplicasUnavailable',
          'Deployment does not have minimum availability.',
          now,
        );
  const status: V1DeploymentStatus = JSON.parse(
    JSON.stringify({
      observedGeneration: d.metadata?.generation,
      replicas: replicas || undefined,
      updatedReplicas: updated || undefined,
      readyReplicas: sum((rs) => rs.status?.readyReplicas) || undefined,
      availableReplicas: available || undefined,
      unavailableReplicas: Math.max(0, desired - available) || undefined,
      conditions: [availableCond, progressing],
    }),
  ) as V1DeploymentStatus;
  if (!sameJson(d.status ?? {}, status)) plan.status = status;
  return plan;
}
