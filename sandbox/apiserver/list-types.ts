// How each list field merges: by key (associative), as a set, or atomically. Built-in kinds use
// the merge keys of their Go types (the same ones strategic merge patch uses); custom resources use
// x-kubernetes-list-type / x-kubernetes-list-map-keys of their schema.
import type { KObj } from './types.ts';

export type ListType = { type: 'map'; keys: string[] } | { type: 'set' } | { type: 'atomic' };

/** Resolves the list type of the field at `path` (field names only, list indices left out). */
export type ListTypeResolver = (path: string[]) => ListType;
/** Whether the map at `path` is atomic (owned and replaced as a whole). */
export type AtomicMapResolver = (path: string[]) => boolean;

export interface SchemaInfo {
  listType: ListTypeResolver;
  atomicMap: AtomicMapResolver;
}

const META_LISTS: Record<string, ListType> = {
  finalizers: { type: 'set' },
  ownerReferences: { type: 'map', keys: ['uid'] },
};

function metadataList(path: string[]): ListType | undefined {
  if (path.length === 2 && path[0] === 'metadata') return META_LISTS[path[1]!];
  return undefined;
}

const CONTAINER_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers']);

function builtinListType(path: string[]): ListType {
  const meta = metadataList(path);
  if (meta) return meta;
  const name = path[path.length - 1] ?? '';
  const parent = path[path.length - 2] ?? '';
  if (CONTAINER_LISTS.has(name)) return { type: 'map', keys: ['name'] };
  switch (name) {
    case 'env':
    case 'volumes':
    case 'imagePullSecrets':
      return { type: 'map', keys: ['name'] };
    case 'volumeMounts':
      return { type: 'map', keys: ['mountPath'] };
    case 'volumeDevices':
      return { type: 'map', keys: ['devicePath'] };
    case 'conditions':
      return { type: 'map', keys: ['type'] };
    case 'hostAliases':
      return { type: 'map', keys: ['ip'] };
    case 'topologySpreadConstraints':
      return { type: 'map', keys: ['topologyKey', 'whenUnsatisfiable'] };
    case 'ports':
      if (CONTAINER_LISTS.has(parent)) return { type: 'map', keys: ['containerPort', 'protocol'] };
      if (parent === 'spec') return { type: 'map', keys: ['port', 'protocol'] };
      return { type: 'atomic' };
    default:
      return { type: 'atomic' };
  }
}

/** Built-in structs marked `+structType=atomic` / `+mapType=atomic`: owned and replaced whole. */
const ATOMIC_STRUCTS = new Set([
  'involvedObject',
  'regarding',
  'related',
  'secretKeyRef',
  'configMapKeyRef',
  'fieldRef',
  'resourceFieldRef',
  'roleRef',
]);

export const BUILTIN_SCHEMA: SchemaInfo = {
  listType: builtinListType,
  atomicMap: (path) => {
    const last = path[path.length - 1] ?? '';
    if (last === 'selector' && path[0] === 'spec') return true;
    if (path.length === 2 && path[0] === 'metadata' && last === 'ownerReferences') return true;
    return ATOMIC_STRUCTS.has(last);
  },
};

/** Merge key of a list for strategic merge patch (Service ports merge by `port` alone). */
export function strategicMergeKey(path: string[]): string | undefined {
  const lt = builtinListType(path);
  if (lt.type !== 'map') return undefined;
  return lt.keys[0];
}

function schemaAt(schema: KObj | undefined, path: string[]): KObj | undefined {
  let cur = schema;
  for (const p of path) {
    if (!cur) return undefined;
    if (cur.type === 'array') cur = cur.items;
    if (!cur) return undefined;
    if (cur.properties?.[p]) cur = cur.properties[p];
    else if (cur.additionalProperties && typeof cur.additionalProperties === 'object') cur = cur.additionalProperties;
    else return undefined;
  }
  if (cur?.type === 'array' && path.length > 0) return cur;
  return cur;
}

export function crSchemaInfo(schema: KObj | undefined): SchemaInfo {
  return {
    listType: (path) => {
      const meta = metadataList(path);
      if (meta) return meta;
      const s = schemaAt(schema, path);
      const lt = s?.['x-kubernetes-list-type'];
      if (lt === 'map') return { type: 'map', keys: (s?.['x-kubernetes-list-map-keys'] as string[] | undefined) ?? [] };
      if (lt === 'set') return { type: 'set' };
      return { type: 'atomic' };
    },
    atomicMap: (path) => {
      if (path.length === 2 && path[0] === 'metadata' && path[1] === 'ownerReferences') return true;
      const s = schemaAt(schema, path);
      return s?.['x-kubernetes-map-type'] === 'atomic';
    },
  };
}
