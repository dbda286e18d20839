// Operational errors of MySQL access, as one class with a `kind` callers switch on. Messages carry
// the statement's text with placeholders and never a value marked secret; the driver's own error
// (whose `sql` holds the rendered text) is not kept.
import { scrubSecrets, type Statement } from './sql-text.ts';

export type MysqlErrorKind =
  /** Refused, reset, host unknown, server shutting down: retry later. */
  | 'unreachable'
  /** No answer within the connect or query timeout. */
  | 'timeout'
  /** Wrong user or password, or a missing privilege: fix credentials or grants. */
  | 'access-denied'
  /** The statement was refused because the server is read-only. */
  | 'read-only'
  /** Replication could not be configured or is broken (see message). */
  | 'replication'
  /** Any other error the server reported for a statement. */
  | 'query';

export class MysqlError extends Error {
  readonly kind: MysqlErrorKind;
  /** Driver or server error code, e.g. ER_ACCESS_DENIED_ERROR, ECONNREFUSED. */
  readonly code: string | undefined;
  readonly errno: number | undefined;
  constructor(kind: MysqlErrorKind, message: string, code?: string, errno?: number) {
    super(message);
    this.name = 'MysqlError';
    this.kind = kind;
    this.code = code;
    this.errno = errno;
  }
}

export function isMysqlError(e: unknown): e is MysqlError {
  return e instanceof MysqlError;
}

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
  'ER_CON_COUNT_ERROR',
]);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'PROTOCOL_SEQUENCE_TIMEOUT']);
// 1044 db, 1045 login, 1142 table, 1143 column, 1227 "need SUPER/...", 1370 routine, 1698 no password
const ACCESS_DENIED_ERRNOS = new Set([1044, 1045, 1142, 1143, 1227, 1370, 1698]);
// 1290 option prevents statement (--read-only), 1836 read-only mode
const READ_ONLY_ERRNOS = new Set([1290, 1836]);
// 1198 slave must stop, 1199 slave not running, 1200 not configured, 1201 master info, 1202 thread,
// 1840 gtid_purged needs an empty gtid_executed, 1948/1949 MariaDB GTID position errors
const REPLICATION_ERRNOS = new Set([1198, 1199, 1200, 1201, 1202, 1840, 1948, 1949]);

interface DriverError {
  code?: unknown;
  errno?: unknown;
  message?: unknown;
}

export function classify(code: string | undefined, errno: number | undefined): MysqlErrorKind {
  if (code !== undefined && TIMEOUT_CODES.has(code)) return 'timeout';
  if (code !== undefined && UNREACHABLE_CODES.has(code)) return 'unreachable';
  if (errno !== undefined && ACCESS_DENIED_ERRNOS.has(errno)) return 'access-denied';
  if (errno !== undefined && READ_ONLY_ERRNOS.has(errno)) return 'read-only';
  if (errno !== undefined && REPLICATION_ERRNOS.has(errno)) return 'replication';
  return 'query';
}

/** Turns whatever the driver threw into a MysqlError naming the server and the statement. */
export function fromDriverError(e: unknown, where: string, s?: Statement): MysqlError {
  if (e instanceof MysqlError) return e;
  const d = (typeof e === 'object' && e !== null ? e : { message: String(e) }) as DriverError;
  const code = typeof d.code === 'string' ? d.code : undefined;
  const errno = typeof d.errno === 'number' ? d.errno : undefined;
  const raw = typeof d.message === 'string' && d.message !== '' ? d.message : (code ?? 'unknown error');
  // mysql2 reports a call on a connection that already ended without a code.
  const kind = code === undefined && /closed state/.test(raw) ? 'unreachable' : classify(code, errno);
  const what = s ? ` running "${s.sql.split('\n')[0]}"` : '';
  return new MysqlError(kind, `${where}${what}: ${scrubSecrets(raw, s)}`, code, errno);
}
