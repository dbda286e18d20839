// The S3 client options a storage Secret's keys (docs/compatibility.md) turn into.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { s3Options } from '../../../src/storage/s3-config.ts';
import { partSize } from '../../../src/storage/s3-upload.ts';

test('AWS itself: region default us-east-1, virtual-host addressing, keys with a session token', () => {
  const o = s3Options({ AWS_ACCESS_KEY_ID: 'AK', AWS_SECRET_ACCESS_KEY: 'SK', AWS_SESSION_TOKEN: 'T' });
  assert.deepEqual(o, {
    region: 'us-east-1',
    forcePathStyle: false,
    credentials: { accessKeyId: 'AK', secretAccessKey: 'SK', sessionToken: 'T' },
    checksums: 'WHEN_SUPPORTED',
  });
});

test('an S3-compatible endpoint gets path-style addressing and only required checksums; https is assumed', () => {
  const o = s3Options({
    AWS_ACCESS_KEY_ID: 'AK',
    AWS_SECRET_KEY: 'legacy',
    S3_ENDPOINT: 'minio.example:9000',
    S3_PROVIDER: 'Minio',
    AWS_REGION: 'eu-1',
  });
  assert.equal(o.endpoint, 'https://minio.example:9000');
  assert.equal(o.forcePathStyle, true);
  assert.equal(o.checksums, 'WHEN_REQUIRED');
  assert.equal(o.credentials?.secretAccessKey, 'legacy');
  assert.equal(o.region, 'eu-1');
  assert.equal(s3Options({ S3_ENDPOINT: 'http://x:1', S3_FORCE_PATH_STYLE: 'false' }).forcePathStyle, false);
});

test('no keys: the SDK default chain (web identity, instance roles) is used', () => {
  assert.equal(s3Options({ AWS_REGION: 'us-west-2' }).credentials, undefined);
});

test('ACL and storage class pass through; bad flags and half a key pair are named', () => {
  const o = s3Options({ AWS_ACL: 'private', AWS_STORAGE_CLASS: 'STANDARD_IA' });
  assert.equal(o.acl, 'private');
  assert.equal(o.storageClass, 'STANDARD_IA');
  assert.throws(() => s3Options({ S3_FORCE_PATH_STYLE: 'yes' }), /S3_FORCE_PATH_STYLE must be true or false/);
  assert.throws(() => s3Options({ AWS_SECRET_ACCESS_KEY: 'SK' }), /AWS_ACCESS_KEY_ID is missing/);
});

test('multipart parts start at 8 MiB and double every 2,000 parts: ~480 GiB in 10,000 parts', () => {
  assert.equal(partSize(1), 8 << 20);
  assert.equal(partSize(2000), 8 << 20);
  assert.equal(partSize(2001), 16 << 20);
  let total = 0;
  for (let n = 1; n <= 10_000; n++) total += partSize(n);
  assert.ok(total / 2 ** 30 > 480, `${total / 2 ** 30} GiB`);
  assert.ok(partSize(10_000) <= 5 * 2 ** 30, 'within S3 part size limit');
});
