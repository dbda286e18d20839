// SHOW SLAVE STATUS / SHOW REPLICA STATUS rows, normalized. MySQL 8.0.22+ renamed the columns
// (Slave_IO_Running → Replica_IO_Running, Master_Host → Source_Host, ...); MariaDB keeps the old
// names and adds its GTID columns. The reader accepts either name for every field.
import { compactGtidSet } from './gtid-set.ts';

export type IoThreadState = 'running' | 'connecting' | 'stopped';

export interface ReplicationStatus {
  ioState: IoThreadState;
  /** IO thread connected and reading (`Yes`). */
  ioRunning: boolean;
  sqlRunning: boolean;
  lastIoErrno: number;
  lastIoError: string;
  lastSqlErrno: number;
  lastSqlError: string;
  /** Null while the SQL thread is stopped or the IO thread is not connected. */
  secondsBehind: number | null;
  masterHost: string;
  masterPort: number;
  masterUser: string;
  /** 0 until the IO thread has connected once. */
  masterServerId: number;
  /** MySQL: Auto_Position = 1; MariaDB: Using_Gtid is Slave_Pos or Current_Pos. */
  usingGtid: boolean;
  /** MySQL Retrieved_Gtid_Set, MariaDB Gtid_IO_Pos. */
  gtidReceived: string;
  /** MySQL Executed_Gtid_Set, MariaDB @@gtid_slave_pos (not a column of SHOW SLAVE STATUS). */
  gtidExecuted: string;
  masterLogFile: string;
  readMasterLogPos: number;
  relayMasterLogFile: string;
  execMasterLogPos: number;
}

type Row = Readonly<Record<string, unknown>>;

function pick(row: Row, ...names: string[]): unknown {
  for (const n of names) if (row[n] !== undefined) return row[n];
  return undefined;
}

function text(row: Row, ...names: string[]): string {
  const v = pick(row, ...names);
  if (v === undefined || v === null) return '';
  return Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
}

function num(row: Row, ...names: string[]): number {
  const n = Number(text(row, ...names));
  return Number.isFinite(n) ? n : 0;
}

function ioState(v: string): IoThreadState {
  if (v === 'Yes') return 'running';
  if (v === 'Connecting') return 'connecting';
  return 'stopped';
}

/**
 * Null when the server has no replication configured (no row). MariaDB's applied position is
 * read separately (`SELECT @@global.gtid_slave_pos`) and passed as `gtidSlavePos`.
 */
export function normalizeReplicationStatus(rows: readonly Row[], gtidSlavePos?: string): ReplicationStatus | null {
  const row = rows[0];
  if (!row) return null;
  const io = ioState(text(row, 'Replica_IO_Running', 'Slave_IO_Running'));
  const behind = text(row, 'Seconds_Behind_Source', 'Seconds_Behind_Master');
  const usingGtidMaria = text(row, 'Using_Gtid');
  const isMaria = pick(row, 'Using_Gtid') !== undefined;
  return {
    ioState: io,
    ioRunning: io === 'running',
    sqlRunning: text(row, 'Replica_SQL_Running', 'Slave_SQL_Running') === 'Yes',
    lastIoErrno: num(row, 'Last_IO_Errno'),
    lastIoError: text(row, 'Last_IO_Error'),
    lastSqlErrno: num(row, 'Last_SQL_Errno'),
    lastSqlError: text(row, 'Last_SQL_Error'),
    secondsBehind: behind === '' ? null : Number(behind),
    masterHost: text(row, 'Source_Host', 'Master_Host'),
    masterPort: num(row, 'Source_Port', 'Master_Port'),
    masterUser: text(row, 'Source_User', 'Master_User'),
    masterServerId: num(row, 'Source_Server_Id', 'Master_Server_Id'),
    usingGtid: isMaria ? usingGtidMaria !== '' && usingGtidMaria !== 'No' : text(row, 'Auto_Position') === '1',
    gtidReceived: compactGtidSet(text(row, 'Retrieved_Gtid_Set', 'Gtid_IO_Pos')),
    gtidExecuted: compactGtidSet(gtidSlavePos ?? text(row, 'Executed_Gtid_Set')),
    masterLogFile: text(row, 'Source_Log_File', 'Master_Log_File'),
    readMasterLogPos: num(row, 'Read_Source_Log_Pos', 'Read_Master_Log_Pos'),
    relayMasterLogFile: text(row, 'Relay_Source_Log_File', 'Relay_Master_Log_File'),
    execMasterLogPos: num(row, 'Exec_Source_Log_Pos', 'Exec_Master_Log_Pos'),
  };
}

/** A replica whose threads stopped on an error, as opposed to stopped on purpose. */
export function replicationError(s: ReplicationStatus): string | null {
  if (s.lastIoErrno !== 0) return `IO thread error ${s.lastIoErrno}: ${s.lastIoError}`;
  if (s.lastSqlErrno !== 0) return `SQL thread error ${s.lastSqlErrno}: ${s.lastSqlError}`;
  return null;
}
