// Where a physical backup stands in its source's binary log, from the `xtrabackup_binlog_info`
// file that xtrabackup and mariabackup put into the backup: `<binlog file>\t<position>\t<gtid set>`.
// MySQL writes long GTID sets over several lines (`uuid:1-5,\nuuid:1-3`); MariaDB writes
// `domain-server-seq[,...]`. Without GTIDs there is no third field.
import type { BackupPosition } from '../api/backup-report.ts';
import { compactGtidSet } from '../mysql/gtid-set.ts';

export const BINLOG_INFO_FILE = 'xtrabackup_binlog_info';

export function parseBinlogInfo(content: string): BackupPosition | undefined {
  const fields = content.split('\t');
  const binlogFile = fields[0]?.trim() ?? '';
  const binlogPosition = Number(fields[1]?.trim());
  if (binlogFile === '' || !Number.isSafeInteger(binlogPosition)) return undefined;
  const gtid = compactGtidSet(fields.slice(2).join(''));
  return gtid === '' ? { binlogFile, binlogPosition } : { binlogFile, binlogPosition, gtid };
}

export function gtidFromBinlogInfo(content: string): string | undefined {
  return parseBinlogInfo(content)?.gtid;
}
