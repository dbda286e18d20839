// Checks traffic against the RBAC rules the chart will give the operator (chart/rbac/rules.yaml,
// generated from the runtime's and the controllers' declared permissions): a request the rules
// do not allow would be refused with 403 in a real cluster.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { ApiServer } from '../../sandbox/apiserver/index.ts';
import { allows, type PolicyRule } from '../../src/runtime/permissions.ts';

const RULES = new URL('../../chart/rbac/rules.yaml', import.meta.url);

/** The distinct requests of `userAgent` (from `mark` on) that the generated rules do not allow. */
export function requestsNotAllowed(server: ApiServer, userAgent: string, mark = 0): string[] {
  const rules = parse(readFileSync(RULES, 'utf8')) as PolicyRule[];
  const refused = new Set<string>();
  for (const e of server.requestLog.since(mark)) {
    // Discovery (/api, /apis) is allowed to every authenticated user.
    if (e.userAgent !== userAgent || e.resource === undefined) continue;
    const req = { group: e.group ?? '', resource: e.resource, subresource: e.subresource, verb: e.verb };
    if (!allows(rules, req)) refused.add(`${e.verb} ${req.group ? `${req.group}/` : ''}${e.resource}${e.subresource ? `/${e.subresource}` : ''}`);
  }
  return [...refused];
}
