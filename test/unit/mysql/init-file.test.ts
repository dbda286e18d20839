import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  flavourFromVersionSpec,
  initFileStatements,
  nativePasswordHash,
  storedPasswordHash,
  REPLICATION_CREDENTIALS_QUERY,
  renderInitFile,
  type Flavour,
  type InitFileInput,
  type SystemCredentials,
} from '../../../src/mysql/index.ts';
import { anchorInitFileWithCredentials, BACKUP_TOOL_PLACEHOLDER } from '../../support/anchor-init-file.ts';

const POD_FILES = fileURLToPath(new URL('../../fixtures/anchor-v0.6.3/pod-files/etc/mysql/conf.d', import.meta.url));
const ANCHOR_GTID = '3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5';

// The placeholders the anchor fixture was rendered with (Orchestrator's: its hash).
const ANCHOR_USERS: SystemCredentials = {
  operator: { user: 'sys_operator', password: 'PlaceholderOper018' },
  orchestrator: { user: 'orchestrator', passwordHash: nativePasswordHash('PlaceOrc10') },
  replication: { user: 'sys_replication', password: 'PlaceholderRepl018' },
  exporter: { user: 'sys_exporter', password: 'PlaceholderExpo018' },
  heartbeat: { user: 'sys_heartbeat', password: 'PlaceHbt10' },
  backupTool: { user: 'sys_xtrabackup', password: BACKUP_TOOL_PLACEHOLDER },
};

function flavour(spec: string): Flavour {
  const f = flavourFromVersionSpec(spec);
  assert.ok(f, spec);
  return f;
}

function input(over: Partial<InitFileInput> = {}): InitFileInput {
  return {
    flavour: flavour('5.7.35'),
    users: ANCHOR_USERS,
    statusTableMissing: false,
    backupGtid: null,
    restoredFromBucket: false,
    extraSql: [],
    ...over,
  };
}

test('MySQL 5.7 init-file after a clone is the anchor pod file byte for byte, plus the replication credentials for Orchestrator', () => {
  const want = anchorInitFileWithCredentials(readFileSync(`${POD_FILES}/operator-init.sql`, 'utf8'));
  assert.equal(renderInitFile(input({ statusTableMissing: true, backupGtid: ANCHOR_GTID })), want);
});

test('MySQL 5.7 init-file on a later restart is the anchor restart variant byte for byte, plus the replication credentials', () => {
  const want = anchorInitFileWithCredentials(readFileSync(`${POD_FILES}/operator-init.sql.variant-restart`, 'utf8'));
  assert.equal(renderInitFile(input({ statusTableMissing: false, backupGtid: ANCHOR_GTID })), want);
});

const MARIA = flavour('mariadb-10.11');

test('MariaDB init-file: anchor order, MariaDB grants, nothing MySQL-only', () => {
  const text = renderInitFile(input({ flavour: MARIA, statusTableMissing: true, backupGtid: '0-101-42' }));
  const lines = text.split(';\n');
  assert.equal(lines[0], 'SET @@SESSION.SQL_LOG_BIN = 0');
  assert.equal(lines[1], 'SET GLOBAL READ_ONLY = 1');
  assert.equal(lines[2], 'CREATE DATABASE IF NOT EXISTS sys_operator');
  assert.equal(lines[3], "DROP USER IF EXISTS sys_operator@'%'");
  assert.doesNotMatch(text, /slave_master_info/, 'MariaDB has no mysql.slave_master_info');
  assert.doesNotMatch(text, /REPLICATION CLIENT/, 'MariaDB 10.5+ names it BINLOG MONITOR');
  assert.match(
    text,
    /GRANT SELECT, PROCESS, BINLOG MONITOR, SLAVE MONITOR ON \*\.\* TO sys_exporter@'127.0.0.1';\nALTER USER sys_exporter@'127.0.0.1' WITH MAX_USER_CONNECTIONS 3;\n/,
  );
  assert.match(
    text,
    /REPLACE INTO sys_operator.status VALUES \('configured', '0'\);\nREPLACE INTO sys_operator.status VALUES \('backup_gtid_purged', '0-101-42'\);\nFOR a IN [^\n]*END FOR;\n$/,
  );
  assert.doesNotMatch(text, /SUPER_READ_ONLY/, 'MariaDB has no super_read_only');
  assert.ok(text.indexOf('DROP TABLE IF EXISTS sys_operator.status') < text.indexOf('CREATE TABLE IF NOT EXISTS sys_operator.status'));
});

test('MariaDB 10.11 gives READ_ONLY ADMIN to the operator and Orchestrator only; 10.6 has no such privilege', () => {
  const grantsOf = (text: string, user: string): string =>
    text
      .split(';\n')
      .filter((l) => l.startsWith('GRANT') && l.includes(`TO ${user}@`))
      .join('\n');
  const t1011 = renderInitFile(input({ flavour: MARIA }));
  assert.match(grantsOf(t1011, 'sys_operator'), /READ_ONLY ADMIN/);
  assert.match(grantsOf(t1011, 'orchestrator'), /READ_ONLY ADMIN/);
  for (const u of ['sys_replication', 'sys_exporter', 'sys_heartbeat']) assert.doesNotMatch(grantsOf(t1011, u), /READ_ONLY ADMIN|SUPER/, u);
  assert.doesNotMatch(renderInitFile(input({ flavour: flavour('mariadb-10.6') })), /READ_ONLY ADMIN/);
});

test('MySQL 8.0 adds dynamic privileges next to SUPER; 8.4 drops SUPER', () => {
  const t80 = renderInitFile(input({ flavour: flavour('8.0') }));
  assert.match(t80, /GRANT SUPER, SHOW DATABASES, PROCESS, RELOAD, CREATE, SELECT ON \*\.\* TO sys_operator@'%'/);
  assert.match(t80, /GRANT SYSTEM_VARIABLES_ADMIN, REPLICATION_SLAVE_ADMIN, BACKUP_ADMIN, CONNECTION_ADMIN ON \*\.\* TO sys_operator@'%'/);
  assert.match(t80, /GRANT BACKUP_ADMIN ON \*\.\* TO sys_xtrabackup@'127.0.0.1'/);
  const t84 = renderInitFile(input({ flavour: flavour('8.4') }));
  assert.doesNotMatch(t84, /SUPER[ ,]/);
  assert.match(t84, /GRANT SHOW DATABASES, PROCESS, RELOAD, CREATE, SELECT ON \*\.\* TO sys_operator@'%'/);
  assert.match(t84, /GRANT SYSTEM_VARIABLES_ADMIN, REPLICATION_SLAVE_ADMIN, CONNECTION_ADMIN ON \*\.\* TO orchestrator@'%'/);
});

test('pod 0 restored from a bucket forgets its source: RESET SLAVE ALL (MySQL 8.4: RESET REPLICA ALL), before the extra SQL', () => {
  const extra = ['CREATE DATABASE IF NOT EXISTS app;', "  SELECT 'what?'  "];
  const t57 = renderInitFile(input({ restoredFromBucket: true, extraSql: extra }));
  assert.match(
    t57,
    /\('configured', '0'\);\nRESET SLAVE ALL;\nCREATE DATABASE IF NOT EXISTS app;\nSELECT 'what\?';\nSET GLOBAL SUPER_READ_ONLY = 1;\n$/,
  );
  assert.match(
    renderInitFile(input({ flavour: flavour('8.4'), restoredFromBucket: true })),
    /RESET REPLICA ALL;\nSET GLOBAL SUPER_READ_ONLY = 1;\n$/,
  );
  assert.match(renderInitFile(input({ flavour: MARIA, restoredFromBucket: true })), /RESET SLAVE ALL;\nFOR a IN [^\n]*END FOR;\n$/);
});

test('without a backup and with keepConfigured the optional rows are left out', () => {
  const text = renderInitFile(input({ keepConfigured: true }));
  assert.doesNotMatch(text, /configured|backup_gtid_purged|DROP TABLE/);
  assert.match(
    text,
    /CREATE TABLE IF NOT EXISTS sys_operator.status \( {2}name varchar\(64\) PRIMARY KEY, {2}value varchar\(8192\) NOT NULL\n\);\n(REPLACE INTO sys_operator.status VALUES \('replication_(user|password)', '[^']*'\);\n){2}SET GLOBAL SUPER_READ_ONLY = 1;\n$/,
  );
});

const FLAVOURS = ['5.7.35', '8.0.20', '8.0.32', '8.4', 'mariadb-10.6', 'mariadb-10.11'].map((spec) => ({ spec, f: flavour(spec) }));

test("every flavour writes the Secret's replication user and password where the chart's ReplicationCredentialsQuery reads them, with the binlog off", () => {
  const users = { ...ANCHOR_USERS, replication: { user: 'repl_rotated', password: "new'Pass" } };
  for (const { spec, f } of FLAVOURS) {
    const lines = renderInitFile(input({ flavour: f, users, statusTableMissing: true, resumeReplication: true })).split(';\n');
    assert.equal(lines[0], 'SET @@SESSION.SQL_LOG_BIN = 0', spec);
    const user = lines.indexOf("REPLACE INTO sys_operator.status VALUES ('replication_user', 'repl_rotated')");
    const password = lines.indexOf("REPLACE INTO sys_operator.status VALUES ('replication_password', 'new''Pass')");
    const table = lines.findIndex((l) => l.startsWith('CREATE TABLE IF NOT EXISTS sys_operator.status'));
    assert.ok(table > 0 && user === table + 1 && password === table + 2, `${spec}: the rows follow the status table`);
    assert.ok(
      password < lines.indexOf('START SLAVE') || password < lines.indexOf('START REPLICA'),
      `${spec}: before anything that may fail`,
    );
  }
  // The query names those rows (and the table) and nothing else.
  assert.equal(
    REPLICATION_CREDENTIALS_QUERY,
    "SELECT (SELECT value FROM sys_operator.status WHERE name='replication_user'), (SELECT value FROM sys_operator.status WHERE name='replication_password')",
  );
});

test("Orchestrator's user may read the operator's schema on every flavour (the credentials rows); the heartbeat user gets nothing there but its table", () => {
  for (const { spec, f } of FLAVOURS) {
    const grants = renderInitFile(input({ flavour: f }))
      .split(';\n')
      .filter((l) => l.startsWith('GRANT'));
    assert.ok(grants.includes("GRANT SELECT ON sys_operator.* TO orchestrator@'%'"), spec);
    const heartbeat = grants.filter((l) => l.includes('sys_heartbeat@') && /ON (sys_operator|\*)\./.test(l));
    assert.ok(
      heartbeat.every((l) => /ON sys_operator\.heartbeat |ON \*\.\* /.test(l) && !/\bSELECT\b.*ON \*\.\*/.test(l)),
      spec,
    );
  }
});

test('no password is in what may be logged: statement texts, and statements serialised as JSON', () => {
  const passwords = [...Object.values(ANCHOR_USERS).flatMap((c) => ('password' in c ? [c.password] : [c.passwordHash])), 'PlaceOrc10'];
  for (const { spec, f } of FLAVOURS) {
    const statements = initFileStatements(input({ flavour: f }));
    const loggable = JSON.stringify(statements);
    for (const pw of passwords) assert.ok(!loggable.includes(pw), `${spec}: ${pw.slice(0, 4)}… leaked`);
    assert.match(loggable, /"replication_password","<secret>"/);
  }
});

test('passwords and user names with quotes or backslashes cannot break out of their literals', () => {
  const users = { ...ANCHOR_USERS, operator: { user: "we'ird", password: "a'b\\c\nd" } };
  const text = renderInitFile(input({ users }));
  assert.match(text, /CREATE USER 'we''ird'@'%' IDENTIFIED BY 'a''b\\\\c\\nd';\n/);
  assert.equal(text.split('\n').filter((l) => l.includes('IDENTIFIED BY')).length, 5, 'no literal newline inside a statement');
});

test("MariaDB's system users are created from their hashes: the file holds no password but the replication credentials row", () => {
  const text = renderInitFile(input({ flavour: MARIA }));
  assert.match(
    text,
    new RegExp(`CREATE USER sys_operator@'%' IDENTIFIED BY PASSWORD '\\${nativePasswordHash(ANCHOR_USERS.operator.password)}';\n`),
  );
  assert.equal(
    text.split('\n').filter((l) => /^CREATE USER \S+ IDENTIFIED BY PASSWORD '\*[0-9A-F]{40}'$/.test(l.replace(/;$/, ''))).length,
    6,
  );
  for (const c of Object.values(ANCHOR_USERS)) {
    if ('password' in c) assert.equal(text.includes(c.password), c === ANCHOR_USERS.replication, c.user);
  }
  // MySQL keeps the anchor's text (5.7 byte for byte above); the binlog is off for the file anyway.
  assert.match(renderInitFile(input({ flavour: flavour('8.0') })), /CREATE USER sys_operator@'%' IDENTIFIED BY 'PlaceholderOper018';\n/);
});

test("resumeReplication ends the file with the flavour's START statement, after the extra SQL", () => {
  assert.match(
    renderInitFile(input({ flavour: MARIA, keepConfigured: true, resumeReplication: true, extraSql: ['SELECT 1'] })),
    /SELECT 1;\nSTART SLAVE;\n$/,
  );
  assert.match(
    renderInitFile(input({ flavour: flavour('8.0.32'), resumeReplication: true })),
    /SET GLOBAL SUPER_READ_ONLY = 1;\nSTART REPLICA;\n$/,
  );
  assert.match(
    renderInitFile(input({ resumeReplication: true })),
    /\('configured', '0'\);\nSET GLOBAL SUPER_READ_ONLY = 1;\nSTART SLAVE;\n$/,
  );
});

test("the fence: MariaDB 10.11 takes READ_ONLY ADMIN from every account but the operator's and Orchestrator's before the extra SQL; MySQL ends its writes with super_read_only", () => {
  const lines = renderInitFile(input({ flavour: MARIA, extraSql: ['SELECT 1'] })).split(';\n');
  const fence = lines.findIndex((l) => l.startsWith('FOR a IN'));
  assert.ok(
    fence > lines.findIndex((l) => l.includes("'replication_password'")) && fence === lines.indexOf('SELECT 1') - 1,
    'after the status rows, before the extra SQL',
  );
  assert.match(lines[fence]!, /User NOT IN \('sys_operator', 'orchestrator'\)/);
  assert.match(lines[fence]!, /REVOKE READ_ONLY ADMIN ON \*\.\* FROM `/);
  // 10.6: SUPER implies READ_ONLY ADMIN and revoking it alone is no fence; nothing to do.
  assert.doesNotMatch(renderInitFile(input({ flavour: flavour('mariadb-10.6') })), /FOR a IN|SUPER_READ_ONLY/);
  for (const spec of ['5.7.35', '8.0.32', '8.4']) {
    const l = renderInitFile(input({ flavour: flavour(spec), extraSql: ['SELECT 1'], resumeReplication: true })).split(';\n');
    assert.equal(l.indexOf('SET GLOBAL SUPER_READ_ONLY = 1'), l.indexOf('SELECT 1') + 1, `${spec}: after the extra SQL`);
    assert.ok(!l.some((x) => x.startsWith('FOR a IN')), spec);
  }
});

test('docs/credentials.md: the replication account holds replication privileges only, the backup tools an account of their own on 127.0.0.1, on every flavour', () => {
  for (const { spec, f } of FLAVOURS) {
    const grants = renderInitFile(input({ flavour: f }))
      .split(';\n')
      .filter((l) => l.startsWith('GRANT'));
    const replication = grants.filter((l) => l.endsWith("TO sys_replication@'%'"));
    const wanted = f.family === 'mariadb' ? 'REPLICATION SLAVE' : 'REPLICATION SLAVE, REPLICATION CLIENT';
    assert.deepEqual(replication, [`GRANT ${wanted} ON *.* TO sys_replication@'%'`], spec);
    const tool = grants.filter((l) => l.includes('sys_xtrabackup@'));
    assert.ok(tool.length > 0, spec);
    for (const g of tool) {
      assert.match(g, /TO sys_xtrabackup@'127\.0\.0\.1'$/, spec);
      assert.doesNotMatch(g, /\bSELECT\b.*ON \*\.\*|SUPER|REPLICATION SLAVE|\bALL\b/, `${spec}: ${g}`);
    }
    assert.ok(
      tool.some((g) => /\bRELOAD\b.*\bLOCK TABLES\b/.test(g)),
      spec,
    );
  }
});

test("Orchestrator's account is created from its hash: MariaDB BY PASSWORD, MySQL WITH <the hash's plugin> AS", () => {
  const native = nativePasswordHash('PlaceOrc10');
  assert.match(
    renderInitFile(input({ flavour: MARIA })),
    new RegExp(`CREATE USER orchestrator@'%' IDENTIFIED BY PASSWORD '\\${native}';\n`),
  );
  assert.match(
    renderInitFile(input()),
    new RegExp(`CREATE USER orchestrator@'%' IDENTIFIED WITH mysql_native_password AS '\\${native}';\n`),
  );
  const f84 = flavour('8.4');
  const sha2 = storedPasswordHash(f84, 'PlaceOrc10', 'ns/db');
  const users = { ...ANCHOR_USERS, orchestrator: { user: 'orchestrator', passwordHash: sha2 } };
  const t84 = renderInitFile(input({ flavour: f84, users }));
  assert.ok(t84.includes(`CREATE USER orchestrator@'%' IDENTIFIED WITH caching_sha2_password AS '${sha2}';\n`), t84);
  assert.ok(!t84.includes('PlaceOrc10'));
});
