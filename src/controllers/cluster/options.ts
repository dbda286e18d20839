// What the cluster controller takes from the operator's command line and environment: its
// options object and the settings it is read from (flag, variable, default). Flag names are the
// anchor's (bitpoke mysql-operator v0.6.3, pkg/options) wherever the anchor had the setting; the
// variables keep this project's names. The defaults are the values the anchor's v0.6.3 chart
// passes, so a cluster the anchor created renders to the same pod template under a default
// install (docs/adoption-from-anchor.md).
import { booleanSetting, defaultsOf, pairsSetting, stringSetting, type SettingTable } from '../../runtime/settings.ts';
import {
  IMAGE_PULL_POLICY_SETTING,
  ORCHESTRATOR_CREDENTIALS_SETTING,
  ORCHESTRATOR_URI_SETTING,
  SIDECAR_IMAGE_SETTINGS,
  type ImagePullPolicy,
} from '../shared/settings.ts';
import type { SidecarImages } from '../shared/sidecar-images.ts';

export interface ClusterControllerOptions extends SidecarImages {
  metricsExporterImage: string;
  /** Orchestrator HTTP API, given to the pods for the pre-stop graceful takeover. */
  orchestratorUri: string;
  /** Orchestrator's API credentials directory, for the pods' pre-stop hook ('' = none). */
  orchestratorCredentialsDir: string;
  /** Adds the pre-stop graceful master takeover hook (`--failover-before-shutdown`). */
  failoverBeforeShutdown: boolean;
  imagePullPolicy: ImagePullPolicy;
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

export const CLUSTER_SETTINGS: SettingTable<ClusterControllerOptions> = {
  ...SIDECAR_IMAGE_SETTINGS,
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
  imagePullPolicy: IMAGE_PULL_POLICY_SETTING,
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
    help: "its password; prefer the variable, a flag shows in the process list. Tenant Secrets get only its hash, unless the cluster's pods run the anchor's sidecar (docs/credentials.md)",
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
