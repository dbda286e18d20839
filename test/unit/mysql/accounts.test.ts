// Account, grant and database statements and readers (src/mysql/accounts.ts). MySQL flavours are
// checked here only (no MySQL server installs on these machines); the MariaDB path also runs live
// in test/integration/user/.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  changeStatement,
  expandPrivileges,
  flavourFromVersionSpec,
  hostProblem,
  identifiedBy,
  identifierProblem,
  nativePasswordHash,
  noLimits,
  parseAccounts,
  passwordMatches,
  render,
  schemaPattern,
  sha256Crypt,
  userNameProblem,
  type Flavour,
} from '../../../src/mysql/index.ts';

const f = (spec: string): Flavour => flavourFromVersionSpec(spec) as Flavour;

const MYSQL57 = f('5.7.35');
const MYSQL8016 = f('8.0.16');
const MYSQL84 = f('8.4');
const MARIA = f('mariadb-10.11');

test('user names MySQL would refuse are refused, with the flavour limit', () => {
  assert.equal(userNameProblem(MYSQL57, 'a'.repeat(32)), null);
  assert.equal(userNameProblem(MYSQL57, 'a'.repeat(33)), 'is longer than 32 characters');
  assert.equal(userNameProblem(MYSQL84, 'é'.repeat(32)), null, 'characters, not bytes');
  assert.equal(userNameProblem(MARIA, 'a'.repeat(80)), null);
  assert.equal(userNameProblem(MARIA, 'a'.repeat(81)), 'is longer than 80 characters');
  assert.equal(userNameProblem(MARIA, ''), 'is empty');
  assert.equal(userNameProblem(MARIA, 'a\0b'), 'contains a NUL character');
  assert.equal(userNameProblem(MARIA, "x'; DROP USER root; --"), null, 'quoted, not refused');
});

test('hosts: 60 characters before MySQL 8.0.17, 255 after and on MariaDB', () => {
  assert.equal(hostProblem(MYSQL8016, 'h'.repeat(61)), 'is longer than 60 characters');
  assert.equal(hostProblem(MYSQL84, 'h'.repeat(255)), null);
  assert.equal(hostProblem(MARIA, 'h'.repeat(256)), 'is longer than 255 characters');
  assert.equal(hostProblem(MARIA, '%'), null);
});

test('schema and table names: 64 characters, no trailing space, no NUL, nothing outside the BMP', () => {
  assert.equal(identifierProblem('d'.repeat(64)), null);
  assert.equal(identifierProblem('d'.repeat(65)), 'is longer than 64 characters');
  assert.equal(identifierProblem('app '), 'ends with a space');
  assert.equal(identifierProblem('a\0'), 'contains a NUL character');
  assert.equal(identifierProblem('emoji😀'), 'contains a character outside the Basic Multilingual Plane');
  assert.equal(identifierProblem('a`b\'c"d%e_f'), null);
});

test('a schema pattern matches only its schema: _ % and \\ are escaped', () => {
  assert.equal(schemaPattern('my_app'), 'my\\_app');
  assert.equal(schemaPattern('%'), '\\%');
  assert.equal(schemaPattern('a\\b'), 'a\\\\b');
  assert.equal(schemaPattern('plain'), 'plain');
});

test('privileges: keywords of the level only; ALL expands; DELETE HISTORY on MariaDB only; GRANT OPTION never', () => {
  assert.deepEqual(expandPrivileges(MARIA, 'table', ['select', ' Insert ']), { privileges: ['INSERT', 'SELECT'], unknown: [] });
  assert.deepEqual(expandPrivileges(MARIA, 'table', ['SELECT; DROP DATABASE x']).unknown, ['SELECT; DROP DATABASE x']);
  assert.deepEqual(expandPrivileges(MARIA, 'table', ['EXECUTE']).unknown, ['EXECUTE'], 'a schema privilege, not a table one');
  assert.deepEqual(expandPrivileges(MARIA, 'schema', ['GRANT OPTION']).unknown, ['GRANT OPTION']);
  assert.deepEqual(expandPrivileges(MYSQL84, 'schema', ['DELETE HISTORY']).unknown, ['DELETE HISTORY']);
  const all = expandPrivileges(MYSQL84, 'schema', ['ALL PRIVILEGES']).privileges;
  assert.ok(
    all.includes('CREATE TEMPORARY TABLES') && all.includes('EVENT') && !all.includes('GRANT OPTION') && !all.includes('DELETE HISTORY'),
  );
  assert.ok(expandPrivileges(MARIA, 'schema', ['ALL']).privileges.includes('DELETE HISTORY'));
});

const HOSTILE = { user: "o'neil`x\\", host: "10.0.%'--" };

test('statements quote hostile names and keep the password out of the text', () => {
  const create = changeStatement(MYSQL84, { kind: 'createUser', account: HOSTILE, password: "p'w" });
  assert.equal(create.sql, "CREATE USER 'o''neil`x\\\\'@'10.0.%''--' IDENTIFIED BY ?");
  assert.equal(render(create), "CREATE USER 'o''neil`x\\\\'@'10.0.%''--' IDENTIFIED BY 'p''w'");
  assert.ok(!JSON.stringify(create).includes("p'w"), 'the password serialises as <secret>');
  assert.equal(
    render(
      changeStatement(MARIA, {
        kind: 'grant',
        account: { user: 'app', host: '%' },
        grant: { db: schemaPattern('a`b_c'), table: null, privileges: ['INSERT', 'SELECT'] },
      }),
    ),
    "GRANT INSERT, SELECT ON `a``b\\_c`.* TO app@'%'",
  );
  assert.equal(
    render(
      changeStatement(MARIA, {
        kind: 'revoke',
        account: { user: 'app', host: '%' },
        grant: { db: 'a?b', table: "t'`", privileges: ['SELECT'] },
      }),
    ),
    "REVOKE SELECT ON `a?b`.`t'``` FROM app@'%'",
  );
  assert.equal(render(changeStatement(MARIA, { kind: 'dropUser', account: HOSTILE })), "DROP USER IF EXISTS 'o''neil`x\\\\'@'10.0.%''--'");
  assert.equal(
    render(
      changeStatement(MARIA, {
        kind: 'setLimits',
        account: { user: 'app', host: '%' },
        limits: { MAX_USER_CONNECTIONS: 5, MAX_QUERIES_PER_HOUR: 0, MAX_UPDATES_PER_HOUR: 7, MAX_CONNECTIONS_PER_HOUR: 0 },
      }),
    ),
    "ALTER USER app@'%' WITH MAX_USER_CONNECTIONS 5 MAX_QUERIES_PER_HOUR 0 MAX_UPDATES_PER_HOUR 7 MAX_CONNECTIONS_PER_HOUR 0",
  );
});

test('passwords go to MariaDB and MySQL 5.7 as their mysql_native_password hash, to MySQL 8 as typed (the server rewrites its logs)', () => {
  const app = { user: 'app', host: '%' };
  const hash = '*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19'; // SELECT PASSWORD('password')
  const rendered = (fl: Flavour, kind: 'createUser' | 'setPassword') =>
    render(changeStatement(fl, { kind, account: app, password: 'password' }));
  assert.equal(rendered(MARIA, 'createUser'), `CREATE USER app@'%' IDENTIFIED BY PASSWORD '${hash}'`);
  assert.equal(rendered(f('mariadb-10.6'), 'setPassword'), `ALTER USER app@'%' IDENTIFIED BY PASSWORD '${hash}'`);
  assert.equal(rendered(MYSQL57, 'createUser'), `CREATE USER app@'%' IDENTIFIED WITH mysql_native_password AS '${hash}'`);
  assert.equal(rendered(MYSQL57, 'setPassword'), `ALTER USER app@'%' IDENTIFIED WITH mysql_native_password AS '${hash}'`);
  assert.equal(rendered(MYSQL8016, 'createUser'), "CREATE USER app@'%' IDENTIFIED BY 'password'");
  assert.equal(rendered(MYSQL84, 'setPassword'), "ALTER USER app@'%' IDENTIFIED BY 'password'");
  // The hash is a credential too: kept out of statement texts and JSON like a password.
  for (const fl of [MARIA, MYSQL57, MYSQL84]) {
    const s = changeStatement(fl, { kind: 'setPassword', account: app, password: 'password' });
    assert.ok(!s.sql.includes("password'") && !s.sql.includes(hash) && !JSON.stringify(s).includes(hash), JSON.stringify(s));
  }
  // A quote in the password changes the hash, never the statement's shape.
  assert.equal(identifiedBy(MARIA, "p'w\\").value.value, nativePasswordHash("p'w\\"));
});

test('an account set from the hash compares equal to its password, so a steady state writes nothing', () => {
  for (const fl of [MARIA, MYSQL57]) {
    const stored = identifiedBy(fl, 'pw-1').value.value;
    const a = { host: '%', plugin: 'mysql_native_password', authenticationString: stored, limits: noLimits(), grants: [] };
    assert.equal(passwordMatches(a, 'pw-1'), true);
    assert.equal(passwordMatches(a, 'pw-2'), false, 'a rotated password is set');
  }
});

test('a privilege that is no keyword never reaches the text', () => {
  assert.throws(() =>
    changeStatement(MARIA, {
      kind: 'grant',
      account: { user: 'a', host: '%' },
      grant: { db: 'd', table: null, privileges: ['SELECT ON *.* TO x; --'] },
    }),
  );
});

test('database statements: names quoted, character sets bare and checked', () => {
  assert.equal(
    render(changeStatement(MARIA, { kind: 'createDatabase', name: 'shop`; DROP DATABASE x; --' })),
    'CREATE DATABASE IF NOT EXISTS `shop``; DROP DATABASE x; --`',
  );
  assert.equal(
    render(changeStatement(MARIA, { kind: 'createDatabase', name: 'shop', characterSet: 'utf8mb4', collation: 'utf8mb4_bin' })),
    'CREATE DATABASE IF NOT EXISTS `shop` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin',
  );
  assert.equal(
    render(changeStatement(MARIA, { kind: 'alterDatabase', name: 'shop', collation: 'latin1_bin' })),
    'ALTER DATABASE `shop` COLLATE latin1_bin',
  );
  assert.equal(render(changeStatement(MARIA, { kind: 'dropDatabase', name: "a'b" })), "DROP DATABASE IF EXISTS `a'b`");
  assert.throws(() => changeStatement(MARIA, { kind: 'createDatabase', name: 'x', characterSet: 'utf8 COLLATE x; DROP' }));
});

test('accounts are read from mysql.user, mysql.db and mysql.tables_priv rows', () => {
  const accounts = parseAccounts(
    [
      {
        host: '127.0.0.2',
        plugin: 'mysql_native_password',
        auth: nativePasswordHash('pw'),
        max_questions: '0',
        max_updates: '3',
        max_connections: 0,
        max_user_connections: 2,
      },
      {
        host: '%',
        plugin: 'caching_sha2_password',
        auth: '$A$005$...',
        max_questions: 0,
        max_updates: 0,
        max_connections: 0,
        max_user_connections: 0,
      },
    ],
    [{ Host: '127.0.0.2', Db: 'a\\_b', Select_priv: 'Y', Insert_priv: 'N', Grant_priv: 'Y', Delete_history_priv: 'N' }],
    [
      { host: '127.0.0.2', db: 'shop', tbl: 'orders', privs: 'Select,Show view,Delete versioning rows' },
      { host: '%', db: 'x', tbl: 'y', privs: '' },
    ],
  );
  assert.deepEqual(accounts[0], {
    host: '127.0.0.2',
    plugin: 'mysql_native_password',
    authenticationString: nativePasswordHash('pw'),
    limits: { MAX_USER_CONNECTIONS: 2, MAX_QUERIES_PER_HOUR: 0, MAX_UPDATES_PER_HOUR: 3, MAX_CONNECTIONS_PER_HOUR: 0 },
    grants: [
      { db: 'a\\_b', table: null, privileges: ['GRANT OPTION', 'SELECT'] },
      { db: 'shop', table: 'orders', privileges: ['DELETE HISTORY', 'SELECT', 'SHOW VIEW'] },
    ],
  });
  assert.deepEqual(accounts[1]?.grants, []);
  assert.equal(passwordMatches(accounts[0]!, 'pw'), true);
  assert.equal(passwordMatches(accounts[0]!, 'other'), false);
  assert.equal(passwordMatches(accounts[1]!, 'pw'), null, 'a caching_sha2 string of another form cannot be compared');
});

test('the native password hash is MySQL PASSWORD()', () => {
  // SELECT PASSWORD(...) on MariaDB 10.11 and MySQL 5.7.
  assert.equal(nativePasswordHash('secret'), '*14E65567ABDB5135D0CFD9A70B3032C179A49EE7');
  assert.equal(nativePasswordHash('password'), '*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19');
  assert.equal(nativePasswordHash("pä'ss"), '*0B49AEA9FD42C6874901F9880CAEEAC7D2ED8D73', 'UTF-8 bytes');
  assert.equal(nativePasswordHash(''), '', 'no hash for the empty password');
});

test('SHA-256-crypt matches openssl passwd -5; a caching_sha2_password hash is compared with its own salt', () => {
  // openssl passwd -5 -salt <salt> <password>
  assert.equal(sha256Crypt('Hello world!', 'saltstring', 5000), '5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5');
  assert.equal(sha256Crypt('x', 'ab$', 5000), 't3HPWL8YnXBW6twRNCT4H6WD0N8l7aiTQlXtBsc9AlC');
  assert.equal(
    sha256Crypt('a much longer password that is over thirty two bytes long!', 'abcdefghijklmnop', 5000),
    'iWyEI7Mk8ecNylmYmUsSMiC/FFvujdqqKs6IKuFGu7D',
  );
  // MySQL 8 stores `$A$005$` + a 20-byte salt + the digest (no MySQL server runs here: built with the
  // same function, so this checks the parsing, not MySQL's arithmetic).
  const salt = 'abcdefghij\x01\x7f$ABCDEFG';
  const stored = `$A$005$${salt}${sha256Crypt('pw', salt, 5000)}`;
  const a = { host: '%', plugin: 'caching_sha2_password', authenticationString: stored, limits: noLimits(), grants: [] };
  assert.equal(passwordMatches(a, 'pw'), true);
  assert.equal(passwordMatches(a, 'pw2'), false);
  assert.equal(passwordMatches({ ...a, plugin: 'ed25519' }, 'pw'), false, 'another plugin: the spec password replaces it');
});
