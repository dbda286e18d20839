// Backup storage behind one narrow interface (docs/architecture.md §2, docs/backups.md). A URL's scheme
// names the backend: `s3://bucket/key` (AWS SDK v3, loaded only when used) and `file:///path`
// (tests, local runs). `gs://` and `azure://`, which the anchor served through rclone, answer
// with a typed error saying they are not supported yet.
//
// Every backend makes an object visible at its final name only once the body ended cleanly, so a
// failed upload never looks like a backup and a listing for retention never meets one in flight.
import { fileStorage } from './file.ts';
import { parseBackupUrl, type BackupStorage, type StorageEnv } from './location.ts';
import { s3Options, type S3Options } from './s3-config.ts';

export * from './location.ts';

/**
 * The storage backend for `url`'s scheme, with the credentials and options of `env`. Throws
 * StorageError at once for a bad URL or inconsistent keys, before any I/O.
 */
export function storageFor(url: string, env: StorageEnv = process.env): BackupStorage {
  const location = parseBackupUrl(url);
  if (location.scheme === 'file') return fileStorage;
  return lazyS3(s3Options(env));
}

/** The S3 backend loads the AWS SDK on first use: processes that never touch S3 do not pay for it. */
function lazyS3(opts: S3Options): BackupStorage {
  let backend: Promise<BackupStorage> | undefined;
  const get = () => (backend ??= import('./s3.ts').then((m) => m.s3Storage(opts)));
  return {
    openRead: async (url) => (await get()).openRead(url),
    upload: async (url, body, opts) => (await get()).upload(url, body, opts),
    list: async (prefixUrl) => (await get()).list(prefixUrl),
    delete: async (url) => (await get()).delete(url),
  };
}
