// The binlog archiver (docs/pitr.md): while the local server is the master (writable), its binlogs
// go to `<backup folder>/binlogs/` through src/storage's atomic upload: each closed file at once,
// the open one's new transactions every interval. It reads the files from the data directory and
// asks the server only SHOW BINARY LOGS / SHOW MASTER STATUS, so commits never wait for it. A
// server that becomes master continues from the first transaction the archive lacks (GTID).
// Gather → decide (decide-binlog-archive.ts) → act; failures are reported through `onEvent` and
// retried with a backoff, never thrown.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BINLOG_ARCHIVE_INDEX,
  BINLOG_SEGMENT_MAX_BYTES,
  type BinlogArchiveIndex,
  type BinlogSegment,
  gtidState,
  gtidStateCovers,
  parseSegmentName,
  segmentName,
} from '../api/binlog-archive.ts';
import { connectNode, type ConnectParams, type MysqlNode } from '../mysql/index.ts';
import type { BackupStorage } from '../storage/index.ts';
import { type BinlogEvent, EVENT, headerEnd, scanEvents } from './binlog-events.ts';
import {
  type ArchiveView,
  archiveView,
  type Cursor,
  decideNext,
  decideStart,
  type FileScan,
  type ServerBinlogs,
  shapeSegment,
} from './decide-binlog-archive.ts';

export type ArchiverEvent =
  | { kind: 'started'; cursor: Cursor; reason: string }
  | { kind: 'uploaded'; segment: BinlogSegment; url: string; bytes: number }
  | { kind: 'idle-replica' }
  | { kind: 'gap'; reason: string }
  | { kind: 'diverged'; reason: string }
  | { kind: 'error'; message: string; retryInMs: number };

export interface BinlogArchiverOptions {
  connection: ConnectParams;
  /** Where the binlog files are (log-bin's directory: the data directory in a pod). */
  binlogDir: string;
  /** The archive folder, ending in `/` (binlogArchiveUrl). */
  archiveUrl: string;
  storage: BackupStorage;
  intervalMs: number;
  /** How often the server is looked at; default min(intervalMs, 5000). */
  pollMs?: number;
  maxBackoffMs?: number;
  segmentMaxBytes?: number;
  signal: AbortSignal;
  onEvent?: (e: ArchiverEvent) => void;
  now?: () => number;
}

interface Progress {
  cursor: Cursor;
  view: ArchiveView;
  lastOpenUploadAt: number;
  completeUpTo: number;
  indexWrittenAt: number;
}

/** Resolves when `signal` aborts. */
export async function runBinlogArchiver(opts: BinlogArchiverOptions): Promise<void> {
  const now = opts.now ?? Date.now;
  const poll = opts.pollMs ?? Math.min(opts.intervalMs, 5000);
  const maxBackoff = opts.maxBackoffMs ?? 60000;
  let node: MysqlNode | null = null;
  let progress: Progress | null = null;
  let serverId = 0;
  let backoff = poll;
  let lastRole = '';
  try {
    while (!opts.signal.aborted) {
      let wait = poll;
      try {
        if (!node) {
          node = await connectNode({ connectTimeoutMs: 3000, queryTimeoutMs: 10000, ...opts.connection });
          serverId = (await node.serverInfo()).serverId;
        }
        if (await node.isReadOnly()) {
          // Not the master (or not yet): whoever is continues the archive; we start over when promoted.
          progress = null;
          if (lastRole !== 'replica') opts.onEvent?.({ kind: 'idle-replica' });
          lastRole = 'replica';
        } else {
          lastRole = 'master';
          const checkedAt = now();
          const binlogs = await serverBinlogs(node);
          if (!progress) progress = await begin(opts, binlogs, checkedAt);
          // Diverged: nothing to upload; looked at again after a longer pause (it re-reads the archive and the binlogs).
          if (!progress) wait = Math.max(opts.intervalMs, maxBackoff);
          else if (await step(opts, progress, binlogs, serverId, checkedAt)) wait = 0;
        }
        backoff = poll;
      } catch (e) {
        // Stopping aborts an upload in flight: that is no failure to report.
        if (opts.signal.aborted) break;
        await node?.close().catch(() => undefined);
        node = null;
        progress = null;
        wait = backoff;
        backoff = Math.min(backoff * 2, maxBackoff);
        opts.onEvent?.({ kind: 'error', message: e instanceof Error ? e.message : String(e), retryInMs: wait });
      }
      if (wait > 0) await sleep(wait, undefined, { signal: opts.signal }).catch(() => undefined);
    }
  } finally {
    await node?.close().catch(() => undefined);
  }
}

async function serverBinlogs(node: MysqlNode): Promise<ServerBinlogs> {
  const files = await node.binaryLogs();
  const pos = await node.binlogPosition();
  if (!pos || files.length === 0) throw new Error('the server has no binary log (log-bin is off)');
  return { files, current: pos };
}

/** A newly master server: read the archive, find where this server's binlogs continue it. */
async function begin(opts: BinlogArchiverOptions, binlogs: ServerBinlogs, checkedAt: number): Promise<Progress | null> {
  const segments = await listSegments(opts);
  const view = archiveView(segments);
  const scans = view.endState === '' ? [] : await scanFromCovering(opts.binlogDir, binlogs, view.endState);
  const d = decideStart(view, binlogs, view.endState === '' ? await startStates(opts.binlogDir, binlogs.files.slice(0, 1)) : scans);
  if (d.kind === 'diverged') {
    opts.onEvent?.({ kind: 'diverged', reason: d.reason });
    return null;
  }
  if (d.kind === 'gap') opts.onEvent?.({ kind: 'gap', reason: d.reason });
  opts.onEvent?.({ kind: 'started', cursor: d.cursor, reason: d.reason });
  return { cursor: d.cursor, view, lastOpenUploadAt: 0, completeUpTo: 0, indexWrittenAt: checkedAt };
}

/** One decision and its action; true when more is ready at once (a closed file's rest). */
async function step(
  opts: BinlogArchiverOptions,
  p: Progress,
  binlogs: ServerBinlogs,
  serverId: number,
  checkedAt: number,
): Promise<boolean> {
  const d = decideNext({ binlogs, cursor: p.cursor, lastOpenUploadAt: p.lastOpenUploadAt, now: checkedAt, intervalMs: opts.intervalMs });
  p.cursor = d.cursor;
  if (d.kind === 'gap') {
    opts.onEvent?.({ kind: 'gap', reason: d.reason });
    return true;
  }
  if (d.kind === 'wait') {
    const caughtUp = d.cursor.file === binlogs.current.file && d.cursor.offset >= binlogs.current.position;
    if (caughtUp) p.completeUpTo = checkedAt;
    if (caughtUp && checkedAt - p.indexWrittenAt >= opts.intervalMs) await writeIndex(opts, p, serverId, checkedAt);
    return false;
  }
  const seg = await uploadSegment(opts, p, d.cursor, d.end, serverId);
  p.cursor = { file: d.cursor.file, offset: seg.end };
  if (!d.closed && seg.end >= d.end) {
    p.lastOpenUploadAt = checkedAt;
    p.completeUpTo = checkedAt;
  }
  await writeIndex(opts, p, serverId, checkedAt);
  return d.closed || seg.end < d.end;
}

async function uploadSegment(
  opts: BinlogArchiverOptions,
  p: Progress,
  cursor: Cursor,
  end: number,
  serverId: number,
): Promise<BinlogSegment> {
  const path = join(opts.binlogDir, cursor.file);
  const max = opts.segmentMaxBytes ?? BINLOG_SEGMENT_MAX_BYTES;
  const events = await scanRange(path, cursor.offset, end, max);
  const shape = shapeSegment(events, cursor.offset, end, p.view.endState, max);
  const segment: BinlogSegment = { seq: p.view.lastSeq + 1, serverId, file: cursor.file, start: cursor.offset, ...shape };
  const url = `${opts.archiveUrl}${segmentName(segment)}`;
  const header = cursor.offset > 0 ? await readHeader(path) : null;
  const { bytes } = await opts.storage.upload(url, Readable.from(segmentBody(path, header, cursor.offset, shape.end)), {
    signal: opts.signal,
  });
  p.view = {
    endState: shape.endState,
    lastSeq: segment.seq,
    firstEventTime: p.view.firstEventTime || segment.firstTime,
  };
  opts.onEvent?.({ kind: 'uploaded', segment, url, bytes });
  return segment;
}

async function* segmentBody(path: string, header: Buffer | null, start: number, end: number): AsyncGenerator<Buffer> {
  if (header) yield header;
  for await (const chunk of createReadStream(path, { start, end: end - 1, highWaterMark: 1 << 20 })) yield chunk as Buffer;
}

async function writeIndex(opts: BinlogArchiverOptions, p: Progress, serverId: number, at: number): Promise<void> {
  const index: BinlogArchiveIndex = {
    version: 1,
    firstEventTime: p.view.firstEventTime,
    completeUpTo: Math.floor(p.completeUpTo / 1000),
    endState: p.view.endState,
    lastSeq: p.view.lastSeq,
    lastServerId: serverId,
    updatedAt: new Date(at).toISOString(),
  };
  await opts.storage.upload(`${opts.archiveUrl}${BINLOG_ARCHIVE_INDEX}`, Readable.from([Buffer.from(`${JSON.stringify(index)}\n`)]), {
    signal: opts.signal,
  });
  p.indexWrittenAt = at;
}

export async function listSegments(opts: { storage: BackupStorage; archiveUrl: string }): Promise<BinlogSegment[]> {
  const out: BinlogSegment[] = [];
  for (const o of await opts.storage.list(opts.archiveUrl)) {
    const s = parseSegmentName(o.url.slice(o.url.lastIndexOf('/') + 1));
    if (s) out.push(s);
  }
  return out.sort((a, b) => a.seq - b.seq || a.serverId - b.serverId);
}

async function readHeader(path: string): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(4 + 65536);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return Buffer.from(buf.subarray(0, headerEnd(buf.subarray(0, bytesRead))));
  } finally {
    await fh.close();
  }
}

/**
 * Visits the events of `[start, end)` in order, reading 4 MiB at a time (more for a larger
 * event); stops early when `visit` returns true. Nothing is kept but the piece being read.
 */
async function visitEvents(path: string, start: number, end: number, visit: (e: BinlogEvent) => boolean): Promise<void> {
  const fh = await open(path, 'r');
  try {
    let pos = start;
    let carry = Buffer.alloc(0);
    while (pos < end) {
      const want = Math.max(0, Math.min(4 << 20, end - pos - carry.length));
      const buf = Buffer.alloc(carry.length + want);
      carry.copy(buf);
      const { bytesRead } = await fh.read(buf, carry.length, want, pos + carry.length);
      const data = buf.subarray(0, carry.length + bytesRead);
      const { events, next } = scanEvents(data, pos);
      for (const e of events) if (visit(e)) return;
      if (bytesRead === 0 && next === pos) return;
      carry = Buffer.from(data.subarray(next - pos));
      pos = next;
    }
  } finally {
    await fh.close();
  }
}

/**
 * The events of `[start, end)` that shapeSegment needs: every GTID event, and the last event
 * for its time; stops past `start + maxBytes` once a transaction starts there.
 */
async function scanRange(path: string, start: number, end: number, maxBytes: number): Promise<BinlogEvent[]> {
  const kept: BinlogEvent[] = [];
  let last: BinlogEvent | undefined;
  await visitEvents(path, start, end, (e) => {
    if (e.type === EVENT.gtid) {
      kept.push(e);
      return e.pos > start + maxBytes;
    }
    if (e.type !== EVENT.formatDescription && e.type !== EVENT.gtidList) last = e;
    return false;
  });
  if (last) kept.push(last);
  return kept.sort((a, b) => a.pos - b.pos);
}

/** Each file's GTID list (the state it began with), without its transactions. */
async function startStates(dir: string, files: readonly { file: string }[]): Promise<FileScan[]> {
  const out: FileScan[] = [];
  for (const f of files) {
    const fh = await open(join(dir, f.file), 'r');
    try {
      const buf = Buffer.alloc(65536);
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      const list = scanEvents(buf.subarray(0, bytesRead), 0).events.find((e) => e.type === EVENT.gtidList);
      out.push({ file: f.file, startState: list?.gtidList ?? '', transactions: [] });
    } finally {
      await fh.close();
    }
  }
  return out;
}

/**
 * The server's files from the newest one that began at or before the archive's end (its start
 * state covered by `endState`) onward, with their transactions: where the archive continues. All
 * files when none did (decideStart then sees the gap from the oldest one's start state).
 */
async function scanFromCovering(dir: string, binlogs: ServerBinlogs, endState: string): Promise<FileScan[]> {
  const heads = await startStates(dir, binlogs.files);
  let from = 0;
  for (let i = heads.length - 1; i >= 0; i--) {
    if (gtidStateCovers(endState, heads[i]!.startState)) {
      from = i;
      break;
    }
  }
  const out: FileScan[] = [];
  for (let i = 0; i < heads.length; i++) {
    if (i < from) continue;
    const f = binlogs.files[i]!;
    const end = f.file === binlogs.current.file ? binlogs.current.position : f.size;
    // What decideStart needs, in constant memory: the highest transaction of each domain the
    // archive holds, and the first one it does not (where the scan stops).
    const archived = gtidState(endState);
    const highest = new Map<number, { pos: number; gtid: string; seq: number }>();
    let beyond: { pos: number; gtid: string } | undefined;
    await visitEvents(join(dir, f.file), 0, end, (e) => {
      if (!e.gtid) return false;
      const [domain, , seq] = e.gtid.split('-').map(Number) as [number, number, number];
      if (seq > (archived.get(domain)?.seq ?? -1)) {
        beyond = { pos: e.pos, gtid: e.gtid };
        return true;
      }
      if ((highest.get(domain)?.seq ?? -1) < seq) highest.set(domain, { pos: e.pos, gtid: e.gtid, seq });
      return false;
    });
    const transactions = [...highest.values()].sort((a, b) => a.pos - b.pos).map(({ pos, gtid }) => ({ pos, gtid }));
    out.push({ ...heads[i]!, transactions: beyond ? [...transactions, beyond] : transactions });
    if (beyond) break;
  }
  // decideStart reads the gap from the first scan's start state: keep the oldest file's in front.
  if (from > 0) out.unshift({ ...heads[0]!, transactions: [] });
  return out;
}
