// A streaming multipart upload with bounded, reused memory. lib-storage's Upload takes one part
// size for the whole object, and S3 allows 10,000 parts: 16 MiB parts cap a backup at 156 GiB,
// while bigger parts cost their size × (parts in flight + 1) of memory for every backup, small
// ones included. Here parts start at 8 MiB and double every 2,000 parts (up to ~480 GiB per
// object), so a typical backup holds 24 MiB of part buffers, reused from part to part (fresh
// multi-MiB buffers live outside V8's heap, which frees them late, and the RSS would climb).
//
// S3 shows a multipart upload at its key only once it is completed; it is completed only after
// the body ended cleanly. Any failure (the body's, S3's, an abort) aborts the upload, which
// deletes its parts. An object smaller than the first part is sent with one PutObject.
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type ObjectCannedACL,
  type S3Client,
  type StorageClass,
} from '@aws-sdk/client-s3';
import type { S3Options } from './s3-config.ts';

const MiB = 1 << 20;
export const FIRST_PART_SIZE = 8 * MiB;
/** Parts sent while the next one fills. */
const PARTS_IN_FLIGHT = 2;

/** The size of part `n` (1-based): 8 MiB, doubling every 2,000 parts. */
export function partSize(n: number): number {
  return FIRST_PART_SIZE * 2 ** Math.floor((n - 1) / 2000);
}

export interface UploadTarget {
  client: S3Client;
  bucket: string;
  key: string;
  opts: S3Options;
  signal?: AbortSignal;
}

/** Uploads `body` to the target; resolves with the byte count once the object is complete. */
export async function multipartUpload(target: UploadTarget, body: Readable): Promise<number> {
  const { client, bucket, key, opts } = target;
  const send = { abortSignal: target.signal };
  const checksum = opts.checksums === 'WHEN_SUPPORTED' ? ({ ChecksumAlgorithm: 'CRC32' } as const) : {};
  const common = {
    Bucket: bucket,
    Key: key,
    ContentType: 'application/octet-stream',
    ...(opts.acl ? { ACL: opts.acl as ObjectCannedACL } : {}),
    ...(opts.storageClass ? { StorageClass: opts.storageClass as StorageClass } : {}),
  };

  let uploadId: string | undefined;
  const done: CompletedPart[] = [];
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;
  let free: Buffer[] = [];
  let buf: Buffer;
  let part = 1;
  buf = Buffer.allocUnsafeSlow(partSize(part));
  let fill = 0;
  let total = 0;

  const sendPart = async (data: Buffer, n: number): Promise<void> => {
    uploadId ??= (await client.send(new CreateMultipartUploadCommand({ ...common, ...checksum }), send)).UploadId;
    const res = await client.send(
      new UploadPartCommand({
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        PartNumber: n,
        Body: data,
        ContentLength: data.length,
        ...checksum,
      }),
      send,
    );
    done.push({ PartNumber: n, ETag: res.ETag, ...(res.ChecksumCRC32 ? { ChecksumCRC32: res.ChecksumCRC32 } : {}) });
  };
  const startPart = async (): Promise<void> => {
    // The first part creates the upload: later parts wait for it rather than race to create it.
    if (uploadId === undefined && inFlight.size > 0) await Promise.all(inFlight);
    const full = buf;
    const p = sendPart(full.subarray(0, fill), part)
      .then(() => {
        if (full.length === partSize(part)) free.push(full);
      })
      .catch((err: unknown) => {
        failure ??= err;
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
    part++;
    if (free[0] && free[0].length !== partSize(part)) free = [];
    buf = free.pop() ?? Buffer.allocUnsafeSlow(partSize(part));
    fill = 0;
    while (inFlight.size >= PARTS_IN_FLIGHT && failure === undefined) await Promise.race(inFlight);
  };

  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      total += chunk.length;
      for (let off = 0; off < chunk.length; ) {
        const n = chunk.copy(buf, fill, off);
        fill += n;
        off += n;
        if (fill === buf.length) await startPart();
        if (failure !== undefined) throw failure;
      }
    }
    if (part === 1 && inFlight.size === 0) {
      await client.send(new PutObjectCommand({ ...common, Body: buf.subarray(0, fill), ContentLength: fill }), send);
      return total;
    }
    if (fill > 0) await startPart();
    await Promise.all(inFlight);
    if (failure !== undefined) throw failure;
    done.sort((a, b) => a.PartNumber! - b.PartNumber!);
    await client.send(
      new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: done } }),
      send,
    );
    return total;
  } catch (err) {
    await Promise.allSettled(inFlight);
    if (uploadId !== undefined) {
      // Without an abort the parts would stay (billed, invisible) until a lifecycle rule removes them.
      await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId })).catch(() => undefined);
    }
    throw err;
  }
}
