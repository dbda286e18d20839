// The two identities the operator uses on a cluster's servers, from the Secret `<c>-mysql-operated`
// (anchor keys): the operator user to connect, the replication user for CHANGE MASTER. Pure.
import { MYSQL_USER, OPERATED_SECRET_KEY, OPERATED_SECRET_SUFFIX as OPERATED_SUFFIX } from '../api/constants.ts';
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

/**
 * The system users' names of the operated Secret (operator, replication, exporter, Orchestrator's
 * topology user, backup) and the heartbeat user, whose name is fixed: the accounts whose sessions
 * the fence spares on demotion (docs/fencing.md).
 */
export function systemUserNames(data: Readonly<Record<string, string>> | undefined): string[] {
  const d = decodeSecretData(data);
  const keys = [
    OPERATED_SECRET_KEY.operatorUser,
    OPERATED_SECRET_KEY.replicationUser,
    OPERATED_SECRET_KEY.metricsExporterUser,
    OPERATED_SECRET_KEY.orcTopologyUser,
    OPERATED_SECRET_KEY.backupUser,
  ];
  const names = keys.map((k) => d[k]).filter((v): v is string => v !== undefined && v !== '');
  return [...new Set([...names, MYSQL_USER.heartbeat])];
}

/** What to say about a key `credentialsFrom` found missing. */
export function missingKeyMessage(cluster: string, key: string): string {
  return `key ${key} of Secret ${names.operatedSecret(cluster)} is missing or empty`;
}
