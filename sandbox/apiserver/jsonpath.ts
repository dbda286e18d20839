// The JSONPath subset printer columns use: `.a.b`, `[n]`, `[*]`, and `[?(@.k == "v")]` filters.
import { isObject } from './json.ts';

type Step = { field: string } | { index: number } | { all: true } | { filterKey: string[]; value: string };

function parse(path: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  const p = path.trim().replace(/^\{|\}$/g, '');
  while (i < p.length) {
    const ch = p[i]!;
    if (ch === '.') {
      i++;
      let name = '';
      while (i < p.length && p[i] !== '.' && p[i] !== '[') name += p[i++];
      if (name) steps.push({ field: name });
    } else if (ch === '[') {
      const end = p.indexOf(']', i);
      const inner = p.slice(i + 1, end < 0 ? p.length : end);
      i = end < 0 ? p.length : end + 1;
      const f = /^\?\(@\.([\w.-]+)\s*==\s*["']([^"']*)["']\)$/.exec(inner.trim());
      if (f) steps.push({ filterKey: f[1]!.split('.'), value: f[2]! });
      else if (inner === '*') steps.push({ all: true });
      else if (/^-?\d+$/.test(inner)) steps.push({ index: Number(inner) });
      else steps.push({ field: inner.replace(/^['"]|['"]$/g, '') });
    } else {
      let name = '';
      while (i < p.length && p[i] !== '.' && p[i] !== '[') name += p[i++];
      steps.push({ field: name });
    }
  }
  return steps;
}

/** All values the path selects (printer columns show the first). */
export function evalJsonPath(obj: unknown, path: string): unknown[] {
  let cur: unknown[] = [obj];
  for (const s of parse(path)) {
    const next: unknown[] = [];
    for (const v of cur) {
      if ('field' in s) {
        if (isObject(v) && v[s.field] !== undefined) next.push(v[s.field]);
      } else if ('index' in s) {
        if (Array.isArray(v)) {
          const x = v[s.index < 0 ? v.length + s.index : s.index];
          if (x !== undefined) next.push(x);
        }
      } else if ('all' in s) {
        if (Array.isArray(v)) next.push(...v);
        else if (isObject(v)) next.push(...Object.values(v));
      } else if (Array.isArray(v)) {
        for (const item of v) {
          let x: unknown = item;
          for (const k of s.filterKey) x = isObject(x) ? x[k] : undefined;
          if (x !== undefined && String(x) === s.value) next.push(item);
        }
      }
    }
    cur = next;
  }
  return cur;
}
