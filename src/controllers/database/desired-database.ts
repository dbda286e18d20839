// A MysqlDatabase's spec as the schema to hold, or the field MySQL would refuse; and what to
// change so the master holds it. Pure. Only character sets and collations the spec names are
// compared: the server's defaults are not the operator's to change.
import { PROVISION_REASONS } from '../../api/constants.ts';
import type { MysqlDatabaseSpec } from '../../api/index.ts';
import { charsetNameProblem, identifierProblem, type DatabaseChange, type ObservedDatabase } from '../../mysql/index.ts';
import { adoptedSchema } from '../shared/decide-ownership.ts';
import { refusal, type Refusal } from '../shared/provision.ts';

export interface DesiredDatabase {
  name: string;
  characterSet?: string;
  collation?: string;
}

export function desiredDatabase(spec: MysqlDatabaseSpec): DesiredDatabase | Refusal {
  const fields: [string, string | undefined, (s: string) => string | null][] = [
    ['spec.database', spec.database, identifierProblem],
    ['spec.characterSet', spec.characterSet, charsetNameProblem],
    ['spec.collation', spec.collation, charsetNameProblem],
  ];
  for (const [field, value, problemOf] of fields) {
    const problem = value === undefined || value === '' ? null : problemOf(value);
    if (problem) return refusal(PROVISION_REASONS.invalidSpec, `${field} ${JSON.stringify(value)} ${problem}`);
  }
  return {
    name: spec.database,
    ...(spec.characterSet ? { characterSet: spec.characterSet } : {}),
    ...(spec.collation ? { collation: spec.collation } : {}),
  };
}

/** MySQL 8 and MariaDB 10.6 call `utf8` `utf8mb3` (and its collations `utf8mb3_*`); 5.7 says `utf8`. */
function canonical(name: string): string {
  return name.toLowerCase().replace(/^utf8mb3(?=_|$)/, 'utf8');
}

export function decideDatabase(d: DesiredDatabase, seen: ObservedDatabase | null): DatabaseChange[] {
  if (seen === null) return [{ kind: 'createDatabase', ...d }];
  const differs = (want: string | undefined, have: string): boolean => want !== undefined && canonical(want) !== canonical(have);
  return differs(d.characterSet, seen.characterSet) || differs(d.collation, seen.collation) ? [{ kind: 'alterDatabase', ...d }] : [];
}

export function describeDatabaseChange(c: DatabaseChange): string {
  const verb = { createDatabase: 'created', alterDatabase: 'changed the defaults of', dropDatabase: 'dropped' }[c.kind];
  return `${verb} database ${c.name}`;
}

export interface DatabasePlan {
  changes: DatabaseChange[];
  done: string[];
  status(complete: boolean): { adopted: boolean };
}

/**
 * The changes, in words, and the adoption record: whether the schema was there before this object
 * first looked (`recorded`, once known; `ready`: provisioned before the record existed).
 */
export function planDatabase(
  d: DesiredDatabase,
  seen: ObservedDatabase | null,
  rec: { recorded: boolean | undefined; ready: boolean },
): DatabasePlan {
  const adopted = adoptedSchema(rec.recorded, rec.ready, seen !== null);
  const changes = decideDatabase(d, seen);
  const adopting =
    rec.recorded === undefined && adopted ? [`adopted database ${d.name}, which existed before (kept when this object is deleted)`] : [];
  return { changes, done: [...adopting, ...changes.map(describeDatabaseChange)], status: () => ({ adopted }) };
}
