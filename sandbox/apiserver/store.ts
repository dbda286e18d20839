// In-memory object storage with one resourceVersion counter for the whole server (like etcd's
// revision) and a bounded event log that plays the watch cache: watches replay events newer than
// their start RV; a start RV older than the retained window gets 410 Expired.
import type { KObj } from './types.ts';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredEvent {
  rv: number;
  type: EventType;
  rkey: string;
  namespace: string | undefined;
  object: KObj;
  /** The stored state this event replaced (for selector transitions of watches). */
  prev: KObj | undefined;
  /** Serialised lines per output format, filled lazily and shared by all watchers. */
  lines: Map<string, Buffer>;
}

export type EventListener = (ev: StoredEvent) => void;

export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export class Store {
  private rv: number;
  private readonly tables = new Map<string, Map<string, KObj>>();
  /** Sorted keys per table, dropped when a key is added or removed. */
  private readonly sortedKeys = new Map<string, string[]>();
  private readonly byUid = new Map<string, { rkey: string; key: string }>();
  private events: StoredEvent[] = [];
  /** Events with rv > windowStart are retained; a watch may start at any RV >= windowStart. */
  private windowStart: number;
  private readonly windowSize: number;
  private readonly listeners = new Set<EventListener>();

  constructor(windowSize: number, startRv = 100) {
    this.rv = startRv;
    this.windowStart = startRv;
    this.windowSize = windowSize;
  }

  currentRv(): number {
    return this.rv;
  }

  oldestWatchableRv(): number {
    return this.windowStart;
  }

  nextRv(): number {
    return ++this.rv;
  }

  table(rkey: string): Map<string, KObj> {
    let t = this.tables.get(rkey);
    if (!t) {
      t = new Map();
      this.tables.set(rkey, t);
    }
    return t;
  }

  get(rkey: string, namespace: string | undefined, name: string): KObj | undefined {
    return this.tables.get(rkey)?.get(objectKey(namespace, name));
  }

  getByUid(uid: string): { rkey: string; obj: KObj } | undefined {
    const ref = this.byUid.get(uid);
    if (!ref) return undefined;
    const obj = this.tables.get(ref.rkey)?.get(ref.key);
    return obj ? { rkey: ref.rkey, obj } : undefined;
  }

  /** Objects of a resource sorted by key (etcd order) from key `after` on (exclusive), optionally in one namespace. */
  listFrom(rkey: string, namespace: string | undefined, after: string): KObj[] {
    const t = this.tables.get(rkey);
    if (!t) return [];
    let keys = this.sortedKeys.get(rkey);
    if (!keys) {
      keys = [...t.keys()].sort();
      this.sortedKeys.set(rkey, keys);
    }
    const prefix = namespace ? `${namespace}/` : '';
    const from = `${prefix}${after}`;
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (keys[mid]! < from) lo = mid + 1;
      else hi = mid;
    }
    const out: KObj[] = [];
    for (let i = lo; i < keys.length; i++) {
      const k = keys[i]!;
      if (prefix && !k.startsWith(prefix)) break;
      out.push(t.get(k)!);
    }
    return out;
  }

  /**
   * Objects of a resource as they were at resourceVersion `rv` (which must be inside the window),
   * sorted by key, from key `after` on (exclusive): the current state with newer events undone.
   */
  listAt(rkey: string, namespace: string | undefined, rv: number, after = ''): KObj[] {
    const state = new Map(this.table(rkey));
    const newer = this.eventsSince(rv) ?? [];
    for (let i = newer.length - 1; i >= 0; i--) {
      const ev = newer[i]!;
      if (ev.rkey !== rkey) continue;
      const key = objectKey(ev.namespace, ev.object.metadata.name);
      if (ev.prev) state.set(key, ev.prev);
      else state.delete(key);
    }
    const prefix = namespace ? `${namespace}/` : '';
    const from = `${prefix}${after}`;
    return [...state.keys()]
      .filter((k) => k.startsWith(prefix) && (!after || k >= from))
      .sort()
      .map((k) => state.get(k)!);
  }

  /** Objects of a resource sorted by key (etcd order), optionally in one namespace. */
  list(rkey: string, namespace?: string): KObj[] {
    return this.listFrom(rkey, namespace, '');
  }

  /** Stores `obj` (its metadata.resourceVersion already set to a fresh RV) and emits the event. */
  put(rkey: string, obj: KObj, type: 'ADDED' | 'MODIFIED'): void {
    const ns: string | undefined = obj.metadata.namespace;
    const key = objectKey(ns, obj.metadata.name);
    const t = this.table(rkey);
    const prev = t.get(key);
    if (!prev) this.sortedKeys.delete(rkey);
    t.set(key, obj);
    this.byUid.set(obj.metadata.uid, { rkey, key });
    this.emit({ rv: Number(obj.metadata.resourceVersion), type, rkey, namespace: ns, object: obj, prev, lines: new Map() });
  }

  /** Removes the object; `last` is its final state carrying a fresh RV for the DELETED event. */
  remove(rkey: string, last: KObj): void {
    const ns: string | undefined = last.metadata.namespace;
    const key = objectKey(ns, last.metadata.name);
    const t = this.table(rkey);
    const prev = t.get(key);
    t.delete(key);
    this.sortedKeys.delete(rkey);
    this.byUid.delete(last.metadata.uid);
    this.emit({ rv: Number(last.metadata.resourceVersion), type: 'DELETED', rkey, namespace: ns, object: last, prev, lines: new Map() });
  }

  dropTable(rkey: string): void {
    const t = this.tables.get(rkey);
    if (!t) return;
    for (const obj of t.values()) this.byUid.delete(obj.metadata.uid);
    this.tables.delete(rkey);
    this.sortedKeys.delete(rkey);
  }

  private emit(ev: StoredEvent): void {
    this.events.push(ev);
    if (this.events.length > this.windowSize * 2) this.trim(this.events.length - this.windowSize);
    for (const l of this.listeners) l(ev);
  }

  private trim(n: number): void {
    const dropped = this.events.slice(0, n);
    this.events = this.events.slice(n);
    const last = dropped[dropped.length - 1];
    if (last) this.windowStart = last.rv;
  }

  /** Forgets every retained event: watches from any RV before now get 410. */
  expireWindow(): void {
    this.events = [];
    this.windowStart = this.rv;
  }

  /** Events with rv > `rv`, or undefined when `rv` is older than the window. */
  eventsSince(rv: number): StoredEvent[] | undefined {
    if (rv < this.windowStart) return undefined;
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.events[mid]!.rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return this.events.slice(lo);
  }

  subscribe(l: EventListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}
