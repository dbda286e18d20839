// A minimal OpenAPI v3 discovery (/openapi/v3 and one document per group/version). kubectl reads
// it to learn that PATCH takes `fieldValidation` (then it validates on the server instead of
// downloading schemas). No schemas are published: clients fall back to their built-in types.
import { createHash } from 'node:crypto';
import type { KObj, ResourceDef } from './types.ts';
import { VERSION_INFO } from './discovery.ts';

function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

const QUERY_PARAMS = ['dryRun', 'fieldManager', 'fieldValidation', 'force', 'pretty'].map((name) => ({
  name,
  in: 'query',
  schema: { type: name === 'force' ? 'boolean' : 'string', uniqueItems: true },
}));

export function openapiDocument(group: string, version: string, defs: ResourceDef[]): KObj {
  const paths: KObj = {};
  for (const d of defs.filter((x) => x.group === group && x.version === version)) {
    const base = `/${gvPath(group, version)}${d.namespaced ? '/namespaces/{namespace}' : ''}/${d.resource}`;
    const gvk = { group, version, kind: d.kind };
    const op = (action: string) => ({
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
      parameters: QUERY_PARAMS,
      responses: {},
    });
    paths[base] = { get: op('list'), post: op('post') };
    paths[`${base}/{name}`] = { get: op('get'), put: op('put'), patch: op('patch'), delete: op('delete') };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: VERSION_INFO.gitVersion }, paths, components: { schemas: {} } };
}

export function openapiRoot(defs: ResourceDef[]): KObj {
  const paths: KObj = {};
  const gvs = new Map<string, [string, string]>();
  for (const d of defs) gvs.set(gvPath(d.group, d.version), [d.group, d.version]);
  for (const [p, [g, v]] of gvs) {
    const hash = createHash('sha512')
      .update(JSON.stringify(openapiDocument(g, v, defs)))
      .digest('hex')
      .slice(0, 128)
      .toUpperCase();
    paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${hash}` };
  }
  return { paths };
}

/** Group and version of an /openapi/v3/... path, or undefined. */
export function openapiTarget(path: string): [string, string] | undefined {
  const m = /^\/openapi\/v3\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(path);
  if (!m) return undefined;
  return m[1] ? ['', m[1]] : [m[2]!, m[3]!];
}
