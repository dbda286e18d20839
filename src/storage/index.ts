// Backup storage behind one narrow interface (DESIGN.md §2). This is the stub the sidecar's
// restore-on-bootstrap path uses until the backups issue brings s3/gs/azure/http: only
// `file://` URLs are served, every other scheme fails with a typed error naming it.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** Credentials and options from the environment (the rclone-style keys of COMPAT.md). */
export type StorageEnv = Readonly<Record<string, string | undefined>>;

export interface BackupStorage {
  /** Opens the object at `url` for streaming reads; rejects with StorageError when it is missing. */
  openRead(url: string): Promise<Readable>;
}

export type StorageErrorCode = 'unsupported-scheme' | 'not-found' | 'bad-url';

export class StorageError extends Error {
  readonly code: StorageErrorCode;
  constructor(code: StorageErrorCode, message: string) {
    super(message);
    this.name = 'StorageError';
    this.code = code;
  }
}

function schemeOf(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url);
  if (!m) throw new StorageError('bad-url', `not a backup URL (expected scheme://...): ${url}`);
  return m[1]!.toLowerCase();
}

const fileStorage: BackupStorage = {
  async openRead(url: string): Promise<Readable> {
    const path = fileURLToPath(url);
    try {
      const s = await stat(path);
      if (!s.isFile()) throw new StorageError('not-found', `${url} is not a file`);
    } catch (err) {
      if (err instanceof StorageError) throw err;
      throw new StorageError('not-found', `${url} does not exist`);
    }
    return createReadStream(path, { highWaterMark: 1 << 20 });
  },
};

/** The storage backend for `url`'s scheme. `env` carries the credentials of later backends. */
export function storageFor(url: string, _env: StorageEnv = process.env): BackupStorage {
  const scheme = schemeOf(url);
  if (scheme === 'file') return fileStorage;
  throw new StorageError(
    'unsupported-scheme',
    `storage scheme '${scheme}://' is not implemented yet (backups issue); only file:// is`,
  );
}
