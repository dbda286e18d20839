// What to send for each object, given the desired and the existing one. Only fields the cluster
// controller owns are compared, so values the API server fills in (defaults, clusterIP, ...) and
// keys other tools add never cause a write: in steady state every plan is `none`.
import type {
  V1ConfigMap,
  V1PersistentVolumeClaim,
  V1PodDisruptionBudget,
  V1Secret,
  V1Service,
  V1StatefulSet,
} from '@kubernetes/client-node';
import { ANNOTATION_SPEC_HASH } from '../../api/constants.ts';
import type { OwnerReference } from '../../runtime/kube/types.ts';
import { stableHash } from './hash.ts';
import { quantityNumber } from '../../api/quantity.ts';
import type { NetworkPolicyObject } from './render-network-policy.ts';

export type Plan<T> =
  | { op: 'none' }
  | { op: 'create'; object: T }
  | { op: 'update'; object: T }
  | { op: 'delete'; object: T }
  | { op: 'refuse'; message: string };

const QUANTITY_PARENTS = new Set(['requests', 'limits']);
const QUANTITY_KEYS = new Set(['sizeLimit', 'storage']);

function isEmpty(v: unknown): boolean {
  return (
    v === undefined ||
    v === null ||
    (Array.isArray(v) && v.length === 0) ||
    (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0)
  );
}

/**
 * True when every field of `desired` has the same value in `existing`. Extra fields in
 * `existing` are ignored (server defaults); arrays must have the same length; quantities compare
 * by value ("1024Mi" equals "1Gi", as the API server canonicalises them).
 */
export function ownedSubset(desired: unknown, existing: unknown, key = '', parent = ''): boolean {
  if (desired === undefined) return true;
  if (isEmpty(desired) && isEmpty(existing)) return true;
  if (Array.isArray(desired)) {
    return (
      Array.isArray(existing) && existing.length === desired.length && desired.every((d, i) => ownedSubset(d, existing[i], key, parent))
    );
  }
  if (desired !== null && typeof desired === 'object') {
    if (existing === null || typeof existing !== 'object' || Array.isArray(existing)) return false;
    const e = existing as Record<string, unknown>;
    return Object.entries(desired as Record<string, unknown>).every(([k, v]) => ownedSubset(v, e[k], k, key));
  }
  if (desired === existing) return true;
  if ((QUANTITY_PARENTS.has(parent) || QUANTITY_KEYS.has(key)) && (typeof desired === 'string' || typeof desired === 'number')) {
    const a = quantityNumber(desired);
    const b = quantityNumber(existing as string | number | undefined);
    return a !== undefined && a === b;
  }
  return false;
}

/** For maps that are wholly ours (data, selector): a key only `existing` has is a difference too. */
function sameMap(desired: Readonly<Record<string, unknown>> | undefined, existing: Readonly<Record<string, unknown>> | undefined): boolean {
  return ownedSubset(desired, existing) && Object.keys(existing ?? {}).length === Object.keys(desired ?? {}).length;
}

type Refusal = Extract<Plan<never>, { op: 'refuse' }>;

/**
 * Existing owner references plus ours; the plan's refusal (fit for any object type) when another
 * object already controls the existing one.
 */
function mergeOwners(
  desired: { kind?: string; metadata?: { name?: string } },
  existing: { metadata?: { ownerReferences?: readonly OwnerReference[] } },
  ours: OwnerReference,
): { refs: OwnerReference[]; changed: boolean } | Refusal {
  const refs = [...(existing.metadata?.ownerReferences ?? [])];
  if (refs.some((r) => r.uid === ours.uid)) return { refs, changed: false };
  const other = refs.find((r) => r.controller);
  if (ours.controller && other) {
    return { op: 'refuse', message: `${desired.kind} ${desired.metadata?.name}: it is controlled by ${other.kind} ${other.name}` };
  }
  refs.push(ours);
  return { refs, changed: true };
}

function labelsChanged(
  desired: Readonly<Record<string, string>> | undefined,
  existing: Readonly<Record<string, string>> | undefined,
): boolean {
  return Object.entries(desired ?? {}).some(([k, v]) => existing?.[k] !== v);
}

function withMeta<T extends { metadata?: V1ConfigMap['metadata'] }>(existing: T, desired: T, refs: OwnerReference[]): T['metadata'] {
  const meta = { ...existing.metadata, ownerReferences: refs };
  if (desired.metadata?.labels) meta.labels = { ...(existing.metadata?.labels ?? {}), ...desired.metadata.labels };
  return meta;
}

function ourRef(desired: { metadata?: { ownerReferences?: OwnerReference[] } }): OwnerReference {
  const ref = desired.metadata?.ownerReferences?.[0];
  if (!ref) throw new Error('desired object has no owner reference');
  return ref;
}

export function planConfigMap(desired: V1ConfigMap, existing: V1ConfigMap | undefined): Plan<V1ConfigMap> {
  if (!existing) return { op: 'create', object: desired };
  const owners = mergeOwners(desired, existing, ourRef(desired));
  if ('op' in owners) return owners;
  if (sameMap(desired.data, existing.data) && !owners.changed && !labelsChanged(desired.metadata?.labels, existing.metadata?.labels))
    return { op: 'none' };
  return { op: 'update', object: { ...existing, metadata: withMeta(existing, desired, owners.refs), data: desired.data } };
}

/**
 * The Secret's values are decided by operatedSecretData (never overwritten); this only compares.
 * Keys others added stay; of `removable`, those the desired data leaves out are taken out.
 */
export function planSecret(desired: V1Secret, existing: V1Secret | undefined, removable: readonly string[] = []): Plan<V1Secret> {
  if (!existing) return { op: 'create', object: desired };
  const owners = mergeOwners(desired, existing, ourRef(desired));
  if ('op' in owners) return owners;
  const removed = removable.filter((k) => existing.data?.[k] !== undefined && desired.data?.[k] === undefined);
  if (ownedSubset(desired.data, existing.data) && removed.length === 0 && !owners.changed) return { op: 'none' };
  const data: Record<string, string> = { ...(existing.data ?? {}), ...desired.data };
  for (const k of removed) delete data[k];
  return { op: 'update', object: { ...existing, metadata: withMeta(existing, desired, owners.refs), data } };
}

/**
 * A Service: selector, ports, type and the headless settings are ours; clusterIP and other
 * server-assigned fields are kept. The shared headless Service has no owner (decide-shared-service.ts).
 */
export function planService(desired: V1Service, existing: V1Service | undefined): Plan<V1Service> {
  if (!existing) return { op: 'create', object: desired };
  const ours = desired.metadata?.ownerReferences?.[0];
  const owners = ours ? mergeOwners(desired, existing, ours) : { refs: [...(existing.metadata?.ownerReferences ?? [])], changed: false };
  if ('op' in owners) return owners;
  const { clusterIP: _ip, ...specOwned } = desired.spec ?? {};
  const same = ownedSubset(specOwned, existing.spec) && sameMap(desired.spec?.selector, existing.spec?.selector);
  if (same && !owners.changed && !labelsChanged(desired.metadata?.labels, existing.metadata?.labels)) return { op: 'none' };
  return {
    op: 'update',
    object: {
      ...existing,
      metadata: withMeta(existing, desired, owners.refs),
      spec: { ...existing.spec, ...specOwned, selector: desired.spec?.selector, ports: desired.spec?.ports },
    },
  };
}

// Template annotations other tools set on purpose (`kubectl rollout restart`): kept, unlike the
// anchor, which dropped them and so restarted the pods a second time.
const FOREIGN_TEMPLATE_ANNOTATION = /^kubectl\.kubernetes\.io\//;

export function statefulSetSpecHash(sts: V1StatefulSet): string {
  return stableHash({ replicas: sts.spec?.replicas, template: sts.spec?.template });
}

/**
 * The StatefulSet: replicas and the pod template are ours. A hash of what we applied is kept in
 * an annotation on the StatefulSet (not the template), so a field removed from the cluster spec
 * is removed from the template too, while server defaults never cause a write. Immutable fields
 * (selector, serviceName, volumeClaimTemplates) are written only on create.
 */
export function planStatefulSet(desired: V1StatefulSet, existing: V1StatefulSet | undefined): Plan<V1StatefulSet> {
  if (!existing) {
    const hash = statefulSetSpecHash(desired);
    return {
      op: 'create',
      object: {
        ...desired,
        metadata: { ...desired.metadata, annotations: { ...desired.metadata?.annotations, [ANNOTATION_SPEC_HASH]: hash } },
      },
    };
  }
  const owners = mergeOwners(desired, existing, ourRef(desired));
  if ('op' in owners) return owners;

  const kept = Object.fromEntries(
    Object.entries(existing.spec?.template?.metadata?.annotations ?? {}).filter(([k]) => FOREIGN_TEMPLATE_ANNOTATION.test(k)),
  );
  const template = structuredClone(desired.spec!.template);
  template.metadata = { ...template.metadata, annotations: { ...kept, ...template.metadata?.annotations } };
  const target: V1StatefulSet = { ...desired, spec: { ...desired.spec!, template } };
  const hash = statefulSetSpecHash(target);

  const same =
    existing.metadata?.annotations?.[ANNOTATION_SPEC_HASH] === hash &&
    existing.spec?.replicas === target.spec?.replicas &&
    ownedSubset(template, existing.spec?.template) &&
    sameMap(template.metadata?.annotations, existing.spec?.template?.metadata?.annotations);
  if (same && !owners.changed) return { op: 'none' };
  return {
    op: 'update',
    object: {
      ...existing,
      metadata: {
        ...existing.metadata,
        ownerReferences: owners.refs,
        annotations: { ...existing.metadata?.annotations, [ANNOTATION_SPEC_HASH]: hash },
      },
      spec: { ...existing.spec!, replicas: target.spec?.replicas, template },
    },
  };
}

export function planPodDisruptionBudget(
  desired: V1PodDisruptionBudget | undefined,
  existing: V1PodDisruptionBudget | undefined,
  ours: OwnerReference,
): Plan<V1PodDisruptionBudget> {
  if (!desired) {
    const controlledByUs = existing?.metadata?.ownerReferences?.some((r) => r.uid === ours.uid && r.controller);
    return existing && controlledByUs ? { op: 'delete', object: existing } : { op: 'none' };
  }
  if (!existing) return { op: 'create', object: desired };
  const owners = mergeOwners(desired, existing, ours);
  if ('op' in owners) return owners;
  const same =
    String(existing.spec?.minAvailable) === String(desired.spec?.minAvailable) &&
    existing.spec?.maxUnavailable === undefined &&
    ownedSubset(desired.spec?.selector, existing.spec?.selector);
  if (same && !owners.changed) return { op: 'none' };
  return {
    op: 'update',
    object: { ...existing, metadata: { ...existing.metadata, ownerReferences: owners.refs }, spec: { ...desired.spec } },
  };
}

/** PVCs must not carry the cluster's owner reference while keepAfterDelete is set. */
export function planPvcRelease(pvc: V1PersistentVolumeClaim, clusterUid: string): Plan<V1PersistentVolumeClaim> {
  const refs = pvc.metadata?.ownerReferences ?? [];
  if (!refs.some((r) => r.uid === clusterUid)) return { op: 'none' };
  return {
    op: 'update',
    object: { ...pvc, metadata: { ...pvc.metadata, ownerReferences: refs.filter((r) => r.uid !== clusterUid) } },
  };
}

/**
 * The cluster's NetworkPolicy: created when wanted, deleted when not (--network-policies off) if
 * it is ours, updated when its spec differs either way: a rule losing its `from` (mysqlFrom
 * unset) must be written, which a one-way comparison would miss. The API server keeps a policy
 * as sent (we set the port protocols it would default), so both-way equality is stable.
 */
export function planNetworkPolicy(
  desired: NetworkPolicyObject | undefined,
  existing: NetworkPolicyObject | undefined,
  ours: OwnerReference,
): Plan<NetworkPolicyObject> {
  if (!desired) {
    const controlledByUs = existing?.metadata?.ownerReferences?.some((r) => r.uid === ours.uid && r.controller);
    return existing && controlledByUs ? { op: 'delete', object: existing } : { op: 'none' };
  }
  if (!existing) return { op: 'create', object: desired };
  const owners = mergeOwners(desired, existing, ours);
  if ('op' in owners) return owners;
  const same = ownedSubset(desired.spec, existing.spec) && ownedSubset(existing.spec, desired.spec);
  if (same && !owners.changed && !labelsChanged(desired.metadata?.labels, existing.metadata?.labels)) return { op: 'none' };
  return {
    op: 'update',
    object: { ...existing, metadata: withMeta(existing, desired, owners.refs), spec: desired.spec! },
  };
}
