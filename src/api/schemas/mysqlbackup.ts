// MysqlBackup: one backup of a cluster, on demand or created by the backup schedule.
import { KIND_MYSQL_BACKUP, PLURAL_MYSQL_BACKUPS, REMOTE_DELETE_POLICY } from '../constants.ts';
import { bool, conditionList, dateTime, enumOf, int64, obj, str } from './build.ts';
import { AGE_COLUMN, type KindDefinition } from './kind.ts';

const spec = obj(
  'MysqlBackupSpec',
  'Desired backup.',
  {
    clusterName: str('The MysqlCluster to back up, in the same namespace.', { minLength: 1 }),
    backupURL: str(
      'Where to store it: ends in .xbackup.gz → used as is; else a folder for <name>.xbackup.gz; empty → the cluster backupURL.',
    ),
    backupSecretName: str('Secret with the storage credentials; default: the cluster backupSecretName.'),
    remoteDeletePolicy: enumOf('Whether deleting this MysqlBackup deletes the stored backup.', Object.values(REMOTE_DELETE_POLICY), {
      default: REMOTE_DELETE_POLICY.retain,
    }),
  },
  { required: ['clusterName'] },
);

const status = obj('MysqlBackupStatus', 'Outcome of the backup.', {
  completed: bool('True once the backup finished successfully.'),
  conditions: conditionList('BackupCondition', 'Complete and Failed.', true),
  // Ours, beyond the anchor: what a restore or an audit needs to know about the backup.
  backupURL: str('Ours: the URL of the stored object.'),
  sizeBytes: int64('Ours: size of the stored object in bytes.', { minimum: 0 }),
  startTime: dateTime('Ours: when the backup started.'),
  completionTime: dateTime('Ours: when the backup finished.'),
  sourceNode: str('Ours: the node the backup was taken from.'),
  binlogFile: str('Ours: binary log file at the backup position.'),
  binlogPosition: int64('Ours: binary log position at the backup position.', { minimum: 0 }),
  gtidExecuted: str('Ours: GTID set executed at the backup position.'),
});

export const mysqlBackup: KindDefinition = {
  kind: KIND_MYSQL_BACKUP,
  plural: PLURAL_MYSQL_BACKUPS,
  singular: 'mysqlbackup',
  description: 'MysqlBackup is one backup of a MysqlCluster, stored as <name>.xbackup.gz.',
  spec,
  status,
  specRequired: true,
  printerColumns: [
    { name: 'Completed', type: 'boolean', description: 'Whether the backup finished', jsonPath: '.status.completed' },
    { name: 'Cluster', type: 'string', description: 'The backed up cluster', jsonPath: '.spec.clusterName' },
    AGE_COLUMN,
  ],
};
