// The operator's system users and their grants per flavour. Each user is dropped and re-created
// at every mysqld start (init-file), so a rotated password or a changed grant set applies on the
// next restart and no stale privilege survives.
//
// No credential crosses a namespace (docs/credentials.md): Orchestrator's account is created from
// the hash the tenant Secret holds; the replication account has replication privileges only; the
// backup tools log in as an account of their own, local to the pod, whose password never leaves it.
//
// MySQL 5.7: the anchor's grants, but for those three accounts, plus Orchestrator's SELECT on
//   sys_operator.* for the chart's ReplicationCredentialsQuery.
// MySQL 8.0: the same plus the dynamic privileges SUPER is deprecated in favour of.
// MySQL 8.4: dynamic privileges instead of SUPER.
// MariaDB 10.6+: SUPER no longer implies BINLOG MONITOR, SLAVE MONITOR, REPLICATION SLAVE ADMIN,
//   ... (10.5.2 split them out) nor, from 10.11, READ_ONLY ADMIN; the sets are those that worked
//   for Orchestrator and the exporter on 10.11 (docs/field-notes.md). mysql.slave_master_info does not
//   exist there: Orchestrator reads mysql.* instead.
//
// Who reads the replication password rows of sys_operator.status: Orchestrator (schema grant),
// and the users with global SELECT: the operator (who holds it anyway) and the exporter, whose
// global SELECT (mysqld_exporter's documented grant, the anchor's) already reads every row of every schema, local to the pod; narrowing it would break the collectors users
// enable with metricsExporterExtraArgs. The heartbeat user and MysqlUser accounts granted on their
// own schemas cannot.
import { randomInt } from 'node:crypto';
import type { Flavour } from './flavour.ts';
import { atLeast } from '../api/versions.ts';
import { hasDynamicPrivileges, hasReadOnlyAdmin } from './flavour.ts';
import { OPERATOR_SCHEMA } from '../api/constants.ts';
import { HEARTBEAT_TABLE } from './operator-schema.ts';
import { identifiedBy, identifiedByHash } from './accounts.ts';
import { account, secret, stmt, type Secret, type Statement } from './sql-text.ts';

const PASSWORD_CHARACTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` random characters of [A-Za-z0-9]: a system user's password, safe unquoted in any file. */
export function randomPassword(length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += PASSWORD_CHARACTERS[randomInt(PASSWORD_CHARACTERS.length)];
  return s;
}

export interface Credentials {
  user: string;
  password: string;
}

/** An account created from the hash the server stores (accounts.ts `storedPasswordHash`). */
export interface HashedCredentials {
  user: string;
  passwordHash: string;
}

/**
 * Users come from the operated Secret, except the heartbeat and backup tool users, whose names
 * are fixed and whose passwords are drawn in the pod at each start of its init container.
 */
export interface SystemCredentials {
  operator: Credentials;
  orchestrator: HashedCredentials;
  replication: Credentials;
  exporter: Credentials;
  heartbeat: Credentials;
  backupTool: Credentials;
}

export type SystemUserRole = keyof SystemCredentials;

interface Grant {
  privileges: readonly string[];
  on: string;
}

interface UserSpec {
  role: SystemUserRole;
  host: string;
  grants: readonly Grant[];
  maxUserConnections?: number;
}

const ALL = '*.*';

/** Per-role host: local-only users are reachable from inside the pod only. */
const SYSTEM_USER_HOST: Readonly<Record<SystemUserRole, string>> = {
  operator: '%',
  orchestrator: '%',
  replication: '%',
  exporter: '127.0.0.1',
  heartbeat: '127.0.0.1',
  backupTool: '127.0.0.1',
};

function mysqlUsers(f: Flavour): UserSpec[] {
  const dynamic = hasDynamicPrivileges(f);
  const sup = atLeast(f, 8, 4) ? [] : ['SUPER'];
  const operatorGrants: Grant[] = [
    { privileges: [...sup, 'SHOW DATABASES', 'PROCESS', 'RELOAD', 'CREATE', 'SELECT'], on: ALL },
    { privileges: dynamic ? ['REPLICATION SLAVE', 'REPLICATION CLIENT'] : ['REPLICATION SLAVE'], on: ALL },
  ];
  if (dynamic) {
    operatorGrants.push({
      privileges: ['SYSTEM_VARIABLES_ADMIN', 'REPLICATION_SLAVE_ADMIN', 'BACKUP_ADMIN', 'CONNECTION_ADMIN'],
      on: ALL,
    });
  }
  operatorGrants.push({ privileges: ['ALL'], on: `${OPERATOR_SCHEMA}.*` });

  const orchestratorGrants: Grant[] = [{ privileges: [...sup, 'PROCESS', 'REPLICATION SLAVE', 'REPLICATION CLIENT', 'RELOAD'], on: ALL }];
  if (dynamic) {
    orchestratorGrants.push({ privileges: ['SYSTEM_VARIABLES_ADMIN', 'REPLICATION_SLAVE_ADMIN', 'CONNECTION_ADMIN'], on: ALL });
  }
  // The anchor's two grants, then the operator's schema for ReplicationCredentialsQuery
  // (operator-schema.ts): schema level, because the status table does not exist yet when a new
  // datadir's init-file grants, and a table-level grant needs the table (or CREATE on it).
  orchestratorGrants.push(
    { privileges: ['SELECT'], on: 'mysql.slave_master_info' },
    { privileges: ['SELECT', 'CREATE'], on: HEARTBEAT_TABLE },
    { privileges: ['SELECT'], on: `${OPERATOR_SCHEMA}.*` },
  );

  // xtrabackup's documented privileges, local server only; version 8 takes LOCK INSTANCE FOR
  // BACKUP and reads performance_schema.log_status.
  const backupToolGrants: Grant[] = [{ privileges: ['RELOAD', 'PROCESS', 'LOCK TABLES', 'REPLICATION CLIENT'], on: ALL }];
  if (dynamic) {
    backupToolGrants.push({ privileges: ['BACKUP_ADMIN'], on: ALL }, { privileges: ['SELECT'], on: 'performance_schema.log_status' });
  }

  return [
    { role: 'operator', host: SYSTEM_USER_HOST.operator, grants: operatorGrants },
    { role: 'orchestrator', host: SYSTEM_USER_HOST.orchestrator, grants: orchestratorGrants },
    {
      role: 'replication',
      host: SYSTEM_USER_HOST.replication,
      grants: [{ privileges: ['REPLICATION SLAVE', 'REPLICATION CLIENT'], on: ALL }],
    },
    {
      role: 'exporter',
      host: SYSTEM_USER_HOST.exporter,
      grants: [
        { privileges: ['SELECT', 'PROCESS', 'REPLICATION CLIENT'], on: ALL },
        { privileges: ['SELECT', 'CREATE'], on: HEARTBEAT_TABLE },
      ],
      maxUserConnections: 3,
    },
    {
      role: 'heartbeat',
      host: SYSTEM_USER_HOST.heartbeat,
      grants: [
        { privileges: ['CREATE', 'SELECT', 'DELETE', 'UPDATE', 'INSERT'], on: HEARTBEAT_TABLE },
        { privileges: ['REPLICATION CLIENT'], on: ALL },
      ],
    },
    { role: 'backupTool', host: SYSTEM_USER_HOST.backupTool, grants: backupToolGrants },
  ];
}

function mariadbUsers(f: Flavour): UserSpec[] {
  // The operator writes sys_operator.status on read-only replicas; from 10.11 that needs READ_ONLY
  // ADMIN. Users that must never write on a read-only server (heartbeat, exporter) do not get it.
  const readOnlyAdmin = hasReadOnlyAdmin(f) ? ['READ_ONLY ADMIN'] : [];
  const replicationAdmin = [
    'REPLICATION SLAVE',
    'BINLOG MONITOR',
    'REPLICATION SLAVE ADMIN',
    'SLAVE MONITOR',
    'BINLOG ADMIN',
    'CONNECTION ADMIN',
    'REPLICATION MASTER ADMIN',
  ];
  return [
    {
      role: 'operator',
      host: SYSTEM_USER_HOST.operator,
      grants: [
        {
          privileges: ['SUPER', 'SHOW DATABASES', 'PROCESS', 'RELOAD', 'CREATE', 'SELECT', ...replicationAdmin, ...readOnlyAdmin],
          on: ALL,
        },
        { privileges: ['ALL'], on: `${OPERATOR_SCHEMA}.*` },
      ],
    },
    {
      role: 'orchestrator',
      host: SYSTEM_USER_HOST.orchestrator,
      grants: [
        { privileges: ['SUPER', 'PROCESS', 'RELOAD', ...replicationAdmin, ...readOnlyAdmin], on: ALL },
        { privileges: ['SELECT'], on: 'mysql.*' },
        { privileges: ['SELECT'], on: `${OPERATOR_SCHEMA}.*` },
      ],
    },
    // A replica's IO thread needs REPLICATION SLAVE only.
    { role: 'replication', host: SYSTEM_USER_HOST.replication, grants: [{ privileges: ['REPLICATION SLAVE'], on: ALL }] },
    {
      role: 'exporter',
      host: SYSTEM_USER_HOST.exporter,
      grants: [{ privileges: ['SELECT', 'PROCESS', 'BINLOG MONITOR', 'SLAVE MONITOR'], on: ALL }],
      maxUserConnections: 3,
    },
    {
      role: 'heartbeat',
      host: SYSTEM_USER_HOST.heartbeat,
      grants: [
        { privileges: ['CREATE', 'SELECT', 'DELETE', 'UPDATE', 'INSERT'], on: HEARTBEAT_TABLE },
        { privileges: ['BINLOG MONITOR', 'SLAVE MONITOR'], on: ALL },
      ],
    },
    // mariabackup --backup --slave-info: backup locks (RELOAD), SHOW MASTER/SLAVE STATUS.
    {
      role: 'backupTool',
      host: SYSTEM_USER_HOST.backupTool,
      grants: [{ privileges: ['RELOAD', 'PROCESS', 'LOCK TABLES', 'BINLOG MONITOR', 'SLAVE MONITOR'], on: ALL }],
    },
  ];
}

/**
 * The init-file runs with the binlog off (init-file.ts) and mariadbd logs a failing init-file
 * statement by its error alone, so no password reaches a log from here. MariaDB's users are still
 * created from hashes (`identifiedBy`), so the file, on a volume the pod's containers share, holds
 * only the replication password that Orchestrator reads back. MySQL keeps the anchor's text (5.7's
 * file is the anchor's but for the accounts of docs/credentials.md), and MySQL rewrites the
 * statement in any log it reaches. Orchestrator's account is made from its hash on every flavour.
 */
function identified(f: Flavour, password: string): { sql: string; value: Secret } {
  return f.family === 'mariadb' ? identifiedBy(f, password) : { sql: 'IDENTIFIED BY ?', value: secret(password) };
}

function userStatements(f: Flavour, spec: UserSpec, creds: Credentials | HashedCredentials): Statement[] {
  const who = account(creds.user, spec.host);
  const id = 'passwordHash' in creds ? identifiedByHash(f, creds.passwordHash) : identified(f, creds.password);
  const out: Statement[] = [
    stmt(`DROP USER IF EXISTS ${who}`),
    stmt(`CREATE USER ${who} ${id.sql}`, id.value),
    ...spec.grants.map((g) => stmt(`GRANT ${g.privileges.join(', ')} ON ${g.on} TO ${who}`)),
  ];
  if (spec.maxUserConnections !== undefined) {
    out.push(stmt(`ALTER USER ${who} WITH MAX_USER_CONNECTIONS ${spec.maxUserConnections}`));
  }
  return out;
}

/** In the anchor's order: operator, orchestrator, replication, exporter, heartbeat; then ours, the backup tool. */
export function systemUserStatements(f: Flavour, creds: SystemCredentials): Statement[] {
  const specs = f.family === 'mariadb' ? mariadbUsers(f) : mysqlUsers(f);
  return specs.flatMap((spec) => userStatements(f, spec, creds[spec.role]));
}
