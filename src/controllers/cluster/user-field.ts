// When the API server refuses a rendered object, its causes name fields of that object
// (spec.template.spec.containers[0].resources.requests); the user wrote another field of the
// MysqlCluster. This maps one to the other, following what render-statefulset.ts and
// render-pdb.ts copy from the spec, so the condition and the Event name the field to fix.
import type { V1Container, V1PodSpec, V1StatefulSet } from '@kubernetes/client-node';
import type { MysqlClusterSpec } from '../../api/index.ts';
import { CONF_FILE } from '../../api/pod-contract.ts';
import { CONTAINER, VOLUME } from '../../api/constants.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';

type Segment = string | number;

/** `spec.containers[0].resources.requests[memory]` → ['spec', 'containers', 0, 'resources', 'requests', 'memory']. */
export function parseFieldPath(path: string): Segment[] {
  const out: Segment[] = [];
  for (const m of path.matchAll(/\[([^\]]*)\]|([^.[\]]+)/g)) {
    if (m[2] !== undefined) out.push(m[2]);
    else out.push(/^[0-9]+$/.test(m[1]!) ? Number(m[1]) : m[1]!);
  }
  return out;
}

/** `base` followed by `rest`: `.name` for plain keys, `[i]` or `[key]` for indexes and keys with dots or slashes. */
export function fieldAt(base: string, rest: readonly Segment[]): string {
  return rest.reduce<string>((out, s) => (typeof s === 'string' && /^[A-Za-z0-9_-]+$/.test(s) ? `${out}.${s}` : `${out}[${s}]`), base);
}

/** Extra items the user appends after the operator's: index `i` of `total` is the user's `i - (total - user)`. */
function appended(i: number, total: number, user: number): number | undefined {
  const j = i - (total - user);
  return j >= 0 && j < user ? j : undefined;
}

const SIDECAR_IMAGE_CONTAINERS: readonly string[] = [CONTAINER.init, CONTAINER.sidecar, CONTAINER.heartbeat, CONTAINER.ptKill];

function operatorContainerField(spec: MysqlClusterSpec, c: V1Container, rest: readonly Segment[]): string | undefined {
  const podSpec = spec.podSpec ?? {};
  const [head, ...tail] = rest;
  if (head === 'volumeMounts' && typeof tail[0] === 'number') {
    const j = appended(tail[0], c.volumeMounts?.length ?? 0, podSpec.volumeMounts?.length ?? 0);
    if (j !== undefined) return fieldAt(`spec.podSpec.volumeMounts[${j}]`, tail.slice(1));
  }
  if (head === 'imagePullPolicy' && podSpec.imagePullPolicy) return 'spec.podSpec.imagePullPolicy';
  if (head === 'image') {
    if (c.name === CONTAINER.mysql || c.name === CONTAINER.mysqlInitOnly) return spec.image ? 'spec.image' : undefined;
    return SIDECAR_IMAGE_CONTAINERS.includes(c.name) && spec.sidecarImage ? 'spec.sidecarImage' : undefined;
  }
  switch (c.name) {
    case CONTAINER.mysql:
    case CONTAINER.mysqlInitOnly:
      if (head === 'resources' && podSpec.resources) return fieldAt('spec.podSpec.resources', tail);
      if (head === 'lifecycle' && podSpec.mysqlLifecycle) return fieldAt('spec.podSpec.mysqlLifecycle', tail);
      return undefined;
    case CONTAINER.sidecar:
      if (head === 'resources' && podSpec.mysqlOperatorSidecarResources) return fieldAt('spec.podSpec.mysqlOperatorSidecarResources', tail);
      // Without its own resources the sidecar takes the mysql container's limits.
      if (head === 'resources' && podSpec.resources?.limits)
        return fieldAt('spec.podSpec.resources.limits', tail[0] === 'limits' ? tail.slice(1) : []);
      return undefined;
    case CONTAINER.metricsExporter:
      if (head === 'resources' && podSpec.metricsExporterResources) return fieldAt('spec.podSpec.metricsExporterResources', tail);
      if (head === 'args' && typeof tail[0] === 'number') {
        const j = appended(tail[0], c.args?.length ?? 0, spec.metricsExporterExtraArgs?.length ?? 0);
        if (j !== undefined) return `spec.metricsExporterExtraArgs[${j}]`;
      }
      return undefined;
    case CONTAINER.heartbeat:
      if (head === 'resources' && podSpec.ptHeartbeatResources) return fieldAt('spec.podSpec.ptHeartbeatResources', tail);
      return undefined;
    default:
      return undefined;
  }
}

function containerField(
  spec: MysqlClusterSpec,
  pod: V1PodSpec,
  list: 'initContainers' | 'containers',
  i: number,
  rest: readonly Segment[],
): string | undefined {
  const rendered = pod[list] ?? [];
  const user = spec.podSpec?.[list]?.length ?? 0;
  // The user's init containers come before the operator's, their other containers after.
  const j = list === 'initContainers' ? (i < user ? i : undefined) : appended(i, rendered.length, user);
  if (j !== undefined) return fieldAt(`spec.podSpec.${list}[${j}]`, rest);
  const c = rendered[i];
  return c ? operatorContainerField(spec, c, rest) : undefined;
}

function volumeField(spec: MysqlClusterSpec, pod: V1PodSpec, i: number, rest: readonly Segment[]): string | undefined {
  const volumes = pod.volumes ?? [];
  const j = appended(i, volumes.length, spec.podSpec?.volumes?.length ?? 0);
  if (j !== undefined) return fieldAt(`spec.podSpec.volumes[${j}]`, rest);
  const name = volumes[i]?.name;
  if (name === VOLUME.tmp) return 'spec.tmpfsSize';
  if (name === VOLUME.data && (rest[0] === 'hostPath' || rest[0] === 'emptyDir') && spec.volumeSpec?.[rest[0]])
    return fieldAt('spec.volumeSpec', rest);
  return undefined;
}

/** Pod-level fields copied as they are from spec.podSpec. */
const POD_FIELDS = ['affinity', 'tolerations', 'nodeSelector', 'priorityClassName', 'serviceAccountName', 'imagePullSecrets'] as const;

function podField(spec: MysqlClusterSpec, pod: V1PodSpec, path: readonly Segment[]): string | undefined {
  const [head, i, ...rest] = path;
  if ((head === 'containers' || head === 'initContainers') && typeof i === 'number') return containerField(spec, pod, head, i, rest);
  if (head === 'volumes' && typeof i === 'number') return volumeField(spec, pod, i, rest);
  const field = POD_FIELDS.find((f) => f === head);
  if (field && spec.podSpec?.[field] !== undefined) return fieldAt(`spec.podSpec.${field}`, path.slice(1));
  return undefined;
}

function statefulSetField(spec: MysqlClusterSpec, sts: V1StatefulSet, path: readonly Segment[]): string | undefined {
  const [a, b, c, ...rest] = path;
  if (a !== 'spec') return undefined;
  if (b === 'replicas') return 'spec.replicas';
  if (b === 'template' && c === 'spec') return podField(spec, sts.spec?.template?.spec ?? { containers: [] }, rest);
  if (b === 'template' && c === 'metadata' && (rest[0] === 'labels' || rest[0] === 'annotations') && spec.podSpec?.[rest[0]]) {
    return fieldAt(`spec.podSpec.${rest[0]}`, rest.slice(1));
  }
  if (b === 'volumeClaimTemplates' && c === 0 && rest[0] === 'spec' && spec.volumeSpec?.persistentVolumeClaim) {
    return fieldAt('spec.volumeSpec.persistentVolumeClaim', rest.slice(1));
  }
  return undefined;
}

/**
 * The MysqlCluster field that rendered `field` (a path of the API server's causes) of the object
 * `rendered` of kind `kind`, or undefined when the operator wrote that value itself.
 */
export function userField(spec: MysqlClusterSpec, kind: string, rendered: KubeObject, field: string): string | undefined {
  const path = parseFieldPath(field);
  switch (kind) {
    case 'StatefulSet':
      return statefulSetField(spec, rendered as V1StatefulSet, path);
    case 'PodDisruptionBudget':
      return path[0] === 'spec' && path[1] === 'minAvailable' && spec.minAvailable !== undefined ? 'spec.minAvailable' : undefined;
    case 'ConfigMap':
      return path[0] === 'data' && path[1] === CONF_FILE.myCnf && spec.mysqlConf ? 'spec.mysqlConf' : undefined;
    default:
      return undefined;
  }
}

/**
 * The condition's message for a refused write: the user's fields first, when the causes map to
 * any, then the API server's own message.
 */
export function refusalMessage(
  spec: MysqlClusterSpec,
  kind: string,
  rendered: KubeObject,
  causes: Readonly<Array<{ field?: string }>>,
  serverMessage: string,
): string {
  const fields = [
    ...new Set(causes.map((c) => (c.field ? userField(spec, kind, rendered, c.field) : undefined)).filter((f) => f !== undefined)),
  ];
  if (!fields.length) return serverMessage;
  return `${fields.join(', ')}: the API server refused ${kind} ${rendered.metadata?.name ?? ''}: ${serverMessage}`;
}
