// What the binlog archiver does next (pure; docs/pitr.md). The loop (binlog-archive.ts) gathers
// the server's binlog list and position, the archive's listing and scans of binlog bytes; these
// functions say where archiving continues, which byte range goes next, and what a range holds.
import {
  BINLOG_SEGMENT_MAX_BYTES,
  type BinlogSegment,
  formatGtidState,
  gtidState,
  gtidStateCovers,
  mergeGtidState,
} from '../api/binlog-archive.ts';
import { EVENT, type BinlogEvent } from './binlog-events.ts';

export interface ServerBinlogs {
  /** SHOW BINARY LOGS, oldest first. */
  files: readonly { file: string; size: number }[];
  /** SHOW MASTER STATUS: the open file and where its last complete transaction ends. */
  current: { file: string; position: number };
}

/** The next byte of `file` to archive; offset 0 means the file's beginning (magic included). */
export interface Cursor {
  file: string;
  offset: number;
}

/** The archive as its listing shows it. */
export interface ArchiveView {
  /** Position after every segment (merged per domain); '' for an empty archive. */
  endState: string;
  lastSeq: number;
  /** The first event time of the archive, 0 when empty. */
  firstEventTime: number;
}

export function archiveView(segments: readonly BinlogSegment[]): ArchiveView {
  let endState = '';
  let lastSeq = 0;
  let firstEventTime = 0;
  for (const s of [...segments].sort((a, b) => a.seq - b.seq)) {
    endState = mergeGtidState(endState, s.endState);
    lastSeq = Math.max(lastSeq, s.seq);
    if (firstEventTime === 0 && s.firstTime > 0) firstEventTime = s.firstTime;
  }
  return { endState, lastSeq, firstEventTime };
}

/** One binlog file of the server, scanned: the state it began with and where each transaction starts. */
export interface FileScan {
  file: string;
  /** The file's GTID list event: the server's position when the file began. */
  startState: string;
  /** GTID events, in file order: the offset of each transaction's start. */
  transactions: readonly { pos: number; gtid: string }[];
}

export type StartDecision =
  | { kind: 'start'; cursor: Cursor; reason: string }
  /** The server's binlogs no longer hold what follows the archive: transactions between are lost to it. */
  | { kind: 'gap'; cursor: Cursor; reason: string }
  /** The archive holds transactions this server does not have: uploading would archive a second history. */
  | { kind: 'diverged'; reason: string };

/**
 * Where a server that has just become master continues the archive: at its first transaction the
 * archive does not hold (by GTID: sequence number above the archive's in its domain). `scans`
 * covers the server's binlog files oldest first; `binlogs` is its list and position.
 */
export function decideStart(archive: ArchiveView, binlogs: ServerBinlogs, scans: readonly FileScan[]): StartDecision {
  const first = scans[0];
  if (!first) return { kind: 'start', cursor: { file: binlogs.current.file, offset: 0 }, reason: 'the server has no binlog yet' };
  if (archive.endState === '')
    return { kind: 'start', cursor: { file: first.file, offset: 0 }, reason: 'empty archive: from the oldest binlog' };
  let serverState = '';
  for (const scan of scans) {
    serverState = mergeGtidState(serverState, scan.startState);
    for (const t of scan.transactions) {
      const [domain, , seq] = t.gtid.split('-').map(Number) as [number, number, number];
      const archived = gtidState(archive.endState).get(domain)?.seq ?? -1;
      if (seq > archived) {
        const cursor = { file: scan.file, offset: t.pos };
        if (!gtidStateCovers(archive.endState, first.startState)) {
          return {
            kind: 'gap',
            cursor,
            reason: `the oldest binlog ${first.file} begins at ${first.startState}, after the archive's ${archive.endState}`,
          };
        }
        return { kind: 'start', cursor, reason: `first transaction after the archive's ${archive.endState}: ${t.gtid} in ${scan.file}` };
      }
      serverState = mergeGtidState(serverState, t.gtid);
    }
  }
  if (!gtidStateCovers(serverState, archive.endState)) {
    return { kind: 'diverged', reason: `the archive reaches ${archive.endState}, this server only ${serverState || 'nothing'}` };
  }
  return {
    kind: 'start',
    cursor: { file: binlogs.current.file, offset: binlogs.current.position },
    reason: `the archive holds every transaction of this server (${archive.endState})`,
  };
}

export type NextDecision =
  | { kind: 'upload'; cursor: Cursor; end: number; closed: boolean }
  | { kind: 'wait'; cursor: Cursor; reason: string }
  /** The cursor's file was purged from the server before it was archived. */
  | { kind: 'gap'; cursor: Cursor; reason: string };

export interface NextInput {
  binlogs: ServerBinlogs;
  cursor: Cursor;
  /** When the open file was last uploaded (ms), or when archiving began. */
  lastOpenUploadAt: number;
  now: number;
  intervalMs: number;
}

/**
 * The next byte range to upload: the rest of a closed file at once; the open file's new
 * transactions once `intervalMs` passed since its last upload. A file archived to its end moves
 * the cursor to the next file.
 */
export function decideNext(input: NextInput): NextDecision {
  const { binlogs } = input;
  let cursor = input.cursor;
  for (;;) {
    const i = binlogs.files.findIndex((f) => f.file === cursor.file);
    if (i < 0) {
      const oldest = binlogs.files[0];
      if (oldest && oldest.file > cursor.file) {
        return { kind: 'gap', cursor: { file: oldest.file, offset: 0 }, reason: `${cursor.file} was purged before it was archived` };
      }
      return { kind: 'wait', cursor, reason: `${cursor.file} is not listed yet` };
    }
    const open = cursor.file === binlogs.current.file;
    const end = open ? binlogs.current.position : binlogs.files[i]!.size;
    if (cursor.offset < end) {
      if (!open) return { kind: 'upload', cursor, end, closed: true };
      const due = input.now - input.lastOpenUploadAt >= input.intervalMs;
      if (due) return { kind: 'upload', cursor, end, closed: false };
      return { kind: 'wait', cursor, reason: 'the open binlog is not due yet' };
    }
    const next = binlogs.files[i + 1];
    if (open || !next) return { kind: 'wait', cursor, reason: 'nothing new' };
    cursor = { file: next.file, offset: 0 };
  }
}

/** What a scanned byte range holds, and where it ends. */
export interface SegmentShape {
  end: number;
  firstTime: number;
  lastTime: number;
  firstGtid: string | null;
  endState: string;
}

/**
 * The segment of `[start, end)` given the events scanned in it: cut at the last transaction start
 * at or below `start + maxBytes` when the range is longer (a single larger transaction is kept
 * whole), with its times, first GTID and the archive's position after it.
 */
export function shapeSegment(
  events: readonly BinlogEvent[],
  start: number,
  end: number,
  stateBefore: string,
  maxBytes = BINLOG_SEGMENT_MAX_BYTES,
): SegmentShape {
  let cut = end;
  if (end - start > maxBytes) {
    const limit = start + maxBytes;
    const starts = events.filter((e) => e.type === EVENT.gtid && e.pos > start && e.pos <= limit);
    const last = starts[starts.length - 1];
    if (last) cut = last.pos;
    else {
      const after = events.find((e) => e.type === EVENT.gtid && e.pos > limit);
      if (after) cut = after.pos;
    }
  }
  const inside = events.filter((e) => e.pos >= start && e.pos < cut);
  const stamped = inside.filter((e) => e.timestamp > 0 && e.type !== EVENT.formatDescription && e.type !== EVENT.gtidList);
  let state = gtidState(stateBefore);
  let firstGtid: string | null = null;
  for (const e of inside) {
    if (!e.gtid) continue;
    firstGtid ??= e.gtid;
    state = gtidState(mergeGtidState(formatGtidState(state), e.gtid));
  }
  return {
    end: cut,
    firstTime: stamped[0]?.timestamp ?? 0,
    lastTime: stamped[stamped.length - 1]?.timestamp ?? 0,
    firstGtid,
    endState: formatGtidState(state),
  };
}
