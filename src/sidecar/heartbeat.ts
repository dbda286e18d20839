// `sidecar heartbeat`: pt-heartbeat's job (`--update --replace --check-read-only --create-table
// --utc`) done through src/mysql. Once per interval, while the server is writable, the row of
// this server in sys_operator.heartbeat gets the current UTC time; it replicates, so each replica's
// lag is its own clock minus the newest row. A read-only server (a replica, or a master not yet
// promoted) is skipped: its heartbeat user has no right to write there anyway.
//
// Unlike pt-heartbeat (which exits after --fail-successive-errors and waits for the kubelet to
// restart it) the loop outlives server restarts: a failed tick drops the connection and the
// next attempt reconnects, with a backoff that resets on success.
import { setTimeout as sleep } from 'node:timers/promises';
import { connectNode, isMysqlError, type ConnectParams, type MysqlNode } from '../mysql/index.ts';

export interface HeartbeatOptions {
  connection: ConnectParams;
  /** Default: the server's own @@server_id, read on each connect. */
  serverId?: number;
  /** Default 1000. */
  intervalMs?: number;
  /** Upper bound of the reconnect backoff; default 10000. */
  maxBackoffMs?: number;
  signal: AbortSignal;
  /** Called once per tick with what happened; for logs and tests. */
  onTick?: (tick: HeartbeatTick) => void;
}

export type HeartbeatTick =
  | { outcome: 'written'; serverId: number }
  | { outcome: 'skipped-read-only' }
  | { outcome: 'error'; kind: string; message: string; retryInMs: number };

/** Resolves when `signal` aborts; never rejects for server trouble. */
export async function runHeartbeat(opts: HeartbeatOptions): Promise<void> {
  const interval = opts.intervalMs ?? 1000;
  const maxBackoff = opts.maxBackoffMs ?? 10000;
  let node: MysqlNode | null = null;
  let serverId = opts.serverId ?? 0;
  let backoff = interval;
  // CREATE TABLE IF NOT EXISTS is binlogged even when the table exists: once per connection.
  let tableReady = false;
  try {
    while (!opts.signal.aborted) {
      let wait = interval;
      try {
        if (!node) {
          tableReady = false;
          node = await connectNode({ connectTimeoutMs: 3000, queryTimeoutMs: 5000, ...opts.connection });
          if (opts.serverId === undefined) serverId = (await node.serverInfo()).serverId;
        }
        if (await node.isReadOnly()) {
          opts.onTick?.({ outcome: 'skipped-read-only' });
        } else {
          if (!tableReady) await node.ensureHeartbeatTable();
          tableReady = true;
          await node.writeHeartbeat(serverId);
          opts.onTick?.({ outcome: 'written', serverId });
        }
        backoff = interval;
      } catch (e) {
        // A read-only error means the server turned read-only between the check and the write:
        // the next tick skips. Anything else: reconnect, backing off.
        const readOnlyRace = isMysqlError(e) && e.kind === 'read-only';
        if (!readOnlyRace) {
          await node?.close().catch(() => undefined);
          node = null;
          wait = backoff;
          backoff = Math.min(backoff * 2, maxBackoff);
        }
        opts.onTick?.({
          outcome: 'error',
          kind: isMysqlError(e) ? e.kind : 'internal',
          message: e instanceof Error ? e.message : String(e),
          retryInMs: wait,
        });
      }
      // An abort only cuts the pause short; the loop's condition ends it.
      await sleep(wait, undefined, { signal: opts.signal }).catch(() => undefined);
    }
  } finally {
    await node?.close().catch(() => undefined);
  }
}
