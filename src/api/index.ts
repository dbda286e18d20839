// The API of the operator: the four kinds, their names, schemas and defaults.
export * from './constants.ts';
export type * from './types.generated.ts';
export { KINDS, mysqlBackup, mysqlCluster, mysqlDatabase, mysqlUser } from './schemas/index.ts';
export type { KindDefinition, PrinterColumn } from './schemas/index.ts';
export { buildCrd, crdName, rootSchema } from './crd.ts';
export { backupWithDefaults, clusterWithDefaults, databaseWithDefaults, userWithDefaults, withDefaults } from './defaults.ts';
export { BACKUP_STATUS_OWNERS, CLUSTER_STATUS_OWNERS } from './status-owners.ts';
