// The user controller: MysqlUser → accounts, password, limits and grants on the cluster's master
// (docs/users-and-databases.md). The pass is reconcile.ts. The password Secret is watched: a
// rotation enqueues every MysqlUser that names it, so it applies within seconds, not at the next
// resync.
import { PLURAL_MYSQL_USERS } from '../../api/constants.ts';
import type { MysqlCluster } from '../../api/index.ts';
import type { ControllerDefinition, ControllerSpec } from '../../runtime/controller.ts';
import type { Permission } from '../../runtime/permissions.ts';
import { KINDS } from '../shared/kinds.ts';
import { namesCluster, provisionPermissions, rivals, watchReferences, type ProvisionOptions } from '../shared/provision.ts';
import { USER_SETTINGS } from './options.ts';
import { reconcileUser, USER_KIND, type SecretObject, type UserObject } from './reconcile.ts';

export function userController(opts: ProvisionOptions): ControllerSpec {
  return {
    name: 'user',
    for: KINDS.user,
    // Waits (no writable master, failover) back off from 1 s to 30 s, as the node controller's.
    backoff: { baseMs: 1000, maxMs: 30_000 },
    reconcile: (req, ctx) => reconcileUser(req, ctx, opts),
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
