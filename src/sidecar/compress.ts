// Compression of a backup stream for take-backup-to. The anchor piped the stream through one
// `gzip` process, which limits a backup to one core's gzip speed (16 MiB/s here, docs/field-notes.md).
// A gzip file may be a series of members, each a complete gzip stream, and every gunzip
// (gzip -d, zcat, Node's zlib, Go's compress/gzip the anchor used) reads them as one: so the
// stream is cut into blocks compressed independently on libuv's thread pool, all cores at once,
// and written in order. zstd frames concatenate the same way (opt-in by an `.xbackup.zst` name).
// BACKUP_COMPRESS_COMMAND, when set, replaces all of this with the user's command.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { Duplex, PassThrough, pipeline, Transform, type TransformCallback } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Compression } from '../storage/index.ts';
import { outcomeOf, terminate, ToolError } from './child.ts';

const gzip = promisify(zlib.gzip);
const zstd = promisify(zlib.zstdCompress);

/** Large enough that member headers and lost context cost nothing measurable; small enough to keep memory flat. */
export const BLOCK_SIZE = 1 << 20;

/**
 * Level 1 of gzip: on database pages it is several times faster than gzip's default 6 for a few
 * percent more bytes (bench/backup measures both), and a backup is limited by its compressor.
 */
const GZIP_LEVEL = 1;
/**
 * zlib's largest match hash table (a few hundred KiB more per block in flight): fewer hash
 * collisions, ~8% less CPU per byte at level 1 for the same output (measured on row-like data).
 */
const GZIP_MEM_LEVEL = 9;

/**
 * libuv's thread pool size for a compressing process: its blocks run on that pool, which has 4
 * threads unless UV_THREADPOOL_SIZE says more, so on a node with more cores the compressor would
 * use only 4 of them. Undefined when the default is enough or the environment already chose.
 * `cores` is availableParallelism(), which follows the container's CPU limit (cgroup quota).
 */
export function threadPoolSize(env: Readonly<Record<string, string | undefined>>, cores: number): string | undefined {
  if (env.UV_THREADPOOL_SIZE || cores <= 4) return undefined;
  // Room for the blocks in flight and the file system calls that share the pool.
  return String(cores + 1);
}

function compressBlock(format: Compression, block: Buffer): Promise<Buffer> {
  return format === 'zstd' ? zstd(block) : gzip(block, { level: GZIP_LEVEL, memLevel: GZIP_MEM_LEVEL });
}

/**
 * A Transform compressing `BLOCK_SIZE` blocks with up to `parallel` of them in flight. Output order
 * is input order; input is not accepted while `parallel` blocks are in flight. The input blocks
 * are `parallel + 1` buffers reused for the whole stream: a fresh 4 MiB buffer per block lives
 * outside V8's heap, which frees it late, and the RSS would climb by ~100 MiB (measured).
 */
export function parallelCompressor(format: Compression, parallel = availableParallelism()): Transform {
  const inFlight: Array<Promise<Buffer>> = [];
  const free: Buffer[] = [];
  let block: Buffer | undefined;
  let fill = 0;

  const start = (): void => {
    const full = block!;
    const p = compressBlock(format, full.subarray(0, fill)).finally(() => free.push(full));
    p.catch(() => undefined); // awaited in order below; this only keeps an early rejection from being unhandled
    inFlight.push(p);
    block = undefined;
    fill = 0;
  };
  const drainTo = async (t: Transform, limit: number): Promise<void> => {
    while (inFlight.length > limit) t.push(await inFlight.shift()!);
  };

  return new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      const take = async () => {
        let off = 0;
        while (off < chunk.length) {
          block ??= free.pop() ?? Buffer.allocUnsafeSlow(BLOCK_SIZE);
          const n = chunk.copy(block, fill, off);
          fill += n;
          off += n;
          if (fill === BLOCK_SIZE) {
            start();
            await drainTo(this, parallel - 1);
          }
        }
      };
      take().then(() => cb(), cb);
    },
    flush(cb: TransformCallback) {
      if (fill > 0) start();
      drainTo(this, 0).then(() => cb(), cb);
    },
  });
}

/**
 * BACKUP_COMPRESS_COMMAND as a stream: bytes go to the command's stdin, its stdout comes out. The
 * output ends only after the command exited 0; any other exit fails the stream, so an upload of
 * it is never completed.
 */
export function commandCompressor(command: readonly string[]): Duplex {
  const [cmd, ...args] = command;
  const child = spawn(cmd!, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const outcome = outcomeOf(child);
  const checked = new PassThrough({
    flush(cb) {
      outcome.then((o) => cb(o.ok ? null : new ToolError(`${cmd} (BACKUP_COMPRESS_COMMAND)`, o)), cb);
    },
  });
  pipeline(child.stdout!, checked, () => undefined);
  const duplex = Duplex.from({ writable: child.stdin!, readable: checked });
  duplex.on('close', () => terminate(child, 1000));
  child.stdin!.on('error', (err) => duplex.destroy(err));
  return duplex;
}
