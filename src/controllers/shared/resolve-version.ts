// Turns `spec.mysqlVersion` into a server family and an exact version. The exact version is what
// the pods see (`app.kubernetes.io/version`, `MY_MYSQL_VERSION`), as in the anchor, so an alias
// such as "5.7" resolves to the same "5.7.35" the anchor used and adopted pods keep their labels.
// Unlike the MySQL layer, which reads whatever a pod was given, a cluster's version must name a
// supported line with an exact patch, so that an image can be chosen for it.
import { DEFAULT_MYSQL_VERSION, expandVersionAlias, MYSQL_VERSION_ALIASES, type ServerFamily } from '../../api/versions.ts';

export interface ServerVersion {
  family: ServerFamily;
  major: number;
  minor: number;
  patch: number;
  /** "5.7.35", "10.11.10": no family prefix (MariaDB majors are >= 10, MySQL majors < 10). */
  text: string;
}

export type VersionResolution = { ok: true; version: ServerVersion } | { ok: false; message: string };

const SUPPORTED = `supported: ${Object.keys(MYSQL_VERSION_ALIASES).join(', ')} or an exact version of those lines`;

export function resolveVersion(spec: string | undefined): VersionResolution {
  const raw = (spec ?? '').trim() || DEFAULT_MYSQL_VERSION;
  const full = expandVersionAlias(raw);
  const m = /^(mariadb-)?(\d+)\.(\d+)\.(\d+)$/.exec(full);
  if (!m) return { ok: false, message: `mysqlVersion "${raw}" is not a known version (${SUPPORTED})` };
  const family: ServerFamily = m[1] ? 'mariadb' : 'mysql';
  const major = Number(m[2]);
  const minor = Number(m[3]);
  const patch = Number(m[4]);
  const line = `${major}.${minor}`;
  const known = family === 'mysql' ? line === '5.7' || line === '8.0' || line === '8.4' : (major === 10 && minor >= 6) || major === 11;
  if (!known) return { ok: false, message: `mysqlVersion "${raw}" is not a supported server line (${SUPPORTED})` };
  return { ok: true, version: { family, major, minor, patch, text: `${major}.${minor}.${patch}` } };
}

/** The key a version is known by in image tables: "5.7.35", "mariadb-10.11.10". */
export function versionKey(v: ServerVersion): string {
  return v.family === 'mariadb' ? `mariadb-${v.text}` : v.text;
}
