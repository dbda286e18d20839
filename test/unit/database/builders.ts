// Builders of the database controller's inputs: a MysqlDatabase as the cache holds it (spec,
// status, annotations, creation time).
import type { MysqlDatabase, MysqlDatabaseSpec, MysqlDatabaseStatus } from '../../../src/api/index.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';

export const NS = 'default';
export const POLICY = 'mysql-operator.presslabs.org/resourceDeletionPolicy';

export type DatabaseObject = MysqlDatabase & KubeObject;

export interface ObjectOptions {
  name?: string;
  namespace?: string;
  created?: string;
  status?: MysqlDatabaseStatus;
  policy?: 'retain' | 'delete';
}

export function mysqlDatabase(spec: Partial<MysqlDatabaseSpec> = {}, o: ObjectOptions = {}): DatabaseObject {
  return {
    apiVersion: 'mysql.presslabs.org/v1alpha1',
    kind: 'MysqlDatabase',
    metadata: {
      name: o.name ?? 'shop',
      namespace: o.namespace ?? NS,
      creationTimestamp: o.created ?? '2026-01-01T00:00:00Z',
      ...(o.policy ? { annotations: { [POLICY]: o.policy } } : {}),
    } as KubeObject['metadata'],
    spec: { clusterRef: { name: 'db' }, database: 'shop', ...spec },
    ...(o.status ? { status: o.status } : {}),
  };
}

/** A Ready condition as the controller leaves it after a pass that applied. */
export const READY = {
  type: 'Ready',
  status: 'True' as 'True' | 'False',
  reason: 'ProvisionSucceeded',
  message: 'applied on the master',
  lastTransitionTime: '2026-01-01T00:00:01Z',
};
