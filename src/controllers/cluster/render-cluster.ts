// Everything the cluster should have, from the cluster, its validated version and images, and the
// operated Secret as it exists (its generated values are kept), in two stages with the decisions
// about the running pods between them (decide-desired.ts): the configuration (renderConfig), then
// the objects (renderCluster). Pure: no I/O, no clock; the password generator is passed in.
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
import { operatedSecretData, rolloutSecretView, topologyPasswordForm } from './render-operated-secret.ts';
import { renderNetworkPolicy, type NetworkPolicyObject } from './render-network-policy.ts';
import { effectiveMinAvailable, renderPodDisruptionBudget } from './render-pdb.ts';
import { renderClusterServices, renderHeadlessService } from './render-services.ts';
import { dataVolumeSpec, mysqlResources, renderStatefulSet, type ProbeStyle } from './render-statefulset.ts';
import { isPerconaImage, type Images } from './select-images.ts';
import type { ServerVersion } from '../shared/resolve-version.ts';

export interface RenderInput {
  cluster: MysqlCluster;
  version: ServerVersion;
  images: Images;
  /** The user Secret's key of the root password (validateCluster). */
  rootPasswordKey: string;
  opts: ClusterControllerOptions;
  /** Decoded data of the existing operated Secret ({} when there is none). */
  existingSecretData: Readonly<Record<string, string>>;
  generatePassword?: () => string;
  /** Orchestrator's API credentials the operator holds, for the pods' pre-stop hook; none: no Secret, no mount. */
  orchestratorCredentials?: OrchestratorCredentials;
}

export interface RolloutInputs {
  configHash: string;
  configData: Readonly<Record<string, string>>;
  secretData: Readonly<Record<string, string>>;
}

/** What the pods' configuration renders to: what the rollout annotations are decided on. */
export interface RenderedConfig extends RolloutInputs {
  ref: ClusterRef;
  labels: Record<string, string>;
  configMap: V1ConfigMap;
  secretData: Record<string, string>;
  /** The Secret holds the topology password itself (the anchor's sidecar reads it) rather than its hash. */
  topologyPasswordPlain: boolean;
}

/** What decide-rollout.ts chose for the running pods. */
export interface PodChoices {
  /** The pod template annotations that roll pods. */
  rolloutAnnotations: Record<string, string>;
  probes: ProbeStyle;
  /** The StatefulSet's minReadySeconds; default none. */
  minReadySeconds?: number;
}

export interface DesiredState {
  ref: ClusterRef;
  labels: Record<string, string>;
  configMap: V1ConfigMap;
  secretData: Record<string, string>;
  /** The Secret holds the topology password itself (the anchor's sidecar reads it) rather than its hash. */
  topologyPasswordPlain: boolean;
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

/** The ConfigMap and the operated Secret's data, and the hash of what the pods run. */
export function renderConfig(input: RenderInput): RenderedConfig {
  const { cluster, images, opts } = input;
  const spec = cluster.spec;
  const ref = clusterRef(cluster);
  const labels = clusterLabels(ref, input.version.text);
  const resources = mysqlResources(spec);
  const myCnf = renderMyCnf({
    version: input.version,
    perconaImage: isPerconaImage(images.mysql),
    memoryRequest: resources.requests?.memory,
    cpuLimit: resources.limits?.cpu,
    storageRequest: dataVolumeSpec(spec).persistentVolumeClaim?.resources?.requests?.storage,
    mysqlConf: spec.mysqlConf,
    durableCommits: hasLosslessDefaults(cluster),
  });
  const configMap = renderConfigMap(ref, labels, myCnf, !spec.podSpec?.mysqlLifecycle);
  const orc = { user: opts.orcTopologyUser, password: opts.orcTopologyPassword };
  const topologyForm = topologyPasswordForm(images.sidecar, input.version, ref);
  const secretData = operatedSecretData(input.existingSecretData, orc, input.generatePassword, topologyForm);
  // The hash of the topology password counts as the password it came from: a Secret switched to
  // the hash rolls no pod, a rotated password still does (docs/credentials.md).
  const secretView = rolloutSecretView(secretData, orc, topologyForm);
  const configHash = stableHash({ config: configMap.data, secret: secretView, images, pod: podInputs(spec.podSpec) });
  return {
    ref,
    labels,
    configMap,
    secretData,
    configHash,
    configData: configMap.data ?? {},
    topologyPasswordPlain: topologyForm.kind === 'plain',
  };
}

function renderClusterStatefulSet(input: RenderInput, config: RenderedConfig, choices: PodChoices): V1StatefulSet {
  return renderStatefulSet({
    cluster: input.cluster,
    ref: config.ref,
    version: input.version,
    images: input.images,
    rootPasswordKey: input.rootPasswordKey,
    opts: input.opts,
    labels: config.labels,
    rolloutAnnotations: choices.rolloutAnnotations,
    ...(choices.minReadySeconds !== undefined ? { minReadySeconds: choices.minReadySeconds } : {}),
    ...(input.orchestratorCredentials ? { orchestratorApiSecret: names.orchestratorApiSecret(config.ref.name) } : {}),
    probes: choices.probes,
  });
}

/** The pod template with the given rollout annotations and probes: what decideProbes compares with the running one. */
export function renderPodTemplate(input: RenderInput, config: RenderedConfig, choices: PodChoices): V1PodTemplateSpec {
  return renderClusterStatefulSet(input, config, choices).spec!.template;
}

/** Everything the cluster should have, once the choices about its running pods are made. */
export function renderCluster(input: RenderInput, config: RenderedConfig, choices: PodChoices): DesiredState {
  const { ref, labels, configMap, secretData, configHash, topologyPasswordPlain } = config;
  const minAvailable = effectiveMinAvailable(input.cluster.spec);
  return {
    ref,
    labels,
    configMap,
    secretData,
    topologyPasswordPlain,
    headlessService: renderHeadlessService(ref.namespace),
    services: renderClusterServices(ref, labels),
    statefulSet: renderClusterStatefulSet(input, config, choices),
    podDisruptionBudget: minAvailable === undefined ? undefined : renderPodDisruptionBudget(ref, minAvailable),
    networkPolicy: input.opts.networkPolicies
      ? renderNetworkPolicy(ref, input.cluster.spec, {
          namespace: input.opts.operatorNamespace,
          operatorPodLabels: input.opts.operatorPodLabels,
          orchestratorPodLabels: input.opts.orchestratorPodLabels,
        })
      : undefined,
    configHash,
    orchestratorApiSecret: input.orchestratorCredentials ? renderOrchestratorApiSecret(ref, input.orchestratorCredentials) : undefined,
  };
}
