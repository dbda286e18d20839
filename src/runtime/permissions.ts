// Permissions: the API resources and verbs a part of the operator uses, declared next to the code
// that uses them (the runtime in src/runtime/config.ts, each controller beside its definition).
// Their union is the RBAC rule list the chart includes, generated into chart/rbac/rules.yaml.

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';

const VERB_ORDER: readonly Verb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

export interface Permission {
  /** The API group: `''` for core, `apps`, `mysql.presslabs.org`, ... */
  group: string;
  /** Resource names (plural); a subresource is `mysqlclusters/status`. */
  resources: readonly string[];
  verbs: readonly Verb[];
}

/** A part's permissions under a title: `runtime`, `cluster controller`, ... */
export interface PermissionSection {
  title: string;
  permissions: readonly Permission[];
}

/** A Kubernetes PolicyRule, and which parts need it. */
export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: Verb[];
}

export interface NeededRule extends PolicyRule {
  neededBy: string[];
}

/** One rule per (group, resource), its verbs the union of every part's, sorted (stable output). */
export function policyRules(sections: readonly PermissionSection[]): NeededRule[] {
  const merged = new Map<string, { group: string; resource: string; verbs: Set<Verb>; neededBy: Set<string> }>();
  for (const section of sections) {
    for (const p of section.permissions) {
      for (const resource of p.resources) {
        const key = `${p.group}\u0000${resource}`;
        const m = merged.get(key) ?? { group: p.group, resource, verbs: new Set<Verb>(), neededBy: new Set<string>() };
        for (const v of p.verbs) m.verbs.add(v);
        m.neededBy.add(section.title);
        merged.set(key, m);
      }
    }
  }
  return [...merged.values()]
    .sort((a, b) => a.group.localeCompare(b.group) || a.resource.localeCompare(b.resource))
    .map((m) => ({
      apiGroups: [m.group],
      resources: [m.resource],
      verbs: VERB_ORDER.filter((v) => m.verbs.has(v)),
      neededBy: [...m.neededBy],
    }));
}

/** The rules as a YAML list of PolicyRules (JSON scalars, which are YAML), one comment per rule. */
export function policyRulesYaml(sections: readonly PermissionSection[], header: string): string {
  const list = (xs: readonly string[]) => `[${xs.map((x) => JSON.stringify(x)).join(', ')}]`;
  const lines = header.split('\n').map((l) => (l ? `# ${l}` : '#'));
  for (const r of policyRules(sections)) {
    lines.push(`# ${r.neededBy.join(', ')}`);
    lines.push(`- apiGroups: ${list(r.apiGroups)}`, `  resources: ${list(r.resources)}`, `  verbs: ${list(r.verbs)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A request as RBAC sees it. */
export interface ApiRequest {
  group: string;
  resource: string;
  subresource?: string | undefined;
  verb: string;
}

/** Whether `rules` allow `req` (exact names; no wildcards are generated). */
export function allows(rules: readonly PolicyRule[], req: ApiRequest): boolean {
  const resource = req.subresource ? `${req.resource}/${req.subresource}` : req.resource;
  return rules.some((r) => r.apiGroups.includes(req.group) && r.resources.includes(resource) && (r.verbs as string[]).includes(req.verb));
}
