// Checks traffic against the RBAC rules the chart will give the operator (chart/rbac/rules.yaml,
// generated from the runtime's and the controllers' declared permissions): a request the rules
// do not allow would be refused with 403 in a real cluster, and a declared grant no request uses
// is more than the operator needs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { parse } from 'yaml';
import type { ApiServer } from '../../sandbox/apiserver/index.ts';
import { controllers } from '../../src/controllers/index.ts';
import { permissionSections } from '../../src/runtime/config.ts';
import { allows, type PolicyRule } from '../../src/runtime/permissions.ts';

const RULES = new URL('../../chart/rbac/rules.yaml', import.meta.url);

/** What a test API server's request log cannot show on a real cluster. */
export const NEEDS_REQUEST_LOG_FOR_RBAC = "needs the test API server's request log (TEST_KUBECONFIG is set)";

/** The distinct requests of `userAgent` (from `mark` on) that the generated rules do not allow. */
export function requestsNotAllowed(server: ApiServer, userAgent: string, mark = 0): string[] {
  const rules = parse(readFileSync(RULES, 'utf8')) as PolicyRule[];
  const refused = new Set<string>();
  for (const e of server.requestLog.since(mark)) {
    // Discovery (/api, /apis) is allowed to every authenticated user.
    if (e.userAgent !== userAgent || e.resource === undefined) continue;
    const req = { group: e.group ?? '', resource: e.resource, subresource: e.subresource, verb: e.verb };
    if (!allows(rules, req))
      refused.add(`${e.verb} ${req.group ? `${req.group}/` : ''}${e.resource}${e.subresource ? `/${e.subresource}` : ''}`);
  }
  return [...refused];
}

/** `verb group/resource[/sub]` of each request of `userAgent`. */
export function requestsMade(server: ApiServer, userAgent: string): Set<string> {
  return new Set(
    server.requestLog.entries
      .filter((e) => e.userAgent === userAgent && e.resource)
      .map((e) => `${e.verb} ${e.group ? `${e.group}/` : ''}${e.resource}${e.subresource ? `/${e.subresource}` : ''}`),
  );
}

/** `verb group/resource[/sub]` of each grant the permission sections (`runtime`, `<name> controller`) declare. */
export function declaredGrants(titles: (title: string) => boolean): Set<string> {
  const out = new Set<string>();
  for (const s of permissionSections(controllers).filter((x) => titles(x.title))) {
    for (const p of s.permissions)
      for (const r of p.resources) for (const v of p.verbs) out.add(`${v} ${p.group ? `${p.group}/` : ''}${r}`);
  }
  return out;
}

/**
 * The RBAC check of controllers whose behaviour a test file reaches across its tests: each test
 * records its API server's log (`record`, before the server goes); the file's last test
 * (`check`) asserts that every request was allowed by the chart's rules and that every grant the
 * controllers declare was used.
 */
export function rbacAcrossTests(userAgent: string, sections: readonly string[]) {
  const made = new Set<string>();
  const refused = new Set<string>();
  let logs = 0;
  return {
    record(server: ApiServer | undefined): void {
      if (!server) return;
      logs++;
      for (const r of requestsMade(server, userAgent)) made.add(r);
      for (const r of requestsNotAllowed(server, userAgent)) refused.add(r);
    },
    check(t: TestContext): void {
      if (process.env.TEST_KUBECONFIG) return void t.skip(NEEDS_REQUEST_LOG_FOR_RBAC);
      if (logs === 0) return void t.skip('no test of this file ran before this one (a name pattern?): nothing to check');
      assert.deepEqual([...refused], [], "every request is allowed by the chart's rules");
      const unused = [...declaredGrants((title) => sections.includes(title))].filter((g) => !made.has(g));
      assert.deepEqual(unused, [], `every grant of the ${sections.join(', ')} is used`);
    },
  };
}
