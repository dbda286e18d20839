// The informer's store: objects by key, with a namespace index, read by controllers.
import { objectKey, type KubeObject } from './kube/types.ts';

export interface CacheQuery {
  /** Only objects of this namespace. */
  namespace?: string;
  /** Only objects carrying every one of these labels with these values. */
  labels?: Record<string, string>;
}

export class ObjectCache<T extends KubeObject = KubeObject> {
  readonly #byKey = new Map<string, T>();
  readonly #byNamespace = new Map<string, Set<string>>();

  get size(): number {
    return this.#byKey.size;
  }

  get(namespace: string, name: string): T | undefined {
    return this.#byKey.get(objectKey({ namespace, name }));
  }

  getByKey(key: string): T | undefined {
    return this.#byKey.get(key);
  }

  keys(): string[] {
    return [...this.#byKey.keys()];
  }

  list(query: CacheQuery = {}): T[] {
    let objs: Iterable<T>;
    if (query.namespace !== undefined) {
      const keys = this.#byNamespace.get(query.namespace) ?? new Set<string>();
      objs = [...keys].map((k) => this.#byKey.get(k)).filter((o): o is T => o !== undefined);
    } else {
      objs = this.#byKey.values();
    }
    const want = Object.entries(query.labels ?? {});
    const out: T[] = [];
    for (const o of objs) {
      const labels = o.metadata?.labels ?? {};
      if (want.every(([k, v]) => labels[k] === v)) out.push(o);
    }
    return out;
  }

  /** Stores `obj`; returns the object it replaced. */
  set(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.#byKey.get(key);
    this.#byKey.set(key, obj);
    const ns = obj.metadata?.namespace ?? '';
    let set = this.#byNamespace.get(ns);
    if (!set) {
      set = new Set();
      this.#byNamespace.set(ns, set);
    }
    set.add(key);
    return old;
  }

  /** Removes the object stored under `key`; returns it. */
  delete(key: string): T | undefined {
    const old = this.#byKey.get(key);
    if (!old) return undefined;
    this.#byKey.delete(key);
    const ns = old.metadata?.namespace ?? '';
    const set = this.#byNamespace.get(ns);
    set?.delete(key);
    if (set?.size === 0) this.#byNamespace.delete(ns);
    return old;
  }
}
