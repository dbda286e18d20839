// The GTID set a physical backup was taken at, from the `xtrabackup_binlog_info` file that
// xtrabackup and mariabackup leave in the data directory: `<binlog file>\t<position>\t<gtid set>`.
// MySQL writes long GTID sets over several lines (`uuid:1-5,\nuuid:1-3`); MariaDB writes
// `domain-server-seq[,...]`. Without GTIDs there is no third field.
import { compactGtidSet } from '../mysql/gtid-set.ts';

export const BINLOG_INFO_FILE = 'xtrabackup_binlog_info';

export function gtidFromBinlogInfo(content: string): string | undefined {
  const fields = content.split('\t');
  if (fields.length < 3) return undefined;
  const gtid = compactGtidSet(fields.slice(2).join(''));
  return gtid === '' ? undefined : gtid;
}
