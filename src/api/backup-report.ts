// What the sidecar tells the controllers about a backup it took (`take-backup-to`) or restored
// (`clone-and-init` from initBucketURL): one JSON object, printed as the last line of stdout and
// written as the container's termination message (pod status
// `containerStatuses[].state.terminated.message`, at most 4096 bytes), so a controller reads it
// from the pod without the log API. On failure the termination message is the error text instead.
// docs/backups.md "What the sidecar reports".

/** Where in the source's binary log a backup stands (xtrabackup_binlog_info). */
export interface BackupPosition {
  binlogFile: string;
  binlogPosition: number;
  /** MariaDB `domain-server-seq[,...]` or MySQL `uuid:1-5[,...]`; absent without GTIDs. */
  gtid?: string;
}

export interface BackupReport {
  url: string;
  /** Size of the stored (compressed) object. */
  bytes: number;
  /** Size of the xbstream before compression. */
  streamBytes: number;
  /** The sidecar the stream came from, as given on the command line. */
  source: string;
  startTime: string;
  completionTime: string;
  durationSeconds: number;
  /** Absent when the stream carried no binlog info (binary log off on the source). */
  position?: BackupPosition;
}

export interface RestoreReport {
  restoredFrom: string;
  position?: BackupPosition;
}

/** The report in a termination message or a Job's output (log lines are JSON too): the last line that is one. */
export function parseBackupReport(text: string): BackupReport | undefined {
  for (const line of text.trim().split('\n').reverse()) {
    try {
      const v = JSON.parse(line) as Partial<BackupReport>;
      if (
        typeof v.url === 'string' &&
        typeof v.bytes === 'number' &&
        typeof v.completionTime === 'string' &&
        typeof v.source === 'string'
      ) {
        return v as BackupReport;
      }
    } catch {
      // not the report line
    }
  }
  return undefined;
}

/** The restore report in an init container's termination message, or undefined (a clone, kept data, an error). */
export function parseRestoreReport(text: string): RestoreReport | undefined {
  try {
    const v = JSON.parse(text.trim()) as Partial<RestoreReport> | null;
    return typeof v?.restoredFrom === 'string' ? (v as RestoreReport) : undefined;
  } catch {
    return undefined;
  }
}
