// The s3:// backend (AWS SDK v3). Uploads stream as a multipart upload straight to the final
// key (s3-upload.ts): S3 shows a multipart upload at its key only when it is completed, and it
// is completed only after the body ended cleanly (a body that errors aborts the upload, its
// parts deleted). So the multipart upload is the temporary name; a copy under a second name
// would double the writes, need UploadPartCopy above S3's 5 GiB CopyObject limit, and leave a
// visible object behind a crash between copy and delete (docs/backups.md).
import type { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { ownError, parseBackupUrl, StorageError, type BackupStorage, type StoredObject } from './location.ts';
import type { S3Options } from './s3-config.ts';
import { multipartUpload } from './s3-upload.ts';

function locate(url: string): { bucket: string; key: string } {
  const loc = parseBackupUrl(url);
  if (loc.scheme !== 's3') throw new StorageError('bad-url', `${url} is not an s3:// URL`);
  return loc;
}

interface SdkError {
  name?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
}

/** A StorageError saying what went wrong with `url`, from the error's code only: S3's own messages may quote request details. */
export function s3Error(url: string, err: unknown): StorageError {
  if (err instanceof StorageError) return err;
  const e = (err ?? {}) as SdkError;
  const name = e.name ?? '';
  const status = e.$metadata?.httpStatusCode;
  const what = `${name || e.code || 'error'}${status ? `, HTTP ${status}` : ''}`;
  if (name === 'AbortError') return new StorageError('aborted', `${url}: aborted`, { cause: err });
  if (name === 'NoSuchBucket') return new StorageError('no-bucket', `${url}: the bucket does not exist (${what})`, { cause: err });
  if (name === 'NoSuchKey' || name === 'NotFound' || (status === 404 && name !== 'NoSuchUpload')) {
    return new StorageError('not-found', `${url} does not exist (${what})`, { cause: err });
  }
  if (
    ['AccessDenied', 'InvalidAccessKeyId', 'SignatureDoesNotMatch', 'ExpiredToken', 'InvalidToken', 'Forbidden'].includes(name) ||
    status === 403
  ) {
    return new StorageError('access-denied', `${url}: access denied; check the storage Secret's keys (${what})`, { cause: err });
  }
  if (
    ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH'].includes(e.code ?? '') ||
    name === 'TimeoutError'
  ) {
    return new StorageError('unreachable', `${url}: the storage endpoint is unreachable (${what})`, { cause: err });
  }
  return new StorageError('failed', `${url}: ${what}`, { cause: err });
}

export function s3Storage(opts: S3Options): BackupStorage {
  const client = new S3Client({
    region: opts.region,
    forcePathStyle: opts.forcePathStyle,
    requestChecksumCalculation: opts.checksums,
    responseChecksumValidation: opts.checksums,
    ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
    ...(opts.credentials ? { credentials: opts.credentials } : {}),
  });
  return {
    async openRead(url) {
      const { bucket, key } = locate(url);
      try {
        const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return res.Body as Readable;
      } catch (err) {
        throw s3Error(url, err);
      }
    },

    async upload(url, body, uploadOpts = {}) {
      const { bucket, key } = locate(url);
      try {
        const bytes = await multipartUpload(
          { client, bucket, key, opts, ...(uploadOpts.signal ? { signal: uploadOpts.signal } : {}) },
          body,
        );
        return { bytes };
      } catch (err) {
        body.destroy();
        // A body that broke is the cause to report, not the upload's reaction to it.
        throw ownError(body) ?? s3Error(url, err);
      }
    },

    async list(prefixUrl) {
      const { bucket, key: prefix } = locate(prefixUrl);
      const out: StoredObject[] = [];
      let token: string | undefined;
      try {
        do {
          const res = await client.send(
            new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, Delimiter: '/', ContinuationToken: token }),
          );
          for (const o of res.Contents ?? []) {
            if (!o.Key) continue;
            out.push({ url: `s3://${bucket}/${o.Key}`, bytes: o.Size ?? 0, lastModified: o.LastModified ?? new Date(0) });
          }
          token = res.IsTruncated ? res.NextContinuationToken : undefined;
        } while (token);
      } catch (err) {
        throw s3Error(prefixUrl, err);
      }
      return out;
    },

    async delete(url) {
      const { bucket, key } = locate(url);
      try {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      } catch (err) {
        const e = s3Error(url, err);
        if (e.code !== 'not-found') throw e;
      }
    },
  };
}
