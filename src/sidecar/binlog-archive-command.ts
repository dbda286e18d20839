// The binlog archiver inside `config-and-serve` (docs/pitr.md): started when the pod's sidecar has
// BINLOG_ARCHIVE_URL, with the storage Secret's keys in its environment, as the operator user of
// the pod's Secret. Logs what changes (started, idle as a replica, each upload, gaps, failures);
// the cluster's status reads the archive itself (src/controllers/pitr/), so nothing else is told.
import type { Logger } from '../runtime/logger.ts';
import { storageFor, type StorageEnv } from '../storage/index.ts';
import { type ArchiverEvent, runBinlogArchiver } from './binlog-archive.ts';
import type { SidecarConfig } from './config.ts';

/** Resolves when `signal` aborts; never rejects for server or storage trouble (it retries). */
export async function runBinlogArchiveCommand(cfg: SidecarConfig, env: StorageEnv, log: Logger, signal: AbortSignal): Promise<void> {
  const archive = cfg.binlogArchive;
  if (!archive) return;
  // The archive reads MariaDB's GTID events; MySQL's differ (docs/pitr.md, non-goals). The cluster's
  // BinlogArchive condition says the same (the pitr controller).
  if (cfg.flavour.family !== 'mariadb') {
    log.error('binlog archive: not started, it supports MariaDB only', { mysqlVersion: cfg.mysqlVersion });
    return;
  }
  const storage = storageFor(archive.url, env);
  let lastError = '';
  const onEvent = (e: ArchiverEvent): void => {
    if (e.kind !== 'error') lastError = '';
    switch (e.kind) {
      case 'started':
        log.info('binlog archive: continuing as master', { file: e.cursor.file, offset: e.cursor.offset, reason: e.reason });
        return;
      case 'idle-replica':
        log.info('binlog archive: idle, the server is read-only (not the master)');
        return;
      case 'uploaded':
        log.info('binlog archive: uploaded', {
          file: e.segment.file,
          start: e.segment.start,
          end: e.segment.end,
          gtid: e.segment.endState,
          bytes: e.bytes,
        });
        return;
      case 'gap':
        log.warn('binlog archive: gap', { reason: e.reason });
        return;
      case 'diverged':
        log.error('binlog archive: not archiving, the archive holds transactions this server lacks', { reason: e.reason });
        return;
      case 'error':
        if (e.message !== lastError) log.warn('binlog archive failed', { error: e.message, retryInMs: e.retryInMs });
        lastError = e.message;
        return;
    }
  };
  log.info('binlog archive: started', { url: archive.url, intervalSeconds: archive.intervalSeconds });
  await runBinlogArchiver({
    connection: { ...cfg.mysql, ...cfg.operator },
    binlogDir: cfg.paths.dataDir,
    archiveUrl: archive.url,
    storage,
    intervalMs: archive.intervalSeconds * 1000,
    signal,
    onEvent,
  });
}
