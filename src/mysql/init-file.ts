// The init-file mysqld runs at every start (`init-file = /etc/mysql/conf.d/operator-init.sql`),
// written by `clone-and-init`. Pure: the facts the sidecar found about the data directory in,
// the SQL text out. For MySQL 5.7 the text is the anchor's byte for byte but for the lines this
// project adds or changes (golden-tested against fixtures/anchor-v0.6.3/pod-files with those
// lines listed in test/support/anchor-init-file.ts; the accounts: docs/credentials.md).
//
// Order and why:
// 1. binlog off for this session: users, grants and per-node status must not replicate or
//    create GTIDs of their own on a replica (errant transactions).
// 2. read_only on before anything else: a master killed and restarted after a failover must not
//    take writes (split brain); becoming writable is the operator's decision (docs/field-notes.md).
// 3. the sys_operator schema, then each system user dropped, re-created and granted.
// 4. status table: dropped first only when its data file is missing (a clone excludes it and
//    --prepare deletes its .frm, but InnoDB's dictionary still names it: CREATE alone fails, and
//    the DROP logs the missing file once, docs/sidecar.md), then created; the replication credentials Orchestrator's
//    ReplicationCredentialsQuery reads, rewritten at every start so a rotated password follows
//    (in status because it is per node and backups and clones leave its data file out);
//    `configured` reset to 0 so the node controller looks at the node again; the backup's GTID
//    recorded for seeding.
// 5. pod 0 restored from a bucket forgets the replication settings of the backup's source.
// 6. MariaDB 10.11+: every account but the operator's and Orchestrator's loses READ_ONLY ADMIN
//    (the fence, fence.ts), so root and the application users are bound by read_only on every
//    server that is not the master. After the status rows, so the rest stands if it fails.
// 7. the user's initFileExtraSQL, so it can rely on everything above (and may exempt an account).
// 8. MySQL: super_read_only on, after every write above (it binds the init-file's own thread):
//    SUPER accounts (root) are bound too until the operator or Orchestrator makes the server the
//    master (the fence, fence.ts).
// 9. optionally START SLAVE, for a replica the sidecar found intact (keepConfigured case).
import type { Flavour } from './flavour.ts';
import {
  createSchemaStatement,
  createStatusTableStatement,
  dropStatusTableStatement,
  setStatusStatement,
  STATUS,
} from './operator-schema.ts';
import { resetReplicationStatement, sessionBinlogStatement, startReplicationStatement } from './replication-statements.ts';
import { render, secret, stmt, verbatim, type Statement } from './sql-text.ts';
import { systemUserStatements, type SystemCredentials } from './system-users.ts';
import { fenceAccountsStatements, fenceSuperStatements } from './fence.ts';

export interface InitFileInput {
  flavour: Flavour;
  users: SystemCredentials;
  /** `<datadir>/sys_operator/status.ibd` does not exist (new datadir, or just cloned). */
  statusTableMissing: boolean;
  /** GTID set from the backup's binlog info file in the datadir, when that file exists. */
  backupGtid: string | null;
  /** Pod 0 of a new cluster restored from `initBucketURL`. */
  restoredFromBucket: boolean;
  /** `initFileExtraSQL`, one statement per item. */
  extraSql: readonly string[];
  /**
   * Leave `configured` as it is instead of resetting it to 0 (the anchor always resets). For a
   * node whose replication settings survive in its datadir, so it can be Ready again without
   * the operator; the node controller decides when that holds.
   */
  keepConfigured?: boolean;
  /**
   * End with START SLAVE / START REPLICA: my.cnf has skip-slave-start, so a replica whose
   * replication settings survive in its datadir resumes without the operator. Last, because
   * mysqld stops reading the init-file at the first failing statement.
   */
  resumeReplication?: boolean;
}

export function initFileStatements(input: InitFileInput): Statement[] {
  const out: Statement[] = [
    sessionBinlogStatement(false),
    stmt('SET GLOBAL READ_ONLY = 1'),
    createSchemaStatement(),
    ...systemUserStatements(input.flavour, input.users),
  ];
  if (input.statusTableMissing) out.push(dropStatusTableStatement());
  out.push(
    createStatusTableStatement(),
    setStatusStatement(STATUS.replicationUser, input.users.replication.user),
    setStatusStatement(STATUS.replicationPassword, secret(input.users.replication.password)),
  );
  if (!input.keepConfigured) out.push(setStatusStatement(STATUS.configured, '0'));
  if (input.backupGtid !== null && input.backupGtid !== '') {
    out.push(setStatusStatement(STATUS.backupGtidPurged, input.backupGtid));
  }
  if (input.restoredFromBucket) out.push(resetReplicationStatement(input.flavour));
  out.push(...fenceAccountsStatements(input.flavour, input.users));
  for (const sql of input.extraSql) {
    // A trailing ';' would become an empty statement once joined.
    const trimmed = sql.trim().replace(/;+$/, '').trim();
    if (trimmed !== '') out.push(verbatim(trimmed));
  }
  out.push(...fenceSuperStatements(input.flavour));
  if (input.resumeReplication) out.push(startReplicationStatement(input.flavour));
  return out;
}

/** Statements joined with ";\n" and ending in ";\n", as the anchor writes them. */
export function renderInitFile(input: InitFileInput): string {
  return `${initFileStatements(input).map(render).join(';\n')};\n`;
}
