// One pass over one MysqlDatabase: the pass user and database objects share
// (shared/provision.ts, reconcileProvisioned) with the database's parts plugged in. Gather: the
// object, its cluster, the objects that claim the same schema (claims), the schema as the master
// holds it (plan reads it). Decide: reserved names, what the spec asks (desired-database.ts), the
// statements (planDatabase), what a deletion drops (dropPlan). Act: the statements on the master,
// then the Ready condition and `status.adopted`.
import { FINALIZER_DATABASE } from '../../api/constants.ts';
import type { MysqlDatabase } from '../../api/index.ts';
import { DATABASE_STATUS_OWNER } from '../../api/status-owners.ts';
import type { ControllerContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';
import { asksDelete, reservedRefusal, reservedSchemaProblem, schemaClaim, schemaOnDeletion, wasReady } from '../shared/decide-ownership.ts';
import { KINDS } from '../shared/kinds.ts';
import { reconcileProvisioned, type ProvisionKind, type ProvisionOptions } from '../shared/provision.ts';
import { desiredDatabase, planDatabase, type DesiredDatabase } from './desired-database.ts';
import { DATABASE_SETTINGS } from './options.ts';

export type DatabaseObject = MysqlDatabase & KubeObject;

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

export function reconcileDatabase(req: Request, ctx: ControllerContext, opts: ProvisionOptions): Promise<ReconcileResult | undefined> {
  return reconcileProvisioned(req, ctx, DATABASE_KIND, opts);
}
