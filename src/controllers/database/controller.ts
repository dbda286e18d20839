// The database controller: MysqlDatabase → a schema with its character set and collation on the
// cluster's master (docs/users-and-databases.md).
import { FINALIZER_DATABASE, PLURAL_MYSQL_DATABASES } from '../../api/constants.ts';
import type { MysqlCluster, MysqlDatabase } from '../../api/index.ts';
import { DATABASE_STATUS_OWNER } from '../../api/status-owners.ts';
import type { ControllerDefinition, ControllerSpec } from '../../runtime/controller.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';
import type { Permission } from '../../runtime/permissions.ts';
import { booleanSetting, type SettingTable } from '../../runtime/settings.ts';
import { KINDS } from '../shared/kinds.ts';
import { namesCluster, provisionPermissions, reconcileProvisioned, watchReferences, type ProvisionKind, type ProvisionOptions } from '../shared/provision.ts';
import { decideDatabase, describeDatabaseChange, desiredDatabase, type DesiredDatabase } from './desired-database.ts';

type DatabaseObject = MysqlDatabase & KubeObject;

export const DATABASE_SETTINGS: SettingTable<Pick<ProvisionOptions, 'allowCrossNamespace'>> = {
  allowCrossNamespace: booleanSetting({
    flag: 'allow-cross-namespace-database',
    env: 'ALLOW_CROSS_NAMESPACE_DATABASE',
    help: 'a MysqlDatabase may name a MysqlCluster of another namespace',
    default: 'false',
  }),
};

export const DATABASE_KIND: ProvisionKind<DatabaseObject, DesiredDatabase> = {
  target: KINDS.database,
  finalizer: FINALIZER_DATABASE,
  owner: DATABASE_STATUS_OWNER,
  crossNamespaceFlag: DATABASE_SETTINGS.allowCrossNamespace.flag,
  desired: async (obj) => desiredDatabase(obj.spec),
  async apply(node, d) {
    const changes = decideDatabase(d, await node.database(d.name));
    await node.applyChanges(changes);
    return changes.map(describeDatabaseChange);
  },
  statusFields: () => ({}),
  async drop(node, obj) {
    await node.applyChanges([{ kind: 'dropDatabase', name: obj.spec.database }]);
  },
};

export function databaseController(opts: ProvisionOptions): ControllerSpec {
  return {
    name: 'database',
    for: KINDS.database,
    // Waits (no writable master, failover) back off from 1 s to 30 s, as the node controller's.
    backoff: { baseMs: 1000, maxMs: 30_000 },
    reconcile: (req, ctx) => reconcileProvisioned(req, ctx, DATABASE_KIND, opts),
    start: (ctx, enqueue) =>
      watchReferences<DatabaseObject, MysqlCluster>(ctx, enqueue, KINDS.database, KINDS.cluster, namesCluster),
  };
}

export const DATABASE_PERMISSIONS: readonly Permission[] = provisionPermissions(PLURAL_MYSQL_DATABASES);

export const databaseControllerDefinition: ControllerDefinition<Pick<ProvisionOptions, 'allowCrossNamespace'>> = {
  name: 'database',
  settings: DATABASE_SETTINGS,
  permissions: DATABASE_PERMISSIONS,
  build: (opts) => databaseController(opts),
};
