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
import { asksDelete, reservedRefusal, reservedSchemaProblem, schemaClaim, schemaOnDeletion, wasReady } from '../shared/decide-ownership.ts';
import {
  namesCluster,
  provisionPermissions,
  reconcileProvisioned,
  rivals,
  watchReferences,
  type ProvisionKind,
  type ProvisionOptions,
} from '../shared/provision.ts';
import { desiredDatabase, planDatabase, type DesiredDatabase } from './desired-database.ts';

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
  reserved(obj) {
    const problem = reservedSchemaProblem(obj.spec.database);
    return problem ? reservedRefusal('spec.database', obj.spec.database, problem) : null;
  },
  claims: (obj) => [schemaClaim(obj.spec.database)],
  desired: async (obj) => desiredDatabase(obj.spec),
  plan: async (node, d, obj) => planDatabase(d, await node.database(d.name), { recorded: obj.status?.adopted, ready: wasReady(obj) }),
  statusFields: (obj) => (obj.status?.adopted === undefined ? {} : { adopted: obj.status.adopted }),
  dropPlan(obj) {
    const name = obj.spec.database;
    switch (schemaOnDeletion(obj.status?.adopted, wasReady(obj), asksDelete(obj))) {
      case 'drop':
        return { changes: [{ kind: 'dropDatabase', name }], kept: [] };
      case 'keep-adopted':
        return { changes: [], kept: [`database ${name}`] };
      case 'untouched':
        return { changes: [], kept: [] };
    }
  },
};

export function databaseController(opts: ProvisionOptions): ControllerSpec {
  return {
    name: 'database',
    for: KINDS.database,
    // Waits (no writable master, failover) back off from 1 s to 30 s, as the node controller's.
    backoff: { baseMs: 1000, maxMs: 30_000 },
    reconcile: (req, ctx) => reconcileProvisioned(req, ctx, DATABASE_KIND, opts),
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
