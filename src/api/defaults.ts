// The schema defaults, applied in memory. The API server stores them on write and applies them
// again on read, so objects from it already carry them; builders in tests and objects from a
// server that skipped them (an old CRD) get the same values here.
import { mysqlBackup, mysqlCluster, mysqlDatabase, mysqlUser, type KindDefinition } from './schemas/index.ts';
import { rootSchema } from './crd.ts';
import { applyDefaults } from './schema-defaults.ts';
import type { MysqlBackup, MysqlCluster, MysqlDatabase, MysqlUser } from './types.generated.ts';

/** A deep copy of `obj` with the defaults of `def`'s schema applied. */
export function withDefaults<T>(def: KindDefinition, obj: T): T {
  const copy = structuredClone(obj);
  applyDefaults(copy, rootSchema(def));
  return copy;
}

export const clusterWithDefaults = (c: MysqlCluster): MysqlCluster => withDefaults(mysqlCluster, c);
export const backupWithDefaults = (b: MysqlBackup): MysqlBackup => withDefaults(mysqlBackup, b);
export const databaseWithDefaults = (d: MysqlDatabase): MysqlDatabase => withDefaults(mysqlDatabase, d);
export const userWithDefaults = (u: MysqlUser): MysqlUser => withDefaults(mysqlUser, u);
