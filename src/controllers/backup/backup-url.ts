// Where a backup goes (docs/compatibility.md "MysqlBackup"): the backup's own backupURL, else the cluster's;
// a URL naming an object is used as is, a folder gets `<backup-name>.xbackup.gz` (storage's
// backupObjectUrl). No URL at all is refused with the fields that could have given one.
import { BACKUP_REASONS } from '../../api/constants.ts';
import type { MysqlBackup, MysqlCluster } from '../../api/index.ts';
import { backupObjectUrl, parseBackupUrl, StorageError } from '../../storage/index.ts';

export type UrlResolution = { ok: true; url: string } | { ok: false; reason: string; message: string };

export function resolveBackupUrl(backupName: string, backup: MysqlBackup['spec'], cluster: MysqlCluster['spec']): UrlResolution {
  const own = backup.backupURL?.trim();
  const base = own || cluster.backupURL?.trim();
  if (!base) {
    return {
      ok: false,
      reason: BACKUP_REASONS.backupURLMissing,
      message: `no backup URL: set spec.backupURL of the MysqlBackup or spec.backupURL of MysqlCluster ${backup.clusterName}`,
    };
  }
  const url = backupObjectUrl(base, backupName);
  try {
    parseBackupUrl(url);
  } catch (err) {
    if (!(err instanceof StorageError)) throw err;
    const field = own ? 'spec.backupURL' : `spec.backupURL of MysqlCluster ${backup.clusterName}`;
    return { ok: false, reason: BACKUP_REASONS.invalidBackupURL, message: `${field}: ${err.message}` };
  }
  return { ok: true, url };
}

/** The credentials Secret: the backup's own, else the cluster's; none is allowed (file://, IRSA). */
export function backupSecretName(backup: MysqlBackup['spec'], cluster: MysqlCluster['spec']): string | undefined {
  return backup.backupSecretName?.trim() || cluster.backupSecretName?.trim() || undefined;
}
