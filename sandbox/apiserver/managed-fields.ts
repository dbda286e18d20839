// Field ownership (metadata.managedFields, FieldsV1) and server-side apply, modelled on
// structured-merge-diff: a field set is a FieldsV1 tree (`f:<field>`, `k:<keys json>`,
// `v:<value json>`, `.` = the node itself); a node without children is a member.
// Update operations take ownership of what they change (from everyone); Apply owns exactly what
// its configuration names, conflicts with other owners of differing values (409 unless force), and
// removes fields it owned before and no longer names, unless someone else owns them. A manager is
// its name, operation and subresource: an Apply conflicts with an Update of the same name.
// Before each write the sets are reconciled with the schema, like structured-merge-diff's
// reconcileManagedFieldsWithSchemaChanges: a list that became atomic is owned whole; one that
// became a list map or set is left as it is (its former owner keeps the list node, no item).
import { unionFields } from '../../src/runtime/kube/fields-v1.ts';
import { ApiError, statusBody } from './status.ts';
import { clone, deepEqual, isObject, rfc3339 } from './json.ts';
import type { SchemaInfo } from './list-types.ts';
import type { KObj } from './types.ts';

export type FieldSet = KObj;

const UNTRACKED_META = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
]);
/** Fields of built-in types that Go always serialises (value structs, lists without omitempty):
 * they exist even when empty, so they are never "added" and get no `.` entry. */
const BUILTIN_ALWAYS_PRESENT = new Set([
  'metadata',
  'spec',
  'status',
  'template',
  'updateStrategy',
  'strategy',
  'resources',
  'jobTemplate',
  'containers',
  'source',
  'names',
  'acceptedNames',
  'conditions',
]);

export interface SetOptions {
  schema: SchemaInfo;
  builtin: boolean;
  /** Update sets mark new maps and lists with `.`; Apply sets only mark list items. */
  markContainers: boolean;
  /** Top-level fields this write's manager cannot own (status on the main resource, all but status on /status). */
  topLevel?: (key: string) => boolean;
}

let currentTopLevel: ((key: string) => boolean) | undefined;

function tracked(path: string[], key: string): boolean {
  if (path.length === 0) return key !== 'kind' && key !== 'apiVersion' && (currentTopLevel?.(key) ?? true);
  if (path.length === 1 && path[0] === 'metadata') return !UNTRACKED_META.has(key);
  return true;
}

/** An object whose every key is untracked (metadata with only a name) leaves no trace. */
function onlyUntracked(v: KObj, path: string[]): boolean {
  const keys = Object.keys(v).filter((k) => v[k] !== undefined);
  return keys.length > 0 && keys.every((k) => !tracked(path, k));
}

function itemKey(item: unknown, keys: string[]): string {
  const o: KObj = {};
  for (const k of keys) if (isObject(item) && item[k] !== undefined) o[k] = item[k];
  return `k:${JSON.stringify(o)}`;
}

function markSelf(node: FieldSet, path: string[], opts: SetOptions): void {
  if (!opts.markContainers || path.length === 0) return;
  const last = path[path.length - 1]!;
  if (path.length === 1 && last === 'metadata') return;
  if (opts.builtin && BUILTIN_ALWAYS_PRESENT.has(last)) return;
  node['.'] = {};
}

/** The set of every field present in `value` (at `path`). */
export function fieldSetOf(value: unknown, path: string[], opts: SetOptions): FieldSet {
  if (isObject(value)) {
    if (path.length > 0 && opts.schema.atomicMap(path)) return {};
    const node: FieldSet = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined || v === null || !tracked(path, k)) continue;
      const child = fieldSetOf(v, [...path, k], opts);
      if (Object.keys(child).length > 0 || !isObject(v) || Object.keys(v).length === 0 || !onlyUntracked(v, [...path, k]))
        node[`f:${k}`] = child;
    }
    if (Object.keys(node).length === 0) return {};
    markSelf(node, path, opts);
    return node;
  }
  if (Array.isArray(value)) {
    const lt = opts.schema.listType(path);
    if (lt.type === 'atomic' || value.length === 0) return {};
    const node: FieldSet = {};
    for (const item of value) {
      if (lt.type === 'set') node[`v:${JSON.stringify(item)}`] = {};
      else if (opts.schema.atomicMap(path)) node[itemKey(item, lt.keys)] = {};
      else {
        const child = fieldSetOf(item, path, opts);
        node[itemKey(item, lt.keys)] = { '.': {}, ...child };
      }
    }
    markSelf(node, path, opts);
    return node;
  }
  return {};
}

interface Diff {
  changed: FieldSet;
  removed: FieldSet;
}

function setMember(root: FieldSet, segs: string[], sub: FieldSet = {}): void {
  let cur = root;
  for (const s of segs.slice(0, -1)) {
    if (!isObject(cur[s])) cur[s] = {};
    else if (Object.keys(cur[s]).length === 0) cur[s] = { '.': {} };
    cur = cur[s];
  }
  const last = segs[segs.length - 1]!;
  cur[last] =
    isObject(cur[last]) && Object.keys(cur[last]).length > 0 ? union(cur[last], Object.keys(sub).length === 0 ? { '.': {} } : sub) : sub;
}

function diffInto(a: unknown, b: unknown, path: string[], segs: string[], opts: SetOptions, out: Diff): void {
  if (deepEqual(a, b)) return;
  if (isObject(a) && isObject(b) && !(path.length > 0 && opts.schema.atomicMap(path))) {
    for (const [k, v] of Object.entries(b)) {
      if (v === undefined || v === null || !tracked(path, k)) continue;
      const seg = `f:${k}`;
      if (a[k] === undefined || a[k] === null) setMember(out.changed, [...segs, seg], fieldSetOf(v, [...path, k], opts));
      else diffInto(a[k], v, [...path, k], [...segs, seg], opts, out);
    }
    for (const k of Object.keys(a))
      if ((b[k] === undefined || b[k] === null) && a[k] !== null && tracked(path, k)) setMember(out.removed, [...segs, `f:${k}`]);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const lt = opts.schema.listType(path);
    if (lt.type === 'set') {
      for (const v of b) if (!a.some((x) => deepEqual(x, v))) setMember(out.changed, [...segs, `v:${JSON.stringify(v)}`]);
      for (const v of a) if (!b.some((x) => deepEqual(x, v))) setMember(out.removed, [...segs, `v:${JSON.stringify(v)}`]);
      return;
    }
    if (lt.type === 'map') {
      const itemOpts = { ...opts, markContainers: opts.markContainers };
      for (const item of b) {
        const key = itemKey(item, lt.keys);
        const old = a.find((x) => itemKey(x, lt.keys) === key);
        if (old === undefined) {
          setMember(out.changed, [...segs, key], opts.schema.atomicMap(path) ? {} : { '.': {}, ...fieldSetOf(item, path, opts) });
        } else if (opts.schema.atomicMap(path)) {
          if (!deepEqual(old, item)) setMember(out.changed, [...segs, key]);
        } else diffInto(old, item, path, [...segs, key], itemOpts, out);
      }
      for (const item of a) {
        const key = itemKey(item, lt.keys);
        if (!b.some((x) => itemKey(x, lt.keys) === key)) setMember(out.removed, [...segs, key]);
      }
      return;
    }
  }
  if (segs.length > 0) setMember(out.changed, segs, a === undefined ? fieldSetOf(b, path, opts) : {});
}

export function diffSets(a: KObj, b: KObj, opts: SetOptions): Diff {
  const out: Diff = { changed: {}, removed: {} };
  currentTopLevel = opts.topLevel;
  try {
    diffInto(a, b, [], [], opts, out);
  } finally {
    currentTopLevel = undefined;
  }
  return out;
}

function rootSetOf(obj: KObj, opts: SetOptions): FieldSet {
  currentTopLevel = opts.topLevel;
  try {
    return fieldSetOf(obj, [], opts);
  } finally {
    currentTopLevel = undefined;
  }
}

function isMember(node: FieldSet): boolean {
  return Object.keys(node).length === 0 || '.' in node;
}

export const union: (a: FieldSet, b: FieldSet) => FieldSet = unionFields;

/** Members of `a` that are not members of `b` (structure of `b` is irrelevant where b has no members). */
export function difference(a: FieldSet, b: FieldSet): FieldSet | undefined {
  // A leaf of `b` stands for the whole field: everything under it goes.
  if (Object.keys(b).length === 0) return undefined;
  const out = differenceSets(a, b);
  const selfMember = isMember(a) && !isMember(b);
  const hasChildren = Object.keys(out).length > 0;
  if (!hasChildren) return selfMember ? {} : undefined;
  if (selfMember) out['.'] = {};
  return out;
}

/** Union of two whole sets (the root is never a member itself). */
export function unionSets(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = k in out ? union(out[k], v) : v;
  return out;
}

/** Members of whole set `a` not in whole set `b` (also the children part of difference()). */
export function differenceSets(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = {};
  for (const [k, v] of Object.entries(a)) {
    if (k === '.') continue;
    const d = k in b ? difference(v, b[k]) : v;
    if (d !== undefined) out[k] = d;
  }
  return out;
}

/** Member paths of a set as segment lists (each node that is a member, leaves and `.` nodes). */
export function memberPaths(set: FieldSet, prefix: string[] = []): string[][] {
  const out: string[][] = [];
  if (prefix.length > 0 && isMember(set)) out.push(prefix);
  for (const [k, v] of Object.entries(set)) if (k !== '.') out.push(...memberPaths(v, [...prefix, k]));
  return out;
}

function hasMember(set: FieldSet, segs: string[]): boolean {
  let cur: FieldSet | undefined = set;
  for (const s of segs) {
    cur = cur?.[s];
    if (cur === undefined) return false;
  }
  return isMember(cur);
}

function sortSet(set: FieldSet): FieldSet {
  const out: FieldSet = {};
  for (const k of Object.keys(set).sort()) out[k] = sortSet(set[k]);
  return out;
}

export interface ManagedEntry {
  manager: string;
  operation: 'Update' | 'Apply';
  apiVersion: string;
  /** Absent when the manager's first write changed nothing (an Apply of values already there). */
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: FieldSet;
  subresource?: string;
}

function sameOwner(e: ManagedEntry, manager: string, operation: string, subresource: string | undefined): boolean {
  return e.manager === manager && e.operation === operation && (e.subresource ?? '') === (subresource ?? '');
}

function finish(entries: ManagedEntry[]): ManagedEntry[] {
  return entries
    .filter((e) => Object.keys(e.fieldsV1).length > 0)
    .map((e) => {
      const out = { manager: e.manager, operation: e.operation, apiVersion: e.apiVersion } as ManagedEntry;
      if (e.time !== undefined) out.time = e.time;
      Object.assign(out, { fieldsType: 'FieldsV1', fieldsV1: sortSet(e.fieldsV1) });
      if (e.subresource) out.subresource = e.subresource;
      return out;
    })
    .sort((x, y) => {
      if (x.operation !== y.operation) return x.operation === 'Apply' ? -1 : 1;
      if ((x.time ?? '') !== (y.time ?? '')) return (x.time ?? '') < (y.time ?? '') ? -1 : 1;
      if (x.manager !== y.manager) return x.manager < y.manager ? -1 : 1;
      if (x.apiVersion !== y.apiVersion) return x.apiVersion < y.apiVersion ? -1 : 1;
      return (x.subresource ?? '') < (y.subresource ?? '') ? -1 : 1;
    });
}

/**
 * The managedFields a write asked for, as the real server reads them (decodeLiveOrNew): `[{}]`
 * resets them, a non-empty list of well-formed entries replaces the stored ones, anything else
 * (absent, empty, malformed) keeps the stored ones (undefined). Only writes of the main resource
 * may set them.
 */
export function requestedEntries(requested: unknown): ManagedEntry[] | undefined {
  if (!Array.isArray(requested) || requested.length === 0) return undefined;
  if (requested.length === 1 && isObject(requested[0]) && Object.keys(requested[0]).length === 0) return [];
  const wellFormed = requested.every(
    (e) =>
      isObject(e) &&
      typeof e.manager === 'string' &&
      (e.operation === 'Apply' || e.operation === 'Update') &&
      e.fieldsType === 'FieldsV1' &&
      isObject(e.fieldsV1) &&
      (e.subresource === undefined || typeof e.subresource === 'string'),
  );
  if (!wellFormed) return undefined;
  // Times are decoded and encoded again: whatever RFC 3339 spelling came in is stored in seconds.
  return (clone(requested) as ManagedEntry[]).map((e) => {
    const t = e.time === undefined || e.time === null ? undefined : Date.parse(String(e.time));
    const { time: _, ...rest } = e;
    return t === undefined || Number.isNaN(t) ? rest : { ...rest, time: rfc3339(new Date(t)) };
  });
}

/**
 * The entries with each set brought up to the current schema (CRs): a tracked list now atomic is
 * owned whole again. The other way is not reconciled (structured-merge-diff's
 * ReconcileFieldSetWithSchema treats such lists as if always granular): the owner of a list that
 * was atomic keeps its member `f:<list>` and owns no item, as a real v1.26 showed.
 */
function reconcileWithSchema(entries: ManagedEntry[], live: KObj | undefined, opts: Omit<SetOptions, 'markContainers'>): ManagedEntry[] {
  if (opts.builtin || !live) return entries;
  return entries.map((e) => ({ ...e, fieldsV1: reconcileNode(e.fieldsV1, live, [], opts) }));
}

function reconcileNode(node: FieldSet, value: unknown, path: string[], opts: Omit<SetOptions, 'markContainers'>): FieldSet {
  const out: FieldSet = {};
  for (const [k, child] of Object.entries(node)) {
    if (k.startsWith('f:') && isObject(value)) {
      const field = k.slice(2);
      const v = value[field];
      const childPath = [...path, field];
      const lt = Array.isArray(v) ? opts.schema.listType(childPath).type : undefined;
      const leaf = Object.keys(child).length === 0;
      if (!leaf && lt === 'atomic') {
        out[k] = {};
      } else out[k] = leaf ? child : reconcileNode(child, v, childPath, opts);
    } else if (k.startsWith('k:') && Array.isArray(value)) {
      const keys = JSON.parse(k.slice(2)) as KObj;
      const item = value.find((it) => isObject(it) && Object.entries(keys).every(([kk, vv]) => deepEqual(it[kk], vv)));
      out[k] = reconcileNode(child, item, path, opts);
    } else out[k] = child;
  }
  return out;
}

export function readEntries(obj: KObj | undefined): ManagedEntry[] {
  const mf = obj?.metadata?.managedFields;
  return Array.isArray(mf) ? (clone(mf) as ManagedEntry[]) : [];
}

/** managedFields after a non-apply write by `manager` turned `oldObj` into `newObj`. */
export function managedFieldsForUpdate(
  oldObj: KObj | undefined,
  newObj: KObj,
  manager: string,
  subresource: string | undefined,
  apiVersion: string,
  opts: Omit<SetOptions, 'markContainers'>,
  /** The entries to start from: the stored ones unless the request set its own. */
  base: ManagedEntry[] = readEntries(oldObj),
): ManagedEntry[] {
  const setOpts: SetOptions = { ...opts, markContainers: true };
  const entries = reconcileWithSchema(base, oldObj, opts);
  const diff = oldObj ? diffSets(oldObj, newObj, setOpts) : { changed: rootSetOf(newObj, setOpts), removed: {} };
  const lost = unionSets(diff.changed, diff.removed);
  const next: ManagedEntry[] = [];
  let mine: ManagedEntry | undefined;
  for (const e of entries) {
    if (sameOwner(e, manager, 'Update', subresource)) mine = e;
    else next.push({ ...e, fieldsV1: differenceSets(e.fieldsV1, lost) });
  }
  if (Object.keys(diff.changed).length > 0 || mine) {
    const base = mine ? differenceSets(mine.fieldsV1, diff.removed) : {};
    const fields = unionSets(base, diff.changed);
    const entry: ManagedEntry = {
      manager,
      operation: 'Update',
      apiVersion,
      time: Object.keys(diff.changed).length > 0 || !mine ? rfc3339() : mine.time,
      fieldsType: 'FieldsV1',
      fieldsV1: fields,
    };
    if (subresource) entry.subresource = subresource;
    next.push(entry);
  }
  return finish(next);
}

/** Removes the given paths from every entry (the scale subresource drops spec.replicas ownership). */
export function disownPaths(entries: ManagedEntry[], paths: string[][]): ManagedEntry[] {
  const drop: FieldSet = {};
  for (const p of paths) setMember(drop, p);
  return finish(entries.map((e) => ({ ...e, fieldsV1: differenceSets(e.fieldsV1, drop) })));
}

function valueAt(obj: unknown, segs: string[]): unknown {
  let cur = obj;
  for (const s of segs) {
    if (s.startsWith('f:')) {
      if (!isObject(cur)) return undefined;
      cur = cur[s.slice(2)];
    } else if (s.startsWith('k:')) {
      if (!Array.isArray(cur)) return undefined;
      const keys = JSON.parse(s.slice(2)) as KObj;
      cur = cur.find((it) => isObject(it) && Object.entries(keys).every(([k, v]) => deepEqual(it[k], v)));
    } else if (s.startsWith('v:')) {
      if (!Array.isArray(cur)) return undefined;
      const v = JSON.parse(s.slice(2));
      cur = cur.find((it) => deepEqual(it, v));
    } else return undefined;
  }
  return cur;
}

function removeAt(obj: unknown, segs: string[]): void {
  if (segs.length === 0) return;
  const parent = valueAt(obj, segs.slice(0, -1));
  const last = segs[segs.length - 1]!;
  if (last.startsWith('f:') && isObject(parent)) delete parent[last.slice(2)];
  else if (Array.isArray(parent)) {
    const target = valueAt(obj, segs);
    const idx = parent.indexOf(target);
    if (idx >= 0) parent.splice(idx, 1);
  }
}

/** `.spec.containers[name="mysql"].image`-style path, as conflicts name fields. */
export function formatPath(segs: string[]): string {
  let out = '';
  for (const s of segs) {
    if (s.startsWith('f:')) out += `.${s.slice(2)}`;
    else if (s.startsWith('k:')) {
      const keys = JSON.parse(s.slice(2)) as KObj;
      out += `[${Object.entries(keys)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(',')}]`;
    } else if (s.startsWith('v:')) out += `[=${s.slice(2)}]`;
  }
  return out;
}

/** Whether `set` holds a member under the node at `segs`. */
function ownsBelow(set: FieldSet, segs: string[]): boolean {
  let cur: FieldSet | undefined = set;
  for (const s of segs) cur = cur?.[s];
  return cur !== undefined && memberPaths(cur).length > 0;
}

/** A non-empty map or list whose items are owned one by one (not atomic). */
function isGranularContainer(value: unknown, segs: string[], schema: SchemaInfo): boolean {
  const path = segs.filter((s) => s.startsWith('f:')).map((s) => s.slice(2));
  if (Array.isArray(value)) return value.length > 0 && schema.listType(path).type !== 'atomic';
  return isObject(value) && Object.keys(value).length > 0 && !(path.length > 0 && schema.atomicMap(path));
}

function applyMerge(live: unknown, applied: unknown, path: string[], schema: SchemaInfo): unknown {
  if (isObject(applied) && isObject(live) && !(path.length > 0 && schema.atomicMap(path))) {
    const out: KObj = { ...live };
    for (const [k, v] of Object.entries(applied)) {
      if (v === null) delete out[k];
      else out[k] = applyMerge(out[k], v, [...path, k], schema);
    }
    return out;
  }
  if (Array.isArray(applied) && Array.isArray(live)) {
    const lt = schema.listType(path);
    if (lt.type === 'set')
      return mergeItems(
        live,
        applied,
        (v) => JSON.stringify(v),
        (_l, r) => clone(r),
      );
    if (lt.type === 'map') {
      return mergeItems(
        live,
        applied,
        (x) => itemKey(x, lt.keys),
        (l, r) => (l === undefined ? clone(r) : applyMerge(l, r, path, schema)),
      );
    }
  }
  return clone(applied);
}

/**
 * The order structured-merge-diff gives a merged list map or set (mergingWalker.visitListItems):
 * applied items in the applied order, each new one placed before the next item both lists share,
 * live-only items where they stood.
 */
function mergeItems(
  live: unknown[],
  applied: unknown[],
  id: (x: unknown) => string,
  merge: (l: unknown, r: unknown) => unknown,
): unknown[] {
  const lIds = live.map(id);
  const rIds = applied.map(id);
  const inLive = new Map(lIds.map((k, i) => [k, live[i]]));
  const inApplied = new Set(rIds);
  const shared = rIds.filter((k) => inLive.has(k));
  let next = 0;
  const merged = new Set<string>();
  const out: unknown[] = [];
  for (let l = 0, r = 0; l < live.length || r < applied.length; ) {
    if (l < live.length && r < applied.length) {
      const pe = lIds[l]!;
      if (pe === rIds[r]) {
        merged.add(pe);
        out.push(merge(live[l], applied[r]));
        l++;
        r++;
        next++;
        continue;
      }
      if (inApplied.has(pe) && next < shared.length && shared[next] !== pe) {
        l++;
        continue;
      }
    }
    if (l < live.length) {
      const pe = lIds[l]!;
      if (!inApplied.has(pe)) {
        out.push(live[l]);
        l++;
        continue;
      }
      if (merged.has(pe)) {
        l++;
        continue;
      }
    }
    if (r < applied.length) {
      const pe = rIds[r]!;
      merged.add(pe);
      out.push(merge(inLive.get(pe), applied[r]));
      r++;
      if (shared[next] === pe) next++;
    }
  }
  return out;
}

export interface ApplyResult {
  object: KObj;
  managedFields: ManagedEntry[];
}

/** Server-side apply of `applied` by `manager` onto `live` (undefined: create). */
export function serverSideApply(
  live: KObj | undefined,
  applied: KObj,
  manager: string,
  force: boolean,
  apiVersion: string,
  subresource: string | undefined,
  opts: Omit<SetOptions, 'markContainers'>,
): ApplyResult {
  const appliedSet = rootSetOf(applied, { ...opts, markContainers: false });
  const entries = reconcileWithSchema(readEntries(live), live, opts);
  const others = entries.filter((e) => !sameOwner(e, manager, 'Apply', subresource));
  const previous = entries.find((e) => sameOwner(e, manager, 'Apply', subresource));

  const conflicts: { owner: ManagedEntry; segs: string[] }[] = [];
  if (live) {
    for (const segs of memberPaths(appliedSet)) {
      const liveVal = valueAt(live, segs);
      const newVal = valueAt(applied, segs);
      if (
        isObject(newVal) ||
        (Array.isArray(newVal) && opts.schema.listType(segs.filter((s) => s.startsWith('f:')).map((s) => s.slice(2))).type !== 'atomic')
      )
        continue;
      if (deepEqual(liveVal, newVal)) continue;
      for (const o of others) if (hasMember(o.fieldsV1, segs)) conflicts.push({ owner: o, segs });
    }
  }
  if (conflicts.length > 0 && !force) throw applyConflict(conflicts);

  let obj: KObj = live ? clone(live) : {};
  let kept = others;
  if (conflicts.length > 0) {
    const taken: FieldSet = {};
    for (const c of conflicts) setMember(taken, c.segs);
    kept = others.map((e) => ({ ...e, fieldsV1: differenceSets(e.fieldsV1, taken) }));
  }
  if (previous && live) {
    // Structured-merge-diff's rule: a field goes when this manager applied it last time, does not
    // now, and no other manager owns it. Path by path: an empty list or map applied before (a leaf
    // member) does not cover the items it held, and a list or map of items this manager stops
    // naming as a whole keeps the items others own or nobody owns (its own are paths of their own).
    // An item goes whole unless another manager owns something in it.
    for (const segs of memberPaths(previous.fieldsV1)) {
      if (hasMember(appliedSet, segs) || kept.some((e) => hasMember(e.fieldsV1, segs))) continue;
      const item = /^[kv]:/.test(segs[segs.length - 1]!);
      if (item ? kept.some((e) => ownsBelow(e.fieldsV1, segs)) : isGranularContainer(valueAt(obj, segs), segs, opts.schema)) continue;
      removeAt(obj, segs);
    }
  }
  obj = applyMerge(obj, applied, [], opts.schema) as KObj;
  // The time moves only when the apply changed the object; a first apply that changed nothing
  // has none (the real fieldmanager's managedFieldsUpdater).
  const changed = !live || !deepEqual(withoutManaged(live), withoutManaged(obj));
  const entry: ManagedEntry = { manager, operation: 'Apply', apiVersion, fieldsType: 'FieldsV1', fieldsV1: appliedSet };
  const time = changed ? rfc3339() : previous?.time;
  if (time !== undefined) entry.time = time;
  if (subresource) entry.subresource = subresource;
  return { object: obj, managedFields: finish([...kept, entry]) };
}

function withoutManaged(o: KObj): KObj {
  if (!isObject(o.metadata)) return o;
  const { managedFields: _, ...meta } = o.metadata;
  return { ...o, metadata: meta };
}

/** The manager as conflicts print it (printManager): name, subresource, and the version of an Update. */
function printManager(e: ManagedEntry): string {
  const name = `"${e.manager}"${e.subresource ? ` with subresource "${e.subresource}"` : ''}`;
  return e.operation === 'Update' ? `${name} using ${e.apiVersion}` : name;
}

/** The manager identifier the real server sorts conflicts by (the entry's JSON without fields and time). */
function managerId(e: ManagedEntry): string {
  return JSON.stringify({
    manager: e.manager,
    operation: e.operation,
    ...(e.operation === 'Update' ? { apiVersion: e.apiVersion } : {}),
    ...(e.subresource ? { subresource: e.subresource } : {}),
  });
}

function applyConflict(conflicts: { owner: ManagedEntry; segs: string[] }[]): ApiError {
  const causes = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.owner)}`,
    field: formatPath(c.segs),
  }));
  let message: string;
  if (conflicts.length === 1) message = `Apply failed with 1 conflict: ${causes[0]!.message}: ${causes[0]!.field}`;
  else {
    const byOwner = new Map<string, { owner: ManagedEntry; fields: string[] }>();
    for (const c of conflicts) {
      const id = managerId(c.owner);
      const group = byOwner.get(id) ?? { owner: c.owner, fields: [] };
      group.fields.push(formatPath(c.segs));
      byOwner.set(id, group);
    }
    const parts = [...byOwner]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, g]) => `conflicts with ${printManager(g.owner)}:\n${g.fields.map((f) => `- ${f}`).join('\n')}`);
    message = `Apply failed with ${conflicts.length} conflicts: ${parts.join('\n')}`;
  }
  return new ApiError(409, statusBody(409, 'Conflict', message, { causes }));
}
