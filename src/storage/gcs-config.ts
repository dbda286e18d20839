// The Google Cloud Storage client's options from the storage Secret's keys: the names the anchor's
// rclone configuration read (docs/compatibility.md "Storage"), and one of ours for a local
// server. Pure, so the mapping and its errors are tested without a server.
import { StorageError, type StorageEnv } from './location.ts';

/** The fields of a service account key the client signs with; the rest of the key passes through. */
export interface GcsServiceAccountKey {
  type: string;
  client_email: string;
  private_key: string;
  [field: string]: unknown;
}

export interface GcsOptions {
  /** Absent: Application Default Credentials (GKE workload identity, the metadata server). */
  credentials?: GcsServiceAccountKey;
  projectId?: string;
  /** A predefined ACL for uploaded objects (GCS_OBJECT_ACL, the JSON API's predefinedAcl). */
  objectAcl?: string;
  /** The storage class of uploaded objects (GCS_STORAGE_CLASS); absent: the bucket's default. */
  storageClass?: string;
  /**
   * Ours, not the anchor's: another server speaking the JSON API (tests). Requests to it carry no
   * credentials, as the client library does for emulators.
   */
  endpoint?: string;
}

/** The JSON API's predefinedAcl values, which rclone's object_acl took too. */
const OBJECT_ACLS = ['authenticatedRead', 'bucketOwnerFullControl', 'bucketOwnerRead', 'private', 'projectPrivate', 'publicRead'];

/**
 * The key in GCS_SERVICE_ACCOUNT_JSON_KEY. Errors name the key and what is wrong with it, never
 * its text: JSON.parse's own message quotes the input, which here is a private key.
 */
export function parseServiceAccountKey(text: string): GcsServiceAccountKey {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new StorageError(
      'bad-config',
      'GCS_SERVICE_ACCOUNT_JSON_KEY is not valid JSON (expected the service account key file as downloaded from Google Cloud)',
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new StorageError('bad-config', 'GCS_SERVICE_ACCOUNT_JSON_KEY is not a JSON object (expected the service account key file)');
  }
  const key = parsed as Record<string, unknown>;
  const type = key.type ?? 'service_account';
  if (type !== 'service_account') {
    throw new StorageError(
      'bad-config',
      `GCS_SERVICE_ACCOUNT_JSON_KEY has type '${String(type)}'; only service_account keys are supported`,
    );
  }
  const missing = ['client_email', 'private_key'].filter((f) => typeof key[f] !== 'string' || !(key[f] as string).trim());
  if (missing.length) throw new StorageError('bad-config', `GCS_SERVICE_ACCOUNT_JSON_KEY has no ${missing.join(' and no ')}`);
  if (!/-----BEGIN (RSA )?PRIVATE KEY-----/.test(key.private_key as string)) {
    throw new StorageError('bad-config', 'GCS_SERVICE_ACCOUNT_JSON_KEY: private_key is not a PEM private key');
  }
  return { ...key, type, client_email: key.client_email as string, private_key: key.private_key as string };
}

export function gcsOptions(env: StorageEnv): GcsOptions {
  const nonEmpty = (k: string) => (env[k]?.trim() ? env[k]!.trim() : undefined);
  const keyText = nonEmpty('GCS_SERVICE_ACCOUNT_JSON_KEY');
  const credentials = keyText ? parseServiceAccountKey(keyText) : undefined;
  const objectAcl = nonEmpty('GCS_OBJECT_ACL');
  if (objectAcl && !OBJECT_ACLS.includes(objectAcl)) {
    throw new StorageError('bad-config', `GCS_OBJECT_ACL '${objectAcl}' is not one of ${OBJECT_ACLS.join(', ')}`);
  }
  const projectId = nonEmpty('GCS_PROJECT_ID') ?? (typeof credentials?.project_id === 'string' ? credentials.project_id : undefined);
  let endpoint = nonEmpty('GCS_ENDPOINT');
  if (endpoint && !/^https?:\/\//i.test(endpoint)) endpoint = `https://${endpoint}`;
  const storageClass = nonEmpty('GCS_STORAGE_CLASS')?.toUpperCase();
  return {
    ...(credentials ? { credentials } : {}),
    ...(projectId ? { projectId } : {}),
    ...(objectAcl ? { objectAcl } : {}),
    ...(storageClass ? { storageClass } : {}),
    ...(endpoint ? { endpoint: endpoint.replace(/\/+$/, '') } : {}),
  };
}
