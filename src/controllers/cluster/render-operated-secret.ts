// Secret `<c>-mysql-operated`: the system users' credentials. Generated once; a value that exists
// is never replaced, a missing or empty key is added. The Orchestrator topology credentials are
// the exception, as in the anchor: they belong to the one Orchestrator of the install, so when the
// operator is configured with them they are copied in; but a tenant namespace gets only the hash
// of the password, unless the cluster's pods run the anchor's sidecar, which reads the password
// itself (docs/credentials.md).
import type { V1Secret } from '@kubernetes/client-node';
import { DEFAULT_ORC_TOPOLOGY_USER, MYSQL_USER, OPERATED_SECRET_KEY as K } from '../../api/constants.ts';
import { randomPassword } from '../../mysql/system-users.ts';
import { storedPasswordHash } from '../../mysql/accounts.ts';
import type { Flavour } from '../../mysql/flavour.ts';
import { controllerRef, names, type ClusterRef } from '../../api/names.ts';
import { encodeSecretData } from '../../runtime/kube/secret-data.ts';

export const PASSWORD_LENGTH = 18;
export { DEFAULT_ORC_TOPOLOGY_USER };

export interface OrcCredentials {
  user: string;
  password: string;
}

/**
 * How the topology password reaches the cluster's pods: `plain` for the anchor's sidecar, which
 * reads ORC_TOPOLOGY_PASSWORD (given a hash or nothing it would create the account with that text,
 * or with no password); `hash` for this project's, which reads ORC_TOPOLOGY_PASSWORD_HASH.
 */
export type TopologyPasswordForm = { kind: 'plain' } | { kind: 'hash'; hash: (password: string) => string };

/** The keys operatedSecretData may take out of an existing Secret (the other topology form's). */
export const REMOVABLE_OPERATED_KEYS: readonly string[] = [K.orcTopologyPassword, K.orcTopologyPasswordHash];

// The anchor's published sidecar images (bitpoke, and presslabs before the rename).
const ANCHOR_SIDECAR = /(^|\/)(bitpoke|presslabs)\/mysql-operator-sidecar(-[0-9.]+)?(:|@|$)/;

/** The form for pods running `sidecarImage`, hashed for `flavour` with a salt seeded by the cluster's namespace and name. */
export function topologyPasswordForm(
  sidecarImage: string,
  flavour: Flavour,
  ref: { namespace: string; name: string },
): TopologyPasswordForm {
  if (ANCHOR_SIDECAR.test(sidecarImage.trim())) return { kind: 'plain' };
  return { kind: 'hash', hash: (password) => storedPasswordHash(flavour, password, `${ref.namespace}/${ref.name}`) };
}

/** Decoded data of the operated Secret, given what exists (decoded) and the operator's config. */
export function operatedSecretData(
  existing: Readonly<Record<string, string>>,
  orc: OrcCredentials,
  generate: () => string = () => randomPassword(PASSWORD_LENGTH),
  form: TopologyPasswordForm = { kind: 'plain' },
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
  if (form.kind === 'plain') {
    if (orc.password) out[K.orcTopologyPassword] = orc.password;
    else keep(K.orcTopologyPassword, generate);
    delete out[K.orcTopologyPasswordHash];
    return out;
  }
  // The hash of the configured password; without one, the hash kept, or made from the plain value
  // an older Secret holds, or (a new Secret) of a password nobody knows, as one was generated before.
  if (orc.password) out[K.orcTopologyPasswordHash] = form.hash(orc.password);
  else if (!out[K.orcTopologyPasswordHash]) out[K.orcTopologyPasswordHash] = form.hash(out[K.orcTopologyPassword] || generate());
  delete out[K.orcTopologyPassword];
  return out;
}

/**
 * The Secret's data as the rollout hash sees it: the topology hash shown as the configured password
 * it was made from, which is what the Secret held before it held the hash. So a cluster whose Secret
 * moves from the password to its hash does not roll (the servers' account is the same), and a
 * rotated password still does (the servers get it from the init-file at their next start).
 */
export function rolloutSecretView(
  data: Readonly<Record<string, string>>,
  orc: OrcCredentials,
  form: TopologyPasswordForm,
): Record<string, string> {
  const hash = data[K.orcTopologyPasswordHash];
  if (form.kind === 'plain' || !orc.password || hash === undefined || hash !== form.hash(orc.password)) return { ...data };
  const { [K.orcTopologyPasswordHash]: _hash, ...rest } = data;
  return { ...rest, [K.orcTopologyPassword]: orc.password };
}

/**
 * Whether writing the Secret (`op`) puts the install's topology password into the tenant namespace,
 * which the cluster controller then says in a Warning Event (topologyPasswordMessage).
 */
export function announcePlainTopologyPassword(plain: boolean, orc: OrcCredentials, op: string): boolean {
  return plain && orc.password !== '' && (op === 'create' || op === 'update');
}

/** Names the image and the way out; never a value. */
export function topologyPasswordMessage(sidecarImage: string): string {
  return (
    `the operated Secret holds Orchestrator's topology password, which every cluster's servers accept: the pods run the anchor's sidecar ` +
    `${sidecarImage}, which reads it; this project's sidecar image for that line (--sidecar-image, --sidecar-mysql8-image or ` +
    'spec.sidecarImage) is given only its hash (docs/credentials.md)'
  );
}

export function renderOperatedSecret(ref: ClusterRef, data: Readonly<Record<string, string>>): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: names.operatedSecret(ref.name), namespace: ref.namespace, ownerReferences: [controllerRef(ref)] },
    data: encodeSecretData(data),
  };
}
