// Backup URLs, the object naming rule, the storage interface and its one error type: what
// every backend and every caller of src/storage shares (pure).
import { pipeline, Transform, type Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** Credentials and options: the keys of the storage Secret (docs/compatibility.md "Storage"). */
export type StorageEnv = Readonly<Record<string, string | undefined>>;

export type BackupLocation =
  | { scheme: 's3'; bucket: string; key: string }
  /** Google Cloud Storage: `gs://bucket/name`. */
  | { scheme: 'gs'; bucket: string; key: string }
  /** Azure Blob Storage: `azure://container/name`; the account is the Secret's AZUREBLOB_ACCOUNT (as for the anchor's rclone). */
  | { scheme: 'azure'; container: string; key: string }
  | { scheme: 'file'; path: string };

export interface StoredObject {
  url: string;
  bytes: number;
  lastModified: Date;
}

export interface BackupStorage {
  /** Opens the object at `url` for streaming reads; rejects with StorageError('not-found') when it is missing. */
  openRead(url: string): Promise<Readable>;
  /**
   * Streams `body` to `url` so that nothing appears there unless the stream ended cleanly; on
   * failure nothing is left behind (file: a temporary name beside `url`, renamed; S3: a multipart
   * upload, invisible until completed; gs: a resumable upload, invisible until its last chunk
   * names the total size; azure: staged blocks, invisible until the block list is committed). Rejects with the body's own error when the body broke.
   */
  upload(url: string, body: Readable, opts?: { signal?: AbortSignal }): Promise<{ bytes: number }>;
  /** The objects directly under `prefixUrl` (a folder when it ends in `/`, else a name prefix); uploads in flight are never listed. */
  list(prefixUrl: string): Promise<StoredObject[]>;
  /** Removes the object; a missing object is success. */
  delete(url: string): Promise<void>;
}

export type StorageErrorCode =
  | 'unsupported-scheme'
  | 'bad-url'
  /** The storage Secret's keys do not make sense together. */
  | 'bad-config'
  | 'not-found'
  | 'no-bucket'
  | 'access-denied'
  | 'unreachable'
  | 'aborted'
  | 'failed';

/** An operational storage failure. Its message names the URL and the cause, never a credential. */
export class StorageError extends Error {
  readonly code: StorageErrorCode;
  constructor(code: StorageErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StorageError';
    this.code = code;
  }
}

const UNSUPPORTED: Readonly<Record<string, string>> = {
  http: 'http:// backups are not supported yet; use s3://, gs://, azure:// or file://',
  https: 'https:// backups are not supported yet; use s3://, gs://, azure:// or file://',
};

/** `rest` (what follows `scheme://`) as the first path segment and the rest. */
function splitFirst(rest: string): [string, string] {
  const slash = rest.indexOf('/');
  return slash < 0 ? [rest, ''] : [rest.slice(0, slash), rest.slice(slash + 1)];
}

// Google's rule: 3-63 characters (up to 222 with dots, 63 between dots) of lower-case letters,
// digits, '-', '_' and '.', beginning and ending with a letter or digit.
function isGcsBucket(name: string): boolean {
  if (!/^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/.test(name)) return false;
  return name.includes('.') ? name.split('.').every((part) => part.length <= 63) : name.length <= 63;
}

// Azure's rule: 3-63 characters of lower-case letters, digits and single hyphens, beginning and
// ending with a letter or digit.
function isAzureContainer(name: string): boolean {
  return /^[a-z0-9](?:[a-z0-9]|-(?!-)){1,61}[a-z0-9]$/.test(name);
}

export function parseBackupUrl(url: string): BackupLocation {
  const m = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i.exec(url);
  if (!m)
    throw new StorageError(
      'bad-url',
      `not a backup URL (expected s3://bucket/key, gs://bucket/key, azure://container/key or file:///path): ${url}`,
    );
  const scheme = m[1]!.toLowerCase();
  const rest = m[2]!;
  if (scheme === 's3') {
    const [bucket, key] = splitFirst(rest);
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
      throw new StorageError('bad-url', `${url}: '${bucket}' is not an S3 bucket name (3-63 lower-case letters, digits, dots, hyphens)`);
    }
    return { scheme, bucket, key };
  }
  if (scheme === 'gs') {
    const [bucket, key] = splitFirst(rest);
    if (!isGcsBucket(bucket)) {
      throw new StorageError(
        'bad-url',
        `${url}: '${bucket}' is not a Google Cloud Storage bucket name (3-63 lower-case letters, digits, '-', '_', '.')`,
      );
    }
    return { scheme, bucket, key };
  }
  if (scheme === 'azure') {
    const [container, key] = splitFirst(rest);
    if (!isAzureContainer(container)) {
      throw new StorageError(
        'bad-url',
        `${url}: '${container}' is not an Azure container name (3-63 lower-case letters, digits, single hyphens)`,
      );
    }
    return { scheme, container, key };
  }
  if (scheme === 'file') {
    try {
      return { scheme, path: fileURLToPath(url) };
    } catch (err) {
      throw new StorageError('bad-url', `${url}: ${(err as Error).message}`);
    }
  }
  throw new StorageError(
    'unsupported-scheme',
    UNSUPPORTED[scheme] ?? `${scheme}:// backups are not supported; use s3://, gs://, azure:// or file://`,
  );
}

export const BACKUP_SUFFIX = '.xbackup.gz';
/** Opt-in zstd objects (docs/backups.md); the anchor knew only `.xbackup.gz`. */
export const BACKUP_SUFFIX_ZSTD = '.xbackup.zst';

/**
 * The object a MysqlBackup named `backupName` is written to (the anchor's rule): a `backupURL`
 * that names an object (`.xbackup.gz`, or our `.xbackup.zst`) is used as is; anything else is a
 * folder holding `<backup-name>.xbackup.gz`. `backupURL` is the backup's own, or the cluster's
 * when the backup has none (the caller resolves that).
 */
export function backupObjectUrl(backupURL: string, backupName: string): string {
  if (backupURL.endsWith(BACKUP_SUFFIX) || backupURL.endsWith(BACKUP_SUFFIX_ZSTD)) return backupURL;
  return `${backupURL}${backupURL.endsWith('/') ? '' : '/'}${backupName}${BACKUP_SUFFIX}`;
}

export type Compression = 'gzip' | 'zstd';

/** The format an object at `url` is written in: zstd only when its name says so. */
export function compressionOf(url: string): Compression {
  return url.endsWith(BACKUP_SUFFIX_ZSTD) ? 'zstd' : 'gzip';
}

/**
 * `body` through a byte counter, for the backends' `{ bytes }`. The counter fails with the body's
 * error when the body breaks, and destroying the counter destroys the body.
 */
export function counted(body: Readable): { stream: Readable; bytes: () => number } {
  let n = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      n += chunk.length;
      cb(null, chunk);
    },
  });
  pipeline(body, counter, () => undefined);
  return { stream: counter, bytes: () => n };
}

/** The error `body` broke with on its own, not the abort of a consumer that gave up on it. */
export function ownError(body: Readable): Error | undefined {
  const err = body.errored as (Error & { code?: string }) | null;
  if (!err || err.name === 'AbortError' || err.code === 'ERR_STREAM_PREMATURE_CLOSE') return undefined;
  return err;
}
