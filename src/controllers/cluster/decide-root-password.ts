// When to tell the user which key of the user Secret holds the root password (the key itself:
// shared/root-password-key.ts). The anchor's Secret has ROOT_PASSWORD. A Secret made the generic way, with `username` and
// `password` (our first user guide did that), has none: rather than refuse it, its `password`
// becomes the root password. The pods read the key through MYSQL_ROOT_PASSWORD's secretKeyRef,
// so a Secret with ROOT_PASSWORD renders exactly the anchor's template. Pure.
import type { V1Secret, V1StatefulSet } from '@kubernetes/client-node';
import { USER_SECRET_KEY } from '../../api/constants.ts';
import { ENV } from '../../api/pod-contract.ts';
import { hasKey } from '../shared/root-password-key.ts';
import type { Plan } from './decide-writes.ts';

/** The key MYSQL_ROOT_PASSWORD reads in a rendered StatefulSet, undefined when there is none. */
export function renderedRootPasswordKey(sts: V1StatefulSet | undefined): string | undefined {
  const spec = sts?.spec?.template?.spec;
  const containers = [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])];
  for (const c of containers) {
    const ref = c.env?.find((e) => e.name === ENV.mysqlRootPassword)?.valueFrom?.secretKeyRef;
    if (ref) return ref.key;
  }
  return undefined;
}

/**
 * True when the StatefulSet about to be written makes the pods read the root password from the
 * fallback key for the first time: the moment for the one Event that says so. A StatefulSet that
 * already reads it, or a write that does not happen (nothing to change, or refused), says nothing,
 * so steady reconciles record nothing.
 */
export function announceRootPasswordKey(key: string, existing: V1StatefulSet | undefined, plan: Plan<unknown>): boolean {
  if (key === USER_SECRET_KEY.rootPassword) return false;
  if (plan.op !== 'create' && plan.op !== 'update') return false;
  return renderedRootPasswordKey(existing) !== key;
}

/** The Event's message: names the Secret and the keys, never a value (and no `KEY: ...`, which redaction would mask). */
export function rootPasswordKeyMessage(namespace: string, secret: V1Secret, key: string): string {
  const name = `${namespace}/${secret.metadata?.name ?? ''}`;
  const unused = hasKey(secret, USER_SECRET_KEY.seedUsername)
    ? `; its key "${USER_SECRET_KEY.seedUsername}" is not used (the root user's name is fixed)`
    : '';
  return `Secret ${name} has no key ${USER_SECRET_KEY.rootPassword}, so the root password is read from its key "${key}"${unused}`;
}
