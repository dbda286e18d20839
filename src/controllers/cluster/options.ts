// What the cluster controller takes from the operator's configuration (flags/env, validated once
// by the runtime). The defaults are the values the anchor's v0.6.3 chart passes, so a cluster the
// anchor created renders to the same pod template under a default install.

export interface ClusterControllerOptions {
  /** Sidecar image for MySQL 5.7 (`--sidecar-image`). */
  sidecarImage57: string;
  /** Sidecar image for MySQL 8.0 (`--sidecar-mysql8-image`). */
  sidecarImage80: string;
  /** Sidecar image for MySQL 8.4. */
  sidecarImage84: string;
  /** Sidecar image for MariaDB (mariabackup inside). */
  sidecarImageMariaDB: string;
  metricsExporterImage: string;
  /** Orchestrator HTTP API, given to the pods for the pre-stop graceful takeover. */
  orchestratorUri: string;
  /** Adds the pre-stop graceful master takeover hook (`--failover-before-shutdown`). */
  failoverBeforeShutdown: boolean;
  imagePullPolicy: string;
  /** Pull secret added when the cluster names none. */
  imagePullSecretName: string;
  /** `--mysql-versions-to-image`: exact version ("8.0.36", "mariadb-10.11.9") or alias → image. */
  versionImages: Readonly<Record<string, string>>;
  /** Orchestrator's topology credentials, copied into every operated Secret (as the anchor did). */
  orcTopologyUser: string;
  orcTopologyPassword: string;
}

export const DEFAULT_CLUSTER_OPTIONS: ClusterControllerOptions = {
  sidecarImage57: 'docker.io/bitpoke/mysql-operator-sidecar-5.7:v0.6.3',
  sidecarImage80: 'docker.io/bitpoke/mysql-operator-sidecar-8.0:v0.6.3',
  // The anchor had no sidecar for these lines: this project's sidecar (the runtime's default).
  sidecarImage84: 'mysql-operator-sidecar:latest',
  sidecarImageMariaDB: 'mysql-operator-sidecar:latest',
  metricsExporterImage: 'docker.io/prom/mysqld-exporter:v0.13.0',
  orchestratorUri: 'http://mysql-operator.mysql-operator/api',
  failoverBeforeShutdown: true,
  imagePullPolicy: 'IfNotPresent',
  imagePullSecretName: '',
  versionImages: {},
  orcTopologyUser: '',
  orcTopologyPassword: '',
};

export function clusterOptions(partial: Partial<ClusterControllerOptions> = {}): ClusterControllerOptions {
  return { ...DEFAULT_CLUSTER_OPTIONS, ...partial };
}
