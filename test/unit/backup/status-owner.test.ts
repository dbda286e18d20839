// Every field of MysqlBackup.status has its one writer, and the backupcron controller's part of
// MysqlCluster.status overlaps no other controller's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BACKUP_STATUS_OWNERS, CLUSTER_STATUS_OWNERS } from '../../../src/api/status-owners.ts';
import { mysqlBackup } from '../../../src/api/schemas/mysqlbackup.ts';

test('the backup controller owns every field of the MysqlBackup status schema', () => {
  const schemaFields = Object.keys(mysqlBackup.status!.properties!)
    .filter((f) => f !== 'conditions')
    .sort();
  assert.deepEqual([...BACKUP_STATUS_OWNERS.backup.fields].sort(), schemaFields);
});

test("the BackupSchedule condition is the backupcron controller's alone", () => {
  const owners = Object.entries(CLUSTER_STATUS_OWNERS).filter(([, o]) => (o.conditions as readonly string[]).includes('BackupSchedule'));
  assert.deepEqual(
    owners.map(([name]) => name),
    ['backupCron'],
  );
});
