// Accounts, grants and databases that MysqlUser and MysqlDatabase declare: the names MySQL
// accepts, the privileges a spec may list, what the server holds (read from mysql.user, mysql.db,
// mysql.tables_priv and information_schema.SCHEMATA, whose layouts MySQL 5.7/8 and MariaDB
// share), and the statements that change it. Pure, except for the row shapes the queries return.
//
// Schema-level grants take a pattern: `_` and `%` in `GRANT ... ON db.*` are wildcards, so a
// schema named `%` would grant on every schema. Schema names are escaped into patterns that match
// only themselves, and mysql.db rows are compared as the patterns they store. Table-level grants
// take literal names (mysql.tables_priv stores them as given).
import { createHash } from 'node:crypto';
import { USER_RESOURCE_LIMITS, type UserResourceLimit } from '../api/constants.ts';
import { atLeast } from '../api/versions.ts';
import type { Flavour } from './flavour.ts';
import { account, quoteIdentifier, secret, stmt, type Secret, type Statement } from './sql-text.ts';

// ---------------------------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------------------------

/** MySQL refuses user names over 32 characters (16 before 5.7.8); MariaDB stores up to 80. */
export function maxUserNameLength(f: Flavour): number {
  if (f.family === 'mariadb') return 80;
  return atLeast(f, 5, 7, 8) ? 32 : 16;
}

/** Host names: 60 characters until MySQL 8.0.17, 255 after and on MariaDB. */
export function maxHostLength(f: Flavour): number {
  return f.family === 'mysql' && !atLeast(f, 8, 0, 17) ? 60 : 255;
}

/** Schema and table names: 64 characters everywhere. */
export const MAX_IDENTIFIER_LENGTH = 64;

function length(s: string): number {
  return [...s].length;
}

// Outside the Basic Multilingual Plane: MySQL and MariaDB identifiers refuse them.
const SUPPLEMENTARY = /[\u{10000}-\u{10FFFF}]/u;

function accountPartProblem(value: string, max: number): string | null {
  if (value.length === 0) return 'is empty';
  if (value.includes('\0')) return 'contains a NUL character';
  if (length(value) > max) return `is longer than ${max} characters`;
  return null;
}

/** Why MySQL would refuse or truncate this user name, or null. */
export function userNameProblem(f: Flavour, user: string): string | null {
  return accountPartProblem(user, maxUserNameLength(f));
}

/** Why MySQL would refuse or truncate this host of an account, or null. */
export function hostProblem(f: Flavour, host: string): string | null {
  return accountPartProblem(host, maxHostLength(f));
}

/** Why MySQL would refuse this schema or table name, or null. */
export function identifierProblem(name: string): string | null {
  if (name.length === 0) return 'is empty';
  if (name.includes('\0')) return 'contains a NUL character';
  if (SUPPLEMENTARY.test(name)) return 'contains a character outside the Basic Multilingual Plane';
  if (name.endsWith(' ')) return 'ends with a space';
  if (length(name) > MAX_IDENTIFIER_LENGTH) return `is longer than ${MAX_IDENTIFIER_LENGTH} characters`;
  return null;
}

const CHARSET_NAME = /^[A-Za-z0-9_]{1,64}$/;

/** Character set and collation names are written bare into the statement: letters, digits, `_`. */
export function charsetNameProblem(name: string): string | null {
  return CHARSET_NAME.test(name) ? null : 'is not a character set or collation name (letters, digits and _)';
}

/** `name` as a schema pattern of GRANT ... ON `pattern`.* that matches that schema only. */
export function schemaPattern(name: string): string {
  return name.replace(/[\\_%]/g, (c) => `\\${c}`);
}

// ---------------------------------------------------------------------------------------------
// Privileges
// ---------------------------------------------------------------------------------------------

export type GrantLevel = 'schema' | 'table';

/** Keyword → mysql.db column. */
const SCHEMA_PRIVILEGE_COLUMNS: Readonly<Record<string, string>> = {
  SELECT: 'Select_priv',
  INSERT: 'Insert_priv',
  UPDATE: 'Update_priv',
  DELETE: 'Delete_priv',
  CREATE: 'Create_priv',
  DROP: 'Drop_priv',
  REFERENCES: 'References_priv',
  INDEX: 'Index_priv',
  ALTER: 'Alter_priv',
  'CREATE TEMPORARY TABLES': 'Create_tmp_table_priv',
  'LOCK TABLES': 'Lock_tables_priv',
  'CREATE VIEW': 'Create_view_priv',
  'SHOW VIEW': 'Show_view_priv',
  'CREATE ROUTINE': 'Create_routine_priv',
  'ALTER ROUTINE': 'Alter_routine_priv',
  EXECUTE: 'Execute_priv',
  EVENT: 'Event_priv',
  TRIGGER: 'Trigger_priv',
  'DELETE HISTORY': 'Delete_history_priv',
  'GRANT OPTION': 'Grant_priv',
};

/** Keyword → value of the mysql.tables_priv.Table_priv set. */
const TABLE_PRIVILEGE_NAMES: Readonly<Record<string, string>> = {
  SELECT: 'Select',
  INSERT: 'Insert',
  UPDATE: 'Update',
  DELETE: 'Delete',
  CREATE: 'Create',
  DROP: 'Drop',
  REFERENCES: 'References',
  INDEX: 'Index',
  ALTER: 'Alter',
  'CREATE VIEW': 'Create View',
  'SHOW VIEW': 'Show view',
  TRIGGER: 'Trigger',
  'DELETE HISTORY': 'Delete versioning rows',
  'GRANT OPTION': 'Grant',
};

/**
 * GRANT OPTION is never granted: an account that may grant what it holds escapes its spec. It is
 * revoked like any privilege the spec does not list.
 */
const NOT_GRANTABLE = 'GRANT OPTION';
/** MariaDB 10.3.4 added DELETE HISTORY (system-versioned tables); MySQL has none. */
const MARIADB_ONLY = 'DELETE HISTORY';

/** The privileges a spec may list at that level, for that flavour, sorted. */
export function grantablePrivileges(f: Flavour, level: GrantLevel): string[] {
  const names = Object.keys(level === 'schema' ? SCHEMA_PRIVILEGE_COLUMNS : TABLE_PRIVILEGE_NAMES);
  return names.filter((p) => p !== NOT_GRANTABLE && (p !== MARIADB_ONLY || f.family === 'mariadb')).sort();
}

/** `select`, ` Create  View ` → `SELECT`, `CREATE VIEW`; `ALL PRIVILEGES` → `ALL`. */
export function normalizePrivilege(text: string): string {
  const p = text.trim().replace(/\s+/g, ' ').toUpperCase();
  return p === 'ALL PRIVILEGES' ? 'ALL' : p;
}

/**
 * A spec's privilege list as the sorted set to hold; `ALL` expands to every grantable privilege
 * of the level. Anything else than a known keyword is returned in `unknown`, never written as SQL.
 */
export function expandPrivileges(f: Flavour, level: GrantLevel, listed: readonly string[]): { privileges: string[]; unknown: string[] } {
  const allowed = grantablePrivileges(f, level);
  const out = new Set<string>();
  const unknown: string[] = [];
  for (const text of listed) {
    const p = normalizePrivilege(text);
    if (p === 'ALL') for (const a of allowed) out.add(a);
    else if (allowed.includes(p)) out.add(p);
    else unknown.push(text);
  }
  return { privileges: [...out].sort(), unknown };
}

// ---------------------------------------------------------------------------------------------
// What the server holds
// ---------------------------------------------------------------------------------------------

/** Where a grant applies. `db` is a schema pattern when `table` is null, a schema name otherwise. */
export interface GrantScope {
  db: string;
  /** Null: every table of the schema (`db.*`). */
  table: string | null;
}

export interface Grant extends GrantScope {
  /** Sorted keywords. */
  privileges: readonly string[];
}

export type ResourceLimits = Record<UserResourceLimit, number>;

export interface ObservedAccount {
  host: string;
  plugin: string;
  authenticationString: string;
  limits: ResourceLimits;
  /** Schema- and table-level grants; global and column grants are not read. */
  grants: Grant[];
}

export interface ObservedDatabase {
  characterSet: string;
  collation: string;
}

type Row = Record<string, unknown>;

export function accountUserRowsQuery(user: string): Statement {
  return stmt(
    'SELECT Host AS host, plugin, authentication_string AS auth, max_questions, max_updates, max_connections, max_user_connections ' +
      'FROM mysql.user WHERE User = ?',
    user,
  );
}

export function accountSchemaGrantsQuery(user: string): Statement {
  return stmt('SELECT * FROM mysql.db WHERE User = ?', user);
}

export function accountTableGrantsQuery(user: string): Statement {
  return stmt('SELECT Host AS host, Db AS db, Table_name AS tbl, Table_priv AS privs FROM mysql.tables_priv WHERE User = ?', user);
}

export function databaseQuery(name: string): Statement {
  return stmt(
    'SELECT DEFAULT_CHARACTER_SET_NAME AS cs, DEFAULT_COLLATION_NAME AS co FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?',
    name,
  );
}

const LIMIT_COLUMNS: Readonly<Record<UserResourceLimit, string>> = {
  MAX_QUERIES_PER_HOUR: 'max_questions',
  MAX_UPDATES_PER_HOUR: 'max_updates',
  MAX_CONNECTIONS_PER_HOUR: 'max_connections',
  MAX_USER_CONNECTIONS: 'max_user_connections',
};

export function noLimits(): ResourceLimits {
  return { MAX_USER_CONNECTIONS: 0, MAX_QUERIES_PER_HOUR: 0, MAX_UPDATES_PER_HOUR: 0, MAX_CONNECTIONS_PER_HOUR: 0 };
}

function text(v: unknown): string {
  if (v === null || v === undefined) return '';
  return Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
}

/** One account per mysql.user row of the user, with its mysql.db and mysql.tables_priv grants. */
export function parseAccounts(userRows: readonly Row[], schemaRows: readonly Row[], tableRows: readonly Row[]): ObservedAccount[] {
  return userRows.map((u) => {
    const host = text(u.host);
    const limits = noLimits();
    for (const k of USER_RESOURCE_LIMITS) limits[k] = Number(u[LIMIT_COLUMNS[k]] ?? 0);
    const grants: Grant[] = [];
    for (const r of schemaRows) {
      if (text(r.Host) !== host) continue;
      const privileges = Object.entries(SCHEMA_PRIVILEGE_COLUMNS)
        .filter(([, col]) => text(r[col]) === 'Y')
        .map(([p]) => p)
        .sort();
      if (privileges.length > 0) grants.push({ db: text(r.Db), table: null, privileges });
    }
    for (const r of tableRows) {
      if (text(r.host) !== host) continue;
      const held = new Set(
        text(r.privs)
          .split(',')
          .filter((s) => s !== ''),
      );
      const privileges = Object.entries(TABLE_PRIVILEGE_NAMES)
        .filter(([, name]) => held.has(name))
        .map(([p]) => p)
        .sort();
      if (privileges.length > 0) grants.push({ db: text(r.db), table: text(r.tbl), privileges });
    }
    return { host, plugin: text(u.plugin), authenticationString: text(u.auth), limits, grants };
  });
}

export function parseDatabase(rows: readonly Row[]): ObservedDatabase | null {
  const r = rows[0];
  return r ? { characterSet: text(r.cs), collation: text(r.co) } : null;
}

/**
 * mysql_native_password's stored form, what PASSWORD() returns: `*` and the upper-case hex of
 * SHA1(SHA1(password)), and '' for the empty password (the server stores no hash for it).
 */
export function nativePasswordHash(password: string): string {
  if (password === '') return '';
  const inner = createHash('sha1').update(password, 'utf8').digest();
  return `*${createHash('sha1').update(inner).digest('hex').toUpperCase()}`;
}

/**
 * How CREATE/ALTER USER sets a password, per flavour: `IDENTIFIED` and what follows, with one `?`
 * for the value. The statement is binlogged as sent, so MariaDB, which logs it as written (binlog,
 * general log; a replica's error log quotes it when it fails to apply), gets the
 * mysql_native_password hash, never the password: `IDENTIFIED BY PASSWORD '*<hash>'`, which
 * also makes the account mysql_native_password. MySQL 5.7 rewrites the statement in its own logs,
 * but is sent the hash too (`IDENTIFIED WITH mysql_native_password AS`), so the password is in no
 * statement text at all. MySQL 8.0/8.4 get the password: their default caching_sha2_password
 * stores a salted hash only the server should draw, 8.4 disables mysql_native_password, and MySQL
 * documents ("Passwords and Logging") that CREATE/ALTER USER ... IDENTIFIED BY is written to the
 * binlog, general and slow logs as `IDENTIFIED WITH '<plugin>' AS '<hash>'`.
 *
 * A MariaDB password validation plugin with strict_password_validation (its default) refuses
 * hashes: the server's error is then the account's condition.
 */
export function identifiedBy(f: Flavour, password: string): { sql: string; value: Secret } {
  if (f.family === 'mariadb') return { sql: 'IDENTIFIED BY PASSWORD ?', value: secret(nativePasswordHash(password)) };
  if (f.major < 8) return { sql: 'IDENTIFIED WITH mysql_native_password AS ?', value: secret(nativePasswordHash(password)) };
  return { sql: 'IDENTIFIED BY ?', value: secret(password) };
}

// ---------------------------------------------------------------------------------------------
// Accounts created from a stored hash (docs/credentials.md)
// ---------------------------------------------------------------------------------------------

const NATIVE_HASH = /^\*[0-9A-F]{40}$/;
/** caching_sha2_password's stored form with a printable salt, 5000 rounds (what MySQL 8 draws). */
const CACHING_SHA2_PRINTABLE = /^\$A\$005\$[./0-9A-Za-z]{20}[./0-9A-Za-z]{43}$/;
const CACHING_SHA2_ROUNDS = 5000;

/**
 * The hash of a system account's password as the server stores it, for an init-file that creates
 * the account without knowing the password: mysql_native_password's for MariaDB and MySQL before
 * 8.4, caching_sha2_password's for MySQL 8.4 (which no longer loads mysql_native_password), with
 * `saltSeed` (a cluster's namespace and name) drawn into a stable salt of 20 characters.
 */
export function storedPasswordHash(f: Flavour, password: string, saltSeed: string): string {
  if (f.family === 'mysql' && atLeast(f, 8, 4)) {
    const digest = createHash('sha256').update(`mysql-operator salt\0${saltSeed}`, 'utf8').digest();
    const salt = Array.from(digest.subarray(0, 20), (b) => CRYPT_ALPHABET[b % 64]).join('');
    return `$A$005$${salt}${sha256Crypt(password, salt, CACHING_SHA2_ROUNDS)}`;
  }
  return nativePasswordHash(password);
}

/** Why `hash` is not a stored form `identifiedByHash` can write for this flavour, or null. Never echoes it. */
export function storedHashProblem(f: Flavour, hash: string): string | null {
  if (NATIVE_HASH.test(hash))
    return f.family === 'mysql' && atLeast(f, 8, 4) ? 'is a mysql_native_password hash, which MySQL 8.4 does not load' : null;
  if (CACHING_SHA2_PRINTABLE.test(hash))
    return f.family === 'mysql' && f.major >= 8 ? null : 'is a caching_sha2_password hash, which only MySQL 8 takes';
  return "is neither a mysql_native_password hash ('*' and 40 hex digits) nor a caching_sha2_password one ('$A$005$...')";
}

/** Whether `hash` (either stored form) is the hash of `password`. */
export function storedHashMatches(hash: string, password: string): boolean {
  if (CACHING_SHA2_PRINTABLE.test(hash)) {
    const salt = hash.slice(7, 27);
    return hash.slice(27) === sha256Crypt(password, salt, CACHING_SHA2_ROUNDS);
  }
  return NATIVE_HASH.test(hash) && hash === nativePasswordHash(password);
}

/**
 * `IDENTIFIED` from a stored hash, with one `?` for it: MariaDB `BY PASSWORD`, MySQL `WITH <plugin>
 * AS` (the plugin from the hash's form). Check the hash with storedHashProblem first.
 */
export function identifiedByHash(f: Flavour, hash: string): { sql: string; value: Secret } {
  if (f.family === 'mariadb') return { sql: 'IDENTIFIED BY PASSWORD ?', value: secret(hash) };
  const plugin = hash.startsWith('$A$') ? 'caching_sha2_password' : 'mysql_native_password';
  return { sql: `IDENTIFIED WITH ${plugin} AS ?`, value: secret(hash) };
}

const CRYPT_ALPHABET = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// The byte triples of the digest, in the order SHA-256-crypt writes them (the last is 2 bytes).
const CRYPT_ORDER = [
  [0, 10, 20],
  [21, 1, 11],
  [12, 22, 2],
  [3, 13, 23],
  [24, 4, 14],
  [15, 25, 5],
  [6, 16, 26],
  [27, 7, 17],
  [18, 28, 8],
  [9, 19, 29],
] as const;

function sha256(...parts: Buffer[]): Buffer {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
}

function repeatTo(block: Buffer, length: number): Buffer {
  return Buffer.concat(Array.from({ length: Math.ceil(length / block.length) }, () => block)).subarray(0, length);
}

/**
 * SHA-256-crypt (Drepper's `$5$` algorithm, what `openssl passwd -5` computes), without its
 * 16-byte salt cap: MySQL's caching_sha2_password stores it with a 20-byte salt.
 */
export function sha256Crypt(password: string, saltText: string, rounds: number): string {
  const key = Buffer.from(password, 'utf8');
  const salt = Buffer.from(saltText, 'utf8');
  const b = sha256(key, salt, key);
  const a = createHash('sha256').update(key).update(salt);
  a.update(repeatTo(b, key.length));
  for (let i = key.length; i > 0; i >>= 1) a.update(i & 1 ? b : key);
  let c = a.digest();
  const p = repeatTo(sha256(...Array.from({ length: key.length }, () => key)), key.length);
  const sBytes = repeatTo(sha256(...Array.from({ length: 16 + c[0]! }, () => salt)), salt.length);
  for (let r = 0; r < rounds; r++) {
    const h = createHash('sha256').update(r & 1 ? p : c);
    if (r % 3) h.update(sBytes);
    if (r % 7) h.update(p);
    c = h.update(r & 1 ? c : p).digest();
  }
  const chars = (w: number, n: number): string => {
    let out = '';
    for (let i = 0; i < n; i++, w >>= 6) out += CRYPT_ALPHABET[w & 0x3f];
    return out;
  };
  return CRYPT_ORDER.map(([x, y, z]) => chars((c[x]! << 16) | (c[y]! << 8) | c[z]!, 4)).join('') + chars((c[31]! << 8) | c[30]!, 3);
}

// `$A$<rounds / 1000, 3 hex digits>$<20-byte salt><43-character digest>`
const CACHING_SHA2 = /^\$A\$([0-9A-Fa-f]{3})\$([\s\S]{20})([./0-9A-Za-z]{43})$/;

/**
 * Whether the account logs in with `password`, from its stored hash: mysql_native_password's
 * (MariaDB, MySQL 5.7) or caching_sha2_password's (MySQL 8), whose salt it carries. Null when the
 * plugin's form is not one of those (sha256_password, an unreadable string); false for other
 * plugins (ed25519, unix_socket...), which the spec's password replaces.
 */
export function passwordMatches(a: ObservedAccount, password: string): boolean | null {
  if (a.plugin === 'caching_sha2_password') {
    const m = CACHING_SHA2.exec(a.authenticationString);
    return m ? sha256Crypt(password, m[2]!, parseInt(m[1]!, 16) * 1000) === m[3] : null;
  }
  if (a.plugin === 'sha256_password') return null;
  if (a.plugin !== 'mysql_native_password' && a.plugin !== '') return false;
  return a.authenticationString === nativePasswordHash(password);
}

// ---------------------------------------------------------------------------------------------
// Changes
// ---------------------------------------------------------------------------------------------

export interface AccountRef {
  user: string;
  host: string;
}

export type AccountChange =
  | { kind: 'createUser'; account: AccountRef; password: string }
  | { kind: 'setPassword'; account: AccountRef; password: string }
  | { kind: 'setLimits'; account: AccountRef; limits: ResourceLimits }
  | { kind: 'grant'; account: AccountRef; grant: Grant }
  | { kind: 'revoke'; account: AccountRef; grant: Grant }
  | { kind: 'dropUser'; account: AccountRef };

export type DatabaseChange =
  | { kind: 'createDatabase'; name: string; characterSet?: string; collation?: string }
  | { kind: 'alterDatabase'; name: string; characterSet?: string; collation?: string }
  | { kind: 'dropDatabase'; name: string };

export type AdminChange = AccountChange | DatabaseChange;

function on(scope: GrantScope): string {
  return `${quoteIdentifier(scope.db)}.${scope.table === null ? '*' : quoteIdentifier(scope.table)}`;
}

function privilegeList(privileges: readonly string[]): string {
  // Only keywords of the tables above reach the text; a spec's own words are refused before.
  for (const p of privileges) {
    if (!(p in SCHEMA_PRIVILEGE_COLUMNS) && !(p in TABLE_PRIVILEGE_NAMES)) throw new Error(`unknown privilege ${JSON.stringify(p)}`);
  }
  return privileges.join(', ');
}

function defaults(c: { characterSet?: string; collation?: string }): string {
  for (const n of [c.characterSet, c.collation]) {
    if (n !== undefined && charsetNameProblem(n) !== null) throw new Error(`invalid character set or collation ${JSON.stringify(n)}`);
  }
  return (c.characterSet ? ` CHARACTER SET ${c.characterSet}` : '') + (c.collation ? ` COLLATE ${c.collation}` : '');
}

/**
 * The statement of one change on a server of flavour `f`. Only the password's form differs
 * (`identifiedBy`); MySQL 5.7.6+ and MariaDB 10.2+ agree on ALTER USER ... IDENTIFIED and
 * ALTER USER ... WITH <limit>.
 */
export function changeStatement(f: Flavour, c: AdminChange): Statement {
  switch (c.kind) {
    case 'createUser':
    case 'setPassword': {
      const id = identifiedBy(f, c.password);
      return stmt(`${c.kind === 'createUser' ? 'CREATE' : 'ALTER'} USER ${account(c.account.user, c.account.host)} ${id.sql}`, id.value);
    }
    case 'setLimits': {
      const limits = USER_RESOURCE_LIMITS.map((k) => {
        const n = c.limits[k];
        if (!Number.isSafeInteger(n) || n < 0) throw new Error(`invalid ${k} ${n}`);
        return `${k} ${n}`;
      });
      return stmt(`ALTER USER ${account(c.account.user, c.account.host)} WITH ${limits.join(' ')}`);
    }
    case 'grant':
      return stmt(`GRANT ${privilegeList(c.grant.privileges)} ON ${on(c.grant)} TO ${account(c.account.user, c.account.host)}`);
    case 'revoke':
      return stmt(`REVOKE ${privilegeList(c.grant.privileges)} ON ${on(c.grant)} FROM ${account(c.account.user, c.account.host)}`);
    case 'dropUser':
      return stmt(`DROP USER IF EXISTS ${account(c.account.user, c.account.host)}`);
    case 'createDatabase':
      return stmt(`CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(c.name)}${defaults(c)}`);
    case 'alterDatabase':
      return stmt(`ALTER DATABASE ${quoteIdentifier(c.name)}${defaults(c)}`);
    case 'dropDatabase':
      return stmt(`DROP DATABASE IF EXISTS ${quoteIdentifier(c.name)}`);
  }
}
