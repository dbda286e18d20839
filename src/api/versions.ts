// What `spec.mysqlVersion` (and the pods' `MY_MYSQL_VERSION`) may say, and what an alias stands
// for. The cluster controller and the MySQL layer both resolve versions through this one table,
// so the version a pod is labelled with and the SQL flavour the operator speaks to it agree.

export type ServerFamily = 'mysql' | 'mariadb';

/** The anchor's default when `mysqlVersion` is empty. */
export const DEFAULT_MYSQL_VERSION = '5.7';

/**
 * Alias → exact version. 5.7 and 8.0 are the anchor's (adopted pods keep their
 * `app.kubernetes.io/version`); the others are the versions of the images the operator ships.
 */
export const MYSQL_VERSION_ALIASES: Readonly<Record<string, string>> = {
  '5.7': '5.7.35',
  '8.0': '8.0.32',
  '8.4': '8.4.8',
  'mariadb-10.6': 'mariadb-10.6.20',
  'mariadb-10.11': 'mariadb-10.11.10',
  'mariadb-11.4': 'mariadb-11.4.4',
};

/** The exact version an alias stands for; any other text comes back trimmed, unchanged. */
export function expandVersionAlias(spec: string): string {
  const raw = spec.trim();
  return MYSQL_VERSION_ALIASES[raw] ?? raw;
}

/** True when the version is at least major.minor.patch (any version shape with those fields). */
export function atLeast(v: { major: number; minor: number; patch: number }, major: number, minor: number, patch = 0): boolean {
  if (v.major !== major) return v.major > major;
  if (v.minor !== minor) return v.minor > minor;
  return v.patch >= patch;
}
