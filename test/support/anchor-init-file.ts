// The anchor's MySQL 5.7 init-file (fixtures/anchor-v0.6.3/pod-files, rendered with placeholder
// passwords) plus exactly what this project adds to it: Orchestrator's SELECT on the operator's
// schema and the replication credential rows its ReplicationCredentialsQuery reads
// (docs/mysql-access.md), and super_read_only at the end (the fence, docs/fencing.md). Every other
// byte stays the anchor's.
import assert from 'node:assert/strict';

const AFTER_ORCHESTRATOR_GRANTS = "GRANT SELECT, CREATE ON sys_operator.heartbeat TO orchestrator@'%';\n";
const AFTER_STATUS_TABLE = '  value varchar(8192) NOT NULL\n);\n';

function insertAfter(text: string, anchor: string, added: string): string {
  const i = text.indexOf(anchor);
  assert.ok(i >= 0, `the anchor file has no ${JSON.stringify(anchor)}`);
  return text.slice(0, i + anchor.length) + added + text.slice(i + anchor.length);
}

/** `text`: an anchor init-file rendered with replication user sys_replication, password PlaceholderRepl018. */
export function anchorInitFileWithCredentials(text: string): string {
  const grant = insertAfter(text, AFTER_ORCHESTRATOR_GRANTS, "GRANT SELECT ON sys_operator.* TO orchestrator@'%';\n");
  return `${insertAfter(
    grant,
    AFTER_STATUS_TABLE,
    "REPLACE INTO sys_operator.status VALUES ('replication_user', 'sys_replication');\n" +
      "REPLACE INTO sys_operator.status VALUES ('replication_password', 'PlaceholderRepl018');\n",
  )}SET GLOBAL SUPER_READ_ONLY = 1;\n`;
}
