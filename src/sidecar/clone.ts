// Getting a physical backup into a directory: from a peer sidecar's /xbackup (HTTP, basic auth,
// outcome in the X-Backup-Status trailer) or from a backup object (a compressed xbstream)
// through src/storage, then `--prepare`. Everything streams: the response body is piped into
// the extractor's stdin with backpressure, nothing is held in memory.
import http, { type IncomingMessage } from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import { pipeline as pipelineDone } from 'node:stream/promises';
import { createGunzip, createZstdDecompress } from 'node:zlib';
import { spawn, type ChildProcess } from 'node:child_process';
import { storageFor } from '../storage/index.ts';
import type { Credentials, SidecarConfig } from './config.ts';
import { outcomeOf, runTool, terminate, ToolError, type ChildOutcome } from './child.ts';
import { extractArgs, prepareArgs, toolNames } from './tools.ts';
import { reclaimEvery } from './reclaim.ts';
import { BACKUP_STATUS_TRAILER, BACKUP_SUCCESS, XBACKUP_PATH, HEALTH_PATH, XBACKUP_RETRY_AFTER_SECONDS } from '../api/pod-contract.ts';
import { setTimeout as sleep } from 'node:timers/promises';

export class CloneError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CloneError';
  }
}

/** The anchor gave a peer 5 s to answer /health. */
const PROBE_TIMEOUT_MS = 5000;
/** A source that stops sending for this long mid-stream is taken for dead. */
const STALL_TIMEOUT_MS = 10 * 60 * 1000;

/** True when `baseUrl`/health answers 200 within the probe timeout. */
export function probeHealth(baseUrl: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(new URL(HEALTH_PATH, baseUrl), { agent: false, timeout: PROBE_TIMEOUT_MS }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(false));
  });
}

/** A 503 of /xbackup: the source is busy; ask again after `retryAfterSeconds`. */
class SourceBusy extends CloneError {
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The seconds of a `Retry-After` header (delta form), within 1..300; 15 when absent or a date. */
export function retryAfterSeconds(header: string | undefined): number {
  const n = /^\s*(\d+)\s*$/.exec(header ?? '') ? Number(header) : XBACKUP_RETRY_AFTER_SECONDS;
  return Math.min(300, Math.max(1, n));
}

/** One GET /xbackup: the response once it is streaming (200), SourceBusy on 503, else CloneError. */
function requestBackupOnce(url: URL, cred: Credentials, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, auth: `${cred.user}:${cred.password}`, signal }, (res) => {
      if (res.statusCode === 503) {
        res.resume();
        const wait = retryAfterSeconds(res.headers['retry-after']);
        reject(new SourceBusy(`${url.origin}${XBACKUP_PATH} is busy (HTTP 503, retry after ${wait} s)`, wait));
        return;
      }
      if (res.statusCode !== 200) {
        res.resume();
        reject(new CloneError(`${url.origin}${XBACKUP_PATH} answered HTTP ${res.statusCode}`));
        return;
      }
      // Only once streaming: before its headers the source keeps us waiting for our turn behind
      // another backup, up to its start limit (then 503, and we ask again).
      req.setTimeout(STALL_TIMEOUT_MS, () => req.destroy(new CloneError(`${url.origin} sent nothing for ${STALL_TIMEOUT_MS / 1000} s`)));
      resolve(res);
    });
    req.on('error', (err) =>
      reject(err instanceof CloneError ? err : new CloneError(`requesting ${url.origin}${XBACKUP_PATH}: ${err.message}`)),
    );
  });
}

/**
 * GET /xbackup of the sidecar at `baseUrl`: the response once it is streaming (200), else
 * CloneError. A busy source (503) is asked again after its Retry-After, until `signal` aborts:
 * the source bounds how long one request waits, the caller how long it keeps asking.
 */
export async function requestBackup(
  baseUrl: string,
  cred: Credentials,
  signal: AbortSignal,
  onBusy?: (message: string) => void,
): Promise<IncomingMessage> {
  const url = new URL(XBACKUP_PATH, baseUrl);
  for (;;) {
    try {
      return await requestBackupOnce(url, cred, signal);
    } catch (err) {
      if (!(err instanceof SourceBusy) || signal.aborted) throw err;
      onBusy?.(err.message);
      await sleep(err.retryAfterSeconds * 1000, undefined, { signal }).catch(() => {
        throw new CloneError(`stopped while waiting for ${url.origin}${XBACKUP_PATH} to be free`);
      });
    }
  }
}

/**
 * Pipes `source` into `child`'s stdin and waits for the child. A broken source kills the child
 * and is the error reported; a child that dies on its own is reported with its stderr.
 */
async function feed(source: Readable, child: ChildProcess, what: string, sourceName: string, signal: AbortSignal): Promise<ChildOutcome> {
  const outcome = outcomeOf(child);
  try {
    await pipelineDone(source, child.stdin!, { signal });
  } catch (err) {
    const exitedOnItsOwn = (child.exitCode !== null || child.signalCode !== null) && !signal.aborted;
    if (!exitedOnItsOwn) terminate(child, 1000);
    const o = await outcome;
    if (signal.aborted) throw new CloneError(`stopped while reading ${sourceName}`, { cause: err });
    if (exitedOnItsOwn && !o.ok) throw new ToolError(what, o);
    throw new CloneError(`${sourceName} broke off: ${(err as Error).message}`, { cause: err });
  }
  const o = await outcome;
  if (!o.ok) throw new ToolError(what, o);
  return o;
}

function spawnExtractor(cfg: SidecarConfig, dir: string, signal: AbortSignal): { child: ChildProcess; what: string } {
  const tool = toolNames(cfg.flavour).stream;
  return { child: spawn(tool, extractArgs(cfg, dir), { stdio: ['pipe', 'ignore', 'pipe'], signal }), what: `${tool} -x` };
}

/** Streams a peer's /xbackup into `dir` and checks the trailer. */
export async function cloneFromPeer(cfg: SidecarConfig, baseUrl: string, dir: string, signal: AbortSignal): Promise<void> {
  const res = await requestBackup(baseUrl, cfg.backup, signal);
  const reclaim = reclaimEvery(2 << 20);
  res.on('data', (chunk: Buffer) => reclaim(chunk.length));
  const { child, what } = spawnExtractor(cfg, dir, signal);
  await feed(res, child, what, `stream from ${new URL(baseUrl).origin}`, signal);
  const status = res.trailers[BACKUP_STATUS_TRAILER.toLowerCase()];
  if (status !== BACKUP_SUCCESS) {
    throw new CloneError(
      `${new URL(baseUrl).origin} ended the backup with ${BACKUP_STATUS_TRAILER}: ${status ?? '(missing)'}; the stream is not a complete backup`,
    );
  }
}

/**
 * Streams the backup object at `url` into `dir`: decompressed in process by its magic bytes (gzip,
 * one member or the many of a parallel gzip; zstd), or by BACKUP_DECOMPRESS_COMMAND when set.
 * The storage credentials are the process's environment (the init container gets the
 * initBucketSecretName Secret's keys as variables).
 */
export async function restoreFromBucket(cfg: SidecarConfig, url: string, dir: string, signal: AbortSignal): Promise<void> {
  const source = await storageFor(url).openRead(url);
  if (cfg.decompressCommand) return restoreThroughCommand(cfg, cfg.decompressCommand, source, url, dir, signal);
  const head = await peek(source, 4);
  const format = formatOf(head);
  if (!format) {
    source.destroy();
    throw new CloneError(`${url} is neither gzip nor zstd (it starts with ${head.toString('hex') || 'nothing'}); not a backup object`);
  }
  const decompress = format === 'zstd' ? createZstdDecompress() : createGunzip();
  const decompressed = pipeline(source, decompress, () => undefined);
  const { child, what } = spawnExtractor(cfg, dir, signal);
  try {
    await feed(decompressed, child, what, url, signal);
  } catch (err) {
    const cause = source.errored ?? decompress.errored;
    if (cause && !signal.aborted) throw new CloneError(`${url} is truncated or corrupt (${format}: ${cause.message})`, { cause });
    throw err;
  }
}

const MAGIC = { gzip: Buffer.from([0x1f, 0x8b]), zstd: Buffer.from([0x28, 0xb5, 0x2f, 0xfd]) };

function formatOf(head: Buffer): 'gzip' | 'zstd' | undefined {
  if (head.subarray(0, 2).equals(MAGIC.gzip)) return 'gzip';
  if (head.subarray(0, 4).equals(MAGIC.zstd)) return 'zstd';
  return undefined;
}

/** The first `n` bytes of `stream` (fewer if it ends sooner), left in the stream. */
function peek(stream: Readable, n: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      stream.off('readable', onReadable).off('end', done).off('error', reject);
      const all = Buffer.concat(chunks);
      if (all.length > 0) stream.unshift(all);
      resolve(all.subarray(0, n));
    };
    const onReadable = () => {
      while (size < n) {
        const c = stream.read() as Buffer | null;
        if (c === null) break;
        chunks.push(c);
        size += c.length;
      }
      if (size >= n) done();
    };
    stream.on('readable', onReadable).once('end', done).once('error', reject);
  });
}

async function restoreThroughCommand(
  cfg: SidecarConfig,
  command: string[],
  source: Readable,
  url: string,
  dir: string,
  signal: AbortSignal,
): Promise<void> {
  const [cmd, ...args] = command;
  const decompress = spawn(cmd!, args, { stdio: ['pipe', 'pipe', 'pipe'], signal });
  const { child, what } = spawnExtractor(cfg, dir, signal);
  const results = await Promise.allSettled([
    feed(source, decompress, `${cmd} (decompress)`, url, signal),
    feed(decompress.stdout!, child, what, `${cmd} output`, signal),
  ]);
  const failed = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
  if (failed.length === 0) return;
  terminate(decompress, 1000);
  terminate(child, 1000);
  // When both ends fail, either may be the cause (corrupt input, or an extractor that quit and
  // broke the decompressor's pipe): say both.
  throw failed.length === 1 ? failed[0] : new CloneError(failed.map((e) => e.message).join('; '));
}

/** `xtrabackup --prepare` / `mariabackup --prepare` on the unpacked backup in `dir`. */
export async function prepareBackup(cfg: SidecarConfig, dir: string, signal: AbortSignal): Promise<void> {
  const tool = toolNames(cfg.flavour).backup;
  await runTool(`${tool} --prepare`, tool, prepareArgs(cfg, dir), { signal });
}
