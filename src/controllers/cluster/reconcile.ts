// One reconcile of a MysqlCluster, as a list of named steps: gather (caches), validate, decide
// what the cluster should have (decide-desired.ts) and how to write each object (planWrites,
// decide-writes.ts), act (applyWrites), report (the Synced condition). See
// docs/cluster-controller.md.
import type {
  V1ConfigMap,
  V1PersistentVolumeClaim,
  V1PodDisruptionBudget,
  V1Secret,
  V1Service,
  V1StatefulSet,
} from '@kubernetes/client-node';
import type { MysqlCluster } from '../../api/index.ts';
import { ANNOTATION_DEFAULTS, CLUSTER_CONDITION, CLUSTER_REASONS, DEFAULTS_LOSSLESS, LABEL_ROLE, ROLE } from '../../api/constants.ts';
import { hasStatus, mustMarkLossless } from './decide-defaults.ts';
import { CLUSTER_STATUS_OWNERS } from '../../api/status-owners.ts';
import { KINDS } from '../shared/kinds.ts';
import { POD_TARGET } from '../shared/targets.ts';
import type { PodObject } from '../../topology/index.ts';
import type { ControllerContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import { applyStatus } from '../../runtime/kube/apply-status.ts';
import { AlreadyExistsError, ConflictError, KubeApiError } from '../../runtime/kube/errors.ts';
import type { Informer } from '../../runtime/informer.ts';
import type { KindRef, KubeObject } from '../../runtime/kube/types.ts';
import { errorMessage, type Logger } from '../../runtime/logger.ts';
import { decidePvcCleanup } from './decide-pvcs.ts';
import { decideScaleDown, type ScaleDownDecision, type ScaleDownInput } from './decide-scale-down.ts';
import { decideDesired } from './decide-desired.ts';
import { announceRootPasswordKey, rootPasswordKeyMessage } from './decide-root-password.ts';
import { sharedServiceUnused } from './decide-shared-service.ts';
import { decideStatus, syncConditionChanges, type SyncOutcome } from './decide-status.ts';
import {
  planConfigMap,
  planNetworkPolicy,
  planPodDisruptionBudget,
  planPvcRelease,
  planSecret,
  planService,
  planStatefulSet,
  type Plan,
} from './decide-writes.ts';
import { controllerRef, names, podOrdinal, selectorLabels } from '../../api/names.ts';
import type { ClusterControllerOptions } from './options.ts';
import { clusterRef, type DesiredState, type RenderInput } from './render-cluster.ts';
import { decodeSecretData } from '../../runtime/kube/secret-data.ts';
import { readCredentialsDir } from '../../orchestrator/index.ts';
import {
  announcePlainTopologyPassword,
  REMOVABLE_OPERATED_KEYS,
  renderOperatedSecret,
  topologyPasswordMessage,
} from './render-operated-secret.ts';
import type { NetworkPolicyObject } from './render-network-policy.ts';
import { announceNarrowedMysqlPort, narrowedMysqlPortMessage } from './decide-mysql-port-notice.ts';
import { refusalMessage } from './user-field.ts';
import { validateCluster } from './validate-cluster.ts';

type Cluster = MysqlCluster & KubeObject;

/** What a pass reads from the caches. */
interface Gathered {
  secrets: Informer<V1Secret & KubeObject>;
  configMaps: Informer<V1ConfigMap & KubeObject>;
  services: Informer<V1Service & KubeObject>;
  statefulSets: Informer<V1StatefulSet & KubeObject>;
  pdbs: Informer<V1PodDisruptionBudget & KubeObject>;
  networkPolicies: Informer<NetworkPolicyObject & KubeObject>;
  userSecret: (V1Secret & KubeObject) | undefined;
  existingSts: (V1StatefulSet & KubeObject) | undefined;
  existingCm: (V1ConfigMap & KubeObject) | undefined;
  existingSecret: (V1Secret & KubeObject) | undefined;
  readyNodes: number;
  /** The pod labelled role=master and not being deleted, if any (decide-scale-down.ts). */
  master: { name: string; ordinal: number } | undefined;
}

interface Pass {
  req: Request;
  ctx: ControllerContext;
  opts: ClusterControllerOptions;
  cluster: Cluster;
  g: Gathered;
  log: Logger;
}

/** How soon a scale-down held for the master looks again (the master's label moves within a second of the takeover). */
const SCALE_DOWN_POLL_MS = 2000;

export async function reconcileCluster(
  req: Request,
  ctx: ControllerContext,
  opts: ClusterControllerOptions,
): Promise<ReconcileResult | undefined> {
  const clusters = await ctx.informer<Cluster>(KINDS.cluster);
  const cluster = clusters.get(req.namespace, req.name);
  const log = ctx.log.child({ cluster: req.name, namespace: req.namespace });
  // Deleted or being deleted: owner references let the garbage collector remove what we made,
  // except the shared Service, which goes with the namespace's last cluster.
  if (!cluster) {
    await removeSharedServiceIfUnused(ctx, req.namespace, clusters.list({ namespace: req.namespace }), log);
    return;
  }
  if (cluster.metadata?.deletionTimestamp) return;
  const pass: Pass = { req, ctx, opts, cluster, g: await gather(req, ctx, cluster), log };

  // Validation first; an invalid cluster keeps what it has.
  const valid = validate(pass);
  if (!valid.ok) {
    await refuseSpec(pass, valid.problems);
    return;
  }
  // A new cluster is marked before anything of it exists; the patch brings the next pass.
  if (mustMarkLossless(losslessInputs(pass))) {
    await markLossless(pass);
    return;
  }
  const scaleDown = decideScaleDown(scaleDownInput(pass));
  const desired = withStatefulSetReplicas(
    decideDesired(renderInput(pass, valid), {
      statefulSet: pass.g.existingSts,
      configMapData: pass.g.existingCm?.data,
      secretData: pass.g.existingSecret ? decodeSecretData(pass.g.existingSecret.data) : undefined,
    }),
    scaleDown.replicas,
  );
  const announceRootKey = announceRootPasswordKey(
    valid.rootPasswordKey,
    pass.g.existingSts,
    planStatefulSet(desired.statefulSet, pass.g.existingSts),
  );
  const announcePlainTopology = announcePlainTopologyPassword(
    desired.topologyPasswordPlain,
    { user: pass.opts.orcTopologyUser, password: pass.opts.orcTopologyPassword },
    planSecret(renderOperatedSecret(desired.ref, desired.secretData), pass.g.existingSecret, REMOVABLE_OPERATED_KEYS).op,
  );
  const existingPolicy = pass.g.networkPolicies.get(req.namespace, names.networkPolicy(req.name));
  const announceNarrowedPort = announceNarrowedMysqlPort(
    desired.networkPolicy,
    cluster.spec,
    existingPolicy,
    pass.g.existingSts !== undefined,
    planNetworkPolicy(desired.networkPolicy, existingPolicy, controllerRef(desired.ref)).op,
  );
  const refusals = await applyWrites(pass, planWrites(pass, desired));
  // After the policy is written: a failed write is retried and says it then.
  if (announceNarrowedPort) ctx.events.normal(cluster, CLUSTER_REASONS.mysqlPortNarrowed, narrowedMysqlPortMessage(desired.ref));
  // After the Secret is written (docs/credentials.md).
  if (announcePlainTopology) {
    ctx.events.warning(cluster, CLUSTER_REASONS.topologyPasswordInSecret, topologyPasswordMessage(valid.images.sidecar));
  }
  // After the StatefulSet is written: a failed write is retried and says it then.
  if (announceRootKey && pass.g.userSecret) {
    ctx.events.normal(
      cluster,
      CLUSTER_REASONS.rootPasswordFromPasswordKey,
      rootPasswordKeyMessage(req.namespace, pass.g.userSecret, valid.rootPasswordKey),
    );
  }
  // After the StatefulSet is written: the Event says what the write did.
  if (scaleDown.kind === 'expired') ctx.events.warning(cluster, scaleDown.reason, scaleDown.message);
  await reportSynced(pass, refusals, scaleDown);
  return scaleDown.kind === 'hold' ? { requeueAfterMs: SCALE_DOWN_POLL_MS } : undefined;
}

function scaleDownInput(pass: Pass): ScaleDownInput {
  const synced = pass.cluster.status?.conditions?.find((c) => c.type === CLUSTER_CONDITION.synced);
  const heldSince =
    synced?.reason === CLUSTER_REASONS.scaleDownHeld && synced.lastTransitionTime ? new Date(synced.lastTransitionTime) : undefined;
  return {
    wanted: pass.cluster.spec.replicas ?? 1,
    current: pass.g.existingSts?.spec?.replicas,
    master: pass.g.master,
    heldSince,
    now: new Date(),
  };
}

/** The desired objects with the StatefulSet's size as decideScaleDown chose it (spec.replicas, or held). */
function withStatefulSetReplicas(desired: DesiredState, replicas: number): DesiredState {
  if (desired.statefulSet.spec?.replicas === replicas) return desired;
  return { ...desired, statefulSet: { ...desired.statefulSet, spec: { ...desired.statefulSet.spec!, replicas } } };
}

/** The pod labelled role=master and not being deleted, from the pod cache. */
async function labelledMaster(ctx: ControllerContext, namespace: string, clusterName: string): Promise<Gathered['master']> {
  const pods = await ctx.informer<PodObject>(POD_TARGET);
  const master = pods
    .list({ namespace, labels: { ...selectorLabels(clusterName), [LABEL_ROLE]: ROLE.master } })
    .find((p) => p.metadata?.deletionTimestamp === undefined);
  const name = master?.metadata?.name;
  return name === undefined ? undefined : { name, ordinal: podOrdinal(name) };
}

async function gather(req: Request, ctx: ControllerContext, cluster: Cluster): Promise<Gathered> {
  const ns = req.namespace;
  const [secrets, configMaps, services, statefulSets, pdbs, networkPolicies] = await Promise.all([
    ctx.informer<V1Secret & KubeObject>(KINDS.secret),
    ctx.informer<V1ConfigMap & KubeObject>(KINDS.configMap),
    ctx.informer<V1Service & KubeObject>(KINDS.service),
    ctx.informer<V1StatefulSet & KubeObject>(KINDS.statefulSet),
    ctx.informer<V1PodDisruptionBudget & KubeObject>(KINDS.pdb),
    ctx.informer<NetworkPolicyObject & KubeObject>(KINDS.networkPolicy),
  ]);
  const existingSts = statefulSets.get(ns, names.statefulSet(req.name));
  return {
    secrets,
    configMaps,
    services,
    statefulSets,
    pdbs,
    networkPolicies,
    userSecret: cluster.spec.secretName ? secrets.get(ns, cluster.spec.secretName) : undefined,
    existingSts,
    existingCm: configMaps.get(ns, names.configMap(req.name)),
    existingSecret: secrets.get(ns, names.operatedSecret(req.name)),
    readyNodes: existingSts?.status?.readyReplicas ?? 0,
    master: await labelledMaster(ctx, ns, req.name),
  };
}

function validate(pass: Pass): ReturnType<typeof validateCluster> {
  const { cluster, g, req } = pass;
  const initBucketSecret = cluster.spec.initBucketSecretName;
  return validateCluster(
    cluster,
    g.userSecret,
    pass.opts,
    !initBucketSecret || g.secrets.get(req.namespace, initBucketSecret) !== undefined,
  );
}

/** A spec the operator will not act on: the Synced condition says why, with an Event per problem when it changes. */
async function refuseSpec(pass: Pass, problems: readonly { reason: string; message: string }[]): Promise<void> {
  const { ctx, cluster, log } = pass;
  const first = problems[0]!;
  const outcome: SyncOutcome = { ok: false, reason: first.reason, message: problems.map((p) => p.message).join('; ') };
  if (syncConditionChanges(cluster, outcome)) {
    for (const p of problems) ctx.events.warning(cluster, p.reason, p.message);
    log.warn('cluster spec refused', { step: 'validate', reason: first.reason, message: outcome.message });
  }
  await writeStatus(ctx, cluster, pass.g.readyNodes, outcome);
}

function losslessInputs(pass: Pass): Parameters<typeof mustMarkLossless>[0] {
  return {
    annotations: pass.cluster.metadata?.annotations,
    statefulSetExists: !!pass.g.existingSts,
    configMapExists: !!pass.g.existingCm,
    hasStatus: hasStatus(pass.cluster),
  };
}

async function markLossless(pass: Pass): Promise<void> {
  const { ctx, cluster, req } = pass;
  await ctx.client.patch(
    { apiVersion: KINDS.cluster.apiVersion, kind: KINDS.cluster.kind, namespace: req.namespace, name: req.name },
    { metadata: { resourceVersion: cluster.metadata?.resourceVersion, annotations: { [ANNOTATION_DEFAULTS]: DEFAULTS_LOSSLESS } } },
    { type: 'merge' },
  );
  pass.log.info('new cluster: lossless defaults', { step: 'defaults' });
}

function renderInput(pass: Pass, valid: Extract<ReturnType<typeof validateCluster>, { ok: true }>): RenderInput {
  const { opts } = pass;
  // The mounted Secret of the operator, read now: a rotated password reaches the pods' Secret.
  const orchestratorCredentials = opts.orchestratorCredentialsDir === '' ? undefined : readCredentialsDir(opts.orchestratorCredentialsDir);
  return {
    ...(orchestratorCredentials ? { orchestratorCredentials } : {}),
    cluster: pass.cluster,
    version: valid.version,
    images: valid.images,
    rootPasswordKey: valid.rootPasswordKey,
    opts,
    existingSecretData: decodeSecretData(pass.g.existingSecret?.data),
  };
}

/** Each object the cluster has, in the order they are written, with how to plan its write. */
function planWrites(pass: Pass, desired: DesiredState): Write[] {
  const { req, g } = pass;
  const ns = req.namespace;
  const owner = controllerRef(desired.ref);
  const write = <T extends KubeObject>(
    kind: KindRef,
    name: string,
    cached: T | undefined,
    plan: (existing: T | undefined) => Plan<T>,
  ): Write => ({ kind, namespace: ns, name, cached, plan: plan as Write['plan'] });
  const operatedSecret = renderOperatedSecret(desired.ref, desired.secretData);
  const orcApiSecret = desired.orchestratorApiSecret;
  return [
    write(KINDS.configMap, names.configMap(req.name), g.existingCm, (e) => planConfigMap(desired.configMap, e)),
    write(KINDS.secret, names.operatedSecret(req.name), g.existingSecret, (e) => planSecret(operatedSecret, e, REMOVABLE_OPERATED_KEYS)),
    // Before the StatefulSet, whose pods mount it.
    ...(orcApiSecret
      ? [
          write(KINDS.secret, orcApiSecret.metadata!.name!, g.secrets.get(ns, orcApiSecret.metadata!.name!), (e) =>
            planSecret(orcApiSecret, e),
          ),
        ]
      : []),
    write(KINDS.service, names.headlessService(), g.services.get(ns, names.headlessService()), (e) =>
      planService(desired.headlessService, e),
    ),
    ...desired.services.map((s) =>
      write(KINDS.service, s.metadata!.name!, g.services.get(ns, s.metadata!.name!), (e) => planService(s, e)),
    ),
    write(KINDS.statefulSet, names.statefulSet(req.name), g.existingSts, (e) => planStatefulSet(desired.statefulSet, e)),
    write(KINDS.pdb, names.podDisruptionBudget(req.name), g.pdbs.get(ns, names.podDisruptionBudget(req.name)), (e) =>
      planPodDisruptionBudget(desired.podDisruptionBudget, e, owner),
    ),
    write(KINDS.networkPolicy, names.networkPolicy(req.name), g.networkPolicies.get(ns, names.networkPolicy(req.name)), (e) =>
      planNetworkPolicy(desired.networkPolicy, e, owner),
    ),
  ];
}

/**
 * The writes in order, then the claims' release or cleanup; the refusals of writes not made. A
 * write the API server refuses sets Synced=False naming the user's fields, and ends the pass.
 */
async function applyWrites(pass: Pass, writes: readonly Write[]): Promise<string[]> {
  const { ctx, cluster, log } = pass;
  const refusals: string[] = [];
  // The object being written, to name the user's fields when the API server refuses it.
  let writing: Write | undefined;
  try {
    for (const w of writes) {
      writing = w;
      const refused = await act(ctx, w, log);
      if (refused) refusals.push(refused);
    }
    writing = undefined;
    await releaseOrCleanPvcs(ctx, cluster, pass.g.existingSts?.status?.replicas ?? 0, log);
  } catch (err) {
    if (!(err instanceof ConflictError || err instanceof AlreadyExistsError)) {
      const causes = err instanceof KubeApiError ? (err.status?.details?.causes ?? []) : [];
      const sent = writing?.plan(writing.cached);
      const message =
        sent?.op === 'create' || sent?.op === 'update'
          ? refusalMessage(cluster.spec, writing!.kind.kind, sent.object, causes, errorMessage(err))
          : errorMessage(err);
      const outcome: SyncOutcome = { ok: false, reason: CLUSTER_REASONS.syncFailed, message };
      if (syncConditionChanges(cluster, outcome)) ctx.events.warning(cluster, outcome.reason, outcome.message);
      await writeStatus(ctx, cluster, pass.g.readyNodes, outcome).catch(() => undefined);
    }
    throw err;
  }
  return refusals;
}

/**
 * Synced: True when every object matches the spec, else what was not written and why, or why the
 * StatefulSet keeps its size (a held scale-down: a Normal Event, the wait is the design).
 */
async function reportSynced(pass: Pass, refusals: readonly string[], scaleDown: ScaleDownDecision): Promise<void> {
  const { ctx, cluster } = pass;
  const outcome: SyncOutcome = refusals.length
    ? { ok: false, reason: CLUSTER_REASONS.syncFailed, message: `not written: ${refusals.join('; ')}` }
    : scaleDown.kind === 'hold'
      ? { ok: false, reason: scaleDown.reason, message: scaleDown.message }
      : {
          ok: true,
          reason: CLUSTER_REASONS.resourcesSynced,
          message: 'StatefulSet, Services, ConfigMap, Secret and PodDisruptionBudget match the spec',
        };
  if (!outcome.ok && syncConditionChanges(cluster, outcome)) {
    if (outcome.reason === CLUSTER_REASONS.scaleDownHeld) ctx.events.normal(cluster, outcome.reason, outcome.message);
    else ctx.events.warning(cluster, outcome.reason, outcome.message);
  }
  await writeStatus(ctx, cluster, pass.g.readyNodes, outcome);
}

/** One object a reconcile may write, and how to decide what to send given the existing one. */
interface Write {
  kind: KindRef;
  namespace: string;
  name: string;
  /** The informer's copy: a projection of the server's object (shared/projections.ts). */
  cached: KubeObject | undefined;
  plan(existing: KubeObject | undefined): Plan<KubeObject>;
}

/**
 * Decides on the cached copy, which is all a reconcile needs when nothing is to be written (the
 * steady state). An update is never built from the cached copy, which lacks what the projection
 * dropped (a PUT of it would delete that on the server): it is decided again on the server's
 * whole object, fetched now, and sent with that object's resourceVersion, if that is still the
 * version the cache holds. A newer one means the decision was made on stale state, as a PUT of
 * the cached copy would have found: a ConflictError, retried once the cache has caught up.
 */
async function act(ctx: ControllerContext, w: Write, log: Logger): Promise<string | undefined> {
  const ref = { apiVersion: w.kind.apiVersion, kind: w.kind.kind, namespace: w.namespace, name: w.name };
  let plan = w.plan(w.cached);
  if (plan.op === 'update') {
    const fresh = await ctx.client.getIfExists(ref);
    const cachedVersion = w.cached?.metadata?.resourceVersion;
    if (!fresh || fresh.metadata?.resourceVersion !== cachedVersion) {
      throw new ConflictError('PUT', `${w.kind.kind} ${w.namespace}/${w.name}`, 409, {
        reason: 'Conflict',
        message: `the cache holds resourceVersion ${cachedVersion}, the server ${fresh?.metadata?.resourceVersion ?? 'none'}: decided on stale state`,
      });
    }
    plan = w.plan(fresh);
  }
  const typed = <T extends KubeObject>(o: T): T => ({ ...o, apiVersion: w.kind.apiVersion, kind: w.kind.kind });
  switch (plan.op) {
    case 'none':
      return undefined;
    case 'refuse':
      return plan.message;
    case 'create':
      await ctx.client.create(typed(plan.object));
      break;
    case 'update':
      await ctx.client.update(typed(plan.object));
      break;
    case 'delete':
      await ctx.client.delete(ref);
      break;
  }
  log.info(`${plan.op} ${w.kind.kind}`, { step: 'apply', object: w.name });
  return undefined;
}

async function releaseOrCleanPvcs(
  ctx: ControllerContext,
  cluster: MysqlCluster & KubeObject,
  currentReplicas: number,
  log: Logger,
): Promise<void> {
  const volume = cluster.spec.volumeSpec;
  if (!volume?.keepAfterDelete && !volume?.deletePVCsOnScaleDown) return;
  const ns = cluster.metadata?.namespace ?? '';
  const ref = clusterRef(cluster);
  const pvcs = (await ctx.informer<V1PersistentVolumeClaim & KubeObject>(KINDS.pvc)).list({
    namespace: ns,
    labels: selectorLabels(ref.name),
  });
  const pvcWrite = (pvc: V1PersistentVolumeClaim & KubeObject, plan: Write['plan']): Write => ({
    kind: KINDS.pvc,
    namespace: ns,
    name: pvc.metadata?.name ?? '',
    cached: pvc,
    plan,
  });
  if (volume.keepAfterDelete) {
    for (const pvc of pvcs) {
      await act(
        ctx,
        pvcWrite(pvc, (e) => (e ? planPvcRelease(e, ref.uid) : { op: 'none' })),
        log,
      );
    }
  }
  for (const pvc of decidePvcCleanup(cluster, pvcs, currentReplicas).remove) {
    await act(
      ctx,
      pvcWrite(pvc, () => ({ op: 'delete', object: pvc })),
      log,
    );
    ctx.events.normal(
      cluster,
      CLUSTER_REASONS.pvcDeleted,
      `deleted PVC ${pvc.metadata?.name} after scale-down (volumeSpec.deletePVCsOnScaleDown)`,
    );
  }
}

async function removeSharedServiceIfUnused(
  ctx: ControllerContext,
  namespace: string,
  remaining: readonly MysqlCluster[],
  log: Logger,
): Promise<void> {
  const services = await ctx.informer<V1Service & KubeObject>(KINDS.service);
  const headless = services.get(namespace, names.headlessService());
  if (!sharedServiceUnused(remaining, headless)) return;
  // Guarded by uid and resourceVersion: a cluster created meanwhile recreates it anyway.
  await ctx.client.delete(
    { ...KINDS.service, namespace, name: names.headlessService() },
    { preconditions: { uid: headless!.metadata!.uid!, resourceVersion: headless!.metadata!.resourceVersion! } },
  );
  log.info('deleted the shared headless Service: no cluster left in the namespace', { step: 'shared-service' });
}

/** Applies this controller's part of the status, only when it changed; the other parts are not touched. */
async function writeStatus(
  ctx: ControllerContext,
  cluster: MysqlCluster & KubeObject,
  readyNodes: number,
  outcome: SyncOutcome,
): Promise<void> {
  const status = decideStatus(cluster, readyNodes, outcome, new Date());
  if (!status) return;
  const ref = { ...KINDS.cluster, namespace: cluster.metadata?.namespace, name: cluster.metadata?.name ?? '' };
  await applyStatus(ctx.client, ref, CLUSTER_STATUS_OWNERS.cluster, { ...status });
}
