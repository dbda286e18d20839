// The gs:// backend (@google-cloud/storage, the JSON API). Uploads are resumable uploads sent in
// chunks of a fixed size: Google Cloud Storage shows a resumable upload at its name only once a
// chunk states the object's total size, and the library states it only after the body ended
// cleanly. A body that breaks, an abort or a failed chunk leaves the session unfinished: nothing
// at the name (an old object there stays as it was), and Google discards the session after a
// week. Like s3.ts, the upload session is the temporary name; no copy under a second name.
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Storage, type StorageOptions } from '@google-cloud/storage';
import { JWT } from 'google-auth-library';
import type { GcsOptions } from './gcs-config.ts';
import { counted, ownError, parseBackupUrl, StorageError, type BackupStorage, type StoredObject } from './location.ts';

/** Bytes per upload request: a multiple of 256 KiB as the API asks, held in memory once. */
export const GCS_CHUNK_SIZE = 8 << 20;

/**
 * Bytes given to the library and not yet handed to an upload request: at least a chunk, so the
 * library can always fill the next one (below that it would wait for bytes the gate holds back).
 */
const UNSENT_LIMIT = 2 * GCS_CHUNK_SIZE;

/** Read, write and delete objects; nothing of the project or the bucket's settings. */
const SCOPE = 'https://www.googleapis.com/auth/devstorage.read_write';

function locate(url: string): { bucket: string; key: string } {
  const loc = parseBackupUrl(url);
  if (loc.scheme !== 'gs') throw new StorageError('bad-url', `${url} is not a gs:// URL`);
  return loc;
}

interface ApiErrorLike {
  name?: string;
  code?: number | string;
  status?: number;
  errors?: { reason?: string }[];
}

/**
 * A StorageError saying what went wrong with `url`, from the status and reason only: the
 * server's messages and the library's may quote request details.
 */
export function gcsError(url: string, err: unknown): StorageError {
  if (err instanceof StorageError) return err;
  const e = (err ?? {}) as ApiErrorLike;
  const status = typeof e.code === 'number' ? e.code : e.status;
  const reason = e.errors?.[0]?.reason;
  const what =
    [reason, typeof e.code === 'string' ? e.code : undefined, status ? `HTTP ${status}` : undefined].filter(Boolean).join(', ') ||
    e.name ||
    'error';
  if (e.name === 'AbortError' || e.code === 'ABORT_ERR') return new StorageError('aborted', `${url}: aborted`, { cause: err });
  if (status === 404) {
    // The JSON API answers 404 for a missing bucket too; its reason does not tell them apart.
    return new StorageError('not-found', `${url} does not exist (${what})`, { cause: err });
  }
  if (status === 401 || status === 403) {
    return new StorageError(
      'access-denied',
      `${url}: access denied; check the storage Secret's GCS_SERVICE_ACCOUNT_JSON_KEY and the account's roles (${what})`,
      {
        cause: err,
      },
    );
  }
  if (
    typeof e.code === 'string' &&
    ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH'].includes(e.code)
  ) {
    return new StorageError('unreachable', `${url}: the storage endpoint is unreachable (${what})`, { cause: err });
  }
  return new StorageError('failed', `${url}: ${what}`, { cause: err });
}

/** The client's options: exported for the unit test of which credentials go where. */
export function gcsClientOptions(opts: GcsOptions): StorageOptions {
  const base: StorageOptions = { ...(opts.projectId ? { projectId: opts.projectId } : {}) };
  // A local server gets no credentials (the library's emulator mode): Google's token endpoint,
  // where a key is exchanged for a token, is fixed in the auth library.
  if (opts.endpoint) return { ...base, apiEndpoint: opts.endpoint };
  if (!opts.credentials) return base;
  const key = opts.credentials;
  const authClient = new JWT({
    email: key.client_email,
    key: key.private_key,
    ...(typeof key.private_key_id === 'string' ? { keyId: key.private_key_id } : {}),
    scopes: [SCOPE],
  });
  return { ...base, authClient };
}

/**
 * A stream to put before the library's upload stream `sink`, holding back bytes while at least
 * UNSENT_LIMIT of those it let through wait to be handed to an upload request.
 *
 * The library's own backpressure lets its queue run ahead of the upload: a write is released
 * when a buffer is read from the queue, and each buffer is read twice (once to size the chunk,
 * once to send it). A source faster than the network then grows memory with the object:
 * measured, 1.5 GiB from memory ended holding ~190 MB more than it began (@google-cloud/storage
 * 8.4.0). The library's 'progress' events count the bytes handed to requests.
 */
function progressGate(sink: NodeJS.EventEmitter): Transform {
  let admitted = 0;
  let sent = 0;
  let waiting: { n: number; go: () => void } | undefined;
  sink.on('progress', (p: { bytesWritten: number }) => {
    sent = p.bytesWritten;
    if (waiting && admitted - waiting.n - sent < UNSENT_LIMIT) {
      const { go } = waiting;
      waiting = undefined;
      go();
    }
  });
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      const go = () => cb(null, chunk);
      admitted += chunk.length;
      if (admitted - chunk.length - sent < UNSENT_LIMIT) go();
      else waiting = { n: chunk.length, go };
    },
  });
}

export function gcsStorage(opts: GcsOptions): BackupStorage {
  const client = new Storage(gcsClientOptions(opts));
  return {
    async openRead(url) {
      const { bucket, key } = locate(url);
      try {
        // The metadata first: a missing object rejects here, not later in the stream, and the
        // read is pinned to the generation found, so a concurrent overwrite cannot mix two objects.
        const [meta] = await client.bucket(bucket).file(key).getMetadata();
        const generation = meta.generation === undefined ? undefined : Number(meta.generation);
        return client
          .bucket(bucket)
          .file(key, generation === undefined ? {} : { generation })
          .createReadStream();
      } catch (err) {
        throw gcsError(url, err);
      }
    },

    async upload(url, body, uploadOpts = {}) {
      const { bucket, key } = locate(url);
      const { stream, bytes } = counted(body);
      const sink = client
        .bucket(bucket)
        .file(key)
        .createWriteStream({
          resumable: true,
          chunkSize: GCS_CHUNK_SIZE,
          contentType: 'application/octet-stream',
          metadata: opts.storageClass ? { storageClass: opts.storageClass } : {},
          ...(opts.objectAcl ? { predefinedAcl: opts.objectAcl as 'private' } : {}),
        });
      const gate = progressGate(sink);
      try {
        await pipeline(stream, gate, sink, uploadOpts.signal ? { signal: uploadOpts.signal } : {});
      } catch (err) {
        body.destroy();
        throw ownError(body) ?? gcsError(url, err);
      }
      return { bytes: bytes() };
    },

    async list(prefixUrl) {
      const { bucket, key: prefix } = locate(prefixUrl);
      const out: StoredObject[] = [];
      try {
        let pageToken: string | undefined;
        do {
          const [files, next] = await client
            .bucket(bucket)
            .getFiles({ prefix, delimiter: '/', autoPaginate: false, ...(pageToken ? { pageToken } : {}) });
          for (const f of files) {
            out.push({
              url: `gs://${bucket}/${f.name}`,
              bytes: Number(f.metadata.size ?? 0),
              lastModified: new Date(f.metadata.updated ?? 0),
            });
          }
          pageToken = (next as { pageToken?: string } | null)?.pageToken;
        } while (pageToken);
      } catch (err) {
        throw gcsError(prefixUrl, err);
      }
      return out;
    },

    async delete(url) {
      const { bucket, key } = locate(url);
      try {
        await client.bucket(bucket).file(key).delete({ ignoreNotFound: true });
      } catch (err) {
        throw gcsError(url, err);
      }
    },
  };
}
