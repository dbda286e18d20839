// What the cluster controller takes from the operator's command line and environment: its
// options object and the settings it is read from (flag, variable, default). Flag names are the
// anchor's (bitpoke mysql-operator v0.6.3, pkg/options) wherever the anchor had the setting; the
// variables keep this project's names. The defaults are the values the anchor's v0.6.3 chart
// passes, so a cluster the anchor created renders to the same pod template under a default
// install (docs/adoption-from-anchor.md).
import {
  booleanSetting,
  choiceSetting,
  defaultsOf,
  httpUrlSetting,
  pairsSetting,
  stringSetting,
  type SettingTable,
} from '../../runtime/settings.ts';

export interface ClusterControllerOptions {
  /** Sidecar image of MySQL 5.7 clusters (`--sidecar-image`). */
  sidecarImage57: string;
  /** Sidecar image of MySQL 8.0 clusters (`--sidecar-mysql8-image`). */
  sidecarImage80: string;
  /** Sidecar image of MySQL 8.4 clusters (`--sidecar-mysql84-image`). */
  sidecarImage84: string;
  /** Sidecar image of MariaDB clusters, with mariabackup (`--sidecar-mariadb-image`). */
  sidecarImageMariaDB: string;
  metricsExporterImage: string;
  /** Orchestrator HTTP API, given to the pods for the pre-stop graceful takeover. */
  orchestratorUri: string;
  /** Orchestrator's API credentials directory, for the pods' pre-stop hook ('' = none). */
  orchestratorCredentialsDir: string;
  /** Adds the pre-stop graceful master takeover hook (`--failover-before-shutdown`). */
  failoverBeforeShutdown: boolean;
  imagePullPolicy: 'Always' | 'IfNotPresent' | 'Never';
  /** Pull secret added when the cluster names none. */
  imagePullSecretName: string;
  /** `--mysql-versions-to-image`: exact version ("8.0.36", "mariadb-10.11.9") or alias → image. */
  versionImages: Readonly<Record<string, string>>;
  /** Orchestrator's topology credentials, copied into every operated Secret (as the anchor did). */
  orcTopologyUser: string;
  orcTopologyPassword: string;
  /** Render each cluster's NetworkPolicy (`--network-policies`; docs/network-policies.md). */
  networkPolicies: boolean;
  /** The namespace of the operator's and Orchestrator's pods, which the policies let in ('' = any namespace). */
  operatorNamespace: string;
  /** Labels of the operator's pods ({} = every pod of operatorNamespace). */
  operatorPodLabels: Readonly<Record<string, string>>;
  /** Labels of Orchestrator's pods ({} = every pod of operatorNamespace). */
  orchestratorPodLabels: Readonly<Record<string, string>>;
}

/** This project's own sidecar: the default only for lines the anchor never had (8.4, MariaDB). */
const OWN_SIDECAR_IMAGE = 'mysql-operator-sidecar:latest';

/**
 * Orchestrator's HTTP API. One setting object, so a controller that also talks to Orchestrator
 * declares this same object and both get the one flag.
 */
export const ORCHESTRATOR_URI_SETTING = httpUrlSetting({
  flag: 'orchestrator-uri',
  env: 'ORCHESTRATOR_URL',
  help: "Orchestrator's HTTP API (the pods' pre-stop hook asks it for a graceful master takeover)",
  default: 'http://mysql-operator.mysql-operator/api',
});

/**
 * Orchestrator's API credentials (AuthenticationMethod basic or multi): a directory with the files
 * `user` and `password`, the chart's Secret mounted. Shared like the URL: the orchestrator and
 * backup controllers call the API with them, the cluster controller gives them to the pods'
 * pre-stop hook. Empty: the API is called without credentials.
 */
export const ORCHESTRATOR_CREDENTIALS_SETTING = stringSetting({
  flag: 'orchestrator-credentials-dir',
  env: 'ORCHESTRATOR_CREDENTIALS_DIR',
  help: "directory with the files `user` and `password` of Orchestrator's API (a mounted Secret); empty: no credentials sent",
  default: '',
});

export const CLUSTER_SETTINGS: SettingTable<ClusterControllerOptions> = {
  sidecarImage57: stringSetting({
    flag: 'sidecar-image',
    env: 'SIDECAR_IMAGE',
    help: 'sidecar image of MySQL 5.7 clusters',
    default: 'docker.io/bitpoke/mysql-operator-sidecar-5.7:v0.6.3',
    required: true,
  }),
  sidecarImage80: stringSetting({
    flag: 'sidecar-mysql8-image',
    env: 'SIDECAR_MYSQL8_IMAGE',
    help: 'sidecar image of MySQL 8.0 clusters',
    default: 'docker.io/bitpoke/mysql-operator-sidecar-8.0:v0.6.3',
    required: true,
  }),
  sidecarImage84: stringSetting({
    flag: 'sidecar-mysql84-image',
    env: 'SIDECAR_MYSQL84_IMAGE',
    help: "sidecar image of MySQL 8.4 clusters (the anchor had none: this project's)",
    default: OWN_SIDECAR_IMAGE,
    required: true,
  }),
  sidecarImageMariaDB: stringSetting({
    flag: 'sidecar-mariadb-image',
    env: 'SIDECAR_MARIADB_IMAGE',
    help: "sidecar image of MariaDB clusters (the anchor had none: this project's)",
    default: OWN_SIDECAR_IMAGE,
    required: true,
  }),
  metricsExporterImage: stringSetting({
    flag: 'metrics-exporter-image',
    env: 'METRICS_EXPORTER_IMAGE',
    help: 'mysqld_exporter image of the metrics container',
    default: 'docker.io/prom/mysqld-exporter:v0.13.0',
    required: true,
  }),
  orchestratorUri: ORCHESTRATOR_URI_SETTING,
  orchestratorCredentialsDir: ORCHESTRATOR_CREDENTIALS_SETTING,
  failoverBeforeShutdown: booleanSetting({
    flag: 'failover-before-shutdown',
    env: 'FAILOVER_BEFORE_SHUTDOWN',
    help: 'a pre-stop hook asks Orchestrator to move the master off a pod before it stops',
    default: 'true',
  }),
  imagePullPolicy: choiceSetting(
    {
      flag: 'image-pull-policy',
      env: 'IMAGE_PULL_POLICY',
      help: 'pull policy of the pods when the cluster sets none',
      default: 'IfNotPresent',
    },
    ['Always', 'IfNotPresent', 'Never'],
  ),
  imagePullSecretName: stringSetting({
    flag: 'image-pull-secret',
    env: 'IMAGE_PULL_SECRET',
    help: 'pull Secret of the pods when the cluster names none',
    default: '',
  }),
  versionImages: pairsSetting({
    flag: 'mysql-versions-to-image',
    env: 'MYSQL_IMAGE_MAP',
    help: 'server images by version or alias, over the built-in ones: 8.0.36=percona:8.0.36,mariadb-10.11=mariadb:10.11',
    default: '',
  }),
  orcTopologyUser: stringSetting({
    flag: 'orchestrator-topology-user',
    env: 'ORC_TOPOLOGY_USER',
    help: "Orchestrator's MySQL user, put in every operated Secret (the anchor's chart sets the variable)",
    defaultText: "none: a Secret keeps its own, a new one gets 'orchestrator'",
  }),
  orcTopologyPassword: stringSetting({
    flag: 'orchestrator-topology-password',
    env: 'ORC_TOPOLOGY_PASSWORD',
    help: 'its password; prefer the variable, a flag shows in the process list',
    defaultText: 'none: a Secret keeps its own, a new one gets a generated one',
    secret: true,
  }),
  networkPolicies: booleanSetting({
    flag: 'network-policies',
    env: 'NETWORK_POLICIES',
    help: "each cluster gets a NetworkPolicy: MySQL's port from its pods, the operator, Orchestrator and spec.networkPolicy.mysqlFrom; the sidecar's from its pods, the operator and its backup Jobs",
    default: 'false',
  }),
  operatorNamespace: stringSetting({
    flag: 'operator-namespace',
    env: 'POD_NAMESPACE',
    help: "namespace of the operator's and Orchestrator's pods, for the clusters' NetworkPolicies ('' = any namespace)",
    default: '',
  }),
  operatorPodLabels: pairsSetting({
    flag: 'operator-pod-labels',
    env: 'OPERATOR_POD_LABELS',
    help: "labels of the operator's pods, for the clusters' NetworkPolicies: name=value,... ('' = every pod of --operator-namespace)",
    default: '',
  }),
  orchestratorPodLabels: pairsSetting({
    flag: 'orchestrator-pod-labels',
    env: 'ORCHESTRATOR_POD_LABELS',
    help: "labels of Orchestrator's pods, for the clusters' NetworkPolicies: name=value,... ('' = every pod of --operator-namespace)",
    default: '',
  }),
};

export const DEFAULT_CLUSTER_OPTIONS: ClusterControllerOptions = defaultsOf(CLUSTER_SETTINGS);

export function clusterOptions(partial: Partial<ClusterControllerOptions> = {}): ClusterControllerOptions {
  return { ...DEFAULT_CLUSTER_OPTIONS, ...partial };
}
