// The small structural view of Kubernetes objects the runtime needs. Kind-specific types (the
// generated CR types, client-node's models) are assignable to these.

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** One writer's fields (metadata.managedFields): FieldsV1 is a tree of `f:<field>`, `k:<keys>`, `v:<value>`, `.`. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: 'FieldsV1';
  fieldsV1?: FieldsV1;
  subresource?: string;
}

export type FieldsV1 = { [key: string]: FieldsV1 };

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: { [key: string]: string };
  annotations?: { [key: string]: string };
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

export interface KubeList<T> {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

/** Names one kind: `{ apiVersion: 'apps/v1', kind: 'StatefulSet' }`. */
export interface KindRef {
  apiVersion: string;
  kind: string;
}

/** Names one object (namespace omitted for cluster-scoped kinds). */
export interface ObjectRef extends KindRef {
  namespace?: string;
  name: string;
}

/** The queue key of an object: `namespace/name`, or `name` when cluster-scoped. */
export function objectKey(obj: KubeObject | { namespace?: string; name: string }): string {
  const meta = 'metadata' in obj || !('name' in obj) ? ((obj as KubeObject).metadata ?? {}) : obj;
  const ns = meta.namespace;
  return ns ? `${ns}/${meta.name ?? ''}` : (meta.name ?? '');
}

export function parseKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

export function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

/** Label selector: a `k=v,k2 in (a,b)` string, or an equality map. */
export type LabelSelector = string | Record<string, string>;

export function selectorString(sel: LabelSelector | undefined): string {
  if (sel === undefined) return '';
  if (typeof sel === 'string') return sel;
  return Object.entries(sel)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}
