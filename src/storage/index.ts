// Backup storage behind one narrow interface (docs/architecture.md §2, docs/backups.md). A URL's scheme
// names the backend: `s3://bucket/key` (AWS SDK v3), `gs://bucket/key` (@google-cloud/storage),
// `azure://container/key` (@azure/storage-blob), each SDK loaded only when used, and
// `file:///path` (tests, local runs). `gs://` and `azure://` read the Secret keys the anchor's
// rclone read.
//
// Every backend makes an object visible at its final name only once the body ended cleanly, so a
// failed upload never looks like a backup and a listing for retention never meets one in flight.
import { fileStorage } from './file.ts';
import { parseBackupUrl, type BackupStorage, type StorageEnv } from './location.ts';
import { azureOptions } from './azure-config.ts';
import { gcsOptions } from './gcs-config.ts';
import { s3Options } from './s3-config.ts';

export * from './location.ts';

/**
 * The storage backend for `url`'s scheme, with the credentials and options of `env`. Throws
 * StorageError at once for a bad URL or inconsistent keys, before any I/O.
 */
export function storageFor(url: string, env: StorageEnv = process.env): BackupStorage {
  const location = parseBackupUrl(url);
  switch (location.scheme) {
    case 'file':
      return fileStorage;
    case 's3': {
      const opts = s3Options(env);
      return lazy(() => import('./s3.ts').then((m) => m.s3Storage(opts)));
    }
    case 'gs': {
      const opts = gcsOptions(env);
      return lazy(() => import('./gcs.ts').then((m) => m.gcsStorage(opts)));
    }
    case 'azure': {
      const opts = azureOptions(env);
      return lazy(() => import('./azure.ts').then((m) => m.azureStorage(opts)));
    }
  }
}

/** A backend whose SDK loads on first use: processes that never touch a cloud do not pay for its SDK. */
function lazy(load: () => Promise<BackupStorage>): BackupStorage {
  let backend: Promise<BackupStorage> | undefined;
  const get = () => (backend ??= load());
  return {
    openRead: async (url) => (await get()).openRead(url),
    upload: async (url, body, opts) => (await get()).upload(url, body, opts),
    list: async (prefixUrl) => (await get()).list(prefixUrl),
    delete: async (url) => (await get()).delete(url),
  };
}
