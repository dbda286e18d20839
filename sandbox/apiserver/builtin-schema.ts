// Built-in kinds checked against the Kubernetes OpenAPI schemas of the `kubernetes-models` package
// (precompiled validators), as kube-apiserver's decoder and validation would refuse them:
// - decoding (400 BadRequest, "<Kind> in version "v1" cannot be handled as a <Kind>: ..."): wrong
//   JSON types, resource.Quantity strings (src/api/quantity.ts) and metav1.Time/MicroTime (go-time.ts);
//   decoding also rewrites quantities and times to the form the server stores;
// - validation (422 Invalid causes): required fields and enums of the schema.
// The OpenAPI schema gives Time and MicroTime the same `date-time` format: which fields are
// MicroTime (six fractional digits) is the Go type's, listed here.
import { formats } from '@kubernetes-models/validate';
import { validate as clusterRole } from 'kubernetes-models/_schemas/IoK8sApiRbacV1ClusterRole';
import { validate as clusterRoleBinding } from 'kubernetes-models/_schemas/IoK8sApiRbacV1ClusterRoleBinding';
import { validate as configMap } from 'kubernetes-models/_schemas/IoK8sApiCoreV1ConfigMap';
import { validate as controllerRevision } from 'kubernetes-models/_schemas/IoK8sApiAppsV1ControllerRevision';
import { validate as cronJob } from 'kubernetes-models/_schemas/IoK8sApiBatchV1CronJob';
import { validate as deployment } from 'kubernetes-models/_schemas/IoK8sApiAppsV1Deployment';
import { validate as endpoints } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Endpoints';
import { validate as endpointSlice } from 'kubernetes-models/_schemas/IoK8sApiDiscoveryV1EndpointSlice';
import { validate as event } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Event';
import { validate as job } from 'kubernetes-models/_schemas/IoK8sApiBatchV1Job';
import { validate as lease } from 'kubernetes-models/_schemas/IoK8sApiCoordinationV1Lease';
import { validate as namespace } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Namespace';
import { validate as networkPolicy } from 'kubernetes-models/_schemas/IoK8sApiNetworkingV1NetworkPolicy';
import { validate as node } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Node';
import { validate as pdb } from 'kubernetes-models/_schemas/IoK8sApiPolicyV1PodDisruptionBudget';
import { validate as persistentVolume } from 'kubernetes-models/_schemas/IoK8sApiCoreV1PersistentVolume';
import { validate as pod } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Pod';
import { validate as pvc } from 'kubernetes-models/_schemas/IoK8sApiCoreV1PersistentVolumeClaim';
import { validate as replicaSet } from 'kubernetes-models/_schemas/IoK8sApiAppsV1ReplicaSet';
import { validate as role } from 'kubernetes-models/_schemas/IoK8sApiRbacV1Role';
import { validate as roleBinding } from 'kubernetes-models/_schemas/IoK8sApiRbacV1RoleBinding';
import { validate as secret } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Secret';
import { validate as service } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Service';
import { validate as serviceAccount } from 'kubernetes-models/_schemas/IoK8sApiCoreV1ServiceAccount';
import { validate as statefulSet } from 'kubernetes-models/_schemas/IoK8sApiAppsV1StatefulSet';
import { canonicalTime } from './go-time.ts';
import { canonicalQuantity } from '../../src/api/quantity.ts';
import { type ApiError, badRequest, type StatusCause } from './status.ts';
import { resourceKey, type KObj, type ResourceDef } from './types.ts';

interface SchemaError {
  instancePath: string;
  keyword: string;
  params: { type?: string; format?: string; missingProperty?: string; allowedValues?: unknown[] };
}
type Validator = ((data: unknown) => boolean) & { errors?: SchemaError[] | null };

const VALIDATORS: Record<string, (data: unknown) => boolean> = {
  configmaps: configMap,
  endpoints,
  events: event,
  namespaces: namespace,
  nodes: node,
  persistentvolumeclaims: pvc,
  persistentvolumes: persistentVolume,
  pods: pod,
  secrets: secret,
  serviceaccounts: serviceAccount,
  services: service,
  'controllerrevisions.apps': controllerRevision,
  'deployments.apps': deployment,
  'replicasets.apps': replicaSet,
  'statefulsets.apps': statefulSet,
  'cronjobs.batch': cronJob,
  'jobs.batch': job,
  'networkpolicies.networking.k8s.io': networkPolicy,
  'poddisruptionbudgets.policy': pdb,
  'leases.coordination.k8s.io': lease,
  'endpointslices.discovery.k8s.io': endpointSlice,
  'roles.rbac.authorization.k8s.io': role,
  'rolebindings.rbac.authorization.k8s.io': roleBinding,
  'clusterroles.rbac.authorization.k8s.io': clusterRole,
  'clusterrolebindings.rbac.authorization.k8s.io': clusterRoleBinding,
};

/** metav1.MicroTime fields (RFC3339 with exactly six fractional digits); every other date-time is metav1.Time. */
const MICRO_TIME: Record<string, string[]> = {
  events: ['/eventTime', '/series/lastObservedTime'],
  'leases.coordination.k8s.io': ['/spec/acquireTime', '/spec/renewTime'],
};

/** A JSON pointer as a Kubernetes field path: `spec.containers[0].name`. */
export function fieldPath(pointer: string): string {
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^[0-9]+$/.test(seg) ? `[${seg}]` : out ? `.${seg}` : seg;
  }
  return out;
}

function pointerGet(obj: KObj, pointer: string): unknown {
  let cur: unknown = obj;
  for (const raw of pointer.split('/').slice(1)) cur = (cur as KObj | undefined)?.[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  return cur;
}

function pointerSet(obj: KObj, pointer: string, value: unknown): void {
  const segs = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const parent = pointerGet(
    obj,
    segs
      .slice(0, -1)
      .map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`)
      .join(''),
  ) as KObj;
  parent[segs[segs.length - 1]!] = value;
}

/** Runs `validate` with every quantity and date-time string failing its format, so their paths show up as errors. */
function probe(validate: Validator, data: unknown): SchemaError[] {
  const quantity = formats.quantity as { validate: unknown };
  const dateTime = formats['date-time'] as { validate: unknown };
  const saved = [quantity.validate, dateTime.validate];
  quantity.validate = { test: () => false };
  dateTime.validate = () => false;
  try {
    validate(data);
    return validate.errors ?? [];
  } finally {
    [quantity.validate, dateTime.validate] = saved;
  }
}

function goType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'number' : `number ${v}`;
  return typeof v;
}

function numbersAsStrings(v: unknown): unknown {
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return v.map(numbersAsStrings);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, numbersAsStrings(x)]));
  return v;
}

function hasNumber(v: unknown): boolean {
  if (typeof v === 'number') return true;
  if (v && typeof v === 'object') return Object.values(v).some(hasNumber);
  return false;
}

/**
 * What the real decoder does to a built-in object's body: refuses wrong JSON types, unparsable
 * quantities and times (400), and rewrites quantities and times in `obj` (a private copy) to their
 * stored form.
 */
export function decodeBuiltin(def: ResourceDef, obj: KObj): void {
  const validate = VALIDATORS[resourceKey(def)] as Validator | undefined;
  if (!validate) return;
  const undecodable = (why: string): ApiError =>
    badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${why}`);
  const errors = probe(validate, obj);
  const quantities = new Set<string>();
  const times = new Set<string>();
  for (const e of errors) {
    if (e.keyword === 'format' && e.params.format === 'quantity') quantities.add(e.instancePath);
    if (e.keyword === 'format' && e.params.format === 'date-time') times.add(e.instancePath);
  }
  // A number where a Quantity goes passes the schema's number branch: find those through their text.
  if (hasNumber(obj)) {
    for (const e of probe(validate, numbersAsStrings(obj))) {
      if (e.keyword === 'format' && e.params.format === 'quantity' && typeof pointerGet(obj, e.instancePath) === 'number')
        quantities.add(e.instancePath);
    }
  }
  const wrongType = errors.find(
    (e) => (e.keyword === 'type' || e.keyword === 'oneOf') && !quantities.has(e.instancePath) && !times.has(e.instancePath),
  );
  if (wrongType) {
    const path = fieldPath(wrongType.instancePath).replace(/\[[0-9]+\]/g, '');
    throw undecodable(
      `json: cannot unmarshal ${goType(pointerGet(obj, wrongType.instancePath))} into Go struct field .${path} of type ${wrongType.params.type ?? 'intstr.IntOrString'}`,
    );
  }
  const micro = new Set(MICRO_TIME[resourceKey(def)] ?? []);
  try {
    for (const p of quantities) pointerSet(obj, p, canonicalQuantity(String(pointerGet(obj, p))));
    for (const p of times) pointerSet(obj, p, canonicalTime(String(pointerGet(obj, p)), micro.has(p)));
  } catch (e) {
    throw undecodable((e as Error).message);
  }
}

/** Objects the schemas leave open (`type: object` alone): Go keeps their contents as sent. */
const FREE_FORM_META = /^\/metadata\/managedFields\/[0-9]+\/fieldsV1$/;
const FREE_FORM: Record<string, RegExp> = { 'controllerrevisions.apps': /^\/data$/ };

/** A copy of `v` in which the children of the objects at `parents` are replaced by `leaf`. */
function cutAt(v: unknown, at: string, parents: Set<string>, leaf: unknown): unknown {
  if (!v || typeof v !== 'object') return v;
  const cut = parents.has(at);
  const child = (k: string, x: unknown) => (cut ? leaf : cutAt(x, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, parents, leaf));
  if (Array.isArray(v)) return v.map((x, i) => child(String(i), x));
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, child(k, x)]));
}

/**
 * Removes from `obj` the fields its Go type lacks, as Go's decoder drops them, and returns their
 * paths as sigs.k8s.io/json names them (`spec.template.spec.containers[0].foo`). The compiled
 * schemas do not close objects, so a field is known when a value no type accepts fails at its path:
 * one probe per depth, each field of that depth replaced by a Symbol. Maps fail through their
 * `additionalProperties`, so their keys are kept.
 */
export function dropUnknownFields(def: ResourceDef, obj: KObj): string[] {
  const validate = VALIDATORS[resourceKey(def)] as Validator | undefined;
  if (!validate) return [];
  const freeForm = [FREE_FORM_META, ...[FREE_FORM[resourceKey(def)] ?? []].flat()];
  const unknown: string[] = [];
  let level = [''];
  while (level.length > 0) {
    validate(cutAt(obj, '', new Set(level), Symbol('probe')));
    const known = new Set((validate.errors ?? []).map((e) => e.instancePath));
    const next: string[] = [];
    for (const at of level) {
      const node = pointerGet(obj, at) as Record<string, unknown>;
      for (const k of Object.keys(node)) {
        const path = `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        if (!Array.isArray(node) && !known.has(path)) {
          unknown.push(fieldPath(path));
          delete node[k];
        } else if (node[k] !== null && typeof node[k] === 'object' && !freeForm.some((r) => r.test(path))) next.push(path);
      }
    }
    level = next;
  }
  return unknown;
}

/** The schema's required fields and enums that a decoded object misses, outside status and metadata (their own rules). */
export function schemaCauses(def: ResourceDef, obj: KObj): StatusCause[] {
  const validate = VALIDATORS[resourceKey(def)] as Validator | undefined;
  if (!validate || validate(obj)) return [];
  const out: StatusCause[] = [];
  for (const e of validate.errors ?? []) {
    if ((e.keyword !== 'required' && e.keyword !== 'enum') || /^\/(status|metadata)(\/|$)/.test(e.instancePath)) continue;
    if (e.keyword === 'required') {
      const at = fieldPath(`${e.instancePath}/${e.params.missingProperty}`);
      out.push({ reason: 'FieldValueRequired', message: 'Required value', field: at });
    } else {
      const value = pointerGet(obj, e.instancePath);
      const allowed = (e.params.allowedValues ?? []).map((v) => JSON.stringify(v)).join(', ');
      out.push({
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${allowed}`,
        field: fieldPath(e.instancePath),
      });
    }
  }
  return out;
}
