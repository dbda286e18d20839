// Pruning of unknown fields, as apiextensions does on every write of a custom resource:
// fields not in the schema are dropped, except under x-kubernetes-preserve-unknown-fields;
// apiVersion, kind and metadata survive at the resource root and in embedded resources.
// Afterwards, nulls in fields that are neither nullable nor defaulted are dropped too.
import { isPlainObject } from '../../../src/api/json-value.ts';
import { additionalSchema, propertySchema, type JSONSchemaProps } from '../../../src/api/schema-types.ts';

/** Kept without looking at the schema in an embedded resource (and at the resource root). */
function isKeptMetaField(k: string, v: unknown): boolean {
  if (k === 'apiVersion' || k === 'kind') return typeof v === 'string';
  return k === 'metadata' && isPlainObject(v);
}

class Pruner {
  readonly pruned: string[] = [];

  prune(x: unknown, s: JSONSchemaProps | undefined, path: string[], embedded: boolean): void {
    if (s?.['x-kubernetes-preserve-unknown-fields']) {
      this.skipPrune(x, s, path, embedded || !!s['x-kubernetes-embedded-resource']);
      return;
    }
    if (Array.isArray(x)) {
      for (const [i, v] of x.entries()) this.prune(v, s?.items, withIndex(path, i), false);
      return;
    }
    if (!isPlainObject(x)) return;
    const isEmbedded = embedded || !!s?.['x-kubernetes-embedded-resource'];
    for (const k of Object.keys(x)) {
      const v = x[k];
      if (isEmbedded && isKeptMetaField(k, v)) continue;
      const prop = s ? propertySchema(s, k) : undefined;
      const additional = s ? additionalSchema(s) : undefined;
      if (prop) {
        this.prune(v, prop, [...path, k], false);
      } else if (additional) {
        this.prune(v, additional, [...path, k], false);
      } else {
        // The root's own apiVersion/kind/metadata of the wrong type are dropped silently, as upstream.
        const rootMeta = path.length === 0 && (k === 'apiVersion' || k === 'kind' || k === 'metadata');
        if (!rootMeta) this.pruned.push([...path, k].join('.'));
        delete x[k];
      }
    }
  }

  private skipPrune(x: unknown, s: JSONSchemaProps, path: string[], embedded: boolean): void {
    if (Array.isArray(x)) {
      if (s.items) for (const [i, v] of x.entries()) this.skipPrune(v, s.items as JSONSchemaProps, withIndex(path, i), false);
      return;
    }
    if (!isPlainObject(x)) return;
    for (const k of Object.keys(x)) {
      if (embedded && isKeptMetaField(k, x[k])) continue;
      const prop = propertySchema(s, k) ?? additionalSchema(s);
      if (prop) this.prune(x[k], prop, [...path, k], false);
    }
  }
}

function withIndex(path: string[], i: number): string[] {
  if (path.length === 0) return [`[${i}]`];
  return [...path.slice(0, -1), `${path[path.length - 1]}[${i}]`];
}

/**
 * Drops fields unknown to the schema from `obj` (in place). `isResourceRoot` treats the
 * top level as a resource (apiVersion/kind/metadata kept). Returns the pruned paths, sorted,
 * in the form kube-apiserver puts in its `unknown field "..."` warnings.
 */
export function pruneUnknown(obj: unknown, schema: JSONSchemaProps, isResourceRoot = true): string[] {
  const p = new Pruner();
  p.prune(obj, schema, [], isResourceRoot);
  return p.pruned.sort();
}

/** Drops nulls from fields that are not nullable and have no default (in place). */
export function pruneNonNullableNulls(x: unknown, s: JSONSchemaProps | undefined): void {
  if (!s) return;
  if (Array.isArray(x)) {
    for (const v of x) pruneNonNullableNulls(v, s.items);
    return;
  }
  if (!isPlainObject(x)) return;
  for (const k of Object.keys(x)) {
    const sub = propertySchema(s, k) ?? additionalSchema(s);
    if (!sub) continue;
    if (x[k] === null && sub.default === undefined && !sub.nullable) {
      delete x[k];
    } else {
      pruneNonNullableNulls(x[k], sub);
    }
  }
}
