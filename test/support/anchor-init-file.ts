// The anchor's MySQL 5.7 init-file (fixtures/anchor-v0.6.3/pod-files, rendered with placeholder
// passwords) plus exactly what this project changes in it: Orchestrator's SELECT on the operator's
// schema and the replication credential rows its ReplicationCredentialsQuery reads
// (docs/mysql-access.md), super_read_only at the end (the fence, docs/fencing.md), and the
// accounts of docs/credentials.md (Orchestrator's created from its hash, the replication account
// with replication privileges only, the backup tools' own local account). Every other byte stays
// the anchor's.
import assert from 'node:assert/strict';
import { nativePasswordHash } from '../../src/mysql/index.ts';

const AFTER_ORCHESTRATOR_GRANTS = "GRANT SELECT, CREATE ON sys_operator.heartbeat TO orchestrator@'%';\n";
const AFTER_HEARTBEAT_USER = "GRANT REPLICATION CLIENT ON *.* TO sys_heartbeat@'127.0.0.1';\n";
const AFTER_STATUS_TABLE = '  value varchar(8192) NOT NULL\n);\n';

/** The backup tools' password the pod-file tests draw (random in a pod). */
export const BACKUP_TOOL_PLACEHOLDER = 'PlaceholderXtrabackup024';

function insertAfter(text: string, anchor: string, added: string): string {
  const i = text.indexOf(anchor);
  assert.ok(i >= 0, `the anchor file has no ${JSON.stringify(anchor)}`);
  return text.slice(0, i + anchor.length) + added + text.slice(i + anchor.length);
}

function replaceOnce(text: string, from: string, to: string): string {
  assert.ok(text.includes(from), `the anchor file has no ${JSON.stringify(from)}`);
  return text.replace(from, to);
}

/** `text`: an anchor init-file rendered with replication user sys_replication, password PlaceholderRepl018. */
export function anchorInitFileWithCredentials(text: string): string {
  let out = replaceOnce(
    text,
    "CREATE USER orchestrator@'%' IDENTIFIED BY 'PlaceOrc10';",
    `CREATE USER orchestrator@'%' IDENTIFIED WITH mysql_native_password AS '${nativePasswordHash('PlaceOrc10')}';`,
  );
  out = replaceOnce(
    out,
    "GRANT SELECT, PROCESS, RELOAD, LOCK TABLES, REPLICATION CLIENT, REPLICATION SLAVE ON *.* TO sys_replication@'%';",
    "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO sys_replication@'%';",
  );
  out = insertAfter(
    out,
    AFTER_HEARTBEAT_USER,
    "DROP USER IF EXISTS sys_xtrabackup@'127.0.0.1';\n" +
      `CREATE USER sys_xtrabackup@'127.0.0.1' IDENTIFIED BY '${BACKUP_TOOL_PLACEHOLDER}';\n` +
      "GRANT RELOAD, PROCESS, LOCK TABLES, REPLICATION CLIENT ON *.* TO sys_xtrabackup@'127.0.0.1';\n",
  );
  out = insertAfter(out, AFTER_ORCHESTRATOR_GRANTS, "GRANT SELECT ON sys_operator.* TO orchestrator@'%';\n");
  return `${insertAfter(
    out,
    AFTER_STATUS_TABLE,
    "REPLACE INTO sys_operator.status VALUES ('replication_user', 'sys_replication');\n" +
      "REPLACE INTO sys_operator.status VALUES ('replication_password', 'PlaceholderRepl018');\n",
  )}SET GLOBAL SUPER_READ_ONLY = 1;\n`;
}
