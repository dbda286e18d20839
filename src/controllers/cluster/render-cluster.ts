// Everything the cluster should have, from the cluster, its validated version and images, and the
// operated Secret as it exists (its generated values are kept). Pure: no I/O, no clock; the
// password generator is passed in.
import type { V1ConfigMap, V1PodDisruptionBudget, V1PodTemplateSpec, V1Secret, V1Service, V1StatefulSet } from '@kubernetes/client-node';
import type { MysqlCluster, PodSpec } from '../../api/index.ts';
import { stableHash } from './hash.ts';
import { clusterLabels, names, type ClusterRef } from '../../api/names.ts';
import type { OrchestratorCredentials } from '../../orchestrator/index.ts';
import { renderOrchestratorApiSecret } from './render-orchestrator-api-secret.ts';
import type { ClusterControllerOptions } from './options.ts';
import { renderConfigMap } from './render-configmap.ts';
import { renderMyCnf } from './render-my-cnf.ts';
import { hasLosslessDefaults } from '../shared/replication-mode.ts';
import { operatedSecretData } from './render-operated-secret.ts';
import { renderNetworkPolicy, type NetworkPolicyObject } from './render-network-policy.ts';
import { effectiveMinAvailable, renderPodDisruptionBudget } from './render-pdb.ts';
import { renderClusterServices, renderHeadlessService } from './render-services.ts';
import { dataVolumeSpec, mysqlResources, renderStatefulSet, type ProbeStyle } from './render-statefulset.ts';
import { isPerconaImage, type Images } from './select-images.ts';
import type { ServerVersion } from './resolve-version.ts';

export interface RenderInput {
  cluster: MysqlCluster;
  version: ServerVersion;
  images: Images;
  /** The user Secret's key of the root password (validateCluster). */
  rootPasswordKey: string;
  opts: ClusterControllerOptions;
  /** Decoded data of the existing operated Secret ({} when there is none). */
  existingSecretData: Readonly<Record<string, string>>;
  /** The pod template annotations that roll pods, given what was rendered (decide-rollout.ts). */
  rolloutAnnotations: (rendered: RolloutInputs) => Record<string, string>;
  /** The probes, given the pod template each style renders (decide-rollout.ts). */
  probes: (renderTemplate: (probes: ProbeStyle) => V1PodTemplateSpec) => ProbeStyle;
  /** The StatefulSet's minReadySeconds (decide-rollout.ts); default none. */
  minReadySeconds?: number;
  generatePassword?: () => string;
  /** Orchestrator's API credentials the operator holds, for the pods' pre-stop hook; none: no Secret, no mount. */
  orchestratorCredentials?: OrchestratorCredentials;
}

export interface RolloutInputs {
  configHash: string;
  configData: Readonly<Record<string, string>>;
  secretData: Readonly<Record<string, string>>;
}

export interface DesiredState {
  ref: ClusterRef;
  labels: Record<string, string>;
  configMap: V1ConfigMap;
  secretData: Record<string, string>;
  headlessService: V1Service;
  services: V1Service[];
  statefulSet: V1StatefulSet;
  podDisruptionBudget: V1PodDisruptionBudget | undefined;
  /** `<c>-mysql`, when the operator renders NetworkPolicies (--network-policies). */
  networkPolicy: NetworkPolicyObject | undefined;
  configHash: string;
  /** `<c>-mysql-orc-api`, when the operator holds Orchestrator's API credentials. */
  orchestratorApiSecret: V1Secret | undefined;
}

export function clusterRef(cluster: MysqlCluster): ClusterRef {
  const m = cluster.metadata ?? {};
  return { name: m.name ?? '', namespace: m.namespace ?? '', uid: m.uid ?? '', annotations: m.annotations };
}

// Backup-only settings do not touch the MySQL pods, so they must not roll them.
function podInputs(p: PodSpec | undefined): Partial<PodSpec> {
  const { backupAffinity: _a, backupNodeSelector: _n, backupPriorityClassName: _p, backupTolerations: _t, ...rest } = p ?? {};
  return rest;
}

export function renderCluster(input: RenderInput): DesiredState {
  const { cluster, version, images, opts } = input;
  const spec = cluster.spec;
  const ref = clusterRef(cluster);
  const labels = clusterLabels(ref, version.text);
  const resources = mysqlResources(spec);

  const myCnf = renderMyCnf({
    version,
    perconaImage: isPerconaImage(images.mysql),
    memoryRequest: resources.requests?.memory,
    cpuLimit: resources.limits?.cpu,
    storageRequest: dataVolumeSpec(spec).persistentVolumeClaim?.resources?.requests?.storage,
    mysqlConf: spec.mysqlConf,
    durableCommits: hasLosslessDefaults(cluster),
  });
  const configMap = renderConfigMap(ref, labels, myCnf, !spec.podSpec?.mysqlLifecycle);
  const secretData = operatedSecretData(
    input.existingSecretData,
    { user: opts.orcTopologyUser, password: opts.orcTopologyPassword },
    input.generatePassword,
  );
  const configHash = stableHash({ config: configMap.data, secret: secretData, images, pod: podInputs(spec.podSpec) });
  const stsInput = {
    cluster,
    ref,
    version,
    images,
    rootPasswordKey: input.rootPasswordKey,
    opts,
    labels,
    rolloutAnnotations: input.rolloutAnnotations({ configHash, configData: configMap.data ?? {}, secretData }),
    ...(input.minReadySeconds !== undefined ? { minReadySeconds: input.minReadySeconds } : {}),
    ...(input.orchestratorCredentials ? { orchestratorApiSecret: names.orchestratorApiSecret(ref.name) } : {}),
  };
  const probes = input.probes((style) => renderStatefulSet({ ...stsInput, probes: style }).spec!.template);
  const statefulSet = renderStatefulSet({ ...stsInput, probes });
  const minAvailable = effectiveMinAvailable(spec);
  return {
    ref,
    labels,
    configMap,
    secretData,
    headlessService: renderHeadlessService(ref.namespace),
    services: renderClusterServices(ref, labels),
    statefulSet,
    podDisruptionBudget: minAvailable === undefined ? undefined : renderPodDisruptionBudget(ref, minAvailable),
    networkPolicy: opts.networkPolicies
      ? renderNetworkPolicy(ref, spec, {
          namespace: opts.operatorNamespace,
          operatorPodLabels: opts.operatorPodLabels,
          orchestratorPodLabels: opts.orchestratorPodLabels,
        })
      : undefined,
    configHash,
    orchestratorApiSecret: input.orchestratorCredentials ? renderOrchestratorApiSecret(ref, input.orchestratorCredentials) : undefined,
  };
}
