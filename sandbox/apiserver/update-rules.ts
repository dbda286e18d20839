// The immutability rules of built-in kinds that a controller can trip over: what the real
// validation refuses on update, with its messages (k8s.io/kubernetes/pkg/apis/*/validation).
import type { StatusCause } from './status.ts';
import { deepEqual } from './json.ts';
import type { KObj } from './types.ts';

export type UpdateRule = (old: KObj, next: KObj) => StatusCause[];

function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field };
}

function immutable(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: field is immutable`, field };
}

function without(spec: KObj | undefined, keys: string[]): KObj {
  const out: KObj = { ...(spec ?? {}) };
  for (const k of keys) delete out[k];
  return out;
}

const statefulSet: UpdateRule = (old, next) => {
  const allowed = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];
  if (deepEqual(without(old.spec, allowed), without(next.spec, allowed))) return [];
  return [
    forbidden(
      'spec',
      "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ),
  ];
};

const selectorImmutable: UpdateRule = (old, next) =>
  deepEqual(old.spec?.selector, next.spec?.selector) ? [] : [immutable('spec.selector', next.spec?.selector)];

// v1.26 validateJobSpecUpdate, in its order; parallelism, suspend, activeDeadlineSeconds and
// backoffLimit stay mutable.
const job: UpdateRule = (old, next) => {
  const changed = (k: string) => (deepEqual(old.spec?.[k], next.spec?.[k]) ? [] : [immutable(`spec.${k}`, next.spec?.[k])]);
  const template = (t: KObj | undefined) => ({
    ...(t ?? {}),
    metadata: { ...(t?.metadata ?? {}), labels: undefined, annotations: undefined },
  });
  const templateCauses = deepEqual(template(old.spec?.template), template(next.spec?.template))
    ? []
    : [immutable('spec.template', next.spec?.template)];
  return [
    ...changed('completions'),
    ...selectorImmutable(old, next),
    ...templateCauses,
    ...changed('completionMode'),
    ...changed('podFailurePolicy'),
  ];
};

const pvc: UpdateRule = (old, next) => {
  const spec = (s: KObj | undefined) => ({
    ...without(s, ['resources', 'volumeName']),
    resources: { ...(s?.resources ?? {}), requests: undefined },
  });
  if (deepEqual(spec(old.spec), spec(next.spec))) return [];
  return [forbidden('spec', 'spec is immutable after creation except resources.requests for bound claims')];
};

const pod: UpdateRule = (old, next) => {
  const images = (cs: KObj[] | undefined) => (cs ?? []).map((c) => ({ ...c, image: undefined }));
  const spec = (s: KObj | undefined) => ({
    ...without(s, ['activeDeadlineSeconds', 'tolerations', 'terminationGracePeriodSeconds']),
    containers: images(s?.containers),
    initContainers: images(s?.initContainers),
  });
  if (deepEqual(spec(old.spec), spec(next.spec))) return [];
  return [
    forbidden(
      'spec',
      'pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only additions to existing tolerations) or `spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
    ),
  ];
};

const service: UpdateRule = (old, next) => {
  const was = old.spec?.clusterIP;
  const now = next.spec?.clusterIP;
  if (was && now !== undefined && now !== '' && now !== was && old.spec?.type !== 'ExternalName' && next.spec?.type !== 'ExternalName') {
    return [immutable('spec.clusterIPs[0]', now)];
  }
  return [];
};

const immutableData: UpdateRule = (old, next) => {
  if (old.immutable !== true) return [];
  if (next.immutable !== true) return [forbidden('immutable', 'field is immutable when `immutable` is set')];
  if (!deepEqual(old.data, next.data)) return [forbidden('data', 'field is immutable when `immutable` is set')];
  if (!deepEqual(old.binaryData, next.binaryData)) return [forbidden('binaryData', 'field is immutable when `immutable` is set')];
  return [];
};

export const UPDATE_RULES: Record<string, UpdateRule> = {
  statefulsets: statefulSet,
  deployments: selectorImmutable,
  replicasets: selectorImmutable,
  jobs: job,
  persistentvolumeclaims: pvc,
  pods: pod,
  services: service,
  configmaps: immutableData,
  secrets: immutableData,
};
