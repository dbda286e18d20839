// The user controller: MysqlUser → accounts, password, limits and grants on the cluster's master
// (docs/users-and-databases.md). The password Secret is watched: a rotation enqueues every
// MysqlUser that names it, so it applies within seconds, not at the next resync.
import { FINALIZER_USER, PLURAL_MYSQL_USERS, PROVISION_REASONS } from '../../api/constants.ts';
import type { MysqlCluster, MysqlUser } from '../../api/index.ts';
import { USER_STATUS_OWNER } from '../../api/status-owners.ts';
import type { ControllerContext, ControllerDefinition, ControllerSpec } from '../../runtime/controller.ts';
import { decodeSecretData } from '../../runtime/kube/secret-data.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';
import type { Permission } from '../../runtime/permissions.ts';
import { booleanSetting, type SettingTable } from '../../runtime/settings.ts';
import { KINDS } from '../shared/kinds.ts';
import { accountClaim, appliedHosts, asksDelete, hostsToDrop, reservedRefusal, reservedUserProblem } from '../shared/decide-ownership.ts';
import {
  namesCluster,
  provisionPermissions,
  reconcileProvisioned,
  refusal,
  rivals,
  watchReferences,
  type ProvisionKind,
  type ProvisionOptions,
  type Refusal,
} from '../shared/provision.ts';
import { planAccount } from './decide-account.ts';
import { desiredUser, type DesiredUser } from './desired-user.ts';

type UserObject = MysqlUser & KubeObject;
type SecretObject = KubeObject & { data?: Record<string, string> };

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

export const USER_SETTINGS: SettingTable<Pick<ProvisionOptions, 'allowCrossNamespace'>> = {
  allowCrossNamespace: booleanSetting({
    flag: 'allow-cross-namespace-user',
    env: 'ALLOW_CROSS_NAMESPACE_USER',
    help: 'a MysqlUser may name a MysqlCluster of another namespace (whoever can create MysqlUsers can then add accounts to any cluster)',
    default: 'false',
  }),
};

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

export function userController(opts: ProvisionOptions): ControllerSpec {
  return {
    name: 'user',
    for: KINDS.user,
    // Waits (no writable master, failover) back off from 1 s to 30 s, as the node controller's.
    backoff: { baseMs: 1000, maxMs: 30_000 },
    reconcile: (req, ctx) => reconcileProvisioned(req, ctx, USER_KIND, opts),
    async start(ctx, enqueue) {
      await Promise.all([
        watchReferences<UserObject, SecretObject>(
          ctx,
          enqueue,
          KINDS.user,
          KINDS.secret,
          (u, s) => u.metadata?.namespace === s.metadata?.namespace && u.spec.password.name === s.metadata?.name,
        ),
        watchReferences<UserObject, MysqlCluster>(ctx, enqueue, KINDS.user, KINDS.cluster, namesCluster),
        watchReferences<UserObject, UserObject>(ctx, enqueue, KINDS.user, KINDS.user, rivals(USER_KIND)),
      ]);
    },
  };
}

/** As the database controller, and a GET of the password Secret. */
export const USER_PERMISSIONS: readonly Permission[] = [
  ...provisionPermissions(PLURAL_MYSQL_USERS),
  { group: '', resources: ['secrets'], verbs: ['get'] },
];

export const userControllerDefinition: ControllerDefinition<Pick<ProvisionOptions, 'allowCrossNamespace'>> = {
  name: 'user',
  settings: USER_SETTINGS,
  permissions: USER_PERMISSIONS,
  build: (opts) => userController(opts),
};
