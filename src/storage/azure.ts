// The azure:// backend (@azure/storage-blob): `azure://<container>/<name>` in the account of the
// Secret's AZUREBLOB_ACCOUNT, signed with its shared key AZUREBLOB_KEY (the anchor's rclone keys).
// Uploads stage the body as blocks of a block blob and commit the block list only after the body
// ended cleanly: Azure shows a block blob's staged blocks at its name only once they are
// committed, so a body that breaks, an abort or a failed block leaves nothing at the name (an
// old blob there stays as it was), and Azure discards uncommitted blocks after a week. Like
// s3.ts, the uncommitted blocks are the temporary name; no copy under a second name.
import type { Readable } from 'node:stream';
import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import type { AzureOptions } from './azure-config.ts';
import { counted, ownError, parseBackupUrl, StorageError, type BackupStorage, type StoredObject } from './location.ts';

/** Bytes per staged block, and blocks sent while the next one fills: 8 MiB × 3 of memory per upload. */
export const AZURE_BLOCK_SIZE = 8 << 20;
const BLOCKS_IN_FLIGHT = 2;

function locate(url: string): { container: string; key: string } {
  const loc = parseBackupUrl(url);
  if (loc.scheme !== 'azure') throw new StorageError('bad-url', `${url} is not an azure:// URL`);
  return loc;
}

interface RestErrorLike {
  name?: string;
  code?: string;
  statusCode?: number;
}

/** A StorageError saying what went wrong with `url`, from the error code and status only (never the service's message). */
export function azureError(url: string, err: unknown): StorageError {
  if (err instanceof StorageError) return err;
  const e = (err ?? {}) as RestErrorLike;
  const status = e.statusCode;
  const what = [e.code, status ? `HTTP ${status}` : undefined].filter(Boolean).join(', ') || e.name || 'error';
  if (e.name === 'AbortError') return new StorageError('aborted', `${url}: aborted`, { cause: err });
  if (e.code === 'ContainerNotFound')
    return new StorageError('no-bucket', `${url}: the container does not exist (${what})`, { cause: err });
  if (status === 404) return new StorageError('not-found', `${url} does not exist (${what})`, { cause: err });
  if (status === 401 || status === 403) {
    return new StorageError(
      'access-denied',
      `${url}: access denied; check the storage Secret's AZUREBLOB_ACCOUNT and AZUREBLOB_KEY (${what})`,
      {
        cause: err,
      },
    );
  }
  if (['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'REQUEST_SEND_ERROR'].includes(e.code ?? '')) {
    return new StorageError('unreachable', `${url}: the storage endpoint is unreachable (${what})`, { cause: err });
  }
  return new StorageError('failed', `${url}: ${what}`, { cause: err });
}

export function azureStorage(opts: AzureOptions): BackupStorage {
  const service = new BlobServiceClient(opts.endpoint, new StorageSharedKeyCredential(opts.account, opts.key));
  const blob = (url: string) => {
    const { container, key } = locate(url);
    return service.getContainerClient(container).getBlockBlobClient(key);
  };
  return {
    async openRead(url) {
      try {
        const res = await blob(url).download();
        return res.readableStreamBody as Readable;
      } catch (err) {
        throw azureError(url, err);
      }
    },

    async upload(url, body, uploadOpts = {}) {
      const target = blob(url);
      const { stream, bytes } = counted(body);
      try {
        await target.uploadStream(stream, AZURE_BLOCK_SIZE, BLOCKS_IN_FLIGHT, {
          blobHTTPHeaders: { blobContentType: 'application/octet-stream' },
          ...(uploadOpts.signal ? { abortSignal: uploadOpts.signal } : {}),
        });
      } catch (err) {
        body.destroy();
        throw ownError(body) ?? azureError(url, err);
      }
      return { bytes: bytes() };
    },

    async list(prefixUrl) {
      const { container, key: prefix } = locate(prefixUrl);
      const out: StoredObject[] = [];
      try {
        // Committed blobs only: the listing leaves uncommitted blocks out unless asked for them.
        for await (const item of service.getContainerClient(container).listBlobsByHierarchy('/', { prefix })) {
          if (item.kind !== 'blob') continue;
          out.push({
            url: `azure://${container}/${item.name}`,
            bytes: item.properties.contentLength ?? 0,
            lastModified: item.properties.lastModified,
          });
        }
      } catch (err) {
        throw azureError(prefixUrl, err);
      }
      return out;
    },

    async delete(url) {
      try {
        await blob(url).deleteIfExists();
      } catch (err) {
        throw azureError(url, err);
      }
    },
  };
}
