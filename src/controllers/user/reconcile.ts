// One pass over one MysqlUser: the pass user and database objects share (shared/provision.ts,
// reconcileProvisioned) with the user's parts plugged in. Gather: the object, its cluster, the
// objects that claim the same accounts (claims), the password from its Secret (readPassword), the
// accounts as the master holds them (plan reads them). Decide: reserved names, what the spec asks
// (desired-user.ts), the statements (decide-account.ts), which hosts a deletion drops (dropPlan).
// Act: the statements on the master, then the Ready condition and the hosts in status.
import { FINALIZER_USER, PROVISION_REASONS } from '../../api/constants.ts';
import type { MysqlUser } from '../../api/index.ts';
import { USER_STATUS_OWNER } from '../../api/status-owners.ts';
import type { ControllerContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import { decodeSecretData } from '../../runtime/kube/secret-data.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';
import { accountClaim, appliedHosts, asksDelete, hostsToDrop, reservedRefusal, reservedUserProblem } from '../shared/decide-ownership.ts';
import { KINDS } from '../shared/kinds.ts';
import { reconcileProvisioned, refusal, type ProvisionKind, type ProvisionOptions, type Refusal } from '../shared/provision.ts';
import { planAccount } from './decide-account.ts';
import { desiredUser, type DesiredUser } from './desired-user.ts';
import { USER_SETTINGS } from './options.ts';

export type UserObject = MysqlUser & KubeObject;
export type SecretObject = KubeObject & { data?: Record<string, string> };

interface WithPassword {
  user: DesiredUser;
  password: string;
}

/**
 * The password is read from the API server, not the cache: the Secret cache keeps only the keys
 * cluster Secrets use (docs/runtime.md), and a MysqlUser may name any key.
 */
async function readPassword(obj: UserObject, ctx: ControllerContext): Promise<string | Refusal> {
  const { name, key } = obj.spec.password;
  const ns = obj.metadata?.namespace ?? '';
  const secret = await ctx.client.getIfExists<SecretObject>({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name });
  if (!secret) return refusal(PROVISION_REASONS.passwordSecretNotFound, `Secret ${ns}/${name} (spec.password.name) does not exist`);
  const password = decodeSecretData(secret.data)[key];
  if (!password)
    return refusal(PROVISION_REASONS.passwordKeyMissing, `Secret ${ns}/${name} has no key ${key} (spec.password.key), or it is empty`);
  return password;
}

function adopted(obj: UserObject): string[] {
  return obj.status?.adoptedHosts ?? [];
}

export const USER_KIND: ProvisionKind<UserObject, WithPassword> = {
  target: KINDS.user,
  finalizer: FINALIZER_USER,
  owner: USER_STATUS_OWNER,
  crossNamespaceFlag: USER_SETTINGS.allowCrossNamespace.flag,
  reserved(obj, systemUsers) {
    const problem = reservedUserProblem(obj.spec.user, systemUsers);
    return problem ? reservedRefusal('spec.user', obj.spec.user, problem) : null;
  },
  claims: (obj) => obj.spec.allowedHosts.map((host) => accountClaim(obj.spec.user, host)),
  async desired(obj, flavour, ctx) {
    const user = desiredUser(obj.spec, flavour);
    if ('refused' in user) return user;
    const password = await readPassword(obj, ctx);
    return typeof password === 'string' ? { user, password } : password;
  },
  async plan(node, d, obj) {
    const record = { applied: appliedHosts(obj), adopted: adopted(obj), dropAdopted: asksDelete(obj) };
    return planAccount(d.user, d.password, await node.accounts(d.user.user), record);
  },
  statusFields(obj) {
    const { allowedHosts, adoptedHosts } = obj.status ?? {};
    return { ...(allowedHosts ? { allowedHosts } : {}), ...(adoptedHosts?.length ? { adoptedHosts } : {}) };
  },
  dropPlan(obj) {
    const { drop, keep } = hostsToDrop(appliedHosts(obj), adopted(obj), asksDelete(obj));
    return {
      changes: drop.map((host) => ({ kind: 'dropUser', account: { user: obj.spec.user, host } })),
      kept: keep.map((host) => `${obj.spec.user}@${host}`),
    };
  },
};

export function reconcileUser(req: Request, ctx: ControllerContext, opts: ProvisionOptions): Promise<ReconcileResult | undefined> {
  return reconcileProvisioned(req, ctx, USER_KIND, opts);
}
