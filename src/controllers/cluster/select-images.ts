// Which images a cluster's pods run. Precedence for the server: `spec.image`, then the operator's
// version→image flag, then the built-in table. Sidecar: `spec.sidecarImage`, then the operator's
// per-line sidecar image.
import type { ClusterControllerOptions } from './options.ts';
import { versionKey, type ServerVersion } from '../shared/resolve-version.ts';
import { sidecarFor } from '../shared/sidecar-images.ts';

export interface Images {
  mysql: string;
  sidecar: string;
  metricsExporter: string;
}

export type ImageSelection = { ok: true; images: Images } | { ok: false; message: string };

// The anchor's digests where known (5.7.35 is the v0.6.3 default), so adopted pods keep their image.
const SERVER_IMAGES: Readonly<Record<string, string>> = {
  '5.7.35': 'percona@sha256:caab4e854bd75040d07802bf1862bfef1d2b4db0acbc9c4aaf5c21c698fdd393',
  '8.0.20': 'percona@sha256:6d4524eccd26af7bd7fb623c567159dfbd7f3d9a0e2f7bebd54af1e9ca9903dc',
  '8.0.32': 'docker.io/percona/percona-server:8.0.32',
  '8.4.8': 'docker.io/percona/percona-server@sha256:eaa4cf955f8a01a43faa6ef656bf8fb69a17c17c278a3b0514212291ca0448b1',
  'mariadb-10.6.20': 'docker.io/library/mariadb:10.6.20',
  'mariadb-10.11.10': 'docker.io/library/mariadb:10.11.10',
  'mariadb-11.4.4': 'docker.io/library/mariadb:11.4.4',
};

export function selectImages(
  spec: { image?: string; sidecarImage?: string; mysqlVersion?: string },
  version: ServerVersion,
  opts: ClusterControllerOptions,
): ImageSelection {
  const key = versionKey(version);
  const alias = spec.mysqlVersion?.trim() ?? '';
  const mysql = nonEmpty(spec.image) ?? opts.versionImages[key] ?? (alias ? opts.versionImages[alias] : undefined) ?? SERVER_IMAGES[key];
  if (!mysql) {
    return {
      ok: false,
      message: `no image is known for version ${key}: set spec.image, or map the version with the operator's --mysql-versions-to-image`,
    };
  }
  return {
    ok: true,
    images: {
      mysql,
      sidecar: nonEmpty(spec.sidecarImage) ?? sidecarFor(version, opts),
      metricsExporter: opts.metricsExporterImage,
    },
  };
}

/** The anchor keys several behaviours (binlog-space-limit, the init-only container) off this. */
export function isPerconaImage(image: string): boolean {
  return image.includes('percona');
}

function nonEmpty(s: string | undefined): string | undefined {
  return s?.trim() ? s.trim() : undefined;
}
