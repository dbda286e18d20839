// The S3 client's options from the storage Secret's keys (docs/compatibility.md "Storage", the anchor's
// rclone-style names). Pure, so the mapping is tested without a server.
import { StorageError, type StorageEnv } from './location.ts';

export interface S3Options {
  region: string;
  endpoint?: string;
  forcePathStyle: boolean;
  /** Absent: the SDK's default chain (the process's env, web identity for IRSA, instance roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /**
   * S3-compatible servers differ in what they accept of the SDK's default integrity checksums
   * (since SDK 3.729); for them checksums are sent only where the API requires them.
   */
  checksums: 'WHEN_SUPPORTED' | 'WHEN_REQUIRED';
  acl?: string;
  storageClass?: string;
}

function flag(env: StorageEnv, key: string): boolean | undefined {
  const v = env[key]?.trim().toLowerCase();
  if (v === undefined || v === '') return undefined;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new StorageError('bad-config', `${key} must be true or false, not '${env[key]}'`);
}

export function s3Options(env: StorageEnv): S3Options {
  const nonEmpty = (k: string) => (env[k]?.trim() ? env[k]!.trim() : undefined);
  const accessKeyId = nonEmpty('AWS_ACCESS_KEY_ID');
  // AWS_SECRET_KEY: the legacy name the anchor's rclone also read.
  const secretAccessKey = nonEmpty('AWS_SECRET_ACCESS_KEY') ?? nonEmpty('AWS_SECRET_KEY');
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    const missing = accessKeyId ? 'AWS_SECRET_ACCESS_KEY' : 'AWS_ACCESS_KEY_ID';
    throw new StorageError('bad-config', `storage credentials: ${missing} is missing while its pair is set`);
  }
  let endpoint = nonEmpty('S3_ENDPOINT');
  if (endpoint && !/^https?:\/\//i.test(endpoint)) endpoint = `https://${endpoint}`;
  const provider = nonEmpty('S3_PROVIDER')?.toLowerCase();
  // rclone, which the anchor used, addressed buckets by path unless the provider was AWS; S3's
  // own endpoints want virtual hosts, most S3-compatible servers (MinIO, Ceph, s3rver) paths.
  const forcePathStyle = flag(env, 'S3_FORCE_PATH_STYLE') ?? (endpoint !== undefined && provider !== 'aws');
  const sessionToken = nonEmpty('AWS_SESSION_TOKEN');
  return {
    region: nonEmpty('AWS_REGION') ?? 'us-east-1',
    ...(endpoint ? { endpoint } : {}),
    forcePathStyle,
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } } : {}),
    checksums: endpoint && provider !== 'aws' ? 'WHEN_REQUIRED' : 'WHEN_SUPPORTED',
    ...(nonEmpty('AWS_ACL') ? { acl: nonEmpty('AWS_ACL')! } : {}),
    ...(nonEmpty('AWS_STORAGE_CLASS') ? { storageClass: nonEmpty('AWS_STORAGE_CLASS')! } : {}),
  };
}
