// Backup URLs and object names: what the backup controller, the backup Job and the restore agree on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backupObjectUrl, compressionOf, parseBackupUrl, StorageError } from '../../../src/storage/index.ts';

test('s3 and file URLs parse into their parts', () => {
  assert.deepEqual(parseBackupUrl('s3://my-bucket/my-db/x.xbackup.gz'), { scheme: 's3', bucket: 'my-bucket', key: 'my-db/x.xbackup.gz' });
  assert.deepEqual(parseBackupUrl('s3://my-bucket'), { scheme: 's3', bucket: 'my-bucket', key: '' });
  assert.deepEqual(parseBackupUrl('file:///tmp/b/x.xbackup.gz'), { scheme: 'file', path: '/tmp/b/x.xbackup.gz' });
});

test('gs:// and azure:// URLs parse into bucket (container) and name, as the anchor wrote them', () => {
  assert.deepEqual(parseBackupUrl('gs://my-bucket/my-db/x.xbackup.gz'), { scheme: 'gs', bucket: 'my-bucket', key: 'my-db/x.xbackup.gz' });
  assert.deepEqual(parseBackupUrl('gs://my_bucket.example.com/'), { scheme: 'gs', bucket: 'my_bucket.example.com', key: '' });
  assert.deepEqual(parseBackupUrl('azure://backups/my-db/'), { scheme: 'azure', container: 'backups', key: 'my-db/' });
  assert.equal(backupObjectUrl('gs://b-1/db', 'bk'), 'gs://b-1/db/bk.xbackup.gz');
  assert.equal(backupObjectUrl('azure://c-1/db/', 'bk'), 'azure://c-1/db/bk.xbackup.gz');
});

test('a gs:// bucket or azure:// container name its cloud would refuse is a bad URL naming it', () => {
  for (const [url, says] of [
    ['gs://Upper/x', /'Upper' is not a Google Cloud Storage bucket name/],
    ['gs://ab/x', /'ab' is not a Google Cloud Storage bucket name/],
    [`gs://${'a'.repeat(64)}/x`, /is not a Google Cloud Storage bucket name/],
    ['azure://my_container/x', /'my_container' is not an Azure container name/],
    ['azure://a--b/x', /'a--b' is not an Azure container name/],
    ['azure:///x', /'' is not an Azure container name/],
  ] as const) {
    assert.throws(
      () => parseBackupUrl(url),
      (err: unknown) => err instanceof StorageError && err.code === 'bad-url' && says.test(err.message),
      url,
    );
  }
});

test('http:// is still refused as not supported yet, naming the schemes that are', () => {
  assert.throws(
    () => parseBackupUrl('http://host/x.xbackup.gz'),
    (err: unknown) =>
      err instanceof StorageError &&
      err.code === 'unsupported-scheme' &&
      /not supported yet; use s3:\/\/, gs:\/\/, azure:\/\//.test(err.message),
  );
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
