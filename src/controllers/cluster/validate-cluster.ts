// Checks that must pass before anything is rendered: a cluster that fails one keeps its existing
// objects untouched (nothing is deleted, nothing starts MySQL without a root password) and gets a
// Synced=False condition and an Event naming the field, the Secret or the key.
import type { V1Secret } from '@kubernetes/client-node';
import type { MysqlCluster } from '../../api/index.ts';
import { MYSQL_CONF_VALUE_PATTERN } from '../../api/schemas/mysqlcluster.ts';
import { CLUSTER_REASONS, USER_SECRET_KEY } from '../../api/constants.ts';
import type { ClusterControllerOptions } from './options.ts';
import { rootPasswordKey } from '../shared/root-password-key.ts';
import { resolveVersion, type ServerVersion } from '../shared/resolve-version.ts';
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
// replication or the init-file. read-only and super-read-only are the fence (docs/fencing.md): the
// init-file sets them itself, super_read_only after its own writes, which a super-read-only in
// my.cnf would refuse (the init-file stops at its first CREATE USER); and a server must not start
// writable (skip-read-only).
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

// mysqld takes `_` for `-`, `loose-` (ignore when unknown) and `skip-`/`disable-`/`enable-`/
// `maximum-` in front of a name (`skip-read-only` turns read-only off), and MariaDB takes any
// unambiguous prefix of a name (getopt-prefix-matching, on by default: `init-fil` is init-file).
function normaliseOption(key: string): string {
  return key
    .trim()
    .toLowerCase()
    .replace(/_/g, '-')
    .replace(/^loose-/, '')
    .replace(/^(skip|disable|enable|maximum)-/, '');
}

export function ownedMysqlConfKeys(conf: Readonly<Record<string, unknown>> | undefined): string[] {
  return Object.keys(conf ?? {}).filter((k) => {
    const name = normaliseOption(k);
    return name !== '' && OWNED_MYSQL_CONF.some((owned) => owned.startsWith(name));
  });
}

// An option name as mysqld knows them (`validate_password.policy` and MariaDB's
// `<connection>.replicate_do_db` carry a dot). Anything else could start a line of its own in
// my.cnf: a comment (`#`, `;`), a section (`[`), a directive (`!include`), or an `=` inside the key.
const OPTION_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const OPTION_VALUE = new RegExp(MYSQL_CONF_VALUE_PATTERN);

/** The field path of a mysqlConf entry, with a key that is no option name quoted as JSON. */
function confField(key: string): string {
  return OPTION_NAME.test(key) ? `spec.mysqlConf.${key}` : `spec.mysqlConf[${JSON.stringify(key)}]`;
}

/**
 * mysqlConf entries that would not stay one `key = value` line of my.cnf: each would let the
 * user add lines of their own (an init-file, an !include) past the owned-key check.
 */
export function unsafeMysqlConf(conf: Readonly<Record<string, unknown>> | undefined): Problem[] {
  const problems: Problem[] = [];
  for (const [key, value] of Object.entries(conf ?? {})) {
    if (!OPTION_NAME.test(key)) {
      problems.push({
        reason: CLUSTER_REASONS.invalidMysqlConf,
        message: `${confField(key)} is not an option name: use letters, digits, '-', '_' and '.', starting with a letter or digit`,
      });
    } else if (!OPTION_VALUE.test(String(value))) {
      problems.push({
        reason: CLUSTER_REASONS.invalidMysqlConf,
        message: `${confField(key)} holds a line break or another control character, which my.cnf cannot carry in a value`,
      });
    }
  }
  return problems;
}

/**
 * `initBucketSecretFound`: whether the Secret spec.initBucketSecretName names exists (true when
 * none is named). Every pod's init container takes its keys as variables, so no pod would start
 * without it: refused like the user Secret.
 */
export function validateCluster(
  cluster: MysqlCluster,
  userSecret: V1Secret | undefined,
  opts: ClusterControllerOptions,
  initBucketSecretFound = true,
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
    problems.push({
      reason: CLUSTER_REASONS.userSecretNotFound,
      message: `spec.secretName is empty: a Secret with ${rootKeys} is required`,
    });
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

  if (spec.initBucketSecretName && !initBucketSecretFound) {
    problems.push({
      reason: CLUSTER_REASONS.initBucketSecretNotFound,
      message: `Secret ${ns}/${spec.initBucketSecretName} (spec.initBucketSecretName) does not exist; the pods' init container reads the bucket credentials from it`,
    });
  }

  const owned = ownedMysqlConfKeys(spec.mysqlConf);
  if (owned.length) {
    problems.push({
      reason: CLUSTER_REASONS.operatorOwnedMysqlConf,
      message: `spec.mysqlConf sets ${owned.map((k) => JSON.stringify(k)).join(', ')}, which the operator sets itself; remove ${owned.length > 1 ? 'them' : 'it'}`,
    });
  }
  problems.push(...unsafeMysqlConf(spec.mysqlConf));

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
