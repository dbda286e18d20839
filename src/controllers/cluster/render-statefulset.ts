// The StatefulSet `<c>-mysql`: the pod of docs/architecture.md §3 with the names, env order, mounts and
// defaults of the anchor's v0.6.3 template (statefulset.yaml of the anchor fixtures), so an
// adopted cluster's pod template is unchanged and its pods do not roll. The probes are ours, or
// the anchor's on pods that run them (ProbeStyle).
import type {
  V1Container,
  V1EnvFromSource,
  V1EnvVar,
  V1PersistentVolumeClaim,
  V1PodSpec,
  V1Probe,
  V1ResourceRequirements,
  V1StatefulSet,
  V1Volume,
  V1VolumeMount,
} from '@kubernetes/client-node';
import type { MysqlCluster, MysqlClusterSpec, QueryLimits } from '../../api/index.ts';
import {
  ANNOTATION_PROMETHEUS_PORT,
  ANNOTATION_PROMETHEUS_SCRAPE,
  CONTAINER,
  HEADLESS_SERVICE_NAME,
  LABEL_NODE_HOSTNAME,
  OPERATED_SECRET_KEY,
  OPERATOR_SCHEMA,
  PORT,
  PORT_NAME,
  USER_SECRET_KEY,
  VOLUME,
} from '../../api/constants.ts';
import { controllerRef, names, selectorLabels, type ClusterRef } from '../../api/names.ts';
import { binlogArchiveUrl, DEFAULT_BINLOG_ARCHIVE_INTERVAL_SECONDS } from '../../api/binlog-archive.ts';
import {
  CONF_FILE,
  confPath,
  DEFAULT_SERVER_ID_OFFSET,
  DEFAULT_XTRABACKUP_TARGET_DIR,
  ENV,
  envRef,
  HEALTH_PATH,
  MOUNT_PATH,
  ORCHESTRATOR_API_CURLRC_KEY,
  MYSQL_UID,
  PT_KILL_PROGRAM,
  SIDECAR_COMMAND,
} from '../../api/pod-contract.ts';
import type { ClusterControllerOptions } from './options.ts';
import { isPerconaImage, type Images } from './select-images.ts';
import { secretEnv } from '../shared/render-env.ts';
import { atLeast } from '../../api/versions.ts';
import type { ServerVersion } from '../shared/resolve-version.ts';
import { CONFIGURED_PROBE_QUERY } from '../../mysql/operator-schema.ts';

const CLIENT_CONF_PATH = confPath(CONF_FILE.client);
const EXPORTER_METRICS_PATH = '/metrics';

export const DEFAULT_MYSQL_RESOURCES: V1ResourceRequirements = { requests: { cpu: '200m', memory: '1Gi' } };

export interface StatefulSetInput {
  cluster: MysqlCluster;
  ref: ClusterRef;
  version: ServerVersion;
  images: Images;
  /** The user Secret's key MYSQL_ROOT_PASSWORD reads (decide-root-password.ts). */
  rootPasswordKey: string;
  opts: ClusterControllerOptions;
  /** The full pod label set (before podSpec.labels). */
  labels: Record<string, string>;
  /** Annotations of the pod template that trigger rollouts (config hash, or adopted revs). */
  rolloutAnnotations: Record<string, string>;
  /** The probes: ours, or the anchor's that running pods keep until a real rollout (decide-rollout.ts). */
  probes: ProbeStyle;
  /** How long a rolled pod stays Ready before the next rolls (decideMinReadySeconds); 0 renders none. */
  minReadySeconds?: number;
  /** The Secret with Orchestrator's API credentials for the pre-stop hook, when the operator has them. */
  orchestratorApiSecret?: string;
}

/**
 * `fast`: a startup probe (mysqld answering, checked every second, for up to an hour of crash
 * recovery) gates liveness and readiness, which then run with no initial delay, so a pod is
 * Ready within a probe period of being configured. `anchor`: the anchor's fixed delays (readiness
 * of the sidecar after 30 s, liveness of mysqld after 60 s), which running pods keep until the
 * template changes for another reason, so that adoption and operator upgrades roll nothing.
 */
export type ProbeStyle = 'anchor' | 'fast';

export function renderStatefulSet(input: StatefulSetInput): V1StatefulSet {
  const { cluster, ref } = input;
  const spec = cluster.spec;
  const podSpec = spec.podSpec ?? {};
  const sts: V1StatefulSet = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: names.statefulSet(ref.name), namespace: ref.namespace, ownerReferences: [controllerRef(ref)] },
    spec: {
      replicas: spec.replicas ?? 1,
      ...(input.minReadySeconds ? { minReadySeconds: input.minReadySeconds } : {}),
      selector: { matchLabels: selectorLabels(ref.name) },
      serviceName: HEADLESS_SERVICE_NAME,
      template: {
        metadata: {
          labels: { ...input.labels, ...(podSpec.labels ?? {}) },
          annotations: {
            ...(podSpec.annotations ?? {}),
            ...input.rolloutAnnotations,
            [ANNOTATION_PROMETHEUS_SCRAPE]: 'true',
            [ANNOTATION_PROMETHEUS_PORT]: String(PORT.metricsExporter),
          },
        },
        spec: renderPodSpec(input),
      },
    },
  };
  const pvc = dataVolumeSpec(spec).persistentVolumeClaim;
  if (pvc) sts.spec!.volumeClaimTemplates = [renderClaimTemplate(spec, ref, pvc)];
  return sts;
}

function renderClaimTemplate(
  spec: MysqlClusterSpec,
  ref: ClusterRef,
  pvc: NonNullable<NonNullable<MysqlClusterSpec['volumeSpec']>['persistentVolumeClaim']>,
): V1PersistentVolumeClaim {
  const meta: V1PersistentVolumeClaim['metadata'] = { name: names.dataClaimTemplate() };
  // PVCs inherit this reference, so they go with the cluster unless the user keeps them. The
  // anchor's template reference has no blockOwnerDeletion.
  if (!spec.volumeSpec?.keepAfterDelete) {
    const { blockOwnerDeletion: _b, ...owner } = controllerRef(ref);
    meta.ownerReferences = [owner];
  }
  return { metadata: meta, spec: pvc };
}

/** volumeSpec with the CRD's default when none of its sources is set. */
export function dataVolumeSpec(spec: MysqlClusterSpec): NonNullable<MysqlClusterSpec['volumeSpec']> {
  const v = spec.volumeSpec ?? {};
  if (v.persistentVolumeClaim || v.hostPath || v.emptyDir) return v;
  return { ...v, persistentVolumeClaim: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
}

function renderPodSpec(input: StatefulSetInput): V1PodSpec {
  const { cluster, opts } = input;
  const spec = cluster.spec;
  const podSpec = spec.podSpec ?? {};
  const ctx = containerContext(input);

  const initContainers: V1Container[] = [
    ...(podSpec.initContainers ?? []),
    container(ctx, CONTAINER.init, input.images.sidecar, [SIDECAR_COMMAND.cloneAndInit], { resources: {} }),
  ];
  if (usesInitOnlyContainer(input)) {
    initContainers.push(container(ctx, CONTAINER.mysqlInitOnly, input.images.mysql, [], { resources: mysqlResources(spec) }));
  }

  const containers: V1Container[] = [
    mysqlContainer(ctx, input),
    sidecarContainer(ctx, input),
    exporterContainer(ctx, input),
    heartbeatContainer(ctx, input),
  ];
  if (spec.queryLimits) containers.push(ptKillContainer(ctx, input, spec.queryLimits));
  containers.push(...(podSpec.containers ?? []));

  const out: V1PodSpec = {
    initContainers,
    containers,
    volumes: [
      ...renderVolumes(spec, input.ref),
      ...(preStopCredentials(ctx, input)
        ? [
            {
              name: VOLUME.orchestratorApi,
              secret: { secretName: input.orchestratorApiSecret!, items: [{ key: ORCHESTRATOR_API_CURLRC_KEY, path: '.curlrc' }] },
            },
          ]
        : []),
    ],
    securityContext: { fsGroup: MYSQL_UID, runAsUser: MYSQL_UID },
    affinity: podSpec.affinity ?? {
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { ...input.labels } }, topologyKey: LABEL_NODE_HOSTNAME } },
        ],
      },
    },
  };
  const pullSecrets = podSpec.imagePullSecrets?.length
    ? podSpec.imagePullSecrets.map((s) => ({ name: s.name ?? '' }))
    : opts.imagePullSecretName
      ? [{ name: opts.imagePullSecretName }]
      : undefined;
  if (pullSecrets) out.imagePullSecrets = pullSecrets;
  if (podSpec.nodeSelector && Object.keys(podSpec.nodeSelector).length) out.nodeSelector = { ...podSpec.nodeSelector };
  if (podSpec.priorityClassName) out.priorityClassName = podSpec.priorityClassName;
  if (podSpec.tolerations?.length) out.tolerations = podSpec.tolerations;
  if (podSpec.serviceAccountName) out.serviceAccountName = podSpec.serviceAccountName;
  return out;
}

// The anchor moves the root/app credentials to a run-once init container for the Percona images
// whose entrypoint supports MYSQL_INIT_ONLY.
function usesInitOnlyContainer(input: StatefulSetInput): boolean {
  const v = input.version;
  if (v.family !== 'mysql' || !isPerconaImage(input.images.mysql)) return false;
  return v.major === 5 ? atLeast(v, 5, 7, 26) : atLeast(v, 8, 0, 15);
}

interface ContainerContext {
  spec: MysqlClusterSpec;
  cluster: string;
  namespace: string;
  version: string;
  pullPolicy: string;
  userSecret: string;
  rootPasswordKey: string;
  operatedSecret: string;
  dataMountVolume: string;
  probes: ProbeStyle;
  opts: ClusterControllerOptions;
}

function containerContext(input: StatefulSetInput): ContainerContext {
  const spec = input.cluster.spec;
  return {
    spec,
    cluster: input.ref.name,
    namespace: input.ref.namespace,
    version: input.version.text,
    pullPolicy: spec.podSpec?.imagePullPolicy ?? input.opts.imagePullPolicy,
    userSecret: spec.secretName,
    rootPasswordKey: input.rootPasswordKey,
    operatedSecret: names.operatedSecret(input.ref.name),
    // With the deprecated tmpfsSize the data directory is the tmpfs (the anchor also mounted the
    // PVC at the same path, which the API server rejects).
    dataMountVolume: spec.tmpfsSize !== undefined && spec.tmpfsSize !== '' ? VOLUME.tmp : VOLUME.data,
    probes: input.probes,
    opts: input.opts,
  };
}

function container(ctx: ContainerContext, name: string, image: string, args: string[], extra: Partial<V1Container> = {}): V1Container {
  const c: V1Container = { name, image, imagePullPolicy: ctx.pullPolicy };
  if (args.length) c.args = args;
  const envFrom = envSourcesFor(ctx, name);
  if (envFrom.length) c.envFrom = envFrom;
  c.env = envFor(ctx, name);
  Object.assign(c, extra);
  const mounts = volumeMountsFor(ctx, name);
  if (mounts.length) c.volumeMounts = mounts;
  return c;
}

function fieldEnv(name: string, fieldPath: string): V1EnvVar {
  return { name, valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath } } };
}

function userCredentialEnv(ctx: ContainerContext): V1EnvVar[] {
  return [
    secretEnv(ENV.mysqlRootPassword, ctx.userSecret, ctx.rootPasswordKey, false),
    secretEnv(ENV.mysqlUser, ctx.userSecret, USER_SECRET_KEY.user, true),
    secretEnv(ENV.mysqlPassword, ctx.userSecret, USER_SECRET_KEY.password, true),
    secretEnv(ENV.mysqlDatabase, ctx.userSecret, USER_SECRET_KEY.database, true),
  ];
}

// Order matters: it is part of the pod template an adopted cluster already runs.
function envFor(ctx: ContainerContext, name: string): V1EnvVar[] {
  const s = ctx.spec;
  const env: V1EnvVar[] = [
    fieldEnv(ENV.namespace, 'metadata.namespace'),
    fieldEnv(ENV.podName, 'metadata.name'),
    fieldEnv(ENV.podIp, 'status.podIP'),
    { name: ENV.serviceName, value: HEADLESS_SERVICE_NAME },
    { name: ENV.clusterName, value: ctx.cluster },
    { name: ENV.fqdn, value: `${envRef(ENV.podName)}.${envRef(ENV.serviceName)}.${envRef(ENV.namespace)}` },
    { name: ENV.mysqlVersion, value: ctx.version },
  ];
  const isInit = name === CONTAINER.init;
  const isSidecar = name === CONTAINER.sidecar;
  const initBucket = s.initBucketURL || s.initBucketURI;
  if (initBucket && isInit) env.push({ name: ENV.initBucketUri, value: initBucket });
  // The CRD defaults serverIDOffset to 100, which the anchor never persisted: emitting it only
  // when it differs keeps adopted templates unchanged (the sidecar's default is the same 100).
  if (s.serverIDOffset !== undefined && s.serverIDOffset !== DEFAULT_SERVER_ID_OFFSET) {
    env.push({ name: ENV.serverIdOffset, value: String(s.serverIDOffset) });
  }
  if (isInit && s.backupCompressCommand?.length && s.backupDecompressCommand?.length) {
    env.push({ name: ENV.backupDecompressCommand, value: s.backupDecompressCommand.join(' ') });
  }
  if ((isInit || isSidecar) && s.rcloneExtraArgs?.length) env.push({ name: ENV.rcloneExtraArgs, value: s.rcloneExtraArgs.join(' ') });
  if ((isInit || isSidecar) && s.xbstreamExtraArgs?.length) env.push({ name: ENV.xbstreamExtraArgs, value: s.xbstreamExtraArgs.join(' ') });
  if (isSidecar && s.xtrabackupExtraArgs?.length) env.push({ name: ENV.xtrabackupExtraArgs, value: s.xtrabackupExtraArgs.join(' ') });
  if (isInit && s.xtrabackupPrepareExtraArgs?.length) {
    env.push({ name: ENV.xtrabackupPrepareExtraArgs, value: s.xtrabackupPrepareExtraArgs.join(' ') });
  }
  if (isSidecar) env.push({ name: ENV.xtrabackupTargetDir, value: s.xtrabackupTargetDir || DEFAULT_XTRABACKUP_TARGET_DIR });
  if (isInit && s.initFileExtraSQL?.length) env.push({ name: ENV.initFileExtraSql, value: s.initFileExtraSQL.join(';') });
  // Ours (docs/pitr.md): only when asked for, so the templates of other clusters do not change.
  if (isSidecar && archivesBinlogs(s)) {
    env.push({ name: ENV.binlogArchiveUrl, value: binlogArchiveUrl(s.backupURL!) });
    env.push({
      name: ENV.binlogArchiveInterval,
      value: String(s.binlogArchive?.intervalSeconds ?? DEFAULT_BINLOG_ARCHIVE_INTERVAL_SECONDS),
    });
  }

  switch (name) {
    case CONTAINER.init:
      // The variables are named as the keys: the sidecar reads them as it reads the envFrom ones.
      env.push(secretEnv(OPERATED_SECRET_KEY.backupUser, ctx.operatedSecret, OPERATED_SECRET_KEY.backupUser, true));
      env.push(secretEnv(OPERATED_SECRET_KEY.backupPassword, ctx.operatedSecret, OPERATED_SECRET_KEY.backupPassword, true));
      break;
    case CONTAINER.mysqlInitOnly:
      env.push({ name: ENV.mysqlInitOnly, value: '1' }, ...userCredentialEnv(ctx));
      break;
    case CONTAINER.metricsExporter:
      env.push(secretEnv(ENV.exporterUser, ctx.operatedSecret, OPERATED_SECRET_KEY.metricsExporterUser, false));
      env.push(secretEnv(ENV.exporterPassword, ctx.operatedSecret, OPERATED_SECRET_KEY.metricsExporterPassword, false));
      env.push({
        name: ENV.exporterDataSource,
        value: `${envRef(ENV.exporterUser)}:${envRef(ENV.exporterPassword)}@(127.0.0.1:${exporterPort(s)})/`,
      });
      break;
  }
  return env;
}

function exporterPort(s: MysqlClusterSpec): number {
  const conf = s.mysqlConf ?? {};
  const extraPort = conf.extra_port;
  const extraMax = Number(conf.extra_max_connections ?? 0);
  return extraPort !== undefined && extraMax > 1 ? Number(extraPort) : PORT.mysql;
}

function envSourcesFor(ctx: ContainerContext, name: string): V1EnvFromSource[] {
  const out: V1EnvFromSource[] = [];
  if (name === CONTAINER.init && ctx.spec.initBucketSecretName) out.push({ secretRef: { name: ctx.spec.initBucketSecretName } });
  if (name === CONTAINER.sidecar && archivesBinlogs(ctx.spec) && ctx.spec.backupSecretName) {
    out.push({ secretRef: { name: ctx.spec.backupSecretName } });
  }
  if (name === CONTAINER.init || name === CONTAINER.sidecar) out.push({ secretRef: { name: ctx.operatedSecret } });
  return out;
}

/** spec.binlogArchive.enabled with a backupURL to archive beside (the CRD refuses one without). */
function archivesBinlogs(s: MysqlClusterSpec): boolean {
  return s.binlogArchive?.enabled === true && !!s.backupURL;
}

function volumeMountsFor(ctx: ContainerContext, name: string): V1VolumeMount[] {
  const conf = { name: VOLUME.conf, mountPath: MOUNT_PATH.conf };
  const data = { name: ctx.dataMountVolume, mountPath: MOUNT_PATH.data };
  const user = ctx.spec.podSpec?.volumeMounts ?? [];
  switch (name) {
    case CONTAINER.init:
      return [conf, { name: VOLUME.configMap, mountPath: MOUNT_PATH.configMap }, data];
    case CONTAINER.mysqlInitOnly:
    case CONTAINER.mysql:
    case CONTAINER.sidecar:
      return [conf, data, ...user];
    case CONTAINER.heartbeat:
    case CONTAINER.ptKill:
      return [conf];
    default:
      return [];
  }
}

function probe(delay: number, timeout: number, period: number, action: Partial<V1Probe>, failureThreshold = 3): V1Probe {
  return {
    ...action,
    initialDelaySeconds: delay,
    timeoutSeconds: timeout,
    periodSeconds: period,
    successThreshold: 1,
    failureThreshold,
  };
}

// How long mysqld may take to answer after a start before the kubelet restarts it: InnoDB crash
// recovery of a large redo log, or a long first start, runs before the server listens, and
// killing it then only starts the recovery again.
const STARTUP_PERIOD_SECONDS = 1;
const STARTUP_LIMIT_SECONDS = 3600;

/** podSpec.resources, with the default requests when it sets none. */
export function mysqlResources(s: MysqlClusterSpec): V1ResourceRequirements {
  const r = s.podSpec?.resources;
  if (!r) return structuredClone(DEFAULT_MYSQL_RESOURCES);
  const out: V1ResourceRequirements = { ...r };
  if (!r.requests || Object.keys(r.requests).length === 0) out.requests = { ...DEFAULT_MYSQL_RESOURCES.requests };
  return out;
}

function mysqlContainer(ctx: ContainerContext, input: StatefulSetInput): V1Container {
  const s = ctx.spec;
  const c = container(ctx, CONTAINER.mysql, input.images.mysql, [], {
    ports: [{ name: PORT_NAME.mysql, containerPort: PORT.mysql }],
    resources: mysqlResources(s),
  });
  c.env!.push(
    { name: ENV.orchClusterAlias, value: names.orchestratorAlias(ctx.cluster, ctx.namespace) },
    { name: ENV.orchHttpApi, value: ctx.opts.orchestratorUri },
  );
  if (!usesInitOnlyContainer(input)) c.env!.push(...userCredentialEnv(ctx));
  const ping = { exec: { command: ['mysqladmin', `--defaults-file=${CLIENT_CONF_PATH}`, 'ping'] } };
  const configuredQuery = `mysql --defaults-file=${CLIENT_CONF_PATH} -NB -e '${CONFIGURED_PROBE_QUERY}'`;
  const configured = { exec: { command: ['/bin/sh', '-c', `test $(${configuredQuery}) -eq 1`] } };
  if (ctx.probes === 'anchor') {
    c.livenessProbe = probe(60, 5, 5, ping);
    c.readinessProbe = probe(5, 5, 2, configured);
  } else {
    c.livenessProbe = probe(0, 5, 5, ping);
    // Nothing tells the kubelet when the node controller has configured the server, so the
    // period is the wait between configured and Ready, for every pod in turn (OrderedReady).
    c.readinessProbe = probe(0, 5, 1, configured);
    c.startupProbe = probe(0, 5, STARTUP_PERIOD_SECONDS, ping, STARTUP_LIMIT_SECONDS / STARTUP_PERIOD_SECONDS);
  }
  const lifecycle = s.podSpec?.mysqlLifecycle;
  if (lifecycle) c.lifecycle = lifecycle;
  else if (ctx.opts.failoverBeforeShutdown) {
    c.lifecycle = { preStop: { exec: { command: ['bash', confPath(CONF_FILE.preShutdownScript)] } } };
    if (preStopCredentials(ctx, input)) {
      c.env!.push({ name: ENV.curlHome, value: MOUNT_PATH.orchestratorApi });
      c.volumeMounts = [...(c.volumeMounts ?? []), { name: VOLUME.orchestratorApi, mountPath: MOUNT_PATH.orchestratorApi, readOnly: true }];
    }
  }
  return c;
}

/**
 * Whether the pre-stop script's curl gets Orchestrator's API credentials (`$CURL_HOME/.curlrc`):
 * when the operator has them, and not in a template that keeps the anchor's probes, which is the
 * template adopted pods run and must not change (docs/adoption-from-anchor.md). Such pods get the
 * credentials with their next rollout; until then their pre-stop asks without and is refused.
 */
function preStopCredentials(ctx: ContainerContext, input: StatefulSetInput): boolean {
  const ourPreStop = !ctx.spec.podSpec?.mysqlLifecycle && ctx.opts.failoverBeforeShutdown;
  return ourPreStop && input.orchestratorApiSecret !== undefined && ctx.probes !== 'anchor';
}

function sidecarContainer(ctx: ContainerContext, input: StatefulSetInput): V1Container {
  const own = ctx.spec.podSpec?.mysqlOperatorSidecarResources;
  const limits = mysqlResources(ctx.spec).limits;
  const resources: V1ResourceRequirements = own ?? {
    requests: { cpu: '10m', memory: '64Mi' },
    ...(limits ? { limits: { ...limits } } : {}),
  };
  const c = container(ctx, CONTAINER.sidecar, input.images.sidecar, [SIDECAR_COMMAND.configAndServe], {
    ports: [{ name: PORT_NAME.sidecarHttp, containerPort: PORT.sidecarHttp }],
    resources,
  });
  const health = { httpGet: { path: HEALTH_PATH, port: PORT.sidecarHttp, scheme: 'HTTP' } };
  // Ready once it serves (clones and backups come through it); it listens within a second of
  // its start, long before mysqld is configured, so a 2 s period keeps it off the pod's path.
  c.readinessProbe = ctx.probes === 'anchor' ? probe(30, 5, 5, health) : probe(0, 5, 2, health);
  return c;
}

function exporterContainer(ctx: ContainerContext, input: StatefulSetInput): V1Container {
  const args = [
    `--web.listen-address=0.0.0.0:${PORT.metricsExporter}`,
    `--web.telemetry-path=${EXPORTER_METRICS_PATH}`,
    '--collect.heartbeat',
    `--collect.heartbeat.database=${OPERATOR_SCHEMA}`,
    ...(ctx.spec.metricsExporterExtraArgs ?? []),
  ];
  const c = container(ctx, CONTAINER.metricsExporter, input.images.metricsExporter, args, {
    ports: [{ name: PORT_NAME.metricsExporter, containerPort: PORT.metricsExporter }],
    resources: ctx.spec.podSpec?.metricsExporterResources ?? {
      limits: { cpu: '100m', memory: '128Mi' },
      requests: { cpu: '10m', memory: '32Mi' },
    },
  });
  c.livenessProbe = probe(30, 30, 30, { httpGet: { path: EXPORTER_METRICS_PATH, port: PORT.metricsExporter, scheme: 'HTTP' } });
  return c;
}

const HEARTBEAT_RESOURCES: V1ResourceRequirements = {
  limits: { cpu: '100m', memory: '64Mi' },
  requests: { cpu: '10m', memory: '32Mi' },
};

// The container keeps the anchor's name and pt-heartbeat arguments so adopted pods do not roll:
// the sidecar binary accepts `pt-heartbeat` with these options as its heartbeat subcommand
// (src/sidecar/command-line.ts). The image's entrypoint must send `pt-heartbeat` to that binary
// and run anything else it is not (the real `pt-kill` of query limits) directly.
function heartbeatContainer(ctx: ContainerContext, input: StatefulSetInput): V1Container {
  const args = [
    SIDECAR_COMMAND.ptHeartbeat,
    '--update',
    '--replace',
    '--check-read-only',
    '--create-table',
    '--database',
    OPERATOR_SCHEMA,
    '--table',
    'heartbeat',
    '--utc',
    '--defaults-file',
    confPath(CONF_FILE.heartbeat),
    '--fail-successive-errors=20',
  ];
  return container(ctx, CONTAINER.heartbeat, input.images.sidecar, args, {
    resources: ctx.spec.podSpec?.ptHeartbeatResources ?? structuredClone(HEARTBEAT_RESOURCES),
  });
}

function ptKillContainer(ctx: ContainerContext, input: StatefulSetInput, q: QueryLimits): V1Container {
  const args = [PT_KILL_PROGRAM, '--host=127.0.0.1', `--defaults-file=${CLIENT_CONF_PATH}`, '--print', '--wait-after-kill=1'];
  args.push('--busy-time', String(q.maxQueryTime));
  if (q.maxIdleTime !== undefined) args.push('--idle-time', String(q.maxIdleTime));
  args.push(q.killMode === 'query' ? '--kill-query' : '--kill');
  args.push('--victims', q.kill ?? 'oldest');
  if (q.ignoreDb?.length) args.push('--ignore-db', q.ignoreDb.join('|'));
  if (q.ignoreCommands?.length) args.push('--ignore-command', q.ignoreCommands.join('|'));
  if (q.ignoreUser?.length) args.push('--ignore-user', q.ignoreUser.join('|'));
  return container(ctx, CONTAINER.ptKill, input.images.sidecar, args, { resources: structuredClone(HEARTBEAT_RESOURCES) });
}

function renderVolumes(spec: MysqlClusterSpec, ref: ClusterRef): V1Volume[] {
  const v = dataVolumeSpec(spec);
  const data: V1Volume = { name: VOLUME.data };
  if (v.persistentVolumeClaim) data.persistentVolumeClaim = { claimName: names.dataClaimTemplate() };
  else if (v.hostPath) data.hostPath = v.hostPath;
  else data.emptyDir = v.emptyDir ?? {};
  const volumes: V1Volume[] = [
    { name: VOLUME.conf, emptyDir: {} },
    { name: VOLUME.configMap, configMap: { name: names.configMap(ref.name), defaultMode: 0o644 } },
    data,
  ];
  if (spec.tmpfsSize !== undefined && spec.tmpfsSize !== '') {
    volumes.push({ name: VOLUME.tmp, emptyDir: { medium: 'Memory', sizeLimit: String(spec.tmpfsSize) } });
  }
  volumes.push(...(spec.podSpec?.volumes ?? []));
  return volumes;
}
