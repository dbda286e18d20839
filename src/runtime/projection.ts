// What an informer's cache keeps of each object (docs/runtime.md, "What the caches hold"): every
// object loses `metadata.managedFields` and the `kubectl apply` annotation; a target may declare a
// projection that keeps only what its readers read; equal strings are stored once. A cached object
// is therefore not the server's object, and must never be the base of a PUT: the client refuses
// an update built from one (`isCachedCopy`), so a write starts from a fresh GET or is a patch.
import type { KubeObject } from './kube/types.ts';

/** Written by `kubectl apply` (client-side): a copy of the whole applied object; never read here. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * What the cache of one kind keeps of each object. `keep` may change `obj` in place and return
 * it, or return a new object; it must keep `apiVersion`, `kind` and the metadata the runtime
 * reads (name, namespace, uid, resourceVersion, labels, ownerReferences, deletionTimestamp).
 * `name` is part of the informer's identity: targets with different projections get different
 * informers, so declare one projection per kind where the kinds are declared.
 */
export interface Projection {
  readonly name: string;
  keep(obj: KubeObject): KubeObject;
}

/** An enumerable symbol: object spread copies it (so a body built from a cached copy carries it), JSON does not. */
const CACHED_COPY = Symbol('cached copy');

/** True when `obj` is a cached object or its metadata, or was spread from one (`{ ...cached, ... }`). */
export function isCachedCopy(obj: object): boolean {
  return CACHED_COPY in obj;
}

/** The default trimming of every cached object. */
export function trim<T extends KubeObject>(obj: T): T {
  const meta = obj.metadata;
  if (!meta) return obj;
  delete (meta as { managedFields?: unknown }).managedFields;
  if (meta.annotations && LAST_APPLIED_ANNOTATION in meta.annotations) {
    delete meta.annotations[LAST_APPLIED_ANNOTATION];
    if (Object.keys(meta.annotations).length === 0) delete meta.annotations;
  }
  return obj;
}

/**
 * Stores each distinct string once: JSON.parse gives every object its own copy of each value
 * (1,000 StatefulSets hold 1,000 copies of the same images, commands and env names). The table
 * only grows between relists (`reset()` at each): if it outgrows twice its size after the last
 * relist (strings of changed objects no cached object holds any more), it starts over.
 */
export class StringTable {
  #table = new Map<string, string>();
  #limit = Infinity;

  /** At the start of a relist: a new table, unbounded until `settle()`. */
  reset(): void {
    this.#table = new Map();
    this.#limit = Infinity;
  }

  /** After a relist filled the table: the size it may grow to before it starts over. */
  settle(): void {
    this.#limit = Math.max(10_000, 2 * this.#table.size);
  }

  /** Replaces, in place, every string value of `value` by the table's copy. */
  share<T>(value: T): T {
    if (this.#table.size > this.#limit) this.#table = new Map();
    this.#walk(value);
    return value;
  }

  #string(s: string): string {
    const known = this.#table.get(s);
    if (known !== undefined) return known;
    this.#table.set(s, s);
    return s;
  }

  #walk(v: unknown): void {
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (typeof x === 'string') v[i] = this.#string(x);
        else if (x !== null && typeof x === 'object') this.#walk(x);
      }
    } else if (v !== null && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      for (const k in o) {
        const x = o[k];
        if (typeof x === 'string') o[k] = this.#string(x);
        else if (x !== null && typeof x === 'object') this.#walk(x);
      }
    }
  }
}

/** The cached form of a server object: trimmed, projected, its strings shared, marked. */
export function cachedCopy<T extends KubeObject>(obj: T, projection: Projection | undefined, strings: StringTable): T {
  const kept = (projection ? projection.keep(trim(obj)) : trim(obj)) as T;
  strings.share(kept);
  (kept as Record<symbol, unknown>)[CACHED_COPY] = true;
  if (kept.metadata) (kept.metadata as Record<symbol, unknown>)[CACHED_COPY] = true;
  return kept;
}
