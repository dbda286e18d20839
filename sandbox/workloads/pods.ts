// What the workload controllers share about pods: the predicates kube-controller-manager uses
// (pkg/controller, pkg/api/v1/pod), pods made from a template with a controller reference, and
// the short template hashes that name revisions (controller.ComputeHash + rand.SafeEncodeString).
import type { V1LabelSelector, V1OwnerReference, V1Pod, V1PodTemplateSpec } from '@kubernetes/client-node';
import { stableStringify } from '../../src/api/json-value.ts';
import type { KubeObject } from '../../src/runtime/kube/types.ts';

/** A JSON copy: cached objects are read-only and carry the cache's marker. */
export function copy<T>(o: T): T {
  return JSON.parse(JSON.stringify(o)) as T;
}

export function isTerminating(p: V1Pod): boolean {
  return Boolean(p.metadata?.deletionTimestamp);
}

export function isFailed(p: V1Pod): boolean {
  return p.status?.phase === 'Failed';
}

export function isSucceeded(p: V1Pod): boolean {
  return p.status?.phase === 'Succeeded';
}

/** Not finished and not being deleted (controller.IsPodActive). */
export function isActive(p: V1Pod): boolean {
  return !isFailed(p) && !isSucceeded(p) && !isTerminating(p);
}

export function isReady(p: V1Pod): boolean {
  return p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

export function isRunningAndReady(p: V1Pod): boolean {
  return p.status?.phase === 'Running' && isReady(p);
}

/** Ready for at least `minReadySeconds` at `now` (podutil.IsPodAvailable). */
export function isAvailable(p: V1Pod, minReadySeconds: number, now: number): boolean {
  if (!isReady(p)) return false;
  if (minReadySeconds <= 0) return true;
  const since = p.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime;
  return since !== undefined && Date.parse(String(since)) + minReadySeconds * 1000 <= now;
}

/** The reference a controller puts on what it creates (blockOwnerDeletion as the real ones set it). */
export function controllerRef(owner: KubeObject): V1OwnerReference {
  const m = owner.metadata ?? {};
  return {
    apiVersion: owner.apiVersion ?? '',
    kind: owner.kind ?? '',
    name: m.name ?? '',
    uid: m.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** True when `owner` is the controller of `obj` (by uid: a recreated owner of the same name is another). */
export function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  return (obj.metadata?.ownerReferences ?? []).some((r) => r.controller === true && r.uid === owner.metadata?.uid);
}

/** A pod of `owner` from its template: labels, annotations and spec copied (controller.GetPodFromTemplate). */
export function podFromTemplate(template: V1PodTemplateSpec, owner: KubeObject, namespace: string): V1Pod {
  const t = copy(template);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      namespace,
      labels: { ...(t.metadata?.labels ?? {}) },
      ...(t.metadata?.annotations ? { annotations: t.metadata.annotations } : {}),
      ownerReferences: [controllerRef(owner)],
    },
    spec: t.spec!,
  };
}

const SAFE_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

/** FNV-32a of the value's canonical JSON, written as Kubernetes writes such hashes (no vowels, no 0/1/3). */
export function shortHash(value: unknown, collisionCount = 0): string {
  let h = 0x811c9dc5;
  const text = stableStringify(value) + (collisionCount > 0 ? String(collisionCount) : '');
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return [...String(h)].map((c) => SAFE_CHARS[c.charCodeAt(0) % SAFE_CHARS.length]).join('');
}

/** Equal as JSON, whatever the key order. */
export function sameJson(a: unknown, b: unknown): boolean {
  return stableStringify(a) === stableStringify(b);
}

/** A metav1.LabelSelector against labels (an empty selector matches everything, as in apps/v1). */
export function matchesSelector(selector: V1LabelSelector | undefined, labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  for (const [k, v] of Object.entries(selector?.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const e of selector?.matchExpressions ?? []) {
    const has = Object.hasOwn(l, e.key);
    const inValues = has && (e.values ?? []).includes(l[e.key]!);
    const ok =
      e.operator === 'In'
        ? inValues
        : e.operator === 'NotIn'
          ? !inValues
          : e.operator === 'Exists'
            ? has
            : e.operator === 'DoesNotExist'
              ? !has
              : false;
    if (!ok) return false;
  }
  return true;
}

/** Names of the claims a pod mounts. */
export function claimsOf(p: V1Pod): string[] {
  return (p.spec?.volumes ?? []).flatMap((v) => (v.persistentVolumeClaim ? [v.persistentVolumeClaim.claimName] : []));
}
