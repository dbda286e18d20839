// `take-backup-to <host> <url>` (the backup Job): stream the /xbackup of the sidecar at `host`,
// compress it, upload it to `url` through src/storage. The object appears at `url` only if the
// stream's X-Backup-Status trailer said Success and the upload completed: the trailer is
// checked when the stream ends, before the compressor's last bytes reach the upload, so a
// Failed (or missing) trailer fails the upload's body and the upload is aborted, never completed.
// On success the BackupReport (src/api/backup-report.ts) is returned for stdout and the
// termination message.
import type { IncomingMessage } from 'node:http';
import { pipeline, Transform } from 'node:stream';
import type { BackupReport } from '../api/backup-report.ts';
import { PORT } from '../api/constants.ts';
import { BACKUP_STATUS_TRAILER, BACKUP_SUCCESS } from '../api/pod-contract.ts';
import type { Logger } from '../runtime/logger.ts';
import { compressionOf, storageFor, StorageError, type StorageEnv } from '../storage/index.ts';
import { BINLOG_INFO_FILE, parseBinlogInfo } from './binlog-info.ts';
import { requestBackup } from './clone.ts';
import { commandCompressor, parallelCompressor } from './compress.ts';
import type { SidecarConfig } from './config.ts';
import { reclaimEvery } from './reclaim.ts';
import { scanXbstream } from './xbstream-scan.ts';

export class BackupError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'BackupError';
  }
}

/** `host` as the backup controller passes it (a pod FQDN), or `host:port`, or a base URL (tests). */
export function sidecarBaseUrl(host: string): string {
  if (/^https?:\/\//.test(host)) return host;
  return /:\d+$/.test(host) ? `http://${host}` : `http://${host}:${PORT.sidecarHttp}`;
}

/** Passes the stream through, counting it; at its end, fails unless the trailer says Success. */
function trailerCheck(res: IncomingMessage, origin: string): { stream: Transform; bytes: () => number } {
  let n = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      n += chunk.length;
      cb(null, chunk);
    },
    flush(cb) {
      const status = res.trailers[BACKUP_STATUS_TRAILER.toLowerCase()];
      if (status === BACKUP_SUCCESS) cb();
      else cb(new BackupError(`${origin} ended the backup with ${BACKUP_STATUS_TRAILER}: ${status ?? '(missing)'}; nothing was stored`));
    },
  });
  return { stream, bytes: () => n };
}

export async function takeBackupTo(
  cfg: SidecarConfig,
  host: string,
  url: string,
  log: Logger,
  signal: AbortSignal,
  env: StorageEnv = process.env,
): Promise<BackupReport> {
  const storage = storageFor(url, env);
  const baseUrl = sidecarBaseUrl(host);
  const origin = new URL(baseUrl).origin;
  const started = new Date();
  const res = await requestBackup(baseUrl, cfg.backup, signal, (message) => log.info('backup source busy; asking again', { message }));
  const reclaim = reclaimEvery(2 << 20);
  res.on('data', (chunk: Buffer) => reclaim(chunk.length));
  const scan = scanXbstream([BINLOG_INFO_FILE]);
  const check = trailerCheck(res, origin);
  const compressor = cfg.compressCommand ? commandCompressor(cfg.compressCommand) : parallelCompressor(compressionOf(url));
  log.info('streaming backup', { source: origin, url, compressor: cfg.compressCommand?.[0] ?? `parallel ${compressionOf(url)}` });
  const body = pipeline(res, scan.stream, check.stream, compressor, () => undefined);
  let bytes: number;
  try {
    ({ bytes } = await storage.upload(url, body, { signal }));
  } catch (err) {
    res.destroy();
    if (err instanceof BackupError || err instanceof StorageError) throw err;
    if (signal.aborted) throw new BackupError(`stopped while streaming from ${origin}; nothing was stored`, { cause: err });
    throw new BackupError(`the backup stream from ${origin} broke off (${(err as Error).message}); nothing was stored`, { cause: err });
  }
  const finished = new Date();
  if (scan.stoppedBecause()) log.warn('could not read the backup position from the stream', { why: scan.stoppedBecause() });
  const info = scan.files().get(BINLOG_INFO_FILE);
  const position = info === undefined ? undefined : parseBinlogInfo(info);
  return {
    url,
    bytes,
    streamBytes: check.bytes(),
    source: host,
    startTime: started.toISOString(),
    completionTime: finished.toISOString(),
    durationSeconds: (finished.getTime() - started.getTime()) / 1000,
    ...(position ? { position } : {}),
  };
}
