// The gs:// and azure:// clients' options from the storage Secret's keys (the anchor's rclone
// names): what each key does, and a clear error that never quotes a credential for a key that
// is missing or malformed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { azureOptions } from '../../../src/storage/azure-config.ts';
import { gcsOptions } from '../../../src/storage/gcs-config.ts';
import { StorageError, storageFor } from '../../../src/storage/index.ts';

const PEM = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const KEY = {
  type: 'service_account',
  project_id: 'from-key',
  private_key_id: 'kid',
  private_key: PEM,
  client_email: 'backup@p.iam.gserviceaccount.com',
};

function badConfig(fn: () => unknown, says: RegExp, secret?: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof StorageError, String(err));
    assert.equal(err.code, 'bad-config');
    assert.match(err.message, says);
    if (secret) assert.ok(!err.message.includes(secret), err.message);
    return true;
  });
}

test('gs: the service account key, project, object ACL and storage class from the Secret', () => {
  const opts = gcsOptions({
    GCS_SERVICE_ACCOUNT_JSON_KEY: JSON.stringify(KEY),
    GCS_PROJECT_ID: 'my-project',
    GCS_OBJECT_ACL: 'bucketOwnerFullControl',
    GCS_STORAGE_CLASS: 'nearline',
    // Bucket creation is not ours (as for s3://): these two are read by nobody.
    GCS_BUCKET_ACL: 'private',
    GCS_LOCATION: 'eu',
  });
  assert.equal(opts.credentials?.client_email, KEY.client_email);
  assert.equal(opts.projectId, 'my-project');
  assert.equal(opts.objectAcl, 'bucketOwnerFullControl');
  assert.equal(opts.storageClass, 'NEARLINE');
  assert.equal(opts.endpoint, undefined);
});

test("gs: no key means the environment's credentials (workload identity); the project defaults to the key's", () => {
  assert.deepEqual(gcsOptions({}), {});
  assert.equal(gcsOptions({ GCS_SERVICE_ACCOUNT_JSON_KEY: JSON.stringify(KEY) }).projectId, 'from-key');
  assert.equal(gcsOptions({ GCS_ENDPOINT: 'http://127.0.0.1:4443/' }).endpoint, 'http://127.0.0.1:4443');
});

test('gs: a malformed key is a bad-config error saying what is wrong, never quoting the key', () => {
  const secretish = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC';
  badConfig(
    () => gcsOptions({ GCS_SERVICE_ACCOUNT_JSON_KEY: `{"private_key": "${secretish}` }),
    /GCS_SERVICE_ACCOUNT_JSON_KEY is not valid JSON/,
    secretish,
  );
  badConfig(() => gcsOptions({ GCS_SERVICE_ACCOUNT_JSON_KEY: `"${secretish}"` }), /is not a JSON object/, secretish);
  badConfig(
    () => gcsOptions({ GCS_SERVICE_ACCOUNT_JSON_KEY: JSON.stringify({ ...KEY, client_email: undefined }) }),
    /has no client_email/,
    PEM,
  );
  badConfig(
    () => gcsOptions({ GCS_SERVICE_ACCOUNT_JSON_KEY: JSON.stringify({ type: 'service_account' }) }),
    /has no client_email and no private_key/,
  );
  badConfig(
    () => gcsOptions({ GCS_SERVICE_ACCOUNT_JSON_KEY: JSON.stringify({ ...KEY, private_key: secretish }) }),
    /private_key is not a PEM private key/,
    secretish,
  );
  badConfig(
    () => gcsOptions({ GCS_SERVICE_ACCOUNT_JSON_KEY: JSON.stringify({ ...KEY, type: 'authorized_user' }) }),
    /type 'authorized_user'; only service_account/,
    PEM,
  );
  badConfig(() => gcsOptions({ GCS_OBJECT_ACL: 'public' }), /GCS_OBJECT_ACL 'public' is not one of .*publicRead/);
});

test('azure: account, key and endpoint from the Secret; the account names the endpoint by default', () => {
  const key = Buffer.from('k'.repeat(64)).toString('base64');
  assert.deepEqual(azureOptions({ AZUREBLOB_ACCOUNT: 'mystore', AZUREBLOB_KEY: key }), {
    account: 'mystore',
    key,
    endpoint: 'https://mystore.blob.core.windows.net',
  });
  assert.equal(
    azureOptions({ AZUREBLOB_ACCOUNT: 'mystore', AZUREBLOB_KEY: key, AZUREBLOB_ENDPOINT: 'http://127.0.0.1:10000/mystore/' }).endpoint,
    'http://127.0.0.1:10000/mystore',
  );
});

test('azure: a missing or malformed key is a bad-config error naming the key, never quoting it', () => {
  badConfig(() => azureOptions({}), /AZUREBLOB_ACCOUNT and AZUREBLOB_KEY are missing/);
  badConfig(() => azureOptions({ AZUREBLOB_ACCOUNT: 'mystore' }), /AZUREBLOB_KEY is missing/);
  badConfig(() => azureOptions({ AZUREBLOB_KEY: 'abcd' }), /AZUREBLOB_ACCOUNT is missing/);
  badConfig(
    () => azureOptions({ AZUREBLOB_ACCOUNT: 'My-Store', AZUREBLOB_KEY: 'abcd' }),
    /AZUREBLOB_ACCOUNT 'My-Store' is not a storage account name/,
  );
  badConfig(
    () => azureOptions({ AZUREBLOB_ACCOUNT: 'mystore', AZUREBLOB_KEY: 'not base64 at all!' }),
    /AZUREBLOB_KEY is not base64/,
    'not base64 at all!',
  );
});

test('storageFor checks the keys at once, before any I/O', () => {
  badConfig(() => storageFor('azure://backups/x.xbackup.gz', {}), /AZUREBLOB_ACCOUNT and AZUREBLOB_KEY are missing/);
  badConfig(() => storageFor('gs://backups/x.xbackup.gz', { GCS_SERVICE_ACCOUNT_JSON_KEY: '{' }), /not valid JSON/);
});

test("gs: a key signs as its service account with read-write scope only; a local endpoint gets no credentials; neither is the environment's", async () => {
  const { gcsClientOptions } = await import('../../../src/storage/gcs.ts');
  const { JWT } = await import('google-auth-library');
  const withKey = gcsClientOptions(gcsOptions({ GCS_SERVICE_ACCOUNT_JSON_KEY: JSON.stringify(KEY) }));
  assert.ok(withKey.authClient instanceof JWT);
  assert.equal(withKey.authClient.email, KEY.client_email);
  assert.equal(withKey.authClient.keyId, 'kid');
  assert.deepEqual(withKey.authClient.scopes, ['https://www.googleapis.com/auth/devstorage.read_write']);
  assert.equal(withKey.projectId, 'from-key');
  assert.equal(withKey.apiEndpoint, undefined);
  const local = gcsClientOptions(gcsOptions({ GCS_SERVICE_ACCOUNT_JSON_KEY: JSON.stringify(KEY), GCS_ENDPOINT: 'http://127.0.0.1:1' }));
  assert.equal(local.authClient, undefined);
  assert.equal(local.apiEndpoint, 'http://127.0.0.1:1');
  assert.deepEqual(gcsClientOptions(gcsOptions({})), {});
});
