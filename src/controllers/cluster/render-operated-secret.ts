// Secret `<c>-mysql-operated`: the system users' credentials. Generated once; a value that exists
// is never replaced, a missing or empty key is added. The Orchestrator topology credentials are
// the exception, as in the anchor: they belong to the one Orchestrator of the install, so when the
// operator is configured with them they are copied in.
import type { V1Secret } from '@kubernetes/client-node';
import { DEFAULT_ORC_TOPOLOGY_USER, MYSQL_USER, OPERATED_SECRET_KEY as K } from '../../api/constants.ts';
import { randomPassword } from '../../mysql/system-users.ts';
import { controllerRef, names, type ClusterRef } from '../../api/names.ts';
import { encodeSecretData } from '../../runtime/kube/secret-data.ts';

export const PASSWORD_LENGTH = 18;
export { DEFAULT_ORC_TOPOLOGY_USER };

export interface OrcCredentials {
  user: string;
  password: string;
}

/** Decoded data of the operated Secret, given what exists (decoded) and the operator's config. */
export function operatedSecretData(
  existing: Readonly<Record<string, string>>,
  orc: OrcCredentials,
  generate: () => string = () => randomPassword(PASSWORD_LENGTH),
): Record<string, string> {
  const out: Record<string, string> = { ...existing };
  const keep = (key: string, value: () => string): void => {
    if (!out[key]) out[key] = value();
  };
  keep(K.operatorUser, () => MYSQL_USER.operator);
  keep(K.operatorPassword, generate);
  keep(K.replicationUser, () => MYSQL_USER.replication);
  keep(K.replicationPassword, generate);
  keep(K.metricsExporterUser, () => MYSQL_USER.metricsExporter);
  keep(K.metricsExporterPassword, generate);
  keep(K.backupUser, () => MYSQL_USER.backup);
  keep(K.backupPassword, generate);
  if (orc.user) out[K.orcTopologyUser] = orc.user;
  else keep(K.orcTopologyUser, () => DEFAULT_ORC_TOPOLOGY_USER);
  if (orc.password) out[K.orcTopologyPassword] = orc.password;
  else keep(K.orcTopologyPassword, generate);
  return out;
}

export function renderOperatedSecret(ref: ClusterRef, data: Readonly<Record<string, string>>): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: names.operatedSecret(ref.name), namespace: ref.namespace, ownerReferences: [controllerRef(ref)] },
    data: encodeSecretData(data),
  };
}
