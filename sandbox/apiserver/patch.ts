// The three PATCH formats on a JSON object: RFC 7386 merge patch, RFC 6902 JSON patch (with
// `test`), and Kubernetes strategic merge patch for built-in kinds (lists with merge keys merge by
// key and new elements go first, `$patch: replace|delete`, `$deleteFromPrimitiveList`,
// `$setElementOrder`, `$retainKeys`).
import { badRequest, genericInvalid } from './status.ts';
import { clone, deepEqual, isObject } from './json.ts';
import { strategicMergeKey } from './list-types.ts';
import type { KObj } from './types.ts';

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const out: KObj = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function unescapePointer(seg: string): string {
  return seg.replace(/~1/g, '/').replace(/~0/g, '~');
}

function parsePointer(p: string): string[] {
  if (p === '') return [];
  if (!p.startsWith('/')) throw genericInvalid();
  return p.slice(1).split('/').map(unescapePointer);
}

function getAt(doc: unknown, segs: string[]): unknown {
  let cur = doc;
  for (const s of segs) {
    if (Array.isArray(cur)) cur = cur[Number(s)];
    else if (isObject(cur)) cur = cur[s];
    else return undefined;
  }
  return cur;
}

function parentOf(doc: unknown, segs: string[]): { parent: KObj | unknown[]; key: string } {
  const parent = getAt(doc, segs.slice(0, -1));
  if (!Array.isArray(parent) && !isObject(parent)) throw genericInvalid();
  return { parent, key: segs[segs.length - 1]! };
}

function addAt(doc: unknown, segs: string[], value: unknown): unknown {
  if (segs.length === 0) return value;
  const { parent, key } = parentOf(doc, segs);
  if (Array.isArray(parent)) {
    const idx = key === '-' ? parent.length : Number(key);
    if (!Number.isInteger(idx) || idx < 0 || idx > parent.length) throw genericInvalid();
    parent.splice(idx, 0, value);
  } else parent[key] = value;
  return doc;
}

function removeAt(doc: unknown, segs: string[]): unknown {
  const { parent, key } = parentOf(doc, segs);
  if (Array.isArray(parent)) {
    const idx = Number(key);
    if (!Number.isInteger(idx) || idx < 0 || idx >= parent.length) throw genericInvalid();
    return parent.splice(idx, 1)[0];
  }
  if (!(key in parent)) throw genericInvalid();
  const v = parent[key];
  delete parent[key];
  return v;
}

export function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  let doc = clone(target);
  for (const op of ops as KObj[]) {
    const path = parsePointer(String(op.path ?? ''));
    switch (op.op) {
      case 'add':
        doc = addAt(doc, path, clone(op.value));
        break;
      case 'remove':
        removeAt(doc, path);
        break;
      case 'replace':
        if (path.length === 0) {
          doc = clone(op.value);
          break;
        }
        removeAt(doc, path);
        doc = addAt(doc, path, clone(op.value));
        break;
      case 'move': {
        const v = removeAt(doc, parsePointer(String(op.from)));
        doc = addAt(doc, path, v);
        break;
      }
      case 'copy':
        doc = addAt(doc, path, clone(getAt(doc, parsePointer(String(op.from)))));
        break;
      case 'test':
        if (!deepEqual(getAt(doc, path), op.value)) throw genericInvalid();
        break;
      default:
        throw genericInvalid();
    }
  }
  return doc;
}

function mergeKeyed(orig: KObj[], patch: KObj[], key: string, path: string[]): KObj[] {
  const merged = orig.map((x) => x);
  const added: KObj[] = [];
  for (const p of patch) {
    if (!isObject(p)) continue;
    const directive = p.$patch;
    const idx = merged.findIndex((o) => isObject(o) && o[key] === p[key]);
    if (directive === 'delete') {
      if (idx >= 0) merged.splice(idx, 1);
      continue;
    }
    if (idx >= 0) merged[idx] = strategicMerge(merged[idx], p, path) as KObj;
    else added.push(strategicMerge(undefined, p, path) as KObj);
  }
  return [...added, ...merged];
}

/** Strategic merge patch of a built-in object; `path` is the field path (list indices left out). */
export function strategicMerge(target: unknown, patch: unknown, path: string[] = []): unknown {
  if (!isObject(patch)) return clone(patch);
  if (patch.$patch === 'replace') {
    const rest = { ...patch };
    delete rest.$patch;
    return stripDirectives(rest);
  }
  if (patch.$patch === 'delete') return undefined;
  const out: KObj = isObject(target) ? { ...target } : {};
  const retain = patch.$retainKeys;
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys' || k.startsWith('$setElementOrder/')) continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      const remove = Array.isArray(v) ? v : [];
      if (Array.isArray(out[field])) out[field] = (out[field] as unknown[]).filter((x) => !remove.some((r) => deepEqual(r, x)));
      continue;
    }
    const childPath = [...path, k];
    if (v === null) {
      delete out[k];
      continue;
    }
    if (Array.isArray(v)) {
      const key = strategicMergeKey(childPath);
      if (key && Array.isArray(out[k]) && !v.some((x) => isObject(x) && x.$patch === 'replace')) {
        out[k] = mergeKeyed(out[k] as KObj[], v as KObj[], key, childPath);
      } else if (childPath.length === 2 && childPath[0] === 'metadata' && k === 'finalizers' && Array.isArray(out[k])) {
        const cur = out[k] as unknown[];
        out[k] = [...cur, ...v.filter((x) => !cur.includes(x))];
      } else {
        out[k] = (v as unknown[]).filter((x) => !(isObject(x) && x.$patch === 'replace')).map((x) => stripDirectives(x));
      }
      continue;
    }
    const merged = strategicMerge(out[k], v, childPath);
    if (merged === undefined) delete out[k];
    else out[k] = merged;
  }
  for (const [k, order] of Object.entries(patch)) {
    if (!k.startsWith('$setElementOrder/') || !Array.isArray(order)) continue;
    const field = k.slice('$setElementOrder/'.length);
    if (Array.isArray(out[field])) out[field] = inElementOrder(out[field] as unknown[], order, strategicMergeKey([...path, field]));
  }
  if (Array.isArray(retain)) for (const k of Object.keys(out)) if (!retain.includes(k)) delete out[k];
  return out;
}

/** `$setElementOrder`: the listed elements in the listed order, then the others as they were. */
function inElementOrder(items: unknown[], order: unknown[], key: string | undefined): unknown[] {
  const id = (x: unknown) => (key && isObject(x) ? x[key] : x);
  const wanted = order.map(id);
  const listed: unknown[] = [];
  for (const w of wanted) {
    const found = items.find((x) => deepEqual(id(x), w));
    if (found !== undefined) listed.push(found);
  }
  return [...listed, ...items.filter((x) => !wanted.some((w) => deepEqual(id(x), w)))];
}

function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isObject(v)) return v;
  const out: KObj = {};
  for (const [k, x] of Object.entries(v)) if (!k.startsWith('$')) out[k] = stripDirectives(x);
  return out;
}
