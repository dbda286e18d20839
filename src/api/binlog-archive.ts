// The binlog archive's layout (docs/pitr.md): what the sidecar writes beside a cluster's backups and
// what a restore and the status read back. Pure; the names are the only metadata a reader needs,
// so a listing is enough to plan a replay, and the index object is a summary for the status.
//
//   <backup folder>/binlogs/<seq>_<serverId>_<firstTime>_<lastTime>_<firstGtid>_<endState>_<start>-<end>_<file>
//   <backup folder>/binlogs/index.json
//
// seq: 10 digits, the archive's order (each upload takes the last seq + 1); serverId: the master
// that uploaded it; first/lastTime: unix seconds of its first and last event ('0' when it holds
// no event); firstGtid: its first transaction (`none` without one); endState: the archive's GTID
// position after it (per domain, `d-s-n` joined by `,`; `none` when empty); start-end: the byte
// range of `file` on that server. Each object is a binlog file of its own: a range that does not
// start at the file's beginning is preceded by the file's magic number and format description
// event, so `mariadb-binlog <object>` reads it.

/** The folder under a cluster's backup folder. */
export const BINLOG_ARCHIVE_FOLDER = 'binlogs/';
export const BINLOG_ARCHIVE_INDEX = 'index.json';
/** How often the open binlog is uploaded when the cluster does not say (seconds). */
export const DEFAULT_BINLOG_ARCHIVE_INTERVAL_SECONDS = 60;
/** The largest byte range one object holds (cut at a transaction's start when one lies inside). */
export const BINLOG_SEGMENT_MAX_BYTES = 64 << 20;

export interface BinlogSegment {
  seq: number;
  serverId: number;
  file: string;
  start: number;
  end: number;
  firstTime: number;
  lastTime: number;
  firstGtid: string | null;
  /** The archive's GTID position once this segment is applied (MariaDB `domain-server-seq,...`). */
  endState: string;
}

/** What the uploader writes after each upload: a summary a status reader fetches in one GET. */
export interface BinlogArchiveIndex {
  version: 1;
  /** The first event the archive holds (unix seconds), and the position before it. */
  firstEventTime: number;
  /** Up to when the archive holds every transaction of the master: the time of its last complete check (unix seconds). */
  completeUpTo: number;
  endState: string;
  lastSeq: number;
  lastServerId: number;
  updatedAt: string;
}

/** The folder of the archive for a cluster's `backupURL` (a folder, or an object whose folder is used). */
export function binlogArchiveUrl(backupURL: string): string {
  const folder = backupURL.endsWith('/')
    ? backupURL
    : /\.xbackup\.(gz|zst)$/.test(backupURL)
      ? backupURL.slice(0, backupURL.lastIndexOf('/') + 1)
      : `${backupURL}/`;
  return `${folder}${BINLOG_ARCHIVE_FOLDER}`;
}

const NONE = 'none';

export function segmentName(s: BinlogSegment): string {
  if (s.file.includes('/')) throw new Error(`binlog file name ${s.file} has a slash`);
  return [
    String(s.seq).padStart(10, '0'),
    String(s.serverId),
    String(s.firstTime),
    String(s.lastTime),
    s.firstGtid ?? NONE,
    s.endState === '' ? NONE : s.endState,
    `${s.start}-${s.end}`,
    s.file,
  ].join('_');
}

const NAME = /^(\d{10})_(\d+)_(\d+)_(\d+)_([\d-]+|none)_([\d,-]+|none)_(\d+)-(\d+)_([^/]+)$/;

/** The segment an object's base name stands for; null for anything else (the index, a stranger's file). */
export function parseSegmentName(name: string): BinlogSegment | null {
  const m = NAME.exec(name);
  if (!m) return null;
  const start = Number(m[7]);
  const end = Number(m[8]);
  if (end <= start) return null;
  return {
    seq: Number(m[1]),
    serverId: Number(m[2]),
    firstTime: Number(m[3]),
    lastTime: Number(m[4]),
    firstGtid: m[5] === NONE ? null : m[5]!,
    endState: m[6] === NONE ? '' : m[6]!,
    start,
    end,
    file: m[9]!,
  };
}

/** Highest sequence number per GTID domain of a MariaDB position (`0-101-7,1-102-3`). */
export function gtidState(pos: string): Map<number, { serverId: number; seq: number }> {
  const out = new Map<number, { serverId: number; seq: number }>();
  for (const part of pos.split(',')) {
    const m = /^\s*(\d+)-(\d+)-(\d+)\s*$/.exec(part);
    if (!m) continue;
    const domain = Number(m[1]);
    const seq = Number(m[3]);
    if ((out.get(domain)?.seq ?? -1) < seq) out.set(domain, { serverId: Number(m[2]), seq });
  }
  return out;
}

export function formatGtidState(state: ReadonlyMap<number, { serverId: number; seq: number }>): string {
  return [...state.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([d, v]) => `${d}-${v.serverId}-${v.seq}`)
    .join(',');
}

/** The position holding both (per domain, the higher sequence number). */
export function mergeGtidState(a: string, b: string): string {
  const out = gtidState(a);
  for (const [d, v] of gtidState(b)) if ((out.get(d)?.seq ?? -1) < v.seq) out.set(d, v);
  return formatGtidState(out);
}

/** True when position `a` holds transaction or position `b` (every domain of `b` at or below `a`'s). */
export function gtidStateCovers(a: string, b: string): boolean {
  const as = gtidState(a);
  for (const [d, v] of gtidState(b)) if ((as.get(d)?.seq ?? -1) < v.seq) return false;
  return true;
}
