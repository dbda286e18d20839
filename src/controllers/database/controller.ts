// The database controller: MysqlDatabase → a schema with its character set and collation on the
// cluster's master (docs/users-and-databases.md). The pass is reconcile.ts.
import { PLURAL_MYSQL_DATABASES } from '../../api/constants.ts';
import type { MysqlCluster } from '../../api/index.ts';
import type { ControllerDefinition, ControllerSpec } from '../../runtime/controller.ts';
import type { Permission } from '../../runtime/permissions.ts';
import { KINDS } from '../shared/kinds.ts';
import { namesCluster, provisionPermissions, rivals, watchReferences, type ProvisionOptions } from '../shared/provision.ts';
import { DATABASE_SETTINGS } from './options.ts';
import { DATABASE_KIND, reconcileDatabase, type DatabaseObject } from './reconcile.ts';

export function databaseController(opts: ProvisionOptions): ControllerSpec {
  return {
    name: 'database',
    for: KINDS.database,
    // Waits (no writable master, failover) back off from 1 s to 30 s, as the node controller's.
    backoff: { baseMs: 1000, maxMs: 30_000 },
    reconcile: (req, ctx) => reconcileDatabase(req, ctx, opts),
    start: async (ctx, enqueue) => {
      await Promise.all([
        watchReferences<DatabaseObject, MysqlCluster>(ctx, enqueue, KINDS.database, KINDS.cluster, namesCluster),
        watchReferences<DatabaseObject, DatabaseObject>(ctx, enqueue, KINDS.database, KINDS.database, rivals(DATABASE_KIND)),
      ]);
    },
  };
}

export const DATABASE_PERMISSIONS: readonly Permission[] = provisionPermissions(PLURAL_MYSQL_DATABASES);

export const databaseControllerDefinition: ControllerDefinition<Pick<ProvisionOptions, 'allowCrossNamespace'>> = {
  name: 'database',
  settings: DATABASE_SETTINGS,
  permissions: DATABASE_PERMISSIONS,
  build: (opts) => databaseController(opts),
};
