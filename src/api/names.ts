// Names and label sets of the objects of one cluster (docs/compatibility.md, the anchor's GetNameForResource,
// GetLabels and GetSelectorLabels).
import {
  API_GROUP_VERSION,
  APP_NAME_VALUE,
  COMPONENT_BACKUP,
  COMPONENT_DATABASE,
  HEADLESS_SERVICE_NAME,
  KIND_MYSQL_CLUSTER,
  LABEL_APP_COMPONENT,
  LABEL_APP_INSTANCE,
  LABEL_APP_MANAGED_BY,
  LABEL_APP_NAME,
  LABEL_APP_PART_OF,
  LABEL_APP_VERSION,
  LABEL_BACKUP_CLUSTER,
  LABEL_CLUSTER,
  MANAGED_BY_VALUE,
  OPERATED_SECRET_SUFFIX,
  ORCHESTRATOR_API_SECRET_SUFFIX,
} from './constants.ts';

/** A Kubernetes owner reference, as plain data (the runtime's OwnerReference has the same shape). */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ClusterRef {
  name: string;
  namespace: string;
  uid: string;
  annotations?: Readonly<Record<string, string>>;
}

export const names = {
  statefulSet: (c: string) => `${c}-mysql`,
  configMap: (c: string) => `${c}-mysql`,
  podDisruptionBudget: (c: string) => `${c}-mysql`,
  /** Ours: the cluster's NetworkPolicy (docs/network-policies.md). */
  networkPolicy: (c: string) => `${c}-mysql`,
  healthyService: (c: string) => `${c}-mysql`,
  masterService: (c: string) => `${c}-mysql-master`,
  replicasService: (c: string) => `${c}-mysql-replicas`,
  operatedSecret: (c: string) => `${c}${OPERATED_SECRET_SUFFIX}`,
  orchestratorApiSecret: (c: string) => `${c}${ORCHESTRATOR_API_SECRET_SUFFIX}`,
  headlessService: () => HEADLESS_SERVICE_NAME,
  dataClaimTemplate: () => 'data',
  pvc: (c: string, ordinal: number) => `data-${c}-mysql-${ordinal}`,
  orchestratorAlias: (c: string, ns: string) => `${c}.${ns}`,
  pod: (c: string, ordinal: number) => `${c}-mysql-${ordinal}`,
  /** A MysqlBackup's Job (anchor: `<backup>-backup`); see backupJobName. */
  backupJob: (backup: string) => backupJobName(backup),
  /** A MysqlBackup the schedule made, `<c>-auto-<YYYY-MM-DD>t<HH-MM-SS>` (anchor). */
  scheduledBackup: (c: string, stamp: string) => `${c}-auto-${stamp}`,
} as const;

/** Longest object name the Job controller can label its pods with (`job-name`: a label value). */
const MAX_JOB_NAME = 63;

/**
 * `<backup>-backup` as the anchor names it. Beyond 63 characters the anchor's Job could not be
 * created; we cut the name the way the anchor cut its cleanup Job's (44 characters and the FNV-1a
 * hash of the whole name), so two long names sharing a prefix still get distinct Jobs.
 */
function backupJobName(backup: string): string {
  const plain = `${backup}-backup`;
  return plain.length <= MAX_JOB_NAME ? plain : `${backup.slice(0, 44)}-${fnv32a(backup)}-backup`;
}

function fnv32a(s: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(s, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * The cluster an Orchestrator cluster alias (`names.orchestratorAlias`) names, or null when the text
 * is no such alias. A namespace is a DNS label without dots, a cluster name may hold dots: the
 * namespace is what follows the last one.
 */
export function clusterOfOrchestratorAlias(alias: string): { name: string; namespace: string } | null {
  const dot = alias.lastIndexOf('.');
  const name = alias.slice(0, dot);
  const namespace = alias.slice(dot + 1);
  const subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
  const label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
  if (dot < 0 || name.length > 253 || namespace.length > 63 || !subdomain.test(name) || !label.test(namespace)) return null;
  return { name, namespace };
}

/** `<pod>.mysql.<ns>`: the name Orchestrator and status.nodes know the server by (report-host). */
export function podFqdn(pod: string, namespace: string): string {
  return `${pod}.${HEADLESS_SERVICE_NAME}.${namespace}`;
}

/** StatefulSet pods end in `-<ordinal>`; anything else is not one of ours (-1). */
export function podOrdinal(pod: string): number {
  const m = /-(\d+)$/.exec(pod);
  return m ? Number(m[1]) : -1;
}

/** Labels every object of the cluster is selected by (StatefulSet selector, Services, PDB). */
export function selectorLabels(cluster: string): Record<string, string> {
  return {
    [LABEL_CLUSTER]: cluster,
    [LABEL_APP_NAME]: APP_NAME_VALUE,
    [LABEL_APP_MANAGED_BY]: MANAGED_BY_VALUE,
  };
}

/**
 * Labels of a backup Job's pods: the backup controller's pod informer selects the first two, the
 * cluster's NetworkPolicy lets pods with all three reach the sidecar's port.
 */
export function backupJobPodLabels(cluster: string): Record<string, string> {
  return { [LABEL_APP_MANAGED_BY]: MANAGED_BY_VALUE, [LABEL_APP_COMPONENT]: COMPONENT_BACKUP, [LABEL_BACKUP_CLUSTER]: cluster };
}

/** Labels of the headless Service's selector: every cluster of the namespace. */
export function namespaceSelectorLabels(): Record<string, string> {
  return { [LABEL_APP_NAME]: APP_NAME_VALUE, [LABEL_APP_MANAGED_BY]: MANAGED_BY_VALUE };
}

/** The full label set (pods, ConfigMap, Services); cluster annotations may override two of them. */
export function clusterLabels(cluster: ClusterRef, version: string): Record<string, string> {
  const a = cluster.annotations ?? {};
  const labels: Record<string, string> = {
    ...selectorLabels(cluster.name),
    [LABEL_APP_INSTANCE]: a[LABEL_APP_INSTANCE] ?? cluster.name,
    [LABEL_APP_VERSION]: version,
    [LABEL_APP_COMPONENT]: a[LABEL_APP_COMPONENT] ?? COMPONENT_DATABASE,
  };
  if (a[LABEL_APP_PART_OF]) labels[LABEL_APP_PART_OF] = a[LABEL_APP_PART_OF];
  return labels;
}

export function controllerRef(cluster: ClusterRef): OwnerReference {
  return {
    apiVersion: API_GROUP_VERSION,
    kind: KIND_MYSQL_CLUSTER,
    name: cluster.name,
    uid: cluster.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}
