// The data directory's states and the moves between them. A clone is unpacked into a staging
// directory INSIDE the data directory (in a pod the data directory is the PVC's mount point, so a
// sibling would be on another filesystem and could not be renamed in), then its entries are
// renamed up one by one with `mysql/` last: `mysql/` is what "data exists" means, so until the
// last rename a crash leaves a directory that is still "empty". A staging directory marked
// complete is rolled forward on the next start; an unmarked one is deleted.
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const STAGING_DIR = '.sidecar-clone';
const COMPLETE_MARK = '.sidecar-clone-complete';
const LOST_FOUND = 'lost+found';
/** What makes a data directory "initialised" (the anchor's test, kept for compatibility). */
const DATA_MARKER = 'mysql';

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

export function stagingPath(dataDir: string): string {
  return join(dataDir, STAGING_DIR);
}

export async function dataExists(dataDir: string): Promise<boolean> {
  return exists(join(dataDir, DATA_MARKER));
}

export class DataDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataDirError';
  }
}

/**
 * Gets a data directory without data ready for a clone: finishes a move a crash interrupted,
 * deletes an unfinished staging directory and `lost+found`, and refuses (throws) when anything
 * else is there, because that is not ours to delete. Returns true when a finished clone was
 * rolled forward (the data directory now has data).
 */
export async function recoverDataDir(dataDir: string): Promise<boolean> {
  await mkdir(dataDir, { recursive: true });
  const staging = stagingPath(dataDir);
  if (await exists(join(staging, COMPLETE_MARK))) {
    await moveStagedIntoPlace(dataDir);
    return true;
  }
  await rm(staging, { recursive: true, force: true });
  await rm(join(dataDir, LOST_FOUND), { recursive: true, force: true });
  const left = await readdir(dataDir);
  if (left.length > 0) {
    throw new DataDirError(
      `data directory ${dataDir} has no ${DATA_MARKER}/ but is not empty (${left.slice(0, 5).join(', ')}` +
        `${left.length > 5 ? ', ...' : ''}); refusing to clone over it`,
    );
  }
  return false;
}

/** A fresh, empty staging directory. */
export async function createStaging(dataDir: string): Promise<string> {
  const staging = stagingPath(dataDir);
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  return staging;
}

/** Leaves the data directory as it was before the clone started: empty. */
export async function discardStaging(dataDir: string): Promise<void> {
  await rm(stagingPath(dataDir), { recursive: true, force: true });
}

/** Marks the prepared clone complete, then renames its entries into the data directory. */
export async function commitStaging(dataDir: string): Promise<void> {
  await writeFile(join(stagingPath(dataDir), COMPLETE_MARK), '');
  await moveStagedIntoPlace(dataDir);
}

async function moveStagedIntoPlace(dataDir: string): Promise<void> {
  const staging = stagingPath(dataDir);
  const names = (await readdir(staging)).filter((n) => n !== COMPLETE_MARK);
  names.sort((a, b) => Number(a === DATA_MARKER) - Number(b === DATA_MARKER));
  for (const name of names) await rename(join(staging, name), join(dataDir, name));
  await rm(staging, { recursive: true, force: true });
}
