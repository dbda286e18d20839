// Label selectors (equality- and set-based, as in k8s.io/apimachinery/pkg/labels) and field
// selectors (`=`, `==`, `!=` on dotted paths such as metadata.name or involvedObject.name).
import { badRequest } from './status.ts';
import type { KObj } from './types.ts';

type Requirement =
  | { op: 'in' | 'notin'; key: string; values: string[] }
  | { op: 'exists' | '!'; key: string };

export type Selector = (labels: Record<string, string> | undefined) => boolean;

function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((x) => x.trim()).filter((x) => x !== '');
}

function parseRequirement(term: string): Requirement {
  let m = /^([^\s!=<>(),]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
  if (m) {
    const values = m[3]!.split(',').map((v) => v.trim()).filter((v) => v !== '');
    return { op: m[2] as 'in' | 'notin', key: m[1]!, values };
  }
  m = /^([^\s!=<>(),]+)\s*(==|!=|=)\s*([^\s!=<>(),]*)$/.exec(term);
  if (m) return { op: m[2] === '!=' ? 'notin' : 'in', key: m[1]!, values: [m[3]!] };
  m = /^!\s*([^\s!=<>(),]+)$/.exec(term);
  if (m) return { op: '!', key: m[1]! };
  m = /^([^\s!=<>(),]+)$/.exec(term);
  if (m) return { op: 'exists', key: m[1]! };
  throw badRequest(`unable to parse requirement: ${term}`);
}

export function parseLabelSelector(text: string | null | undefined): Selector {
  if (!text) return () => true;
  const reqs = splitTopLevel(text).map(parseRequirement);
  return (labels) => reqs.every((r) => {
    const v = labels?.[r.key];
    switch (r.op) {
      case 'in': return v !== undefined && r.values.includes(v);
      case 'notin': return v === undefined || !r.values.includes(v);
      case 'exists': return v !== undefined;
      case '!': return v === undefined;
    }
  });
}

export type FieldSelector = (obj: KObj) => boolean;

function fieldValue(obj: KObj, path: string): string {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return '';
    cur = (cur as KObj)[part];
  }
  if (cur === undefined || cur === null) return '';
  return String(cur);
}

export function parseFieldSelector(text: string | null | undefined): FieldSelector {
  if (!text) return () => true;
  const reqs = splitTopLevel(text).map((term) => {
    const m = /^([^\s!=]+)\s*(==|!=|=)\s*(.*)$/.exec(term);
    if (!m) throw badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
    return { path: m[1]!, negate: m[2] === '!=', value: m[3]!.trim() };
  });
  return (obj) => reqs.every((r) => (fieldValue(obj, r.path) === r.value) !== r.negate);
}
