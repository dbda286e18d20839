// The two stream stages of take-backup-to: the xbstream scan that finds the backup's binlog
// position (on a real stream made by mbstream -c, cut at every awkward place) and the parallel
// compressor whose output plain gunzip and Node's zstd read back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync, zstdDecompressSync } from 'node:zlib';
import { scanXbstream } from '../../../src/sidecar/xbstream-scan.ts';
import { BLOCK_SIZE, commandCompressor, parallelCompressor, threadPoolSize } from '../../../src/sidecar/compress.ts';
import { parseBinlogInfo } from '../../../src/sidecar/binlog-info.ts';

const INFO = 'mysql-bin.000002\t1234\t0-1-42\n';

function realStream(t: { after(fn: () => unknown): void }): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'xbstream-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'ibdata1'), randomBytes(256 << 10));
  writeFileSync(join(dir, 'xtrabackup_binlog_info'), INFO);
  writeFileSync(join(dir, 'empty'), '');
  return execFileSync('mbstream', ['-c', 'ibdata1', 'empty', 'xtrabackup_binlog_info'], { cwd: dir, maxBuffer: 64 << 20 });
}

async function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function pieces(buf: Buffer, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  for (let off = 0, i = 0; off < buf.length; i++) {
    const n = sizes[i % sizes.length]!;
    out.push(buf.subarray(off, off + n));
    off += n;
  }
  return out;
}

test('the scan finds xtrabackup_binlog_info in a real xbstream however it is cut, and passes every byte', async (t) => {
  const stream = realStream(t);
  for (const sizes of [[stream.length], [1], [7, 1, 13], [65536], [20, 1 << 20]]) {
    const scan = scanXbstream(['xtrabackup_binlog_info']);
    const out = await collect(Readable.from(pieces(stream, sizes)).pipe(scan.stream));
    assert.ok(out.equals(stream), `bytes unchanged with pieces ${sizes.join(',')}`);
    assert.equal(scan.stoppedBecause(), undefined);
    assert.deepEqual(parseBinlogInfo(scan.files().get('xtrabackup_binlog_info') ?? ''), {
      binlogFile: 'mysql-bin.000002',
      binlogPosition: 1234,
      gtid: '0-1-42',
    });
  }
});

test('a stream that is not xbstream stops the scan, not the stream', async () => {
  const scan = scanXbstream(['xtrabackup_binlog_info']);
  const junk = randomBytes(100_000);
  const out = await collect(Readable.from([junk]).pipe(scan.stream));
  assert.ok(out.equals(junk));
  assert.equal(scan.files().size, 0);
  assert.match(scan.stoppedBecause() ?? '', /not an xbstream chunk/);
});

test('parallel gzip writes independent members that gunzip reads as the original, in order', async () => {
  // Compressible but not uniform, and not a multiple of the block size.
  const input = Buffer.concat(Array.from({ length: 11 }, (_, i) => Buffer.alloc(BLOCK_SIZE / 2 + 1000, `block ${i} `)));
  const gz = await collect(Readable.from(pieces(input, [100_000, 3, 1 << 20])).pipe(parallelCompressor('gzip', 3)));
  assert.ok(gunzipSync(gz).equals(input));
  assert.ok(gz.length < input.length / 10);
  let members = 0;
  for (let i = gz.indexOf(Buffer.from([0x1f, 0x8b, 8])); i >= 0; i = gz.indexOf(Buffer.from([0x1f, 0x8b, 8]), i + 1)) members++;
  assert.ok(members >= Math.ceil(input.length / BLOCK_SIZE), `${members} members`);
  const r = execFileSync('gzip', ['-dc'], { input: gz, maxBuffer: 128 << 20 });
  assert.ok(r.equals(input), 'gzip -d reads it too');
});

test('parallel zstd frames concatenate into what zstd decompresses as the original', async () => {
  const input = Buffer.concat([randomBytes(1 << 20), Buffer.alloc(BLOCK_SIZE * 2, 'z')]);
  const zst = await collect(Readable.from([input]).pipe(parallelCompressor('zstd', 2)));
  assert.ok(zstdDecompressSync(zst).equals(input));
});

test('BACKUP_COMPRESS_COMMAND: its output when it exits 0, an error naming it otherwise', async () => {
  const ok = await collect(Readable.from([Buffer.from('hello backup')]).pipe(commandCompressor(['gzip', '-c'])));
  assert.equal(gunzipSync(ok).toString(), 'hello backup');
  const failing = Readable.from([Buffer.from('x')]).pipe(commandCompressor(['sh', '-c', 'cat; exit 3']));
  await assert.rejects(collect(failing), /sh \(BACKUP_COMPRESS_COMMAND\) failed \(exit 3\)/);
});

test('on more than 4 cores take-backup-to widens libuv thread pool to them, unless the environment chose', () => {
  assert.equal(threadPoolSize({}, 2), undefined);
  assert.equal(threadPoolSize({}, 4), undefined);
  assert.equal(threadPoolSize({}, 16), '17');
  assert.equal(threadPoolSize({ UV_THREADPOOL_SIZE: '6' }, 16), undefined);
});
