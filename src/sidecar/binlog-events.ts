// Reading MariaDB binlog event headers (pure): enough of the format to cut a binlog at transaction
// boundaries, name a piece by its first transaction and times, and find where a server's binlog
// continues an archive. Format (v4, MariaDB's "Binary log event definitions"): the file starts
// with the magic `fe 62 69 6e`; every event with a 19-byte header: timestamp u32, type u8,
// server_id u32, event_size u32 (header, body and checksum), next position u32, flags u16, all
// little-endian. A GTID event (162) starts a transaction: seq_no u64, domain_id u32 follow the
// header. A GTID list event (163) says the binlog state when the file began: count u32 (low 28
// bits), then count × (domain u32, server_id u32, seq_no u64).

export const BINLOG_MAGIC = Buffer.from([0xfe, 0x62, 0x69, 0x6e]);
export const HEADER_BYTES = 19;
export const EVENT = { formatDescription: 15, gtid: 162, gtidList: 163 } as const;

export interface BinlogEvent {
  /** Offset in the file. */
  pos: number;
  type: number;
  timestamp: number;
  serverId: number;
  size: number;
  /** For a GTID event: `domain-server-seq`. */
  gtid?: string;
  /** For a GTID list event: the state it lists, `d-s-n,...`. */
  gtidList?: string;
}

export interface ScanResult {
  events: BinlogEvent[];
  /** File offset of the first byte not consumed (an event cut off by the buffer's end starts there). */
  next: number;
}

/**
 * The complete events of `buf`, whose first byte is at file offset `base` and starts an event
 * (or the magic, when `base` is 0). Throws on bytes that cannot be a binlog (bad magic, an event
 * smaller than its header), naming the offset.
 */
export function scanEvents(buf: Buffer, base: number): ScanResult {
  let i = 0;
  if (base === 0) {
    if (buf.length < 4) return { events: [], next: 0 };
    if (!buf.subarray(0, 4).equals(BINLOG_MAGIC)) throw new Error('not a binlog: bad magic number');
    i = 4;
  }
  const events: BinlogEvent[] = [];
  while (i + HEADER_BYTES <= buf.length) {
    const size = buf.readUInt32LE(i + 9);
    if (size < HEADER_BYTES) throw new Error(`corrupt binlog at offset ${base + i}: event size ${size}`);
    if (i + size > buf.length) break;
    const e: BinlogEvent = { pos: base + i, type: buf[i + 4]!, timestamp: buf.readUInt32LE(i), serverId: buf.readUInt32LE(i + 5), size };
    if (e.type === EVENT.gtid && size >= HEADER_BYTES + 12) {
      const seq = buf.readBigUInt64LE(i + HEADER_BYTES);
      const domain = buf.readUInt32LE(i + HEADER_BYTES + 8);
      e.gtid = `${domain}-${e.serverId}-${seq}`;
    } else if (e.type === EVENT.gtidList && size >= HEADER_BYTES + 4) {
      const count = buf.readUInt32LE(i + HEADER_BYTES) & 0x0fffffff;
      const parts: string[] = [];
      for (let k = 0; k < count && HEADER_BYTES + 4 + (k + 1) * 16 <= size; k++) {
        const o = i + HEADER_BYTES + 4 + k * 16;
        parts.push(`${buf.readUInt32LE(o)}-${buf.readUInt32LE(o + 4)}-${buf.readBigUInt64LE(o + 8)}`);
      }
      e.gtidList = parts.join(',');
    }
    events.push(e);
    i += size;
  }
  return { events, next: base + i };
}

/** Where the file's magic and format description event end: what precedes a piece cut from its middle. */
export function headerEnd(buf: Buffer): number {
  const { events } = scanEvents(buf.subarray(0, Math.min(buf.length, 4 + 65536)), 0);
  const fde = events[0];
  if (!fde || fde.type !== EVENT.formatDescription) throw new Error('binlog does not start with a format description event');
  return fde.pos + fde.size;
}
