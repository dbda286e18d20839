// Container environment the pods and the backup Jobs both render.
import type { V1EnvVar } from '@kubernetes/client-node';

/** A variable read from a Secret's key; `optional`: the container starts without it. */
export function secretEnv(name: string, secret: string, key: string, optional: boolean): V1EnvVar {
  return { name, valueFrom: { secretKeyRef: { name: secret, key, optional } } };
}
