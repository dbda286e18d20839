// Replication and read-only statements per flavour. Pure: a flavour and inputs in, Statements out.
//
// | flavour            | point at a master                  | GTID mode                    | threads          |
// |--------------------|------------------------------------|------------------------------|------------------|
// | MySQL 5.7, <8.0.23 | CHANGE MASTER TO MASTER_*          | MASTER_AUTO_POSITION=1       | START/STOP SLAVE |
// | MySQL 8.0.23+, 8.4 | CHANGE REPLICATION SOURCE TO SOURCE_* | SOURCE_AUTO_POSITION=1    | START/STOP REPLICA |
// | MariaDB 10.6+      | CHANGE MASTER TO MASTER_*          | MASTER_USE_GTID=slave_pos|current_pos | START/STOP SLAVE |
import type { Flavour } from './flavour.ts';
import { hasSuperReadOnly, usesResetBinaryLogs, usesSourceReplicaSyntax } from './flavour.ts';
import { compactGtidSet } from './gtid-set.ts';
import { secret, stmt, type Statement } from './sql-text.ts';
import type { Credentials } from './system-users.ts';
import type { Endpoint } from './node.ts';

/**
 * How the replica finds its starting point. `gtid`: MySQL auto-position, MariaDB
 * `MASTER_USE_GTID` (`slave_pos` for a replica, `current_pos` for a demoted master whose own
 * binlog holds transactions the replica position does not). `binlog`: file and position.
 */
export type StartPosition = { kind: 'gtid'; mariadbPos?: 'slave_pos' | 'current_pos' } | { kind: 'binlog'; file: string; position: number };

export interface PointAtOptions {
  start?: StartPosition;
  /** Seconds between the IO thread's reconnect attempts (default CONNECT_RETRY_SECONDS). */
  connectRetrySeconds?: number;
}

/**
 * A replica retries a lost source every second (the anchor's 10 s left a replica disconnected for
 * up to 10 s after its master restarted in place, while the restarted master took writes the
 * replica did not have: a failover then lost them, issue 21). A retry is one TCP connect and a
 * login: cheap. Orchestrator's CHANGE MASTER when it repoints names no CONNECT_RETRY, so the
 * value set here stays (a server whose replication was RESET ALL gets the server's default,
 * 60 s on MariaDB, until the operator points it again).
 */
export const CONNECT_RETRY_SECONDS = 1;

export function changeMasterStatement(f: Flavour, source: Endpoint, creds: Credentials, opts: PointAtOptions = {}): Statement {
  const start = opts.start ?? { kind: 'gtid' };
  const retry = opts.connectRetrySeconds ?? CONNECT_RETRY_SECONDS;
  if (!Number.isInteger(source.port) || source.port <= 0 || source.port > 65535) {
    throw new Error(`invalid replication source port ${source.port}`);
  }
  const modern = usesSourceReplicaSyntax(f);
  const key = (name: string): string => (modern ? `SOURCE_${name}` : `MASTER_${name}`);
  const head = modern ? 'CHANGE REPLICATION SOURCE TO' : 'CHANGE MASTER TO';
  const parts = [`${key('HOST')} = ?`, `${key('PORT')} = ?`, `${key('USER')} = ?`, `${key('PASSWORD')} = ?`, `${key('CONNECT_RETRY')} = ?`];
  const params: Statement['params'][number][] = [source.host, source.port, creds.user, secret(creds.password), retry];
  if (start.kind === 'gtid') {
    if (f.family === 'mariadb') parts.push(`MASTER_USE_GTID = ${start.mariadbPos ?? 'slave_pos'}`);
    else parts.push(`${key('AUTO_POSITION')} = 1`);
  } else {
    if (f.family === 'mariadb') parts.push('MASTER_USE_GTID = no');
    else parts.push(`${key('AUTO_POSITION')} = 0`);
    parts.push(`${key('LOG_FILE')} = ?`, `${key('LOG_POS')} = ?`);
    params.push(start.file, start.position);
  }
  // MySQL 8 creates users with caching_sha2_password; without TLS the replica must fetch the
  // source's RSA key or the IO thread fails to authenticate.
  if (f.family === 'mysql' && f.major >= 8) parts.push(`${modern ? 'GET_SOURCE_PUBLIC_KEY' : 'GET_MASTER_PUBLIC_KEY'} = 1`);
  return { sql: `${head} ${parts.join(', ')}`, params };
}

export function startReplicationStatement(f: Flavour): Statement {
  return stmt(usesSourceReplicaSyntax(f) ? 'START REPLICA' : 'START SLAVE');
}

export function stopReplicationStatement(f: Flavour): Statement {
  return stmt(usesSourceReplicaSyntax(f) ? 'STOP REPLICA' : 'STOP SLAVE');
}

/** Forgets the master entirely (connection settings and relay logs). */
export function resetReplicationStatement(f: Flavour): Statement {
  return stmt(usesSourceReplicaSyntax(f) ? 'RESET REPLICA ALL' : 'RESET SLAVE ALL');
}

export function showReplicationStatusStatement(f: Flavour): Statement {
  return stmt(usesSourceReplicaSyntax(f) ? 'SHOW REPLICA STATUS' : 'SHOW SLAVE STATUS');
}

/** SHOW MASTER STATUS became SHOW BINARY LOG STATUS in MySQL 8.4 (the old one is gone). */
export function showBinlogStatusStatement(f: Flavour): Statement {
  return stmt(usesResetBinaryLogs(f) ? 'SHOW BINARY LOG STATUS' : 'SHOW MASTER STATUS');
}

/** The server's binlog files and their sizes, oldest first (the same statement on every flavour). */
export function showBinaryLogsStatement(): Statement {
  return stmt('SHOW BINARY LOGS');
}

/**
 * Read-only on: MySQL also sets super_read_only so that no SUPER user (operator, Orchestrator)
 * writes by accident; replication threads are exempt from both.
 * Read-only off: super_read_only first, because read_only=0 while super_read_only=1 is refused.
 */
export function setReadOnlyStatements(f: Flavour, readOnly: boolean): Statement[] {
  if (!hasSuperReadOnly(f)) return [stmt(`SET GLOBAL read_only = ${readOnly ? 1 : 0}`)];
  return readOnly
    ? [stmt('SET GLOBAL read_only = 1'), stmt('SET GLOBAL super_read_only = 1')]
    : [stmt('SET GLOBAL super_read_only = 0'), stmt('SET GLOBAL read_only = 0')];
}

/** One query of its own: MariaDB returned 0 for a boolean global read next to COUNT(*) (docs/field-notes.md). */
export function readOnlyQuery(f: Flavour): Statement {
  return stmt(
    hasSuperReadOnly(f)
      ? 'SELECT @@global.read_only AS read_only, @@global.super_read_only AS super_read_only'
      : 'SELECT @@global.read_only AS read_only',
  );
}

/**
 * Seeds the GTID state of a server restored from a physical backup, before it replicates, so it
 * asks its master only for transactions after the backup.
 * MySQL: gtid_purged may be set only while gtid_executed is empty, hence RESET MASTER (8.4: RESET
 * BINARY LOGS AND GTIDS) first; this also drops any binlog the restored server wrote on its own.
 * MariaDB: the replica position is gtid_slave_pos (settable only with the slave threads stopped,
 * which the caller ensures); the server's own binlog state is left alone.
 */
export function seedGtidStatements(f: Flavour, gtidSet: string): Statement[] {
  const gtid = compactGtidSet(gtidSet);
  if (gtid === '') throw new Error('seedGtidStatements: empty GTID set');
  if (f.family === 'mariadb') return [stmt('SET GLOBAL gtid_slave_pos = ?', gtid)];
  return [stmt(usesResetBinaryLogs(f) ? 'RESET BINARY LOGS AND GTIDS' : 'RESET MASTER'), stmt('SET GLOBAL gtid_purged = ?', gtid)];
}

/** The server's own GTID position: MySQL gtid_executed, MariaDB gtid_current_pos. */
export function gtidExecutedQuery(f: Flavour): Statement {
  return stmt(f.family === 'mariadb' ? 'SELECT @@global.gtid_current_pos AS gtid' : 'SELECT @@global.gtid_executed AS gtid');
}

/**
 * Every transaction the server holds, in the form `extraGtids` compares across servers: MySQL
 * gtid_executed; MariaDB gtid_binlog_state (the last GTID per domain and server_id, which tells
 * an old master's own writes apart from those of the server that replaced it).
 */
export function gtidHistoryQuery(f: Flavour): Statement {
  return stmt(f.family === 'mariadb' ? 'SELECT @@global.gtid_binlog_state AS gtid' : 'SELECT @@global.gtid_executed AS gtid');
}

/** MariaDB's replica position; SHOW SLAVE STATUS does not show it. */
export function gtidSlavePosQuery(): Statement {
  return stmt('SELECT @@global.gtid_slave_pos AS gtid');
}

/** Keeps the statements of this session out of the binlog (per-node bookkeeping must not replicate). */
export function sessionBinlogStatement(enabled: boolean): Statement {
  return stmt(`SET @@SESSION.SQL_LOG_BIN = ${enabled ? 1 : 0}`);
}
