// What a MysqlUser or MysqlDatabase may touch on its cluster (docs/security.md, "Reserved names";
// docs/users-and-databases.md, "Ownership"). Pure.
//
// - Reserved names: the server's and the operator's own accounts and schemas are never written
//   nor dropped through these kinds, whatever the spec says.
// - Claims: one account (user@host) or schema of a cluster belongs to one object; a later one
//   (creationTimestamp, then namespace/name) is refused, so two objects never fight over grants
//   and the refused one drops nothing when deleted.
// - Deletion: what an object adopted (it existed before the object applied it) is kept unless the
//   deletion-policy annotation says `delete` explicitly; what it created follows the policy
//   (default delete, the anchor's).
import {
  ANNOTATION_RESOURCE_DELETION_POLICY,
  CONDITION_STATUS,
  PROVISION_CONDITION,
  PROVISION_REASONS,
  RESERVED_SCHEMAS,
  RESERVED_USER_NAMES,
  RESERVED_USER_PREFIXES,
  RESOURCE_DELETION_POLICY,
  ROOT_USER,
} from '../../api/constants.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';
import type { ProvisionReason } from '../../api/constants.ts';

/** A decision not to act (the shape provision.ts reports). */
export interface OwnershipRefusal {
  refused: ProvisionReason;
  message: string;
}

/**
 * Why `user` is not a MysqlUser's to manage, or null. Compared without case: a name that differs
 * from `root` only in case is a trap more than a need, and the server's own accounts are lower case.
 * `systemUsers`: the names the cluster's operated Secret gives its system users.
 */
export function reservedUserProblem(user: string, systemUsers: readonly string[] = []): string | null {
  const name = user.toLowerCase();
  if (name.trim() === '') return 'is the anonymous user (an empty name matches every user): not managed by a MysqlUser';
  if (name === ROOT_USER) return "is the server's administrator account, which the operator logs in as: not managed by a MysqlUser";
  if ([...RESERVED_USER_NAMES, ...systemUsers].some((u) => u.toLowerCase() === name)) {
    return "is one of the operator's system accounts: not managed by a MysqlUser";
  }
  const prefix = RESERVED_USER_PREFIXES.find((p) => name.startsWith(p));
  if (prefix) return `is an account of the server itself (${prefix}*): not managed by a MysqlUser`;
  return null;
}

/**
 * Why `schema` is not a MysqlDatabase's (nor a MysqlUser grant's) to manage, or null. Compared
 * without case: on servers with lower_case_table_names set, `MySQL` is `mysql`, and
 * information_schema answers to any case everywhere.
 */
export function reservedSchemaProblem(schema: string): string | null {
  return RESERVED_SCHEMAS.includes(schema.toLowerCase())
    ? 'is a schema of the server or of the operator: not managed by a MysqlDatabase or MysqlUser'
    : null;
}

export function reservedRefusal(field: string, value: string, problem: string): OwnershipRefusal {
  return {
    refused: PROVISION_REASONS.reservedName,
    message: `${field} ${JSON.stringify(value)} ${problem}; nothing is done on the server, and deleting this object drops nothing`,
  };
}

// ---------------------------------------------------------------------------------------------
// Claims

/** What the claim check needs of an object: who it is, when it came, its cluster, what it claims. */
export interface Claimant {
  namespace: string;
  name: string;
  /** RFC 3339, as the API server writes it (seconds: equal stamps are ordered by namespace/name). */
  creationTimestamp: string;
  /** `namespace/name` of the MysqlCluster its clusterRef resolves to. */
  cluster: string;
  /** Keys of what it claims (accounts, a schema), compared exactly. */
  claims: readonly string[];
}

/** Whether `a` came before `b`: creationTimestamp, then namespace/name. */
export function claimsFirst(a: Claimant, b: Claimant): boolean {
  if (a.creationTimestamp !== b.creationTimestamp) return a.creationTimestamp < b.creationTimestamp;
  return `${a.namespace}/${a.name}` < `${b.namespace}/${b.name}`;
}

/** The earliest other object claiming something `me` claims on its cluster, with what; undefined when `me` holds all its claims. */
export function claimHolder(me: Claimant, all: readonly Claimant[]): { holder: Claimant; claim: string } | undefined {
  const mine = new Set(me.claims);
  const earlier = all
    .filter((o) => o.cluster === me.cluster && !(o.namespace === me.namespace && o.name === me.name) && claimsFirst(o, me))
    .sort((a, b) => (claimsFirst(a, b) ? -1 : 1));
  for (const o of earlier) {
    const claim = o.claims.find((c) => mine.has(c));
    if (claim !== undefined) return { holder: o, claim };
  }
  return undefined;
}

/** A MysqlUser's claim on one account: the user as given (MySQL compares it exactly), the host without case (as MySQL does). */
export function accountClaim(user: string, host: string): string {
  return `account ${user}@${host.toLowerCase()}`;
}

/** A MysqlDatabase's claim on its schema, without case (lower_case_table_names may fold it). */
export function schemaClaim(schema: string): string {
  return `schema ${schema.toLowerCase()}`;
}

export function claimRefusal(claim: string, holder: Claimant): OwnershipRefusal {
  return {
    refused: PROVISION_REASONS.alreadyClaimed,
    message: `${claim} of MysqlCluster ${holder.cluster} is already claimed by ${holder.namespace}/${holder.name}, created earlier; nothing is done on the server, and deleting this object drops nothing`,
  };
}

// ---------------------------------------------------------------------------------------------
// Deletion

/** Whether the deletion-policy annotation explicitly asks for `delete` (only then is what was adopted dropped). */
export function asksDelete(obj: KubeObject): boolean {
  return obj.metadata?.annotations?.[ANNOTATION_RESOURCE_DELETION_POLICY] === RESOURCE_DELETION_POLICY.delete;
}

/** Whether the object's Ready condition is True: provisioned at least once. */
export function wasReady(obj: { status?: { conditions?: readonly { type: string; status: string }[] } }): boolean {
  return obj.status?.conditions?.some((c) => c.type === PROVISION_CONDITION.ready && c.status === CONDITION_STATUS.true) ?? false;
}

/**
 * The hosts whose account a MysqlUser may have made: `status.allowedHosts` (spec hosts are added
 * before a pass can create them). An object provisioned before that field was written (the anchor's,
 * Ready=True and no record) made those of its spec.
 */
export function appliedHosts(obj: {
  spec: { allowedHosts: readonly string[] };
  status?: { allowedHosts?: readonly string[]; conditions?: readonly { type: string; status: string }[] };
}): string[] {
  return [...(obj.status?.allowedHosts ?? (wasReady(obj) ? obj.spec.allowedHosts : []))];
}

/**
 * Of `hosts` (accounts the object applied and is letting go: all on deletion, those removed from
 * the spec otherwise), those to drop and those to keep: adopted, unless `dropAdopted` (asksDelete).
 */
export function hostsToDrop(
  hosts: readonly string[],
  adopted: readonly string[],
  dropAdopted: boolean,
): { drop: string[]; keep: string[] } {
  const keep = dropAdopted ? [] : hosts.filter((h) => adopted.includes(h));
  return { drop: hosts.filter((h) => !keep.includes(h)), keep };
}

/**
 * What a MysqlDatabase's deletion does with its schema: nothing when it never looked at it (it made
 * nothing), keep it when adopted unless the annotation asks for delete, else drop it.
 */
export function schemaOnDeletion(
  recorded: boolean | undefined,
  ready: boolean,
  dropAdopted: boolean,
): 'drop' | 'keep-adopted' | 'untouched' {
  if (recorded === undefined && !ready) return 'untouched';
  if (adoptedSchema(recorded, ready, true) && !dropAdopted) return 'keep-adopted';
  return 'drop';
}

/**
 * Hosts of `wanted` whose account the object adopted: a host it applied before keeps what was
 * recorded; a host new to it is adopted when its account exists already.
 */
export function adoptedHosts(
  wanted: readonly string[],
  existing: readonly string[],
  applied: readonly string[],
  adoptedBefore: readonly string[],
): string[] {
  return wanted.filter((h) => (applied.includes(h) ? adoptedBefore.includes(h) : existing.includes(h)));
}

/**
 * Whether a MysqlDatabase adopted its schema. Recorded once: the first look says whether the schema
 * was there. An object provisioned before this was recorded (Ready=True, no record) is taken as
 * having created it, as it was treated then (and by the anchor).
 */
export function adoptedSchema(recorded: boolean | undefined, wasReady: boolean, exists: boolean): boolean {
  if (recorded !== undefined) return recorded;
  return wasReady ? false : exists;
}
