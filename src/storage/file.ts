// The file:// backend: tests and local runs. An upload is written under a temporary name beside
// the final one and renamed on success (atomic within a directory); on failure it is removed.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { counted, ownError, parseBackupUrl, StorageError, type BackupStorage, type StoredObject } from './location.ts';

/** Marks a temporary upload's name, which never ends in `.xbackup.gz` and which list() leaves out. */
const TEMPORARY_MARK = '.uploading-';

/** The temporary name an upload of `name` goes to first (unique per attempt). */
function temporaryName(name: string): string {
  return `${name}${TEMPORARY_MARK}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

function isTemporaryName(name: string): boolean {
  return name.includes(TEMPORARY_MARK);
}

function pathOf(url: string): string {
  const loc = parseBackupUrl(url);
  if (loc.scheme !== 'file') throw new StorageError('bad-url', `${url} is not a file:// URL`);
  return loc.path;
}

function ioError(url: string, err: unknown): StorageError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new StorageError('not-found', `${url} does not exist`, { cause: err });
  if (code === 'EACCES' || code === 'EPERM') return new StorageError('access-denied', `${url}: permission denied`, { cause: err });
  return new StorageError('failed', `${url}: ${(err as Error).message}`, { cause: err });
}

export const fileStorage: BackupStorage = {
  async openRead(url) {
    const path = pathOf(url);
    let isFile: boolean;
    try {
      isFile = (await stat(path)).isFile();
    } catch (err) {
      throw ioError(url, err);
    }
    if (!isFile) throw new StorageError('not-found', `${url} is not a file`);
    return createReadStream(path, { highWaterMark: 1 << 20 });
  },

  async upload(url, body: Readable, opts = {}) {
    const path = pathOf(url);
    const tmp = join(dirname(path), temporaryName(basename(path)));
    const { stream, bytes } = counted(body);
    try {
      await mkdir(dirname(path), { recursive: true });
      await pipeline(stream, createWriteStream(tmp, { flags: 'wx' }), { signal: opts.signal });
      await rename(tmp, path);
    } catch (err) {
      await rm(tmp, { force: true });
      const own = ownError(body);
      if (own) throw own;
      if ((err as Error).name === 'AbortError') throw new StorageError('aborted', `upload to ${url} aborted`, { cause: err });
      throw ioError(url, err);
    }
    return { bytes: bytes() };
  },

  async list(prefixUrl) {
    const prefix = pathOf(prefixUrl);
    const folder = prefixUrl.endsWith('/');
    const dir = folder ? prefix : dirname(prefix);
    const start = folder ? '' : basename(prefix);
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw ioError(prefixUrl, err);
    }
    const out: StoredObject[] = [];
    for (const name of names.sort()) {
      if (!name.startsWith(start) || isTemporaryName(name)) continue;
      const s = await stat(join(dir, name)).catch(() => undefined);
      if (!s?.isFile()) continue;
      out.push({ url: pathToFileURL(join(dir, name)).href, bytes: s.size, lastModified: s.mtime });
    }
    return out;
  },

  async delete(url) {
    try {
      await rm(pathOf(url), { force: true });
    } catch (err) {
      throw ioError(url, err);
    }
  },
};
