// Which key of the user Secret holds the root password: read by the cluster controller (the pods'
// MYSQL_ROOT_PASSWORD) and by the user and database controllers (they log in as root). The
// anchor's Secret has ROOT_PASSWORD; a Secret made the generic way, with `username` and `password`,
// has none, and its `password` becomes the root password. Pure.
import type { V1Secret } from '@kubernetes/client-node';
import { USER_SECRET_KEY } from '../../api/constants.ts';

/** The key is set to a value that is not empty, in `data` or `stringData`. */
export function hasKey(secret: V1Secret, key: string): boolean {
  const d = secret.data?.[key];
  const s = secret.stringData?.[key];
  return (d !== undefined && d !== '') || (s !== undefined && s !== '');
}

/** ROOT_PASSWORD when it is set, else `password` when that is set, else undefined (refused). */
export function rootPasswordKey(secret: V1Secret): string | undefined {
  if (hasKey(secret, USER_SECRET_KEY.rootPassword)) return USER_SECRET_KEY.rootPassword;
  if (hasKey(secret, USER_SECRET_KEY.seedPassword)) return USER_SECRET_KEY.seedPassword;
  return undefined;
}
