// What to change on the master so that the MysqlUser's accounts are exactly its spec: one account
// per allowed host with the password and limits; exactly the listed schema and table privileges
// (missing ones granted, any other revoked, hand-made ones included); and the accounts of hosts
// applied before (status.allowedHosts) but no longer listed dropped, unless the object adopted
// them (status.adoptedHosts, decide-ownership.ts). Pure: fed with what src/mysql read from
// mysql.user, mysql.db and mysql.tables_priv.
import { USER_RESOURCE_LIMITS } from '../../api/constants.ts';
import {
  passwordMatches,
  type AccountChange,
  type AccountRef,
  type Grant,
  type ObservedAccount,
  type ResourceLimits,
} from '../../mysql/index.ts';
import { adoptedHosts, hostsToDrop } from '../shared/decide-ownership.ts';
import type { DesiredUser } from './desired-user.ts';

function scopeKey(g: { db: string; table: string | null }): string {
  return JSON.stringify([g.db, g.table]);
}

function sameLimits(a: ResourceLimits, b: ResourceLimits): boolean {
  return USER_RESOURCE_LIMITS.every((k) => a[k] === b[k]);
}

function hasLimits(l: ResourceLimits): boolean {
  return USER_RESOURCE_LIMITS.some((k) => l[k] !== 0);
}

/** Revokes of what is held and not wanted, then grants of what is wanted and not held. */
export function grantChanges(account: AccountRef, want: readonly Grant[], held: readonly Grant[]): AccountChange[] {
  const wanted = new Map(want.map((g) => [scopeKey(g), g]));
  const holding = new Map(held.map((g) => [scopeKey(g), g]));
  const out: AccountChange[] = [];
  for (const [key, h] of holding) {
    const extra = h.privileges.filter((p) => !wanted.get(key)?.privileges.includes(p));
    if (extra.length > 0) out.push({ kind: 'revoke', account, grant: { db: h.db, table: h.table, privileges: extra } });
  }
  for (const [key, w] of wanted) {
    const missing = w.privileges.filter((p) => !holding.get(key)?.privileges.includes(p));
    if (missing.length > 0) out.push({ kind: 'grant', account, grant: { db: w.db, table: w.table, privileges: missing } });
  }
  return out;
}

/** `keep`: hosts applied before and no longer listed whose account is left (adopted). */
export function decideAccount(
  d: DesiredUser,
  password: string,
  observed: readonly ObservedAccount[],
  lastApplied: readonly string[],
  keep: readonly string[] = [],
): AccountChange[] {
  const out: AccountChange[] = [];
  for (const host of d.hosts) {
    const account = { user: d.user, host };
    const seen = observed.find((a) => a.host === host);
    if (!seen) {
      out.push({ kind: 'createUser', account, password });
      if (hasLimits(d.limits)) out.push({ kind: 'setLimits', account, limits: d.limits });
      out.push(...grantChanges(account, d.grants, []));
      continue;
    }
    // A stored form that cannot be compared (sha256_password) is set again: the password must hold.
    if (passwordMatches(seen, password) !== true) out.push({ kind: 'setPassword', account, password });
    if (!sameLimits(seen.limits, d.limits)) out.push({ kind: 'setLimits', account, limits: d.limits });
    out.push(...grantChanges(account, d.grants, seen.grants));
  }
  for (const host of lastApplied) {
    if (!d.hosts.includes(host) && !keep.includes(host) && observed.some((a) => a.host === host))
      out.push({ kind: 'dropUser', account: { user: d.user, host } });
  }
  return out;
}

/** What the object's status records of its accounts (status.allowedHosts, status.adoptedHosts). */
export interface AccountRecord {
  applied: readonly string[];
  adopted: readonly string[];
  /** The deletion-policy annotation says delete: adopted accounts are dropped too. */
  dropAdopted: boolean;
}

export interface AccountPlan {
  changes: AccountChange[];
  done: string[];
  status(complete: boolean): { allowedHosts: string[]; adoptedHosts?: string[] };
}

/** The changes, in words, and the record to keep after them (complete, or failed part way). */
export function planAccount(d: DesiredUser, password: string, observed: readonly ObservedAccount[], rec: AccountRecord): AccountPlan {
  const adopted = adoptedHosts(
    d.hosts,
    observed.map((a) => a.host),
    rec.applied,
    rec.adopted,
  );
  const removed = rec.applied.filter((h) => !d.hosts.includes(h));
  const { keep } = hostsToDrop(removed, rec.adopted, rec.dropAdopted);
  const changes = decideAccount(d, password, observed, rec.applied, keep);
  const who = (h: string) => `${d.user}@${h}`;
  const done = [
    ...adopted
      .filter((h) => !rec.applied.includes(h))
      .map((h) => `adopted ${who(h)}, which existed before (kept when this object is deleted)`),
    ...keep.filter((h) => observed.some((a) => a.host === h)).map((h) => `left ${who(h)} in place: it existed before this object`),
    ...changes.map(describeChange),
  ];
  const withAdopted = (hosts: string[], adoptedOnes: string[]) => {
    const a = adoptedOnes.filter((h) => hosts.includes(h));
    return a.length > 0 ? { allowedHosts: hosts, adoptedHosts: a } : { allowedHosts: hosts };
  };
  return {
    changes,
    done,
    // After a failed pass some accounts of new hosts may exist: they are recorded, so removing
    // such a host from the spec later still drops its account.
    status: (complete) =>
      complete
        ? withAdopted([...d.hosts], adopted)
        : withAdopted([...new Set([...rec.applied, ...d.hosts])], [...new Set([...rec.adopted, ...adopted])]),
  };
}

/** A change in words, for the Event and the log: never the password. */
export function describeChange(c: AccountChange): string {
  const who = `${c.account.user}@${c.account.host}`;
  switch (c.kind) {
    case 'createUser':
      return `created ${who}`;
    case 'setPassword':
      return `set the password of ${who}`;
    case 'setLimits':
      return `set the limits of ${who}`;
    case 'dropUser':
      return `dropped ${who}`;
    case 'grant':
    case 'revoke': {
      const on = `${c.grant.db}.${c.grant.table ?? '*'}`;
      return `${c.kind === 'grant' ? 'granted' : 'revoked'} ${c.grant.privileges.join(', ')} on ${on} ${c.kind === 'grant' ? 'to' : 'from'} ${who}`;
    }
  }
}
