// The environment the kubelet gives a container, built from its template the way the kubelet's
// makeEnvironmentVariables does: envFrom sources first, then `env` in order, a later variable
// replacing an earlier one of the same name. `value`s have `$(NAME)` expanded against the
// variables before them (`$$` is a literal `$`; an unknown name stays as written); fieldRef reads
// the pod; secretKeyRef/configMapKeyRef read the objects, and an optional reference to a missing
// object or key sets nothing, while a required one fails the container (CreateContainerConfigError);
// resourceFieldRef reads the container's resources, a missing limit being the node's allocatable.
// Pure: the sandbox kubelet and the pod-contract test both use it.
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { quantityNumber } from '../../src/api/quantity.ts';

/** Object name → decoded data (Secrets and ConfigMaps alike). */
export type DataByName = Readonly<Record<string, Readonly<Record<string, string>>>>;
/** Kept for readers that only pass Secrets. */
export type SecretsByName = DataByName;

export interface EnvSources {
  secrets: DataByName;
  configMaps?: DataByName;
  /** The node's allocatable (`cpu`, `memory`, `ephemeral-storage`): what an unset limit reads as. */
  allocatable?: Readonly<Record<string, string>>;
}

/** Why a container cannot be started with its env as written (the kubelet's CreateContainerConfigError). */
export class ContainerConfigError extends Error {}

const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/** Kubernetes' `$(VAR)` expansion (third_party/forked/golang/expansion). */
export function expand(input: string, lookup: (name: string) => string | undefined): string {
  let out = '';
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!;
    const next = input[i + 1];
    if (c !== '$' || next === undefined) {
      out += c;
    } else if (next === '$') {
      out += '$';
      i++;
    } else if (next === '(') {
      const end = input.indexOf(')', i + 2);
      if (end < 0) return out + input.slice(i);
      const name = input.slice(i + 2, end);
      out += lookup(name) ?? input.slice(i, end + 1);
      i = end;
    } else {
      out += c;
    }
  }
  return out;
}

/** A pod field as the downward API gives it (env fieldRef and downwardAPI volume items). */
export function podField(pod: V1Pod, path: string): string {
  const m = pod.metadata ?? {};
  const keyed = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (keyed) return (keyed[1] === 'labels' ? m.labels : m.annotations)?.[keyed[2]!] ?? '';
  // Whole maps are written as the kubelet's FormatMap: sorted `k="v"` lines.
  if (path === 'metadata.labels' || path === 'metadata.annotations') {
    const map = (path === 'metadata.labels' ? m.labels : m.annotations) ?? {};
    return Object.keys(map)
      .sort()
      .map((k) => `${k}=${JSON.stringify(map[k])}`)
      .join('\n');
  }
  const fields: Record<string, string | undefined> = {
    'metadata.name': m.name,
    'metadata.namespace': m.namespace,
    'metadata.uid': m.uid,
    'spec.nodeName': pod.spec?.nodeName,
    'spec.serviceAccountName': pod.spec?.serviceAccountName,
    'status.hostIP': pod.status?.hostIP,
    'status.hostIPs': pod.status?.hostIP,
    'status.podIP': pod.status?.podIP,
    'status.podIPs': pod.status?.podIP,
  };
  if (!Object.hasOwn(fields, path)) throw new ContainerConfigError(`fieldRef ${path} is not supported`);
  return fields[path] ?? '';
}

const RESOURCE_DEFAULT_DIVISOR: Record<string, string> = { cpu: '1', memory: '1', 'ephemeral-storage': '1' };

/** A container's resource as resourceFieldRef reads it: rounded up to the divisor, at least 1 for cpu. */
export function resourceField(
  container: V1Container,
  ref: { resource: string; divisor?: string | number },
  allocatable: Readonly<Record<string, string>> = {},
): string {
  const m = /^(limits|requests)\.(cpu|memory|ephemeral-storage|hugepages-.+)$/.exec(ref.resource);
  if (!m) throw new ContainerConfigError(`resourceFieldRef ${ref.resource} is not supported`);
  const [, kind, name] = m as unknown as [string, 'limits' | 'requests', string];
  const res = container.resources ?? {};
  // An unset limit is the node's allocatable; an unset request is the limit (or zero).
  const raw = kind === 'limits' ? (res.limits?.[name] ?? allocatable[name]) : (res.requests?.[name] ?? res.limits?.[name]);
  const value = quantityNumber(raw) ?? 0;
  const divisor =
    quantityNumber(ref.divisor === undefined || ref.divisor === '' ? (RESOURCE_DEFAULT_DIVISOR[name] ?? '1') : ref.divisor) ?? 1;
  const out = Math.ceil(value / divisor - 1e-9);
  return String(name === 'cpu' ? Math.max(out, 1) : out);
}

/** The container's environment, or a ContainerConfigError naming what keeps it from starting. */
export function containerEnv(container: V1Container, pod: V1Pod, sources: EnvSources): Record<string, string> {
  const env: Record<string, string> = {};
  const objects = (kind: 'Secret' | 'ConfigMap'): DataByName => (kind === 'Secret' ? sources.secrets : (sources.configMaps ?? {}));
  for (const source of container.envFrom ?? []) {
    const ref = source.secretRef ?? source.configMapRef;
    const kind = source.secretRef ? 'Secret' : 'ConfigMap';
    if (!ref) throw new ContainerConfigError(`${container.name}: envFrom needs secretRef or configMapRef`);
    const data = objects(kind)[ref.name ?? ''];
    if (!data) {
      if (ref.optional) continue;
      throw new ContainerConfigError(`${container.name}: envFrom ${kind} ${ref.name} not found`);
    }
    for (const [key, value] of Object.entries(data)) {
      const varName = `${source.prefix ?? ''}${key}`;
      if (ENV_NAME.test(varName)) env[varName] = value;
    }
  }
  for (const v of container.env ?? []) {
    if (v.value !== undefined && v.value !== '') {
      env[v.name] = expand(v.value, (name) => env[name]);
      continue;
    }
    const from = v.valueFrom;
    if (!from) {
      env[v.name] = '';
    } else if (from.fieldRef) {
      env[v.name] = podField(pod, from.fieldRef.fieldPath);
    } else if (from.resourceFieldRef) {
      const target = from.resourceFieldRef.containerName
        ? [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].find(
            (c) => c.name === from.resourceFieldRef!.containerName,
          )
        : container;
      if (!target) throw new ContainerConfigError(`${container.name}: ${v.name}: no container ${from.resourceFieldRef.containerName}`);
      env[v.name] = resourceField(target, from.resourceFieldRef as { resource: string; divisor?: string }, sources.allocatable);
    } else if (from.secretKeyRef || from.configMapKeyRef) {
      const ref = (from.secretKeyRef ?? from.configMapKeyRef)!;
      const kind = from.secretKeyRef ? 'Secret' : 'ConfigMap';
      const value = objects(kind)[ref.name ?? '']?.[ref.key];
      if (value !== undefined) env[v.name] = value;
      else if (!ref.optional)
        throw new ContainerConfigError(`${container.name}: ${v.name} needs key ${ref.key} of ${kind} ${ref.name}, which is missing`);
    } else {
      throw new ContainerConfigError(`${container.name}: ${v.name}: valueFrom names no source`);
    }
  }
  return env;
}

/** `$(VAR)` expansion of command and args against the container's env, as the kubelet does. */
export function expandArgs(args: readonly string[] | undefined, env: Readonly<Record<string, string>>): string[] {
  return (args ?? []).map((a) => expand(a, (name) => env[name]));
}

/** volume name → mount path of the container. */
export function mountsOf(container: V1Container): Map<string, string> {
  return new Map((container.volumeMounts ?? []).map((m) => [m.name, m.mountPath]));
}

/** Where pods reach the API server: what the `kubernetes` Service of a real cluster gives them. */
export interface ApiServerAddress {
  host: string;
  port: number;
}

/**
 * The `kubernetes` Service's variables, which the kubelet gives every container whatever
 * `enableServiceLinks` says: in-cluster clients find the API server through them.
 */
export function apiServerEnv(api: ApiServerAddress | undefined): Record<string, string> {
  if (!api) return {};
  const port = String(api.port);
  const tcp = `tcp://${api.host}:${port}`;
  const named = `KUBERNETES_PORT_${port}_TCP`;
  return {
    KUBERNETES_SERVICE_HOST: api.host,
    KUBERNETES_SERVICE_PORT: port,
    KUBERNETES_SERVICE_PORT_HTTPS: port,
    KUBERNETES_PORT: tcp,
    [named]: tcp,
    [`${named}_PROTO`]: 'tcp',
    [`${named}_PORT`]: port,
    [`${named}_ADDR`]: api.host,
  };
}
