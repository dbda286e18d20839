// The sidecar's configuration: read once from the pod's environment (the pod contract,
// src/api/pod-contract.ts, and `--flag=value` overrides), validated, with an error naming every
// missing or bad variable. Pure: callers pass the environment and argv in.
import { flavourFromVersionSpec, type Flavour } from '../mysql/flavour.ts';
import type { Credentials, HashedCredentials } from '../mysql/system-users.ts';
import { storedHashProblem, storedPasswordHash } from '../mysql/accounts.ts';
import type { Endpoint } from '../mysql/node.ts';
import { HEADLESS_SERVICE_NAME, OPERATED_SECRET_KEY as KEY, PORT } from '../api/constants.ts';
import { names, podOrdinal } from '../api/names.ts';
import { ConfigError } from '../runtime/config-error.ts';
import { parseBackupUrl } from '../storage/location.ts';
import { DEFAULT_BINLOG_ARCHIVE_INTERVAL_SECONDS } from '../api/binlog-archive.ts';
import {
  CONF_FILE,
  confPath,
  DEFAULT_SERVER_ID_OFFSET,
  DEFAULT_XTRABACKUP_TARGET_DIR,
  ENV,
  MOUNT_PATH,
  TERMINATION_MESSAGE_PATH,
} from '../api/pod-contract.ts';

export type { Credentials };

export interface SidecarPaths {
  /** The `conf` emptyDir: my.cnf, conf.d/, client.conf, heartbeat.conf. */
  configDir: string;
  /** The `data` PVC. */
  dataDir: string;
  /** The ConfigMap mount the init container copies my.cnf and scripts from. */
  confSourceDir: string;
  /** Scratch directory of `xtrabackup --backup` (XTRABACKUP_TARGET_DIR). */
  xtrabackupTargetDir: string;
  /** The container's termination message file: written only when it exists (the kubelet creates it). */
  terminationLog: string;
}

export type { Endpoint };

/** Everything every subcommand may need; `clone-and-init` uses all of it. */
export interface SidecarConfig {
  namespace: string;
  podName: string;
  ordinal: number;
  serviceName: string;
  clusterName: string;
  fqdn: string;
  mysqlVersion: string;
  flavour: Flavour;
  serverIdOffset: number;
  serverId: number;
  initBucketUri: string | undefined;
  operator: Credentials;
  replication: Credentials;
  exporter: Credentials;
  /** The topology account, created from the hash (docs/credentials.md); '' when not needed. */
  orchestrator: HashedCredentials;
  backup: Credentials;
  /**
   * Each from its own variable, undefined when unset. The spec's commands are "used only when
   * both set" (docs/compatibility.md): the renderers apply that rule, and give the init container only the
   * decompressor (the anchor's template), the backup Job the compressor.
   */
  compressCommand: string[] | undefined;
  decompressCommand: string[] | undefined;
  xbstreamExtraArgs: string[];
  xtrabackupExtraArgs: string[];
  xtrabackupPrepareExtraArgs: string[];
  initFileExtraSql: string[];
  /** Ours (docs/pitr.md): where `config-and-serve` archives the binlogs while its server is the master; undefined: it does not. */
  binlogArchive: { url: string; intervalSeconds: number } | undefined;
  paths: SidecarPaths;
  /** The local mysqld as the sidecar and the generated client configs reach it. */
  mysql: Endpoint;
  /** Where `config-and-serve` listens. */
  http: Endpoint;
  /** Base URLs (`http://host:port`) of the peers a clone may come from, in docs/compatibility.md order. */
  cloneSources: { replicas: string; master: string };
}

export { ConfigError };

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Overrides for tests and the sandbox: each is an environment variable, or the flag in the
 * second column (`--data-dir=/x`), flags winning. Production leaves them unset.
 */
const OVERRIDES = {
  configDir: ['SIDECAR_CONFIG_DIR', '--config-dir'],
  dataDir: ['SIDECAR_DATA_DIR', '--data-dir'],
  confSourceDir: ['SIDECAR_CONF_SOURCE_DIR', '--conf-source-dir'],
  httpHost: ['SIDECAR_HTTP_HOST', '--http-host'],
  httpPort: ['SIDECAR_HTTP_PORT', '--http-port'],
  mysqlHost: ['SIDECAR_MYSQL_HOST', '--mysql-host'],
  mysqlPort: ['SIDECAR_MYSQL_PORT', '--mysql-port'],
  replicasUrl: ['SIDECAR_CLONE_REPLICAS_URL', '--clone-replicas-url'],
  masterUrl: ['SIDECAR_CLONE_MASTER_URL', '--clone-master-url'],
  terminationLog: ['SIDECAR_TERMINATION_LOG', '--termination-log'],
} as const;

/** The override flags every subcommand but pt-heartbeat accepts (`--data-dir=/x`). */
export const OVERRIDE_FLAGS = Object.values(OVERRIDES).map(([, flag]) => flag);

/** Splits `--name=value` flags off argv; the rest are positional arguments. */
export function parseFlags(argv: readonly string[]): { flags: Map<string, string>; args: string[] } {
  const flags = new Map<string, string>();
  const args: string[] = [];
  for (const a of argv) {
    const m = /^(--[a-z0-9-]+)=(.*)$/s.exec(a);
    if (m) flags.set(m[1]!, m[2]!);
    else args.push(a);
  }
  return { flags, args };
}

/** Whitespace-separated argument lists, as the anchor passes *_EXTRA_ARGS. */
export function splitArgs(value: string | undefined): string[] {
  return (value ?? '').split(/\s+/).filter((s) => s !== '');
}

/** INITFILE_EXTRA_SQL: the anchor joins spec.initFileExtraSQL with ';'. */
export function splitSql(value: string | undefined): string[] {
  return (value ?? '')
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export type Need = 'identity' | 'version' | 'credentials' | 'backup-http';

class Reader {
  readonly problems: string[] = [];
  readonly #env: Env;
  readonly #flags: Map<string, string>;
  constructor(env: Env, flags: Map<string, string>) {
    this.#env = env;
    this.#flags = flags;
  }
  optional(name: string): string | undefined {
    const v = this.#env[name];
    return v === undefined || v === '' ? undefined : v;
  }
  required(name: string, why: string): string {
    const v = this.optional(name);
    if (v === undefined) {
      this.problems.push(`${name} is not set (needed ${why})`);
      return '';
    }
    return v;
  }
  override(key: keyof typeof OVERRIDES): string | undefined {
    const [envName, flag] = OVERRIDES[key];
    return this.#flags.get(flag) ?? this.optional(envName);
  }
  int(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name}='${value}' is not an integer in ${min}..${max}`);
      return fallback;
    }
    return Number(value);
  }
}

/**
 * The topology account's stored hash: ORC_TOPOLOGY_PASSWORD_HASH (what this operator puts in the
 * Secret), else the hash of ORC_TOPOLOGY_PASSWORD (a Secret from before, or the anchor's). The
 * value is never echoed in a problem. '' when the credentials are not needed (`flavour` null).
 */
function topologyPasswordHash(r: Reader, flavour: Flavour | null, saltSeed: string): string {
  if (flavour === null) return '';
  const hash = r.optional(KEY.orcTopologyPasswordHash);
  if (hash !== undefined) {
    const problem = storedHashProblem(flavour, hash);
    if (problem !== null) r.problems.push(`${KEY.orcTopologyPasswordHash} ${problem}`);
    return problem === null ? hash : '';
  }
  const password = r.optional(KEY.orcTopologyPassword);
  if (password === undefined) {
    r.problems.push(`${KEY.orcTopologyPasswordHash} (or ${KEY.orcTopologyPassword}) is not set (needed for the init-file)`);
    return '';
  }
  return storedPasswordHash(flavour, password, saltSeed);
}

/** BINLOG_ARCHIVE_URL (a folder of a supported scheme) and its interval; undefined when unset. */
function binlogArchiveOf(r: Reader): SidecarConfig['binlogArchive'] {
  const url = r.optional(ENV.binlogArchiveUrl);
  const intervalSeconds = r.int(
    ENV.binlogArchiveInterval,
    r.optional(ENV.binlogArchiveInterval),
    DEFAULT_BINLOG_ARCHIVE_INTERVAL_SECONDS,
    1,
    86400,
  );
  if (url === undefined) return undefined;
  try {
    parseBackupUrl(url);
    if (!url.endsWith('/')) r.problems.push(`${ENV.binlogArchiveUrl}='${url}' is not a folder (ends in /)`);
  } catch (err) {
    r.problems.push(`${ENV.binlogArchiveUrl}: ${(err as Error).message}`);
  }
  return { url, intervalSeconds };
}

/**
 * Reads the configuration. `needs` says which groups must be present for the subcommand:
 * identity (pod and cluster names), version (MY_MYSQL_VERSION), credentials (the operated Secret's system users),
 * backup-http (BACKUP_USER/BACKUP_PASSWORD). Missing groups read as empty strings.
 */
export function loadConfig(env: Env, argv: readonly string[], needs: readonly Need[]): SidecarConfig {
  const { flags } = parseFlags(argv);
  const r = new Reader(env, flags);
  const need = (n: Need, name: string, why: string): string => (needs.includes(n) ? r.required(name, why) : (r.optional(name) ?? ''));

  const namespace = need('identity', ENV.namespace, 'for the pod identity');
  const clusterName = need('identity', ENV.clusterName, 'to find the clone sources');
  const serviceName = r.optional(ENV.serviceName) ?? HEADLESS_SERVICE_NAME;
  const podName = r.optional(ENV.podName) ?? r.optional(ENV.hostname) ?? '';
  let ordinal = 0;
  if (needs.includes('identity')) {
    const o = podOrdinal(podName);
    if (podName === '') r.problems.push(`${ENV.podName} is not set (needed for the server-id)`);
    else if (o < 0) r.problems.push(`${ENV.podName}='${podName}' does not end in -<ordinal>`);
    else ordinal = o;
  }
  const mysqlVersion = need('version', ENV.mysqlVersion, 'to choose xtrabackup or mariabackup');
  // Empty only for subcommands that do not need it (heartbeat): the anchor's default then.
  const flavour = flavourFromVersionSpec(mysqlVersion || '5.7');
  if (flavour === null) r.problems.push(`${ENV.mysqlVersion}='${mysqlVersion}' names no MySQL or MariaDB version`);
  const serverIdOffset = r.int(ENV.serverIdOffset, r.optional(ENV.serverIdOffset), DEFAULT_SERVER_ID_OFFSET, 1, 4294967295 - 1000);
  const fqdn = r.optional(ENV.fqdn) ?? `${podName}.${serviceName}.${namespace}`;

  const cred = (n: Need, userKey: string, passwordKey: string, why: string): Credentials => ({
    user: need(n, userKey, why),
    password: need(n, passwordKey, why),
  });
  const operator = cred('credentials', KEY.operatorUser, KEY.operatorPassword, 'for the init-file and client.conf');
  const replication = cred('credentials', KEY.replicationUser, KEY.replicationPassword, 'for the init-file and backups');
  const exporter = cred('credentials', KEY.metricsExporterUser, KEY.metricsExporterPassword, 'for the init-file');
  const orchestrator: HashedCredentials = {
    user: need('credentials', KEY.orcTopologyUser, 'for the init-file'),
    passwordHash: topologyPasswordHash(r, needs.includes('credentials') ? flavour : null, `${namespace}/${clusterName}`),
  };
  const backup = cred('backup-http', KEY.backupUser, KEY.backupPassword, 'for /xbackup basic auth');

  const command = (name: string): string[] | undefined => {
    const words = splitArgs(r.optional(name));
    return words.length > 0 ? words : undefined;
  };

  const httpPort = r.int(OVERRIDES.httpPort[0], r.override('httpPort'), PORT.sidecarHttp, 0, 65535);
  const mysqlPort = r.int(OVERRIDES.mysqlPort[0], r.override('mysqlPort'), PORT.mysql, 1, 65535);

  const binlogArchive = binlogArchiveOf(r);

  if (r.problems.length > 0) throw new ConfigError(r.problems);

  const dataDir = r.override('dataDir') ?? MOUNT_PATH.data;
  return {
    namespace,
    podName,
    ordinal,
    serviceName,
    clusterName,
    fqdn,
    mysqlVersion,
    flavour: flavour!,
    serverIdOffset,
    serverId: ordinal + serverIdOffset,
    initBucketUri: r.optional(ENV.initBucketUri),
    operator,
    replication,
    exporter,
    orchestrator,
    backup,
    compressCommand: command(ENV.backupCompressCommand),
    decompressCommand: command(ENV.backupDecompressCommand),
    xbstreamExtraArgs: splitArgs(r.optional(ENV.xbstreamExtraArgs)),
    xtrabackupExtraArgs: splitArgs(r.optional(ENV.xtrabackupExtraArgs)),
    xtrabackupPrepareExtraArgs: splitArgs(r.optional(ENV.xtrabackupPrepareExtraArgs)),
    initFileExtraSql: splitSql(r.optional(ENV.initFileExtraSql)),
    binlogArchive,
    paths: {
      configDir: r.override('configDir') ?? MOUNT_PATH.conf,
      dataDir,
      confSourceDir: r.override('confSourceDir') ?? MOUNT_PATH.configMap,
      xtrabackupTargetDir: r.optional(ENV.xtrabackupTargetDir) ?? DEFAULT_XTRABACKUP_TARGET_DIR,
      terminationLog: r.override('terminationLog') ?? TERMINATION_MESSAGE_PATH,
    },
    mysql: { host: r.override('mysqlHost') ?? '127.0.0.1', port: mysqlPort },
    http: { host: r.override('httpHost') ?? '0.0.0.0', port: httpPort },
    cloneSources: {
      replicas: r.override('replicasUrl') ?? `http://${names.replicasService(clusterName)}:${PORT.sidecarHttp}`,
      master: r.override('masterUrl') ?? `http://${names.masterService(clusterName)}:${PORT.sidecarHttp}`,
    },
  };
}

/** Paths of the files `clone-and-init` writes into `configDir` (the pod contract's CONF_FILE). */
export function podFilePaths(configDir: string) {
  return {
    myCnf: confPath(CONF_FILE.myCnf, configDir),
    confD: confPath(CONF_FILE.confD, configDir),
    identity: confPath(CONF_FILE.identity, configDir),
    initFile: confPath(CONF_FILE.initFile, configDir),
    initFileCnf: confPath(CONF_FILE.initFileCnf, configDir),
    client: confPath(CONF_FILE.client, configDir),
    heartbeat: confPath(CONF_FILE.heartbeat, configDir),
    backupTool: confPath(CONF_FILE.backupTool, configDir),
  };
}
