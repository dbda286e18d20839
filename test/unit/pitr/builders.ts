// Builders for the binlog archive's pure parts: binlog bytes as MariaDB writes them (magic, format
// description, GTID list, transactions of a GTID event and a query event), server binlog lists,
// file scans and archived segments.
import type { BinlogArchiveIndex, BinlogSegment } from '../../../src/api/binlog-archive.ts';
import type { MysqlCluster, MysqlClusterStatus } from '../../../src/api/index.ts';
import { BINLOG_MAGIC, EVENT, HEADER_BYTES } from '../../../src/sidecar/binlog-events.ts';
import type { FileScan, ServerBinlogs } from '../../../src/sidecar/decide-binlog-archive.ts';

const QUERY = 2;

function event(type: number, ts: number, serverId: number, body: Buffer, pos: number): Buffer {
  const size = HEADER_BYTES + body.length + 4;
  const b = Buffer.alloc(size);
  b.writeUInt32LE(ts, 0);
  b[4] = type;
  b.writeUInt32LE(serverId, 5);
  b.writeUInt32LE(size, 9);
  b.writeUInt32LE(pos + size, 13);
  body.copy(b, HEADER_BYTES);
  return b;
}

export interface Tx {
  domain?: number;
  serverId?: number;
  seq: number;
  ts: number;
  /** Bytes of the query event's body (default 30). */
  bytes?: number;
}

/** A binlog file: the header events (state `startState` in the GTID list), then each transaction. */
export function binlogFile(txs: readonly Tx[], startState: readonly [number, number, number][] = []): { bytes: Buffer; starts: number[] } {
  const parts: Buffer[] = [BINLOG_MAGIC];
  let pos = 4;
  const push = (b: Buffer) => {
    parts.push(b);
    pos += b.length;
  };
  push(event(EVENT.formatDescription, 1000, 1, Buffer.alloc(80), pos));
  const list = Buffer.alloc(4 + startState.length * 16);
  list.writeUInt32LE(startState.length, 0);
  startState.forEach(([d, s, n], i) => {
    list.writeUInt32LE(d, 4 + i * 16);
    list.writeUInt32LE(s, 8 + i * 16);
    list.writeBigUInt64LE(BigInt(n), 12 + i * 16);
  });
  push(event(EVENT.gtidList, 1000, 1, list, pos));
  const starts: number[] = [];
  for (const t of txs) {
    starts.push(pos);
    const g = Buffer.alloc(19);
    g.writeBigUInt64LE(BigInt(t.seq), 0);
    g.writeUInt32LE(t.domain ?? 0, 8);
    push(event(EVENT.gtid, t.ts, t.serverId ?? 1, g, pos));
    push(event(QUERY, t.ts, t.serverId ?? 1, Buffer.alloc(t.bytes ?? 30, 0x61), pos));
  }
  return { bytes: Buffer.concat(parts), starts };
}

export function binlogs(files: readonly [string, number][], current: [string, number]): ServerBinlogs {
  return { files: files.map(([file, size]) => ({ file, size })), current: { file: current[0], position: current[1] } };
}

export function scan(file: string, startState: string, transactions: readonly [number, string][]): FileScan {
  return { file, startState, transactions: transactions.map(([pos, gtid]) => ({ pos, gtid })) };
}

export function segment(over: Partial<BinlogSegment> & Pick<BinlogSegment, 'seq' | 'endState'>): BinlogSegment {
  return {
    serverId: 101,
    file: 'mysql-bin.000001',
    start: 0,
    end: 1000,
    firstTime: 1700000000,
    lastTime: 1700000060,
    firstGtid: null,
    ...over,
  };
}

/** A cluster archiving its binlogs (or not, with `enabled: false`), with the status given. */
export function archivingCluster(
  over: { enabled?: boolean; intervalSeconds?: number; status?: MysqlClusterStatus; mysqlVersion?: string } = {},
): MysqlCluster {
  return {
    apiVersion: 'mysql.presslabs.org/v1alpha1',
    kind: 'MysqlCluster',
    metadata: { name: 'my-db', namespace: 'default' },
    spec: {
      secretName: 'my-db-secret',
      mysqlVersion: over.mysqlVersion ?? 'mariadb-10.11',
      backupURL: 's3://backups/my-db/',
      backupSecretName: 'backup-creds',
      binlogArchive: { enabled: over.enabled ?? true, ...(over.intervalSeconds ? { intervalSeconds: over.intervalSeconds } : {}) },
    },
    ...(over.status ? { status: over.status } : {}),
  };
}

export function archiveIndex(over: Partial<BinlogArchiveIndex> = {}): BinlogArchiveIndex {
  return {
    version: 1,
    firstEventTime: Date.parse('2026-01-01T00:00:00Z') / 1000,
    completeUpTo: Date.parse('2026-01-02T03:00:00Z') / 1000,
    endState: '0-101-420',
    lastSeq: 77,
    lastServerId: 101,
    updatedAt: '2026-01-02T03:00:00.000Z',
    ...over,
  };
}
