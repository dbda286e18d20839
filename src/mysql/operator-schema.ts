// The `sys_operator` schema (docs/compatibility.md "Inside MySQL"): `status` holds per-node bookkeeping and is
// never replicated (written with the binlog off); `heartbeat` has pt-heartbeat's layout, is
// written on the master only and replicates, so a replica's lag is its clock minus the newest row.
import { OPERATOR_SCHEMA } from '../api/constants.ts';
import { stmt, type Secret, type Statement } from './sql-text.ts';

export const STATUS_TABLE = `${OPERATOR_SCHEMA}.status`;
export const HEARTBEAT_TABLE = `${OPERATOR_SCHEMA}.heartbeat`;

/** Names of the rows of sys_operator.status. */
export const STATUS = {
  /** '1' once the node controller has configured the node; the readiness probe reads it. */
  configured: 'configured',
  /** GTID set of the backup this datadir was restored from (written by the init-file). */
  backupGtidPurged: 'backup_gtid_purged',
  /** The GTID set seeded into the server after a restore; present means "seeded, do not redo". */
  setGtidPurged: 'set_gtid_purged',
  /**
   * The replication user and password of the operated Secret (written by the init-file), for
   * Orchestrator's ReplicationCredentialsQuery: MariaDB has no mysql.slave_master_info, and a
   * demoted master has nothing there on MySQL either.
   */
  replicationUser: 'replication_user',
  replicationPassword: 'replication_password',
} as const;

/**
 * Orchestrator's `ReplicationCredentialsQuery`, the chart's default (chart/values.yaml): run as the
 * topology user on the server Orchestrator is about to repoint. Missing rows give NULLs, which
 * Orchestrator takes as "no user" rather than as a blank password.
 */
export const REPLICATION_CREDENTIALS_QUERY =
  `SELECT (SELECT value FROM ${STATUS_TABLE} WHERE name='${STATUS.replicationUser}'), ` +
  `(SELECT value FROM ${STATUS_TABLE} WHERE name='${STATUS.replicationPassword}')`;

/**
 * The mysql container's readiness probe, run by the `mysql` client in a shell: 1 once the node
 * controller has configured the server. The anchor's text byte for byte (double quotes: the
 * shell wraps it in single quotes), so an adopted cluster's pod template does not change.
 */
export const CONFIGURED_PROBE_QUERY = `SELECT COUNT(*) FROM ${STATUS_TABLE} WHERE name="${STATUS.configured}" AND value="1"`;

export function createSchemaStatement(): Statement {
  return stmt(`CREATE DATABASE IF NOT EXISTS ${OPERATOR_SCHEMA}`);
}

/** The anchor's DDL byte for byte, embedded newline included (the init-file is compared). */
export function createStatusTableStatement(): Statement {
  return stmt(`CREATE TABLE IF NOT EXISTS ${STATUS_TABLE} (  name varchar(64) PRIMARY KEY,  value varchar(8192) NOT NULL\n)`);
}

export function dropStatusTableStatement(): Statement {
  return stmt(`DROP TABLE IF EXISTS ${STATUS_TABLE}`);
}

export function setStatusStatement(name: string, value: string | Secret): Statement {
  return stmt(`REPLACE INTO ${STATUS_TABLE} VALUES (?, ?)`, name, value);
}

export function getStatusStatement(name: string): Statement {
  return stmt(`SELECT value FROM ${STATUS_TABLE} WHERE name = ?`, name);
}

/** pt-heartbeat's `--create-table` layout, so Orchestrator, mysqld_exporter and pt tools read it. */
export function createHeartbeatTableStatement(): Statement {
  return stmt(
    `CREATE TABLE IF NOT EXISTS ${HEARTBEAT_TABLE} (` +
      'ts varchar(26) NOT NULL, ' +
      'server_id int unsigned NOT NULL PRIMARY KEY, ' +
      'file varchar(255) DEFAULT NULL, ' +
      'position bigint unsigned DEFAULT NULL, ' +
      'relay_master_log_file varchar(255) DEFAULT NULL, ' +
      'exec_master_log_pos bigint unsigned DEFAULT NULL)',
  );
}

/** pt-heartbeat's timestamp: UTC, `YYYY-MM-DDThh:mm:ss.uuuuuu` (26 characters). */
export const HEARTBEAT_TS_SQL = "DATE_FORMAT(UTC_TIMESTAMP(6), '%Y-%m-%dT%H:%i:%s.%f')";

export interface HeartbeatPosition {
  file: string | null;
  position: number | null;
  relayMasterLogFile: string | null;
  execMasterLogPos: number | null;
}

/**
 * The server's own clock stamps the row: the heartbeat runs beside its server, and replicas
 * compare against their own clock, as with pt-heartbeat --utc on synchronised hosts.
 */
export function writeHeartbeatStatement(serverId: number, pos: HeartbeatPosition): Statement {
  return stmt(
    `REPLACE INTO ${HEARTBEAT_TABLE} (ts, server_id, file, position, relay_master_log_file, exec_master_log_pos) ` +
      `VALUES (${HEARTBEAT_TS_SQL}, ?, ?, ?, ?, ?)`,
    serverId,
    pos.file,
    pos.position,
    pos.relayMasterLogFile,
    pos.execMasterLogPos,
  );
}

/** Seconds since the newest heartbeat row (any writer), never negative; no row → no result. */
export function heartbeatLagQuery(): Statement {
  return stmt(
    'SELECT GREATEST(0, TIMESTAMPDIFF(MICROSECOND, CAST(ts AS DATETIME(6)), UTC_TIMESTAMP(6))) / 1000000 AS lag ' +
      `FROM ${HEARTBEAT_TABLE} ORDER BY ts DESC LIMIT 1`,
  );
}
