// JSON value helpers: deep copy, key order (Go struct order for built-ins, sorted keys for
// custom resources, which the real server stores unstructured); deep equality and the object
// test are src/api/json-value.ts's, through the schema engine (structural/).
import { deepEqual, isPlainObject } from './structural/index.ts';
import { goOrder } from './go-order.ts';
import type { KObj, ResourceDef } from './types.ts';

export { deepEqual };

export function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

// One implementation with the schema engine's; typed for the sandbox's any-valued objects.
export const isObject: (v: unknown) => v is KObj = isPlainObject;

export function sortKeysDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  if (isObject(v)) {
    const out: KObj = {};
    for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = sortKeysDeep(v[k]);
    return out;
  }
  return v;
}

const META_ORDER = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
];
const MANAGED_ORDER = ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource'];
const OWNER_ORDER = ['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion'];

function ordered(o: KObj, order: string[]): KObj {
  const out: KObj = {};
  for (const k of order) if (o[k] !== undefined) out[k] = o[k];
  for (const k of Object.keys(o)) if (!(k in out) && o[k] !== undefined) out[k] = o[k];
  return out;
}

export function orderMetadata(meta: KObj): KObj {
  const m = ordered(meta, META_ORDER);
  if (Array.isArray(m.managedFields)) m.managedFields = m.managedFields.map((e: KObj) => ordered(e, MANAGED_ORDER));
  if (Array.isArray(m.ownerReferences)) m.ownerReferences = m.ownerReferences.map((e: KObj) => ordered(e, OWNER_ORDER));
  return m;
}

/** The object with the key order the real server writes for this resource. */
export function orderObject(def: ResourceDef, obj: KObj): KObj {
  if (!def.builtin) return sortKeysDeep(obj) as KObj;
  const top = goOrder(def.kind, ordered(obj, ['kind', 'apiVersion', 'metadata', ...(def.topLevelOrder ?? [])]));
  top.metadata = orderMetadata(top.metadata ?? {});
  return top;
}

/** Reads a simple JSONPath like `.spec.replicas` or `.status.conditions[0].type`. */
export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.replace(/^\./, '').split('.')) {
    if (part === '') continue;
    const m = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (!m) return undefined;
    if (m[1]) {
      if (!isObject(cur)) return undefined;
      cur = cur[m[1]];
    }
    for (const idx of m[2]!.matchAll(/\[(\d+)\]/g)) {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[Number(idx[1])];
    }
  }
  return cur;
}

export function setPath(obj: KObj, path: string, value: unknown): void {
  const parts = path.replace(/^\./, '').split('.');
  let cur: KObj = obj;
  for (const p of parts.slice(0, -1)) {
    if (!isObject(cur[p])) cur[p] = {};
    cur = cur[p];
  }
  cur[parts[parts.length - 1]!] = value;
}

export function rfc3339(d: Date = new Date()): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
