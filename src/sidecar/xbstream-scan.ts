// Reads the file names of an xbstream as it passes and keeps the contents of a few small files
// (the backup's xtrabackup_binlog_info), without copying or holding the rest. This is how
// `take-backup-to` learns the backup's binlog/GTID position from the stream it relays, from an
// anchor sidecar as well as ours, with no change to the /xbackup protocol.
//
// Chunk layout (MariaDB extra/mariabackup/xbstream_write.cc, Percona xbstream v1): "XBSTCK01",
// flags (1 byte), type (1: 'P' payload, 'E' end of file), path length (4, LE), path, and for 'P':
// payload length (8, LE), offset (8), CRC32 (4), payload. Anything else (Percona's sparse 'S'
// chunks, a stream that is not xbstream) stops the scan, not the stream: the position is then
// unknown, the backup unaffected.
import { Transform } from 'node:stream';

const MAGIC = Buffer.from('XBSTCK01');
const FIXED = MAGIC.length + 1 + 1 + 4;
const PAYLOAD_HEADER = 8 + 8 + 4;
/** Files larger than this are not kept, whatever their name. */
const MAX_KEPT = 64 << 10;

export interface XbstreamScan {
  /** Passes every byte through unchanged. */
  stream: Transform;
  /** The contents of the wanted files seen so far. */
  files(): ReadonlyMap<string, string>;
  /** Why the scan stopped early, if it did. */
  stoppedBecause(): string | undefined;
}

export function scanXbstream(wanted: readonly string[]): XbstreamScan {
  const kept = new Map<string, Buffer[]>();
  let head = Buffer.alloc(0);
  let payloadLeft = 0;
  let keeping: Buffer[] | undefined;
  let stopped: string | undefined;

  /** Bytes the header in `head` still needs, 0 when it is complete; sets `stopped` when it is not xbstream. */
  function headerNeeds(): number {
    if (head.length < FIXED) return FIXED - head.length;
    if (!head.subarray(0, MAGIC.length).equals(MAGIC)) {
      stopped = 'not an xbstream chunk';
      return 0;
    }
    const type = String.fromCharCode(head[MAGIC.length + 1]!);
    const pathLen = head.readUInt32LE(MAGIC.length + 2);
    const total = FIXED + pathLen + (type === 'P' ? PAYLOAD_HEADER : 0);
    if (type !== 'P' && type !== 'E') stopped = `chunk type '${type}'`;
    return Math.max(0, total - head.length);
  }

  function onHeader(): void {
    const type = String.fromCharCode(head[MAGIC.length + 1]!);
    const pathLen = head.readUInt32LE(MAGIC.length + 2);
    if (type !== 'P') return;
    const path = head.toString('utf8', FIXED, FIXED + pathLen);
    payloadLeft = Number(head.readBigUInt64LE(FIXED + pathLen));
    keeping = undefined;
    if (wanted.includes(path) && payloadLeft <= MAX_KEPT) {
      keeping = kept.get(path) ?? [];
      kept.set(path, keeping);
    }
  }

  function feed(chunk: Buffer): void {
    let off = 0;
    while (stopped === undefined && off < chunk.length) {
      if (payloadLeft > 0) {
        const n = Math.min(payloadLeft, chunk.length - off);
        keeping?.push(Buffer.from(chunk.subarray(off, off + n)));
        payloadLeft -= n;
        off += n;
        continue;
      }
      const need = headerNeeds();
      if (stopped !== undefined) break;
      if (need > 0) {
        const n = Math.min(need, chunk.length - off);
        head = Buffer.concat([head, chunk.subarray(off, off + n)]);
        off += n;
        if (n < need || headerNeeds() > 0) continue;
        if (stopped !== undefined) break;
      }
      onHeader();
      head = Buffer.alloc(0);
    }
  }

  const stream = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (stopped === undefined) feed(chunk);
      cb(null, chunk);
    },
  });
  return {
    stream,
    files: () => new Map([...kept].map(([k, v]) => [k, Buffer.concat(v).toString('utf8')])),
    stoppedBecause: () => stopped,
  };
}
