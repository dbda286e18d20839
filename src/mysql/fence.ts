// The fence (docs/fencing.md): every server that is not the master refuses writes from every
// account but the replication threads and the operator's own bookkeeping. Pure statement builders.
//
// - MariaDB 10.11+: read_only binds every account without READ_ONLY ADMIN. The init-file takes it
//   from every account but the operator's and Orchestrator's (they set read_only, which needs it,
//   and the operator writes its per-node status on replicas), at every start, with the binlog
//   off: root (created by the image with ALL PRIVILEGES, which include it) and any account a
//   person made with ALL ON *.*. MysqlUser accounts and the Secret's USER are granted at schema
//   or table level only and never hold it. Before 10.11 SUPER implies it: no fence for SUPER
//   accounts there.
// - MySQL: super_read_only binds every account; it is set wherever read_only is (the init-file,
//   setReadOnlyStatements, Orchestrator's UseSuperReadOnly).
// - On demotion the client sessions of the old master are killed once read_only is on, so a
//   session opened before cannot go on with an open transaction.
import { hasReadOnlyAdmin, hasSuperReadOnly, type Flavour } from './flavour.ts';
import { stmt, type Statement } from './sql-text.ts';

/**
 * MariaDB 10.11+: READ_ONLY ADMIN revoked from every account that holds it but the operator's and
 * Orchestrator's. The accounts are those of mysql.global_priv that the server holds in memory with
 * the privilege (information_schema.USER_PRIVILEGES): a row the server ignores (a host name under
 * skip-name-resolve, root@<hostname> of mariadb-install-db) fails a REVOKE with 1133, and mysqld
 * stops reading its init-file at the first failure (seen live). Host '' rows are roles and PUBLIC.
 * One statement on one line: mysqld reads its init-file statement by statement up to a `;` at the
 * end of a line. Names are quoted as identifiers (backticks doubled), which no sql_mode reads
 * differently. Idempotent: an account already fenced is not listed.
 */
export function fenceAccountsStatements(f: Flavour, keep: { operator: { user: string }; orchestrator: { user: string } }): Statement[] {
  if (!hasReadOnlyAdmin(f)) return [];
  const ident = (col: string): string => `REPLACE(a.${col}, '\`', '\`\`')`;
  return [
    stmt(
      'FOR a IN (SELECT User AS u, Host AS h FROM mysql.global_priv ' +
        "WHERE Host <> '' AND User NOT IN (?, ?) AND CONCAT('''', User, '''@''', Host, '''') IN " +
        "(SELECT GRANTEE FROM information_schema.USER_PRIVILEGES WHERE PRIVILEGE_TYPE = 'READ_ONLY ADMIN')) DO " +
        `EXECUTE IMMEDIATE CONCAT('REVOKE READ_ONLY ADMIN ON *.* FROM \`', ${ident('u')}, '\`@\`', ${ident('h')}, '\`'); END FOR`,
      keep.operator.user,
      keep.orchestrator.user,
    ),
  ];
}

/**
 * MySQL: super_read_only on. Last among the init-file's writes: it binds the init-file's own
 * thread too. MariaDB has no such variable.
 */
export function fenceSuperStatements(f: Flavour): Statement[] {
  return hasSuperReadOnly(f) ? [stmt('SET GLOBAL SUPER_READ_ONLY = 1')] : [];
}

/**
 * The client sessions of a server: every session but this one, the replication threads (and a
 * replica's binlog dump), the server's own daemons, and the sessions of `spare` (the system
 * users: the operator, Orchestrator, the replication, exporter, heartbeat and backup users).
 */
export function clientSessionsQuery(spare: readonly string[]): Statement {
  const users = spare.length > 0 ? ` AND USER NOT IN (${spare.map(() => '?').join(', ')})` : '';
  return stmt(
    'SELECT ID AS id, USER AS user FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() ' +
      "AND USER NOT IN ('system user', 'event_scheduler', 'unauthenticated user') " +
      "AND COMMAND NOT IN ('Binlog Dump', 'Binlog Dump GTID', 'Daemon', 'Killed', 'Slave_IO', 'Slave_SQL', 'Slave_worker')" +
      users,
    ...spare,
  );
}

export function killConnectionStatement(id: number | string): Statement {
  const n = typeof id === 'number' ? id : Number(id);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`invalid connection id ${String(id)}`);
  return stmt(`KILL CONNECTION ${n}`);
}

/**
 * The sessions waiting for a semi-sync acknowledgement (MariaDB and MySQL 5.7 say "from slave",
 * MySQL 8.0.26+ "from replica"). MariaDB's `SET GLOBAL read_only = 1` waits for commits in progress,
 * so on a master cut off from its replicas (no fallback to async) it waited for ever behind them.
 * Their transactions are in the binary log but were never acknowledged to their clients.
 */
export function semiSyncWaitersQuery(): Statement {
  return stmt(
    "SELECT ID AS id FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND STATE LIKE 'Waiting for semi-sync ACK%'",
  );
}
