// Checks that must pass before anything is rendered: a cluster that fails one keeps its existing
// objects untouched (nothing is deleted, nothing starts MySQL without a root password) and gets a
// Synced=False condition and an Event naming the field, the Secret or the key.
import type { V1Secret } from '@kubernetes/client-node';
import type { MysqlCluster } from '../../api/index.ts';
import { CLUSTER_REASONS, USER_SECRET_KEY } from '../../api/constants.ts';
import type { ClusterControllerOptions } from './options.ts';
import { rootPasswordKey } from './decide-root-password.ts';
import { resolveVersion, type ServerVersion } from './resolve-version.ts';
import { selectImages, type Images } from './select-images.ts';
import { renderedValueProblems } from './validate-values.ts';

export interface Problem {
  reason: string;
  message: string;
}

export type Validation =
  | {
      ok: true;
      version: ServerVersion;
      images: Images;
      /** The user Secret's key of the root password (decide-root-password.ts). */
      rootPasswordKey: string;
    }
  | { ok: false; problems: Problem[] };

// Options the operator and the sidecar set per pod or rely on; a user value would break identity,
// replication or the init-file.
const OWNED_MYSQL_CONF = [
  'server-id',
  'report-host',
  'report-port',
  'port',
  'datadir',
  'log-bin',
  'init-file',
  'gtid-mode',
  'enforce-gtid-consistency',
  'read-only',
  'super-read-only',
] as const;

function normaliseOption(key: string): string {
  return key.trim().toLowerCase().replace(/_/g, '-').replace(/^loose-/, '');
}

export function ownedMysqlConfKeys(conf: Readonly<Record<string, unknown>> | undefined): string[] {
  return Object.keys(conf ?? {}).filter((k) => (OWNED_MYSQL_CONF as readonly string[]).includes(normaliseOption(k)));
}

export function validateCluster(
  cluster: MysqlCluster,
  userSecret: V1Secret | undefined,
  opts: ClusterControllerOptions,
): Validation {
  const spec = cluster.spec;
  const problems: Problem[] = [];
  const ns = cluster.metadata?.namespace ?? '';

  if (spec.replicas !== undefined && (!Number.isInteger(spec.replicas) || spec.replicas < 0)) {
    problems.push({ reason: CLUSTER_REASONS.invalidReplicas, message: `spec.replicas is ${spec.replicas}; it must be an integer >= 0` });
  }

  const rootKeys = `${USER_SECRET_KEY.rootPassword} (or ${USER_SECRET_KEY.seedPassword})`;
  const rootKey = userSecret ? rootPasswordKey(userSecret) : undefined;
  if (!spec.secretName) {
    problems.push({ reason: CLUSTER_REASONS.userSecretNotFound, message: `spec.secretName is empty: a Secret with ${rootKeys} is required` });
  } else if (!userSecret) {
    problems.push({
      reason: CLUSTER_REASONS.userSecretNotFound,
      message: `Secret ${ns}/${spec.secretName} (spec.secretName) does not exist; it must hold ${rootKeys}`,
    });
  } else if (!rootKey) {
    problems.push({
      reason: CLUSTER_REASONS.userSecretKeyMissing,
      message: `Secret ${ns}/${spec.secretName} (spec.secretName) has no non-empty key ${rootKeys}`,
    });
  }

  const owned = ownedMysqlConfKeys(spec.mysqlConf);
  if (owned.length) {
    problems.push({
      reason: CLUSTER_REASONS.operatorOwnedMysqlConf,
      message: `spec.mysqlConf sets ${owned.map((k) => `"${k}"`).join(', ')}, which the operator sets itself; remove ${owned.length > 1 ? 'them' : 'it'}`,
    });
  }

  problems.push(...renderedValueProblems(spec));

  const resolved = resolveVersion(spec.mysqlVersion);
  if (!resolved.ok) {
    problems.push({ reason: CLUSTER_REASONS.unknownMysqlVersion, message: `spec.${resolved.message}` });
    return { ok: false, problems };
  }
  const images = selectImages(spec, resolved.version, opts);
  if (!images.ok) problems.push({ reason: CLUSTER_REASONS.imageNotDerivable, message: `spec.mysqlVersion: ${images.message}` });

  if (problems.length || !images.ok || !rootKey) return { ok: false, problems };
  return { ok: true, version: resolved.version, images: images.images, rootPasswordKey: rootKey };
}
