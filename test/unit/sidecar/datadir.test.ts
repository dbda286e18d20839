import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  commitStaging,
  createStaging,
  dataExists,
  DataDirError,
  discardStaging,
  recoverDataDir,
  stagingPath,
} from '../../../src/sidecar/datadir.ts';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sidecar-datadir-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function stageBackup(data: string): Promise<void> {
  const staging = await createStaging(data);
  await mkdir(join(staging, 'mysql'));
  await mkdir(join(staging, 'app'));
  await writeFile(join(staging, 'ibdata1'), 'x');
}

test('a committed clone lands in the data directory and the staging directory is gone', async (t) => {
  const data = await tempDir(t);
  await stageBackup(data);
  assert.equal(await dataExists(data), false);
  await commitStaging(data);
  assert.equal(await dataExists(data), true);
  assert.deepEqual((await readdir(data)).sort(), ['app', 'ibdata1', 'mysql']);
});

test('a discarded clone leaves the data directory empty', async (t) => {
  const data = await tempDir(t);
  await stageBackup(data);
  await discardStaging(data);
  assert.deepEqual(await readdir(data), []);
});

test('an unfinished clone (no completion mark) left by a crash is deleted, with lost+found', async (t) => {
  const data = await tempDir(t);
  await stageBackup(data);
  await mkdir(join(data, 'lost+found'));
  assert.equal(await recoverDataDir(data), false);
  assert.deepEqual(await readdir(data), []);
});

test('a clone whose move a crash interrupted is rolled forward', async (t) => {
  const data = await tempDir(t);
  await stageBackup(data);
  // What commitStaging leaves if killed after the mark and the first rename.
  await writeFile(join(stagingPath(data), '.sidecar-clone-complete'), '');
  await rm(join(stagingPath(data), 'app'), { recursive: true });
  await mkdir(join(data, 'app'));
  assert.equal(await dataExists(data), false, 'mysql/ moves last, so the data directory still reads as empty');
  assert.equal(await recoverDataDir(data), true);
  assert.deepEqual((await readdir(data)).sort(), ['app', 'ibdata1', 'mysql']);
});

test('unknown content without mysql/ is never deleted: recovery refuses and names it', async (t) => {
  const data = await tempDir(t);
  await writeFile(join(data, 'precious.ibd'), 'x');
  await assert.rejects(recoverDataDir(data), (err: unknown) => err instanceof DataDirError && /precious\.ibd/.test(err.message));
  assert.deepEqual(await readdir(data), ['precious.ibd']);
});
