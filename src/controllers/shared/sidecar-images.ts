// Which sidecar image a server line runs: the cluster's pods (cluster/select-images.ts) and its
// backup Jobs run the same one. Pure.
import type { ServerVersion } from './resolve-version.ts';

/** The operator's sidecar image per server line (shared/settings.ts, SIDECAR_IMAGE_SETTINGS). */
export interface SidecarImages {
  /** Sidecar image of MySQL 5.7 clusters (`--sidecar-image`). */
  sidecarImage57: string;
  /** Sidecar image of MySQL 8.0 clusters (`--sidecar-mysql8-image`). */
  sidecarImage80: string;
  /** Sidecar image of MySQL 8.4 clusters (`--sidecar-mysql84-image`). */
  sidecarImage84: string;
  /** Sidecar image of MariaDB clusters, with mariabackup (`--sidecar-mariadb-image`). */
  sidecarImageMariaDB: string;
}

export function sidecarFor(v: ServerVersion, opts: SidecarImages): string {
  if (v.family === 'mariadb') return opts.sidecarImageMariaDB;
  if (v.major === 5) return opts.sidecarImage57;
  if (v.major === 8 && v.minor >= 4) return opts.sidecarImage84;
  return opts.sidecarImage80;
}
