// One MySQL/MariaDB server, spoken to in the project's terms. The only module that talks to a
// server: it holds one mysql2 connection (grants given after connecting reach only new
// connections, docs/field-notes.md, so there is no long-lived pool), detects the flavour on connect,
// serialises its operations (several statements share session state such as sql_log_bin) and
// reconnects on the next call after the connection broke.
import mysql from 'mysql2/promise';
import type { Connection } from 'mysql2/promise';
import {
  accountSchemaGrantsQuery,
  accountTableGrantsQuery,
  accountUserRowsQuery,
  changeStatement,
  databaseQuery,
  parseAccounts,
  parseDatabase,
  type AdminChange,
  type ObservedAccount,
  type ObservedDatabase,
} from './accounts.ts';
import { fromDriverError, MysqlError } from './errors.ts';
import { flavourFromServer, hasSuperReadOnly, type Flavour } from './flavour.ts';
import { compactGtidSet } from './gtid-set.ts';
import {
  createHeartbeatTableStatement,
  getStatusStatement,
  heartbeatLagQuery,
  setStatusStatement,
  STATUS,
  writeHeartbeatStatement,
  type HeartbeatPosition,
} from './operator-schema.ts';
import {
  changeMasterStatement,
  gtidExecutedQuery,
  gtidHistoryQuery,
  gtidSlavePosQuery,
  readOnlyQuery,
  resetReplicationStatement,
  seedGtidStatements,
  sessionBinlogStatement,
  setReadOnlyStatements,
  showBinaryLogsStatement,
  showBinlogStatusStatement,
  showReplicationStatusStatement,
  startReplicationStatement,
  stopReplicationStatement,
  type PointAtOptions,
} from './replication-statements.ts';
import { normalizeReplicationStatus, type ReplicationStatus } from './replication-status.ts';
import { clientSessionsQuery, killConnectionStatement, semiSyncWaitersQuery } from './fence.ts';
import { render, stmt, type Statement } from './sql-text.ts';
import {
  ioThreadStatements,
  parseSemiSyncState,
  semiSyncChanges,
  semiSyncPluginsStatement,
  showSemiSyncStatusStatement,
  showSemiSyncVariablesStatement,
  type SemiSyncState,
  type SemiSyncWanted,
} from './semi-sync.ts';
import type { Credentials } from './system-users.ts';

/** Where a server listens (and where a replica's CHANGE MASTER must point). */
export interface Endpoint {
  host: string;
  port: number;
}

export interface ConnectParams extends Endpoint {
  user: string;
  password: string;
  /** Default 5000. */
  connectTimeoutMs?: number;
  /** Per statement; default 30000. */
  queryTimeoutMs?: number;
}

export interface ServerInfo {
  flavour: Flavour;
  version: string;
  versionComment: string;
  serverId: number;
  hostname: string;
  reportHost: string | null;
  logBin: boolean;
  /** MySQL gtid_executed, MariaDB gtid_current_pos. */
  gtidExecuted: string;
}

export interface ReadOnlyState {
  readOnly: boolean;
  /** Null on MariaDB, which has no super_read_only. */
  superReadOnly: boolean | null;
}

/** What killClientSessions did: `readOnly` false means it found the server writable and killed nothing. */
export interface KilledSessions {
  readOnly: boolean;
  /** The accounts of the sessions killed, one entry per session. */
  killed: string[];
}

/** Where the server's own binlog ends (SHOW MASTER STATUS); null with the binlog off. */
export interface BinlogPosition {
  file: string;
  position: number;
}

export interface SeedResult {
  seeded: boolean;
  /** The backup's GTID set, when the datadir came from a backup. */
  gtid: string | null;
}

export interface MysqlNode {
  readonly host: string;
  readonly port: number;
  /** As detected on connect. */
  readonly flavour: Flavour;
  serverInfo(): Promise<ServerInfo>;
  isReadOnly(): Promise<boolean>;
  readOnlyState(): Promise<ReadOnlyState>;
  /** MySQL: read_only and super_read_only together; MariaDB: read_only. */
  setReadOnly(readOnly: boolean): Promise<void>;
  /**
   * The fence on demotion (fence.ts): once read_only is on, kills every client session (not the
   * replication threads, not this session, not the sessions of `spare`, the system users). On a
   * writable server it kills nothing (a killed client would reconnect and write) and says so.
   */
  killClientSessions(spare: readonly string[]): Promise<KilledSessions>;
  /** Null when no replication is configured. */
  replicationStatus(): Promise<ReplicationStatus | null>;
  /** Stops replication and points it at `source` (GTID auto-position / slave_pos by default); does not start it. */
  pointAt(source: Endpoint, creds: Credentials, opts?: PointAtOptions): Promise<void>;
  startReplication(): Promise<void>;
  stopReplication(): Promise<void>;
  /** Stops replication and forgets the master. */
  resetReplication(): Promise<void>;
  /** Seeds GTID state (gtid_purged / gtid_slave_pos) and records it as `set_gtid_purged`. */
  seedGtid(gtid: string): Promise<void>;
  /** After a clone or restore: seeds `backup_gtid_purged` once; a second call does nothing. */
  seedGtidAfterClone(): Promise<SeedResult>;
  gtidExecuted(): Promise<string>;
  /** What `extraGtids` compares: MySQL gtid_executed, MariaDB gtid_binlog_state. */
  gtidHistory(): Promise<string>;
  binlogPosition(): Promise<BinlogPosition | null>;
  /** SHOW BINARY LOGS: every binlog file and its size, oldest first; [] with the binlog off. */
  binaryLogs(): Promise<{ file: string; size: number }[]>;
  /**
   * Runs a query that configuration supplies as text (Orchestrator's DetectClusterAliasQuery,
   * ReplicationCredentialsQuery) and returns the first row's columns as text; [] without a row.
   */
  firstRowOf(query: string): Promise<string[]>;
  /** Every host of `user` with its password hash, limits and schema/table grants (accounts.ts). */
  accounts(user: string): Promise<ObservedAccount[]>;
  /** A schema's defaults; null when it does not exist. */
  database(name: string): Promise<ObservedDatabase | null>;
  /** Runs the changes in order; they are binlogged, so they replicate. Stops at the first failure. */
  applyChanges(changes: readonly AdminChange[]): Promise<void>;
  getStatusValue(name: string): Promise<string | null>;
  /** Semi-sync variables and status (semi-sync.ts). */
  semiSyncState(): Promise<SemiSyncState>;
  /** Brings semi-sync to `wanted` (plugins, master side, replica side); what it ran, for Events. */
  setSemiSync(wanted: SemiSyncWanted): Promise<{ changed: boolean; ioThreadRestarted: boolean }>;
  /** Written with the binlog off: sys_operator.status is per node. Works on a read-only server. */
  setStatusValue(name: string, value: string): Promise<void>;
  isConfigured(): Promise<boolean>;
  markConfigured(): Promise<void>;
  /** Seconds since the newest sys_operator.heartbeat row, ≥ 0; null without a row or table. */
  heartbeatLag(): Promise<number | null>;
  /** Creates the heartbeat table if needed (replicated, like pt-heartbeat --create-table). */
  ensureHeartbeatTable(): Promise<void>;
  /** Upserts this server's heartbeat row with its binlog and replication positions. */
  writeHeartbeat(serverId: number): Promise<void>;
  close(): Promise<void>;
}

type Row = Record<string, unknown>;

const ER_NO_SUCH_TABLE = 1146;
const ER_BAD_DB_ERROR = 1049;

/** The operator's schema or table is not there (yet): the init-file or the operator creates it. */
function isMissingTable(e: unknown): boolean {
  return e instanceof MysqlError && (e.errno === ER_NO_SUCH_TABLE || e.errno === ER_BAD_DB_ERROR);
}

const ER_NO_SUCH_THREAD = 1094;

// 1199 replica not running, 1200 not configured as a replica, 3074 channel does not exist (MySQL 8)
const NOT_A_RUNNING_REPLICA = new Set([1199, 1200, 3074]);

class Node implements MysqlNode {
  readonly host: string;
  readonly port: number;
  flavour: Flavour;
  private readonly params: ConnectParams;
  private conn: Connection | null;
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(params: ConnectParams, conn: Connection, flavour: Flavour) {
    this.params = params;
    this.host = params.host;
    this.port = params.port;
    this.conn = null;
    this.flavour = flavour;
    this.adopt(conn);
  }

  /** A connection the server closed is forgotten at once, so the next call reconnects. */
  private adopt(conn: Connection): void {
    this.conn = conn;
    const forget = (): void => {
      if (this.conn === conn) this.conn = null;
    };
    conn.once('end', forget);
    conn.once('error', forget);
  }

  private get where(): string {
    return `mysql ${this.host}:${this.port}`;
  }

  /** Runs `fn` alone on this node; a broken connection is replaced first. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      if (this.closed) throw new Error(`${this.where}: used after close()`);
      if (!this.conn) {
        const { conn, flavour } = await openConnection(this.params);
        this.adopt(conn);
        this.flavour = flavour;
      }
      return fn();
    };
    const p = this.tail.then(run, run);
    this.tail = p.catch(() => undefined);
    return p;
  }

  private async q(s: Statement): Promise<Row[]> {
    const conn = this.conn;
    if (!conn) throw new MysqlError('unreachable', `${this.where}: not connected`);
    try {
      const [rows] = await conn.query({ sql: render(s), timeout: this.params.queryTimeoutMs ?? 30000 });
      return Array.isArray(rows) ? (rows as Row[]) : [];
    } catch (e) {
      const err = fromDriverError(e, this.where, s);
      if (err.kind === 'unreachable' || err.kind === 'timeout' || (e as { fatal?: boolean }).fatal) this.drop();
      throw err;
    }
  }

  private drop(): void {
    const c = this.conn;
    this.conn = null;
    c?.destroy();
  }

  private async readOnlyNow(): Promise<ReadOnlyState> {
    const row = (await this.q(readOnlyQuery(this.flavour)))[0] ?? {};
    return {
      readOnly: Number(row.read_only) === 1,
      superReadOnly: hasSuperReadOnly(this.flavour) ? Number(row.super_read_only) === 1 : null,
    };
  }

  private async gtidNow(): Promise<string> {
    return compactGtidSet(String((await this.q(gtidExecutedQuery(this.flavour)))[0]?.gtid ?? ''));
  }

  private async statusValue(name: string): Promise<string | null> {
    try {
      const row = (await this.q(getStatusStatement(name)))[0];
      return row ? String(row.value) : null;
    } catch (e) {
      if (isMissingTable(e)) return null;
      throw e;
    }
  }

  /**
   * Runs `fn` with the binlog off for this session (per-node bookkeeping neither replicates nor
   * creates a GTID of its own) and, on MySQL, with super_read_only lifted: it blocks even the
   * operator's own writes (status rows, gtid_purged). read_only stays on throughout, so ordinary
   * users never see a writable server; super_read_only is put back afterwards.
   */
  private async unlogged<T>(fn: () => Promise<T>): Promise<T> {
    const lift = hasSuperReadOnly(this.flavour) && (await this.readOnlyNow()).superReadOnly === true;
    try {
      await this.q(sessionBinlogStatement(false));
      if (lift) await this.q(stmt('SET GLOBAL super_read_only = 0'));
      return await fn();
    } finally {
      try {
        if (lift) await this.q(stmt('SET GLOBAL super_read_only = 1'));
        await this.q(sessionBinlogStatement(true));
      } catch {
        // A session left with the binlog off must not be reused for replicated writes.
        this.drop();
      }
    }
  }

  private async writeStatus(name: string, value: string): Promise<void> {
    await this.unlogged(() => this.q(setStatusStatement(name, value)));
  }

  /** STOP is idempotent here: a server that is no replica, or whose threads stopped, is fine. */
  private async stopThreads(): Promise<void> {
    try {
      await this.q(stopReplicationStatement(this.flavour));
    } catch (e) {
      if (!(e instanceof MysqlError && e.errno !== undefined && NOT_A_RUNNING_REPLICA.has(e.errno))) throw e;
    }
  }

  serverInfo(): Promise<ServerInfo> {
    return this.exclusive(async () => {
      const row =
        (
          await this.q(
            stmt(
              'SELECT VERSION() AS version, @@version_comment AS comment, @@server_id AS server_id, ' +
                '@@hostname AS hostname, @@report_host AS report_host, @@log_bin AS log_bin',
            ),
          )
        )[0] ?? {};
      const gtidExecuted = await this.gtidNow();
      return {
        flavour: this.flavour,
        version: String(row.version ?? ''),
        versionComment: String(row.comment ?? ''),
        serverId: Number(row.server_id),
        hostname: String(row.hostname ?? ''),
        reportHost: row.report_host === null || row.report_host === undefined ? null : String(row.report_host),
        logBin: Number(row.log_bin) === 1,
        gtidExecuted,
      };
    });
  }

  isReadOnly(): Promise<boolean> {
    return this.exclusive(async () => (await this.readOnlyNow()).readOnly);
  }

  readOnlyState(): Promise<ReadOnlyState> {
    return this.exclusive(() => this.readOnlyNow());
  }

  setReadOnly(readOnly: boolean): Promise<void> {
    return this.exclusive(async () => {
      // A commit waiting for an acknowledgement that will not come would hold SET read_only for
      // ever: its connection is closed first, so its client gets an error, never a success.
      if (readOnly) for (const row of await this.q(semiSyncWaitersQuery())) await this.killIgnoringGone(String(row.id));
      for (const s of setReadOnlyStatements(this.flavour, readOnly)) await this.q(s);
    });
  }

  killClientSessions(spare: readonly string[]): Promise<KilledSessions> {
    return this.exclusive(async () => {
      const ro = await this.readOnlyNow();
      if (!ro.readOnly) return { readOnly: false, killed: [] };
      const killed: string[] = [];
      for (const row of await this.q(clientSessionsQuery(spare))) {
        if (await this.killIgnoringGone(String(row.id))) killed.push(String(row.user));
      }
      return { readOnly: true, killed };
    });
  }

  /** KILL CONNECTION; false when the session ended between the list and the kill. */
  private async killIgnoringGone(id: string): Promise<boolean> {
    try {
      await this.q(killConnectionStatement(id));
      return true;
    } catch (e) {
      if (e instanceof MysqlError && e.errno === ER_NO_SUCH_THREAD) return false;
      throw e;
    }
  }

  private async replicationNow(): Promise<ReplicationStatus | null> {
    const rows = await this.q(showReplicationStatusStatement(this.flavour));
    if (rows.length === 0 || this.flavour.family !== 'mariadb') return normalizeReplicationStatus(rows);
    const pos = (await this.q(gtidSlavePosQuery()))[0]?.gtid;
    return normalizeReplicationStatus(rows, String(pos ?? ''));
  }

  replicationStatus(): Promise<ReplicationStatus | null> {
    return this.exclusive(() => this.replicationNow());
  }

  private async semiSyncNow(): Promise<SemiSyncState> {
    const variables = await this.q(showSemiSyncVariablesStatement());
    const status = await this.q(showSemiSyncStatusStatement());
    const plugins = this.flavour.family === 'mariadb' ? [] : (await this.q(semiSyncPluginsStatement())).map((r) => String(r.name));
    return parseSemiSyncState(this.flavour, variables as never, status as never, plugins);
  }

  semiSyncState(): Promise<SemiSyncState> {
    return this.exclusive(() => this.semiSyncNow());
  }

  setSemiSync(wanted: SemiSyncWanted): Promise<{ changed: boolean; ioThreadRestarted: boolean }> {
    return this.exclusive(async () => {
      const changes = semiSyncChanges(this.flavour, await this.semiSyncNow(), wanted);
      for (const s of changes.statements) await this.q(s);
      let ioThreadRestarted = false;
      const io0 = changes.restartIoThread ? (await this.replicationNow())?.ioState : undefined;
      if (io0 !== undefined && io0 !== 'stopped') {
        const io = ioThreadStatements(this.flavour);
        await this.q(io.stop);
        await this.q(io.start);
        ioThreadRestarted = true;
      }
      return { changed: changes.statements.length > 0, ioThreadRestarted };
    });
  }

  pointAt(source: Endpoint, creds: Credentials, opts?: PointAtOptions): Promise<void> {
    const change = changeMasterStatement(this.flavour, source, creds, opts);
    return this.exclusive(async () => {
      await this.stopThreads();
      try {
        await this.q(change);
      } catch (e) {
        throw asReplicationError(e);
      }
    });
  }

  startReplication(): Promise<void> {
    return this.exclusive(async () => {
      try {
        await this.q(startReplicationStatement(this.flavour));
      } catch (e) {
        throw asReplicationError(e);
      }
    });
  }

  stopReplication(): Promise<void> {
    return this.exclusive(async () => {
      await this.stopThreads();
    });
  }

  resetReplication(): Promise<void> {
    return this.exclusive(async () => {
      await this.stopThreads();
      await this.q(resetReplicationStatement(this.flavour));
    });
  }

  private async seed(gtid: string): Promise<void> {
    await this.stopThreads();
    await this.unlogged(async () => {
      try {
        for (const s of seedGtidStatements(this.flavour, gtid)) await this.q(s);
      } catch (e) {
        throw asReplicationError(e);
      }
      await this.q(setStatusStatement(STATUS.setGtidPurged, gtid));
    });
  }

  seedGtid(gtid: string): Promise<void> {
    return this.exclusive(() => this.seed(gtid));
  }

  seedGtidAfterClone(): Promise<SeedResult> {
    return this.exclusive(async () => {
      const gtid = await this.statusValue(STATUS.backupGtidPurged);
      if (gtid === null || gtid === '') return { seeded: false, gtid: null };
      if ((await this.statusValue(STATUS.setGtidPurged)) !== null) return { seeded: false, gtid };
      await this.seed(gtid);
      return { seeded: true, gtid };
    });
  }

  gtidExecuted(): Promise<string> {
    return this.exclusive(() => this.gtidNow());
  }

  gtidHistory(): Promise<string> {
    return this.exclusive(async () => compactGtidSet(String((await this.q(gtidHistoryQuery(this.flavour)))[0]?.gtid ?? '')));
  }

  binlogPosition(): Promise<BinlogPosition | null> {
    return this.exclusive(async () => {
      const row = (await this.q(showBinlogStatusStatement(this.flavour)))[0];
      return row ? { file: String(row.File), position: Number(row.Position) } : null;
    });
  }

  binaryLogs(): Promise<{ file: string; size: number }[]> {
    return this.exclusive(async () => {
      try {
        return (await this.q(showBinaryLogsStatement())).map((r) => ({ file: String(r.Log_name), size: Number(r.File_size) }));
      } catch (e) {
        // 1381: "You are not using binary logging"
        if (e instanceof MysqlError && e.errno === 1381) return [];
        throw e;
      }
    });
  }

  firstRowOf(query: string): Promise<string[]> {
    return this.exclusive(async () => {
      const row = (await this.q(stmt(query)))[0];
      return row
        ? Object.values(row).map((v) => (v === null || v === undefined ? '' : Buffer.isBuffer(v) ? v.toString('utf8') : String(v)))
        : [];
    });
  }

  accounts(user: string): Promise<ObservedAccount[]> {
    return this.exclusive(async () =>
      parseAccounts(
        await this.q(accountUserRowsQuery(user)),
        await this.q(accountSchemaGrantsQuery(user)),
        await this.q(accountTableGrantsQuery(user)),
      ),
    );
  }

  database(name: string): Promise<ObservedDatabase | null> {
    return this.exclusive(async () => parseDatabase(await this.q(databaseQuery(name))));
  }

  applyChanges(changes: readonly AdminChange[]): Promise<void> {
    return this.exclusive(async () => {
      for (const c of changes) await this.q(changeStatement(this.flavour, c));
    });
  }

  getStatusValue(name: string): Promise<string | null> {
    return this.exclusive(() => this.statusValue(name));
  }

  setStatusValue(name: string, value: string): Promise<void> {
    return this.exclusive(() => this.writeStatus(name, value));
  }

  isConfigured(): Promise<boolean> {
    return this.exclusive(async () => (await this.statusValue(STATUS.configured)) === '1');
  }

  markConfigured(): Promise<void> {
    return this.exclusive(() => this.writeStatus(STATUS.configured, '1'));
  }

  heartbeatLag(): Promise<number | null> {
    return this.exclusive(async () => {
      try {
        const row = (await this.q(heartbeatLagQuery()))[0];
        return row ? Number(row.lag) : null;
      } catch (e) {
        if (isMissingTable(e)) return null;
        throw e;
      }
    });
  }

  ensureHeartbeatTable(): Promise<void> {
    return this.exclusive(async () => {
      await this.q(createHeartbeatTableStatement());
    });
  }

  writeHeartbeat(serverId: number): Promise<void> {
    return this.exclusive(async () => {
      const master = (await this.q(showBinlogStatusStatement(this.flavour)))[0];
      const replica = await this.replicationNow();
      const pos: HeartbeatPosition = {
        file: master ? String(master.File) : null,
        position: master ? Number(master.Position) : null,
        relayMasterLogFile: replica ? replica.relayMasterLogFile : null,
        execMasterLogPos: replica ? replica.execMasterLogPos : null,
      };
      await this.q(writeHeartbeatStatement(serverId, pos));
    });
  }

  close(): Promise<void> {
    const c = this.conn;
    this.conn = null;
    this.closed = true;
    if (!c) return Promise.resolve();
    // A hung server never acknowledges the quit: do not wait for it.
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        c.destroy();
        resolve();
      }, 1000);
      c.end()
        .catch(() => c.destroy())
        .finally(() => {
          clearTimeout(timer);
          resolve();
        });
    });
  }
}

function asReplicationError(e: unknown): unknown {
  if (!(e instanceof MysqlError) || e.kind !== 'query') return e;
  return new MysqlError('replication', e.message, e.code, e.errno);
}

async function openConnection(p: ConnectParams): Promise<{ conn: Connection; flavour: Flavour }> {
  const where = `mysql ${p.host}:${p.port}`;
  let conn: Connection;
  try {
    conn = await mysql.createConnection({
      host: p.host,
      port: p.port,
      user: p.user,
      password: p.password,
      connectTimeout: p.connectTimeoutMs ?? 5000,
      multipleStatements: false,
      supportBigNumbers: true,
      bigNumberStrings: true,
      dateStrings: true,
    });
  } catch (e) {
    throw fromDriverError(e, `${where} (user ${p.user})`);
  }
  // A connection that dies between calls must not crash the process with an unhandled 'error'.
  conn.on('error', () => undefined);
  try {
    const [rows] = await conn.query({ sql: 'SELECT VERSION() AS v, @@version_comment AS c', timeout: p.queryTimeoutMs ?? 30000 });
    const row = (rows as Row[])[0] ?? {};
    const flavour = flavourFromServer(String(row.v ?? ''), String(row.c ?? ''));
    if (!flavour) throw new MysqlError('query', `${where}: unrecognised server version ${String(row.v)}`);
    return { conn, flavour };
  } catch (e) {
    conn.destroy();
    throw fromDriverError(e, where);
  }
}

/** Connects and detects the flavour; throws MysqlError (unreachable, timeout, access-denied). */
export async function connectNode(params: ConnectParams): Promise<MysqlNode> {
  const { conn, flavour } = await openConnection(params);
  return new Node(params, conn, flavour);
}
