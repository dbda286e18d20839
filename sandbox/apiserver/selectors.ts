// Label selectors (equality- and set-based, as in k8s.io/apimachinery/pkg/labels) and field
// selectors (`=`, `==`, `!=` on dotted paths such as metadata.name or involvedObject.name).
import { badRequest } from './status.ts';
import type { KObj } from './types.ts';

type Requirement = { op: 'in' | 'notin'; key: string; values: string[] } | { op: 'exists' | '!'; key: string };

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
    const values = m[3]!
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '');
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
  return (labels) => reqs.every((r) => satisfied(r, labels?.[r.key]));
}

/** Whether a label's value (undefined: no such label) meets one requirement. */
function satisfied(r: Requirement, v: string | undefined): boolean {
  switch (r.op) {
    case 'in':
      return v !== undefined && r.values.includes(v);
    case 'notin':
      return v === undefined || !r.values.includes(v);
    case 'exists':
      return v !== undefined;
    case '!':
      return v === undefined;
  }
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

/** The field labels kube-apiserver v1.26 accepts per resource (others get 400). */
const FIELD_LABELS: Record<string, string[]> = {
  pods: [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ],
  events: [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  secrets: ['type'],
  namespaces: ['status.phase'],
  nodes: ['spec.unschedulable'],
  jobs: ['status.successful'],
  replicasets: ['status.replicas'],
};
/** Field labels whose value lives under another path. */
const FIELD_PATHS: Record<string, string> = { source: 'source.component' };

/**
 * A field selector for `resource` (core field labels: events are checked in their core form).
 * Built-in resources accept metadata.name, metadata.namespace and their own labels; custom
 * resources only the two metadata ones.
 */
export function parseFieldSelector(text: string | null | undefined, resource?: string): FieldSelector {
  if (!text) return () => true;
  const reqs = splitTopLevel(text).map((term) => {
    const m = /^([^\s!=]+)\s*(==|!=|=)\s*(.*)$/.exec(term);
    if (!m) throw badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
    const label = m[1]!;
    if (
      resource !== undefined &&
      label !== 'metadata.name' &&
      label !== 'metadata.namespace' &&
      !(FIELD_LABELS[resource] ?? []).includes(label)
    ) {
      throw badRequest(`field label not supported: ${label}`);
    }
    return { path: FIELD_PATHS[label] ?? label, negate: m[2] === '!=', value: m[3]!.trim() };
  });
  return (obj) => reqs.every((r) => (fieldValue(obj, r.path) === r.value) !== r.negate);
}
