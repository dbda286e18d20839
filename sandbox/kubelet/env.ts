// The environment the kubelet gives a container, built from its template the way the kubelet's
// makeEnvironmentVariables does: envFrom sources first, then `env` in order, a later variable
// replacing an earlier one of the same name. `value`s have `$(NAME)` expanded against the
// variables before them (`$$` is a literal `$`; an unknown name stays as written); fieldRef reads
// the pod; secretKeyRef reads a Secret, and an optional reference to a missing Secret or key sets
// nothing, while a required one fails the container (CreateContainerConfigError). ConfigMap
// sources and resourceFieldRef are refused: the pods this project renders use neither.
import type { V1Container, V1Pod } from '@kubernetes/client-node';

/** Secret name → decoded data. */
export type SecretsByName = Readonly<Record<string, Readonly<Record<string, string>>>>;

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

function fieldOf(pod: V1Pod, path: string): string {
  const m = pod.metadata ?? {};
  const keyed = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (keyed) return (keyed[1] === 'labels' ? m.labels : m.annotations)?.[keyed[2]!] ?? '';
  const fields: Record<string, string | undefined> = {
    'metadata.name': m.name,
    'metadata.namespace': m.namespace,
    'metadata.uid': m.uid,
    'spec.nodeName': pod.spec?.nodeName,
    'spec.serviceAccountName': pod.spec?.serviceAccountName,
    'status.hostIP': pod.status?.hostIP,
    'status.podIP': pod.status?.podIP,
  };
  if (!Object.hasOwn(fields, path)) throw new Error(`fieldRef ${path} is not supported by the kubelet`);
  return fields[path] ?? '';
}

/** The container's environment, or an error naming what would keep the kubelet from starting it. */
export function containerEnv(container: V1Container, pod: V1Pod, secrets: SecretsByName): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef || !source.secretRef) throw new Error(`${container.name}: only Secret envFrom sources are supported`);
    const name = source.secretRef.name ?? '';
    const data = secrets[name];
    if (!data) {
      if (source.secretRef.optional) continue;
      throw new Error(`${container.name}: envFrom Secret ${name} not found`);
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
      env[v.name] = fieldOf(pod, from.fieldRef.fieldPath);
    } else if (from.secretKeyRef) {
      const ref = from.secretKeyRef;
      const value = secrets[ref.name ?? '']?.[ref.key];
      if (value !== undefined) env[v.name] = value;
      else if (!ref.optional) throw new Error(`${container.name}: ${v.name} needs key ${ref.key} of Secret ${ref.name}, which is missing`);
    } else {
      throw new Error(`${container.name}: ${v.name}: only fieldRef and secretKeyRef are supported`);
    }
  }
  return env;
}

/** volume name → mount path of the container. */
export function mountsOf(container: V1Container): Map<string, string> {
  return new Map((container.volumeMounts ?? []).map((m) => [m.name, m.mountPath]));
}
