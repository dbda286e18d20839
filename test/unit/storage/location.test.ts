// Backup URLs and object names: what the backup controller, the backup Job and the restore agree on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backupObjectUrl, compressionOf, parseBackupUrl, StorageError } from '../../../src/storage/index.ts';

test('s3 and file URLs parse into their parts', () => {
  assert.deepEqual(parseBackupUrl('s3://my-bucket/my-db/x.xbackup.gz'), { scheme: 's3', bucket: 'my-bucket', key: 'my-db/x.xbackup.gz' });
  assert.deepEqual(parseBackupUrl('s3://my-bucket'), { scheme: 's3', bucket: 'my-bucket', key: '' });
  assert.deepEqual(parseBackupUrl('file:///tmp/b/x.xbackup.gz'), { scheme: 'file', path: '/tmp/b/x.xbackup.gz' });
});

test('gs:// and azure:// are refused as not supported yet, naming the scheme', () => {
  for (const scheme of ['gs', 'azure']) {
    assert.throws(
      () => parseBackupUrl(`${scheme}://bucket/path/`),
      (err: unknown) =>
        err instanceof StorageError &&
        err.code === 'unsupported-scheme' &&
        err.message.startsWith(`${scheme}:// backups are not supported yet`),
    );
  }
});

test('a URL without a scheme or with a bad bucket name is a bad URL', () => {
  assert.throws(
    () => parseBackupUrl('my-bucket/x'),
    (err: unknown) => err instanceof StorageError && err.code === 'bad-url',
  );
  assert.throws(() => parseBackupUrl('s3://My_Bucket/x'), /not an S3 bucket name/);
});

test("the anchor's object rule: a .xbackup.gz URL is used as is, anything else is a folder", () => {
  assert.equal(backupObjectUrl('s3://b/db/one.xbackup.gz', 'bk'), 's3://b/db/one.xbackup.gz');
  assert.equal(backupObjectUrl('s3://b/db/', 'bk'), 's3://b/db/bk.xbackup.gz');
  assert.equal(backupObjectUrl('s3://b/db', 'bk'), 's3://b/db/bk.xbackup.gz');
  assert.equal(backupObjectUrl('s3://b/db/one.xbackup.zst', 'bk'), 's3://b/db/one.xbackup.zst');
  assert.equal(compressionOf('s3://b/db/one.xbackup.zst'), 'zstd');
  assert.equal(compressionOf('s3://b/db/one.xbackup.gz'), 'gzip');
});
