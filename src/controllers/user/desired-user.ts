// A MysqlUser's spec as the account to hold, or the first field MySQL would refuse, truncate or
// misread. Pure. Names are checked against the flavour's limits (a 33-character user name is cut
// by no one: MySQL refuses it, so we say so first); privileges must be keywords of the grant
// level, so nothing but a known keyword is ever written into a statement.
import { PROVISION_REASONS, UNGRANTABLE_SCHEMAS, USER_RESOURCE_LIMITS, type UserResourceLimit } from '../../api/constants.ts';
import type { MysqlUserSpec } from '../../api/index.ts';
import {
  expandPrivileges,
  grantablePrivileges,
  hostProblem,
  identifierProblem,
  noLimits,
  schemaPattern,
  userNameProblem,
  type Flavour,
  type Grant,
  type GrantLevel,
  type ResourceLimits,
} from '../../mysql/index.ts';
import { refusal, type Refusal } from '../shared/provision.ts';

export interface DesiredUser {
  user: string;
  /** Distinct, in spec order. */
  hosts: string[];
  /** One per scope, privileges sorted. */
  grants: Grant[];
  limits: ResourceLimits;
}

/** MySQL stores the limits as unsigned 32-bit integers. */
const MAX_LIMIT = 4_294_967_295;

function invalid(field: string, value: string, problem: string): Refusal {
  return refusal(PROVISION_REASONS.invalidSpec, `${field} ${JSON.stringify(value)} ${problem}`);
}

function limitValue(v: number | string): number | null {
  const n = typeof v === 'number' ? v : /^\d+$/.test(v.trim()) ? Number(v.trim()) : NaN;
  return Number.isSafeInteger(n) && n >= 0 && n <= MAX_LIMIT ? n : null;
}

export function desiredUser(spec: MysqlUserSpec, f: Flavour): DesiredUser | Refusal {
  const userProblem = userNameProblem(f, spec.user);
  if (userProblem) return invalid('spec.user', spec.user, userProblem);

  for (const [i, host] of spec.allowedHosts.entries()) {
    const problem = hostProblem(f, host);
    if (problem) return invalid(`spec.allowedHosts[${i}]`, host, problem);
  }
  if (spec.allowedHosts.length === 0) return refusal(PROVISION_REASONS.invalidSpec, 'spec.allowedHosts is empty');

  const byScope = new Map<string, Grant>();
  for (const [i, perm] of (spec.permissions ?? []).entries()) {
    const field = `spec.permissions[${i}]`;
    if (perm.schema === '*')
      return invalid(`${field}.schema`, perm.schema, 'names no schema: global privileges are not granted by a MysqlUser');
    const schemaProblem = identifierProblem(perm.schema);
    if (schemaProblem) return invalid(`${field}.schema`, perm.schema, schemaProblem);
    if (UNGRANTABLE_SCHEMAS.includes(perm.schema.toLowerCase())) {
      return refusal(
        PROVISION_REASONS.reservedName,
        `${field}.schema ${JSON.stringify(perm.schema)} is a schema of the server or of the operator, where a privilege is power over every account: nothing is applied`,
      );
    }
    for (const [j, table] of perm.tables.entries()) {
      const level: GrantLevel = table === '*' ? 'schema' : 'table';
      const tableProblem = level === 'table' ? identifierProblem(table) : null;
      if (tableProblem) return invalid(`${field}.tables[${j}]`, table, tableProblem);
      const { privileges, unknown } = expandPrivileges(f, level, perm.permissions);
      if (unknown.length > 0) {
        const k = perm.permissions.indexOf(unknown[0]!);
        return invalid(
          `${field}.permissions[${k}]`,
          unknown[0]!,
          `is not a privilege on ${level === 'schema' ? 'a schema' : 'a table'}; one of ALL, ${grantablePrivileges(f, level).join(', ')}`,
        );
      }
      const scope = level === 'schema' ? { db: schemaPattern(perm.schema), table: null } : { db: perm.schema, table };
      const key = JSON.stringify([scope.db, scope.table]);
      const merged = new Set([...(byScope.get(key)?.privileges ?? []), ...privileges]);
      byScope.set(key, { ...scope, privileges: [...merged].sort() });
    }
  }

  const limits = noLimits();
  for (const [name, value] of Object.entries(spec.resourceLimits ?? {})) {
    if (!(USER_RESOURCE_LIMITS as readonly string[]).includes(name)) {
      return invalid('spec.resourceLimits', name, `is not one of ${USER_RESOURCE_LIMITS.join(', ')}`);
    }
    const n = limitValue(value);
    if (n === null) return invalid(`spec.resourceLimits.${name}`, String(value), `is not an integer from 0 to ${MAX_LIMIT}`);
    limits[name as UserResourceLimit] = n;
  }

  return { user: spec.user, hosts: [...new Set(spec.allowedHosts)], grants: [...byScope.values()], limits };
}
