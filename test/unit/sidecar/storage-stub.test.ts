import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { StorageError, storageFor } from '../../../src/storage/index.ts';

test('file:// URLs are streamed; a missing object is a not-found StorageError naming the URL', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'storage-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'b.xbackup.gz'), 'bytes');
  const url = `file://${dir}/b.xbackup.gz`;
  assert.equal(await text(await storageFor(url).openRead(url)), 'bytes');
  const missing = `file://${dir}/nope.xbackup.gz`;
  await assert.rejects(storageFor(missing).openRead(missing), (e: unknown) => e instanceof StorageError && e.code === 'not-found' && e.message.includes(missing));
});

test('other schemes fail with a clear not-implemented error until the backups issue', () => {
  assert.throws(() => storageFor('s3://bucket/x.xbackup.gz'), (e: unknown) => e instanceof StorageError && e.code === 'unsupported-scheme' && /s3:\/\//.test(e.message));
  assert.throws(() => storageFor('bucket/x'), (e: unknown) => e instanceof StorageError && e.code === 'bad-url');
});
