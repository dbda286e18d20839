// The client of the failover and switchover scenarios: one INSERT every 100 ms through a Service,
// each on a new connection (as an application's pool reconnects after a failover), each recorded
// as acknowledged or not. Writes do not wait for each other, so a hung connection does not hide
// the moment writes are accepted again.
import mysql from 'mysql2/promise';

export interface WriteRecord {
  id: number;
  startedAt: number;
  /** When the server acknowledged the INSERT; undefined when it failed. */
  ackedAt?: number;
  error?: string;
}

export interface WriterTarget {
  host: string;
  user: string;
  password: string;
  /** Database and table the writes go to, created beforehand: `id INT PRIMARY KEY`. */
  table: string;
  /** Give-up times of a write's connect and INSERT (default 2 s and 3 s): the chaos suite's delayed links take longer. */
  connectTimeoutMs?: number;
  queryTimeoutMs?: number;
}

export class WritingClient {
  readonly records: WriteRecord[] = [];
  #next: number;
  #timer: NodeJS.Timeout | undefined;
  #inFlight = new Set<Promise<void>>();
  #target: WriterTarget;

  /** `firstId` keeps the ids of successive clients on one table apart. */
  constructor(target: WriterTarget, firstId: number) {
    this.#target = target;
    this.#next = firstId;
  }

  start(everyMs = 100): void {
    this.#timer = setInterval(() => {
      const p = this.#write(this.#next++);
      this.#inFlight.add(p);
      void p.finally(() => this.#inFlight.delete(p));
    }, everyMs);
  }

  /** Stops writing and waits for the writes in flight to end either way. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await Promise.all(this.#inFlight);
  }

  acked(): number[] {
    return this.records
      .filter((r) => r.ackedAt !== undefined)
      .map((r) => r.id)
      .sort((a, b) => a - b);
  }

  failed(): WriteRecord[] {
    return this.records.filter((r) => r.ackedAt === undefined);
  }

  /** The first write begun at or after `t` that was acknowledged, or undefined. */
  firstAckedAfter(t: number): WriteRecord | undefined {
    return this.records.filter((r) => r.startedAt >= t && r.ackedAt !== undefined).sort((a, b) => a.ackedAt! - b.ackedAt!)[0];
  }

  /** The longest time between two consecutive acknowledgements (ms). */
  longestGap(): number {
    const span = this.longestGapSpan();
    return span ? span.to - span.from : 0;
  }

  /** The two consecutive acknowledgements furthest apart (ms since the epoch), if there are two. */
  longestGapSpan(): { from: number; to: number } | undefined {
    const acks = this.records.flatMap((r) => (r.ackedAt === undefined ? [] : [r.ackedAt])).sort((a, b) => a - b);
    let span: { from: number; to: number } | undefined;
    for (let i = 1; i < acks.length; i++) {
      if (!span || acks[i]! - acks[i - 1]! > span.to - span.from) span = { from: acks[i - 1]!, to: acks[i]! };
    }
    return span;
  }

  async #write(id: number): Promise<void> {
    const rec: WriteRecord = { id, startedAt: Date.now() };
    this.records.push(rec);
    let conn: mysql.Connection | undefined;
    try {
      conn = await mysql.createConnection({
        host: this.#target.host,
        port: 3306,
        user: this.#target.user,
        password: this.#target.password,
        connectTimeout: this.#target.connectTimeoutMs ?? 2000,
      });
      await conn.query({ sql: `INSERT INTO ${this.#target.table} (id) VALUES (?)`, timeout: this.#target.queryTimeoutMs ?? 3000 }, [id]);
      rec.ackedAt = Date.now();
    } catch (e) {
      rec.error = (e as Error).message;
    } finally {
      conn?.destroy();
    }
  }
}

/**
 * The errors of the writes begun in [from, to), grouped by message (numbers masked), each with
 * its count and when it was first and last seen (s after `from`): what an outage consisted of.
 */
export function failureSummary(w: WritingClient, from: number, to: number): string {
  const groups = new Map<string, { n: number; first: number; last: number }>();
  for (const r of w.records) {
    if (r.startedAt < from || r.startedAt >= to || r.error === undefined) continue;
    const key = r.error.replace(/\d+(\.\d+)*/g, 'N').slice(0, 100);
    const g = groups.get(key) ?? { n: 0, first: r.startedAt, last: r.startedAt };
    g.n += 1;
    g.last = r.startedAt;
    groups.set(key, g);
  }
  const s = (t: number) => `+${((t - from) / 1000).toFixed(1)}`;
  return [...groups].map(([k, g]) => `${g.n}× "${k}" (${s(g.first)}..${s(g.last)} s)`).join('; ') || 'none';
}
