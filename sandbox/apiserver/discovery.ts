// Discovery documents shaped like kube-apiserver v1.26.1 (no aggregated discovery): /version,
// /api, /api/v1, /apis, /apis/<group>, /apis/<group>/<version>.
import { BUILTIN_GROUP_ORDER } from './builtins.ts';
import type { KObj, ResourceDef } from './types.ts';

export const VERSION_INFO = {
  major: '1',
  minor: '26',
  gitVersion: 'v1.26.1',
  gitCommit: '8f94681cd294aa8cfd3407b8191f6c70214973a4',
  gitTreeState: 'dirty',
  buildDate: '2026-11-21T19:32:42Z',
  goVersion: 'go1.19.8',
  compiler: 'gc',
  platform: 'linux/amd64',
};

export function apiVersions(serverAddress: string): KObj {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function resourceEntries(defs: ResourceDef[]): KObj[] {
  const out: KObj[] = [];
  for (const d of defs) {
    const main: KObj = { name: d.resource, singularName: d.singular, namespaced: d.namespaced, kind: d.kind, verbs: d.verbs };
    if (d.shortNames?.length) main.shortNames = d.shortNames;
    if (d.categories?.length) main.categories = d.categories;
    if (d.storageVersionHash) main.storageVersionHash = d.storageVersionHash;
    out.push(main);
    if (d.resource === 'pods' && d.group === '')
      out.push({ name: 'pods/binding', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] });
    if (d.hasStatus)
      out.push({
        name: `${d.resource}/status`,
        singularName: '',
        namespaced: d.namespaced,
        kind: d.kind,
        verbs: ['get', 'patch', 'update'],
      });
    if (d.scale) {
      out.push({
        name: `${d.resource}/scale`,
        singularName: '',
        namespaced: d.namespaced,
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: ['get', 'patch', 'update'],
      });
    }
  }
  // Built-in groups list resources sorted by name; CRD groups keep main, status, scale.
  if (defs.every((d) => d.builtin)) out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out;
}

export function resourceList(group: string, version: string, defs: ResourceDef[]): KObj {
  const gv = group === '' ? version : `${group}/${version}`;
  const body: KObj = { kind: 'APIResourceList' };
  if (group !== '') body.apiVersion = 'v1';
  body.groupVersion = gv;
  body.resources = resourceEntries(defs);
  return body;
}

export interface GroupInfo {
  name: string;
  versions: string[];
}

/** Groups served: built-ins in the real server's order, then CRD groups in creation order. */
export function groupsOf(defs: ResourceDef[]): GroupInfo[] {
  const map = new Map<string, string[]>();
  const builtinOrder = new Map(BUILTIN_GROUP_ORDER.map((g, i) => [g, i]));
  for (const d of defs) {
    if (d.group === '') continue;
    const vs = map.get(d.group) ?? [];
    if (!vs.includes(d.version)) vs.push(d.version);
    map.set(d.group, vs);
  }
  const groups = [...map].map(([name, versions]) => ({ name, versions }));
  const rank = (g: GroupInfo) => builtinOrder.get(g.name) ?? BUILTIN_GROUP_ORDER.length;
  return groups.sort((a, b) => rank(a) - rank(b));
}

function groupBody(g: GroupInfo): KObj {
  const versions = g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v }));
  return { name: g.name, versions, preferredVersion: versions[0] };
}

export function apiGroupList(groups: GroupInfo[]): KObj {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map(groupBody) };
}

export function apiGroup(g: GroupInfo): KObj {
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupBody(g) };
}
