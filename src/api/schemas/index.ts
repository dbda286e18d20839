import type { KindDefinition } from './kind.ts';
import { mysqlBackup } from './mysqlbackup.ts';
import { mysqlCluster } from './mysqlcluster.ts';
import { mysqlDatabase } from './mysqldatabase.ts';
import { mysqlUser } from './mysqluser.ts';

export { mysqlBackup, mysqlCluster, mysqlDatabase, mysqlUser };
export type { KindDefinition, PrinterColumn } from './kind.ts';

/** Every kind of the API, in a fixed order (generation output depends on it). */
export const KINDS: readonly KindDefinition[] = [mysqlCluster, mysqlBackup, mysqlDatabase, mysqlUser];
