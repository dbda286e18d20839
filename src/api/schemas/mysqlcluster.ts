// MysqlCluster: the single source of its CRD schema, defaults and TypeScript types.
// Field names, defaults and meanings are the anchor's (docs/compatibility.md); additions are marked "ours".
import {
  API_GROUP,
  KIND_MYSQL_CLUSTER,
  PLURAL_MYSQL_CLUSTERS,
  QUERY_LIMITS_KILL,
  QUERY_LIMITS_KILL_MODE,
  REMOTE_DELETE_POLICY,
} from '../constants.ts';
import {
  bool,
  conditionList,
  dateTime,
  enumOf,
  int32,
  int64,
  intOrString,
  k8sList,
  k8sObject,
  list,
  mapList,
  mapOf,
  obj,
  str,
  stringMap,
  strList,
} from './build.ts';
import { AGE_COLUMN, READY_COLUMN, type KindDefinition } from './kind.ts';
import { DEFAULT_SERVER_ID_OFFSET, DEFAULT_XTRABACKUP_TARGET_DIR } from '../pod-contract.ts';
import { DEFAULT_BINLOG_ARCHIVE_INTERVAL_SECONDS } from '../binlog-archive.ts';

/**
 * A mysqlConf value holds no line break nor other control character but tab: my.cnf is read line
 * by line, so a line break would add options of the user's own past the check of the ones the
 * operator owns (e.g. init-file). ASCII only, so that Go's RE2 in kube-apiserver and JavaScript
 * read it alike. Keys cannot be checked by the schema (no propertyNames; a CEL rule over an
 * unbounded map exceeds the API server's cost budget): the cluster controller checks both.
 */
export const MYSQL_CONF_VALUE_PATTERN = '^[^\\x00-\\x08\\x0A-\\x1F\\x7F]*$';

// Ours (docs/pitr.md): the master's binlogs uploaded beside the backups, for restores to a point in time.
const binlogArchive = obj(
  'BinlogArchive',
  "Ours: archive the master's binary logs to <backupURL folder>/binlogs/ (point-in-time recovery).",
  {
    enabled: bool('Archive the binary logs; needs backupURL (and backupSecretName for its credentials).'),
    intervalSeconds: int32('Seconds between uploads of the open binary log (a closed one is uploaded at once).', {
      default: DEFAULT_BINLOG_ARCHIVE_INTERVAL_SECONDS,
      minimum: 1,
      maximum: 3600,
    }),
  },
);

const podSpec = obj('PodSpec', 'Extra settings for the pods of the cluster and of its backup Jobs.', {
  imagePullPolicy: enumOf('Pull policy of the MySQL and sidecar images.', ['Always', 'IfNotPresent', 'Never']),
  imagePullSecrets: list('Secrets used to pull the images.', obj(undefined, '', { name: str('Name of the Secret.') })),
  labels: stringMap('Extra labels on the pods.'),
  annotations: stringMap('Extra annotations on the pods.'),
  resources: k8sObject('V1ResourceRequirements', 'Resources of the mysql container.', {
    default: { requests: { cpu: '200m', memory: '1Gi' } },
  }),
  affinity: k8sObject('V1Affinity', 'Pod affinity; when unset, a preferred anti-affinity spreads the pods over hosts.'),
  mysqlLifecycle: k8sObject('V1Lifecycle', 'Lifecycle hooks of the mysql container.'),
  nodeSelector: stringMap('Node selector of the pods.'),
  priorityClassName: str('Priority class of the pods.'),
  tolerations: k8sList('V1Toleration', 'Tolerations of the pods.'),
  serviceAccountName: str('Service account of the pods.'),
  backupAffinity: k8sObject('V1Affinity', 'Affinity of the backup Jobs.'),
  backupNodeSelector: stringMap('Node selector of the backup Jobs.'),
  backupPriorityClassName: str('Priority class of the backup Jobs.'),
  backupTolerations: k8sList('V1Toleration', 'Tolerations of the backup Jobs.'),
  volumes: k8sList('V1Volume', 'Extra volumes of the pods.'),
  volumeMounts: k8sList('V1VolumeMount', 'Extra volume mounts of the mysql container.'),
  initContainers: k8sList('V1Container', 'Extra init containers, run after the operator ones.'),
  containers: k8sList('V1Container', 'Extra containers.'),
  metricsExporterResources: k8sObject('V1ResourceRequirements', 'Resources of the metrics-exporter container.'),
  mysqlOperatorSidecarResources: k8sObject('V1ResourceRequirements', 'Resources of the sidecar container.'),
  ptHeartbeatResources: k8sObject('V1ResourceRequirements', 'Resources of the heartbeat container.'),
});

const volumeSpec = obj(
  'VolumeSpec',
  'Storage of the data directory: one of persistentVolumeClaim (takes precedence), hostPath, emptyDir.',
  {
    persistentVolumeClaim: k8sObject('V1PersistentVolumeClaimSpec', 'Spec of the PVC template `data`.'),
    hostPath: k8sObject('V1HostPathVolumeSource', 'A host directory (test clusters only).'),
    emptyDir: k8sObject('V1EmptyDirVolumeSource', 'An emptyDir (data is lost with the pod).'),
    keepAfterDelete: bool('Keep the PVCs when the MysqlCluster is deleted.'),
    deletePVCsOnScaleDown: bool('Ours: delete the PVCs of removed ordinals after a scale-down. The PVC of ordinal 0 is never deleted.'),
  },
  { default: { persistentVolumeClaim: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } },
);

const queryLimits = obj(
  'QueryLimits',
  'Kill long-running queries or idle connections (pt-kill style).',
  {
    maxIdleTime: int32('Kill connections idle for longer than this many seconds.', { minimum: 0 }),
    maxQueryTime: int32('Kill queries running for longer than this many seconds.', { minimum: 0 }),
    kill: enumOf('Which matching queries to kill.', QUERY_LIMITS_KILL),
    killMode: enumOf('Kill the whole connection or only the query.', QUERY_LIMITS_KILL_MODE),
    ignoreDb: strList('Databases whose queries are never killed.'),
    ignoreCommands: strList('Commands that are never killed.'),
    ignoreUser: strList('Users whose queries are never killed.'),
  },
  { required: ['maxQueryTime'] },
);

// Ours (issue 22, docs/semi-sync.md): how commits wait for replicas. Nothing here has a stored
// default: the API server applies CRD defaults to stored objects too, so a default would turn
// semi-sync on for every adopted cluster. The operator's in-memory default depends on whether
// the cluster was created with lossless defaults (annotation mysql.presslabs.org/defaults).
const replication = obj('ReplicationSpec', 'Ours: how a commit on the master waits for the replicas (docs/semi-sync.md).', {
  mode: enumOf(
    'async: commits do not wait for replicas. semiSync: a commit returns only once enough replicas have the transaction (wait point AFTER_SYNC). Unset: semiSync for clusters created with lossless defaults and 2 or more replicas, async otherwise.',
    ['async', 'semiSync'],
  ),
  semiSyncAcks: int32('Replicas that must acknowledge each commit (semiSync); default 1. MariaDB waits for one only.', {
    minimum: 1,
  }),
  semiSyncFallbackSeconds: int32(
    'After this many seconds without an acknowledgement the master falls back to async (and may lose those commits on a failover). Unset: never falls back; commits wait.',
    { minimum: 1 },
  ),
});

// Ours (issue 23, docs/network-policies.md): who else may reach MySQL's port once the operator
// renders the cluster's NetworkPolicy (--network-policies). Absent: every pod of the cluster's own
// namespace, where applications usually run; another namespace must be named here.
const networkPolicy = obj(
  'NetworkPolicySpec',
  "Ours: the cluster's NetworkPolicy, when the operator renders one (docs/network-policies.md).",
  {
    mysqlFrom: k8sList(
      'V1NetworkPolicyPeer',
      "Sources (NetworkPolicyPeer: podSelector, namespaceSelector, ipBlock) that may connect to MySQL's port besides the cluster's own pods, the operator and Orchestrator. Unset: every pod of the cluster's namespace may (no other namespace); an empty list: none but those.",
    ),
  },
);

const spec = obj(
  'MysqlClusterSpec',
  'Desired state of the cluster.',
  {
    replicas: int32('Number of MySQL pods; 0 stops the cluster and keeps the data of pod 0.', {
      default: 1,
      minimum: 0,
    }),
    secretName: str('Secret with ROOT_PASSWORD and optional USER, PASSWORD, DATABASE.', {
      minLength: 1,
      maxLength: 63,
    }),
    mysqlVersion: str('MySQL version or alias (5.7, 8.0, 8.4) or MariaDB (mariadb-10.11, ...).', {
      default: '5.7',
    }),
    image: str('Overrides the MySQL image chosen from mysqlVersion.'),
    sidecarImage: str('Overrides the sidecar image.'),
    initBucketURL: str('Backup restored into pod 0 of a new cluster.'),
    initBucketURI: str('Deprecated alias of initBucketURL.'),
    initBucketSecretName: str('Secret with the storage credentials of initBucketURL.'),
    minAvailable: intOrString('minAvailable of the PodDisruptionBudget; "50%" when replicas > 1.'),
    backupSchedule: str('Cron schedule of backups (6 fields with seconds first, 5 fields, @daily, @every 1h).'),
    backupURL: str('Base URL of the backups, e.g. s3://bucket/folder/.'),
    backupSecretName: str('Secret with the storage credentials of backupURL.'),
    backupRemoteDeletePolicy: enumOf(
      'Whether deleting a scheduled MysqlBackup deletes the stored backup.',
      Object.values(REMOTE_DELETE_POLICY),
      { default: REMOTE_DELETE_POLICY.retain },
    ),
    backupScheduleJobsHistoryLimit: int32('Number of scheduled MysqlBackups kept; unset keeps all.', {
      minimum: 0,
    }),
    // Ours, beyond the anchor: retention by age. The newest completed scheduled backup is kept
    // whatever its age, so a schedule that stopped working never leaves the cluster with none.
    backupRetentionPeriod: str(
      'Ours: scheduled MysqlBackups older than this are deleted (e.g. 168h, 30d; units s, m, h, d); unset keeps them. The newest completed one is always kept.',
      { pattern: '^([0-9]+(\\.[0-9]+)?(s|m|h|d))+$' },
    ),
    mysqlConf: mapOf('Extra [mysqld] options; they override the computed ones.', intOrString('', { pattern: MYSQL_CONF_VALUE_PATTERN })),
    podSpec,
    volumeSpec,
    tmpfsSize: intOrString('Deprecated: size of a tmpfs data directory.'),
    maxSlaveLatency: int64('Replication lag in seconds above which a replica is taken out of service.', {
      default: 30,
      minimum: 0,
    }),
    queryLimits,
    readOnly: bool('Make every node read-only.'),
    // Ours: what the operator does with a replica holding transactions the master lacks
    // (docs/errant-transactions.md). Off by default: a rebuild discards those transactions.
    rebuildErrantReplicas: bool(
      'Ours: rebuild a replica that holds transactions the master lacks (errant) from a fresh clone: its data PVC and pod are deleted, one replica at a time. The errant transactions are discarded; unset or false only flags it (node condition ErrantTransactions, healthy=no).',
    ),
    replication,
    // server-id 0 cannot replicate, so the offset of ordinal 0 must be at least 1.
    serverIDOffset: int32('server-id is the pod ordinal plus this offset.', { default: DEFAULT_SERVER_ID_OFFSET, minimum: 1 }),
    backupCompressCommand: strList('Command that compresses backups; used only with backupDecompressCommand.'),
    backupDecompressCommand: strList('Command that decompresses backups; used only with backupCompressCommand.'),
    metricsExporterExtraArgs: strList('Extra arguments of mysqld_exporter.'),
    rcloneExtraArgs: strList('Extra arguments of the storage transfer.'),
    xbstreamExtraArgs: strList('Extra arguments of xbstream / mbstream.'),
    xtrabackupExtraArgs: strList('Extra arguments of xtrabackup / mariabackup --backup.'),
    xtrabackupPrepareExtraArgs: strList('Extra arguments of xtrabackup / mariabackup --prepare.'),
    xtrabackupTargetDir: str('Scratch directory of xtrabackup.', { default: DEFAULT_XTRABACKUP_TARGET_DIR }),
    initFileExtraSQL: strList('Extra SQL statements appended to the init-file run at every mysqld start.'),
    networkPolicy,
    binlogArchive,
  },
  {
    required: ['secretName'],
    'x-kubernetes-validations': [
      {
        rule: "!has(self.backupSchedule) || self.backupSchedule == '' || (has(self.backupURL) && self.backupURL != '')",
        message: 'backupURL is required when backupSchedule is set',
      },
      {
        rule: "!has(self.binlogArchive) || !has(self.binlogArchive.enabled) || !self.binlogArchive.enabled || (has(self.backupURL) && self.backupURL != '')",
        message: 'backupURL is required when binlogArchive.enabled is set',
      },
    ],
  },
);

// The nodes list is Orchestrator's view: one entry per instance, named by its FQDN.
const nodeStatus = obj(
  'NodeStatus',
  'Status of one MySQL node as Orchestrator sees it.',
  {
    name: str('The pod FQDN, e.g. my-db-mysql-0.mysql.default.'),
    conditions: conditionList('NodeCondition', 'Lagged, Replicating, Master, ReadOnly.', false),
  },
  { required: ['name'] },
);

// Ours: what restore on bootstrap put into pod 0, from the init container's report (docs/backups.md).
const restoredFrom = obj(
  'RestoredFrom',
  'Ours: the backup pod 0 was restored from (initBucketURL), and its position.',
  {
    backupURL: str('The object restored.'),
    binlogFile: str('Binary log file at the backup position.'),
    binlogPosition: int64('Binary log position at the backup position.', { minimum: 0 }),
    gtidExecuted: str('GTID set executed at the backup position.'),
    completionTime: dateTime('When the restore finished (the init container ended).'),
  },
  { required: ['backupURL'] },
);

// Ours: what the binlog archive lets a restore reach (docs/pitr.md), read from the archive's index.
const binlogArchiveStatus = obj('BinlogArchiveStatus', 'Ours: the binlog archive (spec.binlogArchive) as last read from storage.', {
  earliestRecoverableTime: dateTime(
    'The first archived transaction: a restore to a point in time can reach back this far (with a backup taken at or before it).',
  ),
  latestRecoverableTime: dateTime('Up to when the archive holds every transaction of the master.'),
  gtidPosition: str('The GTID position the archive reaches.'),
});

const status = obj('MysqlClusterStatus', 'Observed state of the cluster.', {
  observedGeneration: int64('Ours: the metadata.generation the operator last acted on.'),
  readyNodes: int32('Number of ready MySQL pods.'),
  conditions: conditionList('ClusterCondition', 'Ready, PendingFailoverAck, ReadOnly, FailoverInProgress.', true),
  nodes: mapList('One entry per node known to Orchestrator.', nodeStatus, ['name']),
  restoredFrom,
  binlogArchive: binlogArchiveStatus,
});

export const mysqlCluster: KindDefinition = {
  kind: KIND_MYSQL_CLUSTER,
  plural: PLURAL_MYSQL_CLUSTERS,
  singular: 'mysqlcluster',
  shortNames: ['mysql'],
  description: `MysqlCluster is a MySQL or MariaDB cluster managed by the ${API_GROUP} operator.`,
  spec,
  status,
  specRequired: true,
  printerColumns: [
    { ...READY_COLUMN, description: 'The cluster status' },
    { name: 'Replicas', type: 'integer', description: 'The number of desired nodes', jsonPath: '.spec.replicas' },
    AGE_COLUMN,
  ],
  scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.readyNodes' },
};
