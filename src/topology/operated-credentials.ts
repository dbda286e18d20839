// The two identities the operator uses on a cluster's servers, from the Secret `<c>-mysql-operated`
// (anchor keys): the operator user to connect, the replication user for CHANGE MASTER. Pure.
import { OPERATED_SECRET_KEY, OPERATED_SECRET_SUFFIX as OPERATED_SUFFIX } from '../api/constants.ts';
import { names } from '../api/names.ts';
import type { Credentials } from '../mysql/index.ts';
import { decodeSecretData } from '../runtime/kube/secret-data.ts';

/** `<c>-mysql-operated` → `<c>`; null for any other Secret. */
export function operatedSecretCluster(secretName: string): string | null {
  return secretName.endsWith(OPERATED_SUFFIX) && secretName.length > OPERATED_SUFFIX.length
    ? secretName.slice(0, -OPERATED_SUFFIX.length)
    : null;
}

export interface OperatedCredentials {
  operator: Credentials;
  replication: Credentials;
}

const REQUIRED = [
  OPERATED_SECRET_KEY.operatorUser,
  OPERATED_SECRET_KEY.operatorPassword,
  OPERATED_SECRET_KEY.replicationUser,
  OPERATED_SECRET_KEY.replicationPassword,
] as const;

/** From the Secret's base64 `data`; names the first missing or empty key instead. */
export function credentialsFrom(data: Readonly<Record<string, string>> | undefined): OperatedCredentials | { missing: string } {
  const d = decodeSecretData(data);
  const missing = REQUIRED.find((k) => !d[k]);
  if (missing !== undefined) return { missing };
  return {
    operator: { user: d[OPERATED_SECRET_KEY.operatorUser]!, password: d[OPERATED_SECRET_KEY.operatorPassword]! },
    replication: { user: d[OPERATED_SECRET_KEY.replicationUser]!, password: d[OPERATED_SECRET_KEY.replicationPassword]! },
  };
}

/** What to say about a key `credentialsFrom` found missing. */
export function missingKeyMessage(cluster: string, key: string): string {
  return `key ${key} of Secret ${names.operatedSecret(cluster)} is missing or empty`;
}
