// The server flavour decides which SQL the project sends. It is known either from the cluster's
// `mysqlVersion` (before a server runs: init-file, grants) or from the running server itself
// (`SELECT VERSION(), @@version_comment`), which is the truth once a connection exists.
import { atLeast, expandVersionAlias, type ServerFamily } from '../api/versions.ts';

export interface Flavour {
  family: ServerFamily;
  major: number;
  minor: number;
  patch: number;
}

/** Named lines, for tables and test names. */
export type FlavourLine = 'mysql-5.7' | 'mysql-8.0' | 'mysql-8.4' | 'mariadb';

export function flavourLine(f: Flavour): FlavourLine {
  if (f.family === 'mariadb') return 'mariadb';
  if (f.major < 8) return 'mysql-5.7';
  if (f.major === 8 && f.minor === 0) return 'mysql-8.0';
  return 'mysql-8.4';
}

/**
 * From `spec.mysqlVersion` or `MY_MYSQL_VERSION`: "5.7", "8.0.32", "8.4", "mariadb-10.11",
 * "mariadb-10.11.10", "10.11.10". Aliases mean what the API's version table says; a line that is
 * no alias ("mariadb-10.5") means its first release. Returns null for text that names no version,
 * so callers can report the field.
 */
export function flavourFromVersionSpec(spec: string): Flavour | null {
  const full = expandVersionAlias(spec);
  const m = /^(mariadb-)?(\d+)\.(\d+)(?:\.(\d+))?$/i.exec(full);
  if (!m) return null;
  const major = Number(m[2]);
  const family: ServerFamily = m[1] || major >= 10 ? 'mariadb' : 'mysql';
  return { family, major, minor: Number(m[3]), patch: Number(m[4] ?? 0) };
}

/**
 * From a running server: MariaDB says so in VERSION() ("10.11.19-MariaDB-0+deb12u1-log");
 * some builds only in @@version_comment. Percona and Oracle MySQL are both family "mysql".
 */
export function flavourFromServer(version: string, versionComment: string): Flavour | null {
  // MariaDB's handshake prefixes "5.5.5-" for old clients; a proxy may pass it on.
  const m = /^(?:5\.5\.5-)?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  if (!m) return null;
  const isMaria = /mariadb/i.test(version) || /mariadb/i.test(versionComment);
  return { family: isMaria ? 'mariadb' : 'mysql', major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) };
}

// Syntax switches, named for what changes.

/** CHANGE REPLICATION SOURCE TO, START/STOP/RESET REPLICA, SHOW REPLICA STATUS (MySQL 8.0.23+). */
export function usesSourceReplicaSyntax(f: Flavour): boolean {
  return f.family === 'mysql' && atLeast(f, 8, 0, 23);
}

/** RESET MASTER became RESET BINARY LOGS AND GTIDS in MySQL 8.4 (the old one is gone). */
export function usesResetBinaryLogs(f: Flavour): boolean {
  return f.family === 'mysql' && atLeast(f, 8, 4);
}

/** MySQL 5.7.8+ has super_read_only; MariaDB has none (docs/field-notes.md). */
export function hasSuperReadOnly(f: Flavour): boolean {
  return f.family === 'mysql';
}

/** MySQL 8 grants fine-grained dynamic privileges (SYSTEM_VARIABLES_ADMIN, ...). */
export function hasDynamicPrivileges(f: Flavour): boolean {
  return f.family === 'mysql' && f.major >= 8;
}

/** MariaDB 10.11 split READ_ONLY ADMIN out of SUPER; earlier SUPER writes through read_only. */
export function hasReadOnlyAdmin(f: Flavour): boolean {
  return f.family === 'mariadb' && atLeast(f, 10, 11);
}
