// Builders of the user controller's inputs: a MysqlUser as the cache holds it (spec, status,
// annotations, creation time) and an account as src/mysql reads it from mysql.user.
import type { MysqlUser, MysqlUserSpec, MysqlUserStatus } from '../../../src/api/index.ts';
import { nativePasswordHash, noLimits, type ObservedAccount } from '../../../src/mysql/index.ts';
import type { KubeObject } from '../../../src/runtime/kube/types.ts';

export const NS = 'default';
export const POLICY = 'mysql-operator.presslabs.org/resourceDeletionPolicy';

export type UserObject = MysqlUser & KubeObject;

export function userSpec(over: Partial<MysqlUserSpec> = {}): MysqlUserSpec {
  return {
    clusterRef: { name: 'db' },
    user: 'app',
    password: { name: 's', key: 'PASSWORD' },
    allowedHosts: ['%'],
    permissions: [{ schema: 'shop', tables: ['*'], permissions: ['SELECT'] }],
    ...over,
  };
}

export interface ObjectOptions {
  name?: string;
  namespace?: string;
  created?: string;
  status?: MysqlUserStatus;
  /** The deletion-policy annotation. */
  policy?: 'retain' | 'delete';
}

export function mysqlUser(spec: Partial<MysqlUserSpec> = {}, o: ObjectOptions = {}): UserObject {
  return {
    apiVersion: 'mysql.presslabs.org/v1alpha1',
    kind: 'MysqlUser',
    metadata: {
      name: o.name ?? 'app',
      namespace: o.namespace ?? NS,
      creationTimestamp: o.created ?? '2026-01-01T00:00:00Z',
      ...(o.policy ? { annotations: { [POLICY]: o.policy } } : {}),
    } as KubeObject['metadata'],
    spec: userSpec(spec),
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

export function account(host: string, over: Partial<ObservedAccount> = {}): ObservedAccount {
  return { host, plugin: 'mysql_native_password', authenticationString: nativePasswordHash('pw'), limits: noLimits(), grants: [], ...over };
}
