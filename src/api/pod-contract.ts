// The pod contract: what the StatefulSet of the cluster controller (render-statefulset.ts) gives
// the programs in a MySQL pod, and what they read: environment variable names, mount paths and
// the files under them, the sidecar's subcommands and HTTP protocol, and the defaults both sides
// fall back to. The renderer (which writes them) and the sidecar (which reads them) import this
// module, as the backup Job and the sandbox's kubelet will; test/unit/contract/ renders a pod and
// loads it back with the sidecar's own configuration loader.
//
// Container, volume and port names are in constants.ts (CONTAINER, VOLUME, PORT, PORT_NAME) with
// the other anchor names. The operated Secret's keys (OPERATED_SECRET_KEY) reach the init and
// sidecar containers as variables of the same names (envFrom).
//
// Every name here is the anchor's (docs/compatibility.md "Sidecar") unless marked ours: an adopted cluster
// keeps its pod template, and anchor and successor pods clone from each other mid-migration.
import { posix } from 'node:path';

/** Environment variables of the pod's containers. */
export const ENV = {
  // Identity, in every container the operator renders.
  namespace: 'MY_NAMESPACE',
  podName: 'MY_POD_NAME',
  podIp: 'MY_POD_IP',
  serviceName: 'MY_SERVICE_NAME',
  clusterName: 'MY_CLUSTER_NAME',
  fqdn: 'MY_FQDN',
  mysqlVersion: 'MY_MYSQL_VERSION',
  /** Rendered only when spec.serverIDOffset differs from DEFAULT_SERVER_ID_OFFSET. */
  serverIdOffset: 'MY_SERVER_ID_OFFSET',
  /** Set by the container runtime, not the template: the sidecar's fallback for MY_POD_NAME. */
  hostname: 'HOSTNAME',

  // Clone, restore and backup (init and sidecar containers; later the backup Job).
  initBucketUri: 'INIT_BUCKET_URI',
  backupCompressCommand: 'BACKUP_COMPRESS_COMMAND',
  backupDecompressCommand: 'BACKUP_DECOMPRESS_COMMAND',
  rcloneExtraArgs: 'RCLONE_EXTRA_ARGS',
  xbstreamExtraArgs: 'XBSTREAM_EXTRA_ARGS',
  xtrabackupExtraArgs: 'XTRABACKUP_EXTRA_ARGS',
  xtrabackupPrepareExtraArgs: 'XTRABACKUP_PREPARE_EXTRA_ARGS',
  xtrabackupTargetDir: 'XTRABACKUP_TARGET_DIR',
  initFileExtraSql: 'INITFILE_EXTRA_SQL',
  /** Ours (sidecar, docs/pitr.md): the binlog archive's folder; unset, no archiving. */
  binlogArchiveUrl: 'BINLOG_ARCHIVE_URL',
  /** Ours (sidecar): seconds between uploads of the open binlog. */
  binlogArchiveInterval: 'BINLOG_ARCHIVE_INTERVAL_SECONDS',

  // Orchestrator, for the mysql container's pre-stop script.
  orchClusterAlias: 'ORCH_CLUSTER_ALIAS',
  orchHttpApi: 'ORCH_HTTP_API',
  /**
   * Where curl finds its default config file `.curlrc` (curl's own variable): the pre-stop
   * script's curl takes Orchestrator's API credentials from it, the script's bytes unchanged.
   */
  curlHome: 'CURL_HOME',

  // The MySQL image's entrypoint (mysql, or the run-once mysql-init-only container).
  mysqlInitOnly: 'MYSQL_INIT_ONLY',
  mysqlRootPassword: 'MYSQL_ROOT_PASSWORD',
  mysqlUser: 'MYSQL_USER',
  mysqlPassword: 'MYSQL_PASSWORD',
  mysqlDatabase: 'MYSQL_DATABASE',

  // mysqld_exporter: DATA_SOURCE_NAME, built from USER and PASSWORD by the kubelet.
  exporterUser: 'USER',
  exporterPassword: 'PASSWORD',
  exporterDataSource: 'DATA_SOURCE_NAME',
} as const;
export type EnvName = (typeof ENV)[keyof typeof ENV];

/** `$(NAME)`: a reference the kubelet expands to an earlier variable of the same container. */
export function envRef(name: EnvName): string {
  return `$(${name})`;
}

/** Where the pod's volumes are mounted (the same path in every container that mounts them). */
export const MOUNT_PATH = {
  /** VOLUME.conf, an emptyDir: my.cnf and the files of CONF_FILE, written by clone-and-init. */
  conf: '/etc/mysql',
  /** VOLUME.configMap: the ConfigMap `<c>-mysql`, whose files clone-and-init copies into `conf`. */
  configMap: '/mnt/conf',
  /** VOLUME.data (VOLUME.tmp with the deprecated tmpfsSize): the data directory. */
  data: '/var/lib/mysql',
  /** VOLUME.orchestratorApi in the mysql container: `.curlrc` with Orchestrator's API credentials (ENV.curlHome). */
  orchestratorApi: '/etc/mysql/orchestrator-api',
} as const;

/** The key of the Secret `<c>-mysql-orc-api`, mounted as `.curlrc`: `user = "<user>:<password>"`. */
export const ORCHESTRATOR_API_CURLRC_KEY = 'curlrc';

/**
 * Files of the conf directory, relative to it. `myCnf` and `preShutdownScript` are the keys of
 * the ConfigMap, copied as they are; clone-and-init writes the others.
 */
export const CONF_FILE = {
  myCnf: 'my.cnf',
  preShutdownScript: 'pre-shutdown-ha.sh',
  confD: 'conf.d',
  identity: 'conf.d/10-identity.cnf',
  initFile: 'conf.d/operator-init.sql',
  initFileCnf: 'conf.d/10-init-file.cnf',
  /** [client] of the operator user: probes, the pre-stop script, pt-kill. */
  client: 'client.conf',
  /** [client] of the heartbeat user: the pt-heartbeat container. */
  heartbeat: 'heartbeat.conf',
  /** Ours: [xtrabackup] user and password of the backup tools' local account, for /xbackup (docs/credentials.md). */
  backupTool: 'xtrabackup.cnf',
} as const;

/** The path of a CONF_FILE in the conf directory `confDir` (the mount path in a pod). */
export function confPath(file: (typeof CONF_FILE)[keyof typeof CONF_FILE], confDir: string = MOUNT_PATH.conf): string {
  return posix.join(confDir, file);
}

/** Subcommands of the sidecar image, as container args name them. */
export const SIDECAR_COMMAND = {
  cloneAndInit: 'clone-and-init',
  configAndServe: 'config-and-serve',
  /** The heartbeat, under pt-heartbeat's name and arguments (the anchor ran the real one). */
  ptHeartbeat: 'pt-heartbeat',
  takeBackupTo: 'take-backup-to',
} as const;

/** The real pt-kill of spec.queryLimits, which the sidecar image's entrypoint runs as it is. */
export const PT_KILL_PROGRAM = 'pt-kill';

// The sidecar's HTTP protocol (docs/architecture.md §4): probes, clones and backup Jobs speak it.
export const HEALTH_PATH = '/health';
export const XBACKUP_PATH = '/xbackup';
export const BACKUP_STATUS_TRAILER = 'X-Backup-Status';
export const BACKUP_SUCCESS = 'Success';
export const BACKUP_FAILED = 'Failed';
/**
 * Bounds of `/xbackup` (docs/sidecar.md "Bounds"): one stream runs and at most this many requests
 * wait for it; a further one gets 503 with `Retry-After`.
 */
export const XBACKUP_MAX_WAITING = 1;
/** A request whose stream has not started (its 200 sent) this long after it came is refused (503). */
export const XBACKUP_START_LIMIT_SECONDS = 120;
/** A stream that moved no byte to the client for this long is cut (the tool stopped, the client too). */
export const XBACKUP_IDLE_LIMIT_SECONDS = 600;
/** The `Retry-After` of a refused `/xbackup` request; clients wait this long, then ask again. */
export const XBACKUP_RETRY_AFTER_SECONDS = 15;

/**
 * Kubernetes' default terminationMessagePath: the sidecar writes its BackupReport/RestoreReport
 * there (src/api/backup-report.ts), or its error, for the pod status to carry to the controllers.
 */
export const TERMINATION_MESSAGE_PATH = '/dev/termination-log';

/** server-id = ordinal + this, when spec.serverIDOffset (MY_SERVER_ID_OFFSET) does not say. */
export const DEFAULT_SERVER_ID_OFFSET = 100;
/** Scratch directory of `xtrabackup --backup`, when spec.xtrabackupTargetDir does not say. */
export const DEFAULT_XTRABACKUP_TARGET_DIR = '/tmp/xtrabackup_backupfiles/';
/** The mysql user of the MySQL images: the pod runs as it and its files belong to it. */
export const MYSQL_UID = 999;
