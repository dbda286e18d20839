// Every name the operator shares with Kubernetes, MySQL pods and users lives here, once.
// Names marked "anchor" are fixed by the bitpoke/presslabs mysql-operator (docs/compatibility.md): users
// switch operators and keep their clusters, so they must never change.
// To add a reason: add it to the matching `*_REASONS` object below; the union type follows.

// ---------------------------------------------------------------------------------------------
// API group, version, kinds
// ---------------------------------------------------------------------------------------------

export const API_GROUP = 'mysql.presslabs.org';
export const API_VERSION = 'v1alpha1';
export const API_GROUP_VERSION = `${API_GROUP}/${API_VERSION}` as const;

export const KIND_MYSQL_CLUSTER = 'MysqlCluster';
export const KIND_MYSQL_BACKUP = 'MysqlBackup';
export const KIND_MYSQL_DATABASE = 'MysqlDatabase';
export const KIND_MYSQL_USER = 'MysqlUser';

export const PLURAL_MYSQL_CLUSTERS = 'mysqlclusters';
export const PLURAL_MYSQL_BACKUPS = 'mysqlbackups';
export const PLURAL_MYSQL_DATABASES = 'mysqldatabases';
export const PLURAL_MYSQL_USERS = 'mysqlusers';

/** kind → plural, for code that builds API paths from a kind. */
export const PLURALS = {
  [KIND_MYSQL_CLUSTER]: PLURAL_MYSQL_CLUSTERS,
  [KIND_MYSQL_BACKUP]: PLURAL_MYSQL_BACKUPS,
  [KIND_MYSQL_DATABASE]: PLURAL_MYSQL_DATABASES,
  [KIND_MYSQL_USER]: PLURAL_MYSQL_USERS,
} as const;

// ---------------------------------------------------------------------------------------------
// Labels (anchor)
// ---------------------------------------------------------------------------------------------

export const LABEL_CLUSTER = 'mysql.presslabs.org/cluster';
export const LABEL_APP_NAME = 'app.kubernetes.io/name';
export const LABEL_APP_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const LABEL_APP_INSTANCE = 'app.kubernetes.io/instance';
export const LABEL_APP_VERSION = 'app.kubernetes.io/version';
export const LABEL_APP_COMPONENT = 'app.kubernetes.io/component';
/** Copied from the cluster's annotation of the same name onto its objects (anchor). */
export const LABEL_APP_PART_OF = 'app.kubernetes.io/part-of';
export const LABEL_SERVICE_TYPE = 'mysql.presslabs.org/service-type';
/** Set at run time by the orchestrator controller; the master Service selects on it. */
export const LABEL_ROLE = 'role';
/** Set at run time; the ready-nodes and replicas Services select on it. */
export const LABEL_HEALTHY = 'healthy';
/** On scheduled MysqlBackups. */
export const LABEL_BACKUP_RECURRENT = 'recurrent';
/** On scheduled MysqlBackups: the cluster name. */
export const LABEL_BACKUP_CLUSTER = 'cluster';

export const APP_NAME_VALUE = 'mysql';
export const MANAGED_BY_VALUE = 'mysql.presslabs.org';
export const COMPONENT_DATABASE = 'database';
/** Ours: app.kubernetes.io/component of backup Job pods (without app.kubernetes.io/name, so no Service selects them). */
export const COMPONENT_BACKUP = 'backup';
export const BACKUP_RECURRENT_TRUE = 'true';

/** Kubernetes' well-known node label; the pods' anti-affinity spreads them over its values. */
export const LABEL_NODE_HOSTNAME = 'kubernetes.io/hostname';

export const ROLE = { master: 'master', replica: 'replica' } as const;

/**
 * The StatefulSet's minReadySeconds once a cluster has settled: a rolled pod stays Ready this long
 * before the next pod (at last the master's) is stopped, so Orchestrator has re-checked it and a
 * graceful takeover can relocate it (docs/switchover.md, "Rolling").
 */
export const ROLL_SETTLE_SECONDS = 10;
/**
 * How long a scale-down that would remove the master's pod waits for the orchestrator controller
 * to hand the master to a pod that stays (docs/switchover.md, "Scale-down"); after that the
 * StatefulSet shrinks anyway, and the preStop or a failover moves the master, as in the anchor.
 */
export const SCALE_DOWN_HOLD_SECONDS = 120;
/**
 * slave_net_timeout of clusters with lossless defaults: a replica gives up on a silent master
 * after this long (heartbeats every half of it), so Orchestrator sees a cut-off master dead.
 */
export const REPLICA_NET_TIMEOUT_SECONDS = 4;
export type Role = (typeof ROLE)[keyof typeof ROLE];

export const HEALTHY = { yes: 'yes', no: 'no' } as const;
export type Healthy = (typeof HEALTHY)[keyof typeof HEALTHY];

/** Values of LABEL_SERVICE_TYPE. */
export const SERVICE_TYPE = {
  namespaceNodes: 'namespace-nodes',
  master: 'master',
  readyNodes: 'ready-nodes',
  readyReplicas: 'ready-replicas',
} as const;
export type ServiceType = (typeof SERVICE_TYPE)[keyof typeof SERVICE_TYPE];

// ---------------------------------------------------------------------------------------------
// Annotations
// ---------------------------------------------------------------------------------------------

/** On MysqlDatabase and MysqlUser: `retain` keeps the SQL object when the CR is deleted. */
export const ANNOTATION_RESOURCE_DELETION_POLICY = 'mysql-operator.presslabs.org/resourceDeletionPolicy';
export const RESOURCE_DELETION_POLICY = { retain: 'retain', delete: 'delete' } as const;
export type ResourceDeletionPolicy = (typeof RESOURCE_DELETION_POLICY)[keyof typeof RESOURCE_DELETION_POLICY];

/** Written by the anchor's legacy upgrader on MysqlClusters it manages. */
export const ANNOTATION_CLUSTER_VERSION = 'mysql.presslabs.org/version';
/** Pod template annotations that roll pods when the ConfigMap / operated Secret change (anchor). */
export const ANNOTATION_CONFIG_REV = 'config_rev';
export const ANNOTATION_SECRET_REV = 'secret_rev';
/** Ours: pod template annotation, a hash of what must roll the pods (config, operated Secret, images). */
export const ANNOTATION_CONFIG_HASH = 'mysql.presslabs.org/config-hash';
/** Ours: on the StatefulSet, a hash of the spec the cluster controller last applied. */
export const ANNOTATION_SPEC_HASH = 'mysql.presslabs.org/spec-hash';
/**
 * Ours: on a MysqlCluster, the defaults it was created with. `lossless` (written by the cluster
 * controller before it creates anything of a new cluster): durable commits in my.cnf and
 * semi-sync by default (docs/semi-sync.md). Absent: an adopted cluster, or one created before
 * issue 22; it keeps the anchor's defaults until its owner opts in (by this annotation or the fields).
 */
export const ANNOTATION_DEFAULTS = 'mysql.presslabs.org/defaults';
export const DEFAULTS_LOSSLESS = 'lossless';
export const ANNOTATION_PROMETHEUS_SCRAPE = 'prometheus.io/scrape';
export const ANNOTATION_PROMETHEUS_PORT = 'prometheus.io/port';

// ---------------------------------------------------------------------------------------------
// Finalizers (anchor)
// ---------------------------------------------------------------------------------------------

export const FINALIZER_ORCHESTRATOR = 'mysql.presslabs.org/registered-in-orchestrator';
export const FINALIZER_BACKUP_REMOTE_CLEANUP = 'backups.mysql.presslabs.org/remote-storage-cleanup';
export const FINALIZER_DATABASE = 'mysql-operator.presslabs.org/database';
export const FINALIZER_USER = 'mysql-operator.presslabs.org/user';

// ---------------------------------------------------------------------------------------------
// Field managers: each writer applies with its own, so the server records which fields it owns
// (metadata.managedFields) and several writers share one status without overwriting each other.
// ---------------------------------------------------------------------------------------------

export const FIELD_MANAGER = {
  cluster: 'mysql-operator-cluster',
  orchestrator: 'mysql-operator-orchestrator',
  /** The orchestrator controller's semi-sync step (condition SemiSyncWaiting), applied on its own. */
  semiSync: 'mysql-operator-semisync',
  backup: 'mysql-operator-backup',
  backupCron: 'mysql-operator-backupcron',
  restore: 'mysql-operator-restore',
  /** Ours (docs/pitr.md): the binlog archive's status. */
  pitr: 'mysql-operator-pitr',
  database: 'mysql-operator-database',
  user: 'mysql-operator-user',
} as const;
/**
 * The manager of the anchor's writes and of ours before status was owned field by field (Update
 * operations; the client's default for the rest of the operator's writes).
 */
export const LEGACY_FIELD_MANAGER = 'mysql-operator';

// ---------------------------------------------------------------------------------------------
// Conditions
// ---------------------------------------------------------------------------------------------

export const CONDITION_STATUS = { true: 'True', false: 'False', unknown: 'Unknown' } as const;
export type ConditionStatus = (typeof CONDITION_STATUS)[keyof typeof CONDITION_STATUS];
/** The final conditions of a Kubernetes Job (batch/v1), which the backup controller reads. */
export const JOB_CONDITION = { complete: 'Complete', failed: 'Failed' } as const;

/** MysqlCluster status.conditions[].type (anchor). */
export const CLUSTER_CONDITION = {
  ready: 'Ready',
  pendingFailoverAck: 'PendingFailoverAck',
  readOnly: 'ReadOnly',
  failoverInProgress: 'FailoverInProgress',
  /** Ours (cluster controller): the Kubernetes objects of the cluster match its spec. */
  synced: 'Synced',
  /** Ours (backupcron controller): spec.backupSchedule is scheduled, or why it is not. */
  backupSchedule: 'BackupSchedule',
  /** Ours (restore controller): pod 0 restored spec.initBucketURL, or why it could not. */
  restored: 'Restored',
  /** Ours (orchestrator controller): True while the semi-sync master waits for acknowledgements. */
  semiSyncWaiting: 'SemiSyncWaiting',
  /** Ours (pitr controller): the binlog archive is current, or why not (docs/pitr.md). */
  binlogArchive: 'BinlogArchive',
} as const;
export type ClusterConditionType = (typeof CLUSTER_CONDITION)[keyof typeof CLUSTER_CONDITION];

/** MysqlCluster condition reasons. The first block is the anchor's; add ours below it. */
export const CLUSTER_REASONS = {
  // Ready
  clusterReady: 'ClusterReady',
  statefulSetNotReady: 'StatefulSetNotReady',
  notReplicating: 'NotReplicating',
  noMaster: 'NoMaster',
  // PendingFailoverAck
  pendingFailoverAckExists: 'PendingFailoverAckExists',
  noPendingFailoverAckExists: 'NoPendingFailoverAckExists',
  // ReadOnly
  clusterReadOnlyTrue: 'ClusterReadOnlyTrue',
  clusterReadOnlyFalse: 'ClusterReadOnlyFalse',
  // FailoverInProgress
  orcFailoverInProgress: 'OrcFailoverInProgress',
  clusterMasterHealthy: 'ClusterMasterHealthy',
  clusterNotRunning: 'ClusterNotRunning',
  // Synced (ours, cluster controller)
  resourcesSynced: 'ResourcesSynced',
  /** The operated Secret was written with Orchestrator's topology password itself: the pods run the anchor's sidecar (docs/credentials.md). */
  topologyPasswordInSecret: 'TopologyPasswordInSecret',
  userSecretNotFound: 'UserSecretNotFound',
  userSecretKeyMissing: 'UserSecretKeyMissing',
  /** spec.initBucketSecretName names a Secret that does not exist: no pod could start (its init container reads it). */
  initBucketSecretNotFound: 'InitBucketSecretNotFound',
  unknownMysqlVersion: 'UnknownMysqlVersion',
  imageNotDerivable: 'ImageNotDerivable',
  operatorOwnedMysqlConf: 'OperatorOwnedMysqlConf',
  invalidMysqlConf: 'InvalidMysqlConf',
  invalidReplicas: 'InvalidReplicas',
  invalidQuantity: 'InvalidQuantity',
  invalidMinAvailable: 'InvalidMinAvailable',
  syncFailed: 'SyncFailed',
  /**
   * A scale-down would remove the master's pod: the StatefulSet keeps its size until the master is
   * on a pod that stays (docs/switchover.md, "Scale-down"), for SCALE_DOWN_HOLD_SECONDS at most.
   */
  scaleDownHeld: 'ScaleDownHeld',
  /** That wait ran out: the StatefulSet shrinks, and the master's preStop or a failover moves it. */
  scaleDownHoldExpired: 'ScaleDownHoldExpired',
  // Ready, PendingFailoverAck, FailoverInProgress (ours, orchestrator controller)
  orchestratorUnreachable: 'OrchestratorUnreachable',
  masterDisagreement: 'MasterDisagreement',
  masterNotHealthy: 'MasterNotHealthy',
  // Events only (cluster controller)
  pvcKept: 'PVCKept',
  pvcDeleted: 'PVCDeleted',
  rootPasswordFromPasswordKey: 'RootPasswordFromPasswordKey',
  /** MySQL's port narrowed to the cluster's namespace on a cluster that ran with it open (docs/network-policies.md). */
  mysqlPortNarrowed: 'MysqlPortNarrowed',
  // BackupSchedule (ours, backupcron controller); Events too
  backupScheduled: 'BackupScheduled',
  invalidBackupSchedule: 'InvalidBackupSchedule',
  /** spec.backupURL of a scheduled cluster names a scheme the operator cannot store to. */
  invalidBackupURL: 'InvalidBackupURL',
  /** spec.backupSecretName of a scheduled cluster names a Secret that does not exist. */
  backupSecretNotFound: 'BackupSecretNotFound',
  // Events only (backupcron controller)
  scheduledBackupCreated: 'ScheduledBackupCreated',
  scheduledBackupSkipped: 'ScheduledBackupSkipped',
  scheduledBackupPruned: 'ScheduledBackupPruned',
  // Restored (ours, restore controller); Events too
  backupRestored: 'BackupRestored',
  restoreFailed: 'RestoreFailed',
  // SemiSyncWaiting (ours, orchestrator controller); Events too
  /** Commits on the master wait: no replica (or too few) acknowledges. The price of losing nothing. */
  semiSyncNoAck: 'SemiSyncNoAck',
  /** The semi-sync master fell back to async (only with spec.replication.semiSyncFallbackSeconds). */
  semiSyncFellBack: 'SemiSyncFellBack',
  semiSyncAcknowledged: 'SemiSyncAcknowledged',
  /** Semi-sync chosen, but the master side waits for enough replicas to replicate before it turns on. */
  semiSyncPending: 'SemiSyncPending',
  semiSyncOff: 'SemiSyncOff',
  // Events only (orchestrator controller): semi-sync settings set on a server for its role
  semiSyncConfigured: 'SemiSyncConfigured',
  // BinlogArchive (ours, pitr controller); Events too
  binlogsArchived: 'BinlogsArchived',
  /** Nothing archived yet: no index object at the archive's URL. */
  binlogArchiveEmpty: 'BinlogArchiveEmpty',
  /** The archive holds nothing newer than twice the interval plus a minute: the master's sidecar is not uploading. */
  binlogArchiveBehind: 'BinlogArchiveBehind',
  /** The archive's index could not be read (storage error, bad Secret, bad object). */
  binlogArchiveUnreadable: 'BinlogArchiveUnreadable',
  /** spec.binlogArchive on a MySQL cluster: the archive reads MariaDB binlogs only. */
  binlogArchiveUnsupported: 'BinlogArchiveUnsupported',
} as const;
export type ClusterReason = (typeof CLUSTER_REASONS)[keyof typeof CLUSTER_REASONS];

/** MysqlCluster status.nodes[].conditions[].type (anchor). */
export const NODE_CONDITION = {
  lagged: 'Lagged',
  replicating: 'Replicating',
  master: 'Master',
  readOnly: 'ReadOnly',
  /**
   * Ours (orchestrator controller): the node holds transactions the master lacks (True), or was
   * compared with the master and holds none (False); absent until compared once. True keeps it
   * `healthy=no`, out of the read Services (docs/errant-transactions.md).
   */
  errantTransactions: 'ErrantTransactions',
} as const;
export type NodeConditionType = (typeof NODE_CONDITION)[keyof typeof NODE_CONDITION];

/** MysqlBackup status.conditions[].type: Complete and Failed are the anchor's. */
export const BACKUP_CONDITION = {
  complete: 'Complete',
  failed: 'Failed',
  /** Ours: whether Orchestrator was told to leave the source replica alone while it streams. */
  replicaDowntimed: 'ReplicaDowntimed',
} as const;
export type BackupConditionType = (typeof BACKUP_CONDITION)[keyof typeof BACKUP_CONDITION];

/**
 * MysqlBackup condition reasons. Complete/Failed from a finished Job copy the Job's reason (the
 * anchor's behaviour) or use jobSucceeded/jobFailed when the Job gave none; the rest are the
 * backup controller's own.
 */
export const BACKUP_REASONS = {
  jobSucceeded: 'JobSucceeded',
  jobFailed: 'JobFailed',
  // Failed, before any Job: why none is made (yet)
  clusterNotFound: 'ClusterNotFound',
  backupURLMissing: 'BackupURLMissing',
  invalidBackupURL: 'InvalidBackupURL',
  invalidClusterVersion: 'InvalidClusterVersion',
  // Complete = False while the Job runs
  backupRunning: 'BackupRunning',
  // ReplicaDowntimed
  downtimeBegun: 'DowntimeBegun',
  downtimeEnded: 'DowntimeEnded',
  sourceIsMaster: 'SourceIsMaster',
  orchestratorUnreachable: CLUSTER_REASONS.orchestratorUnreachable,
  // Events only
  jobCreated: 'JobCreated',
  remoteObjectDeleted: 'RemoteObjectDeleted',
  remoteDeleteFailed: 'RemoteDeleteFailed',
} as const;
export type BackupReason = (typeof BACKUP_REASONS)[keyof typeof BACKUP_REASONS];

/**
 * Topology (src/topology): why there is no master to act on, from the master choice and from
 * connect-to-master. Controllers that talk to the master report them as their own reasons.
 */
export const TOPOLOGY_REASONS = {
  failoverInProgress: 'FailoverInProgress',
  noMaster: 'NoMaster',
  masterConflict: 'MasterConflict',
  masterViewStale: 'MasterViewStale',
  masterUnreachable: 'MasterUnreachable',
  operatedSecretIncomplete: 'OperatedSecretIncomplete',
} as const;
export type TopologyReason = (typeof TOPOLOGY_REASONS)[keyof typeof TOPOLOGY_REASONS];

/** MysqlDatabase and MysqlUser status.conditions[].type (anchor). */
export const PROVISION_CONDITION = { ready: 'Ready' } as const;
export const PROVISION_REASONS = {
  provisionSucceeded: 'ProvisionSucceeded',
  provisionFailed: 'ProvisionFailed',
  // Ours (user and database controllers): why nothing was written (yet)
  /** clusterRef names another namespace and the operator's flag does not allow it. */
  crossNamespaceRefused: 'CrossNamespaceRefused',
  clusterNotFound: 'ClusterNotFound',
  /** A name, privilege, limit or character set MySQL would refuse, truncate or misread; the message names the field. */
  invalidSpec: 'InvalidSpec',
  passwordSecretNotFound: 'PasswordSecretNotFound',
  passwordKeyMissing: 'PasswordKeyMissing',
  /** The cluster's Secret (spec.secretName) has no root password: the operator writes accounts as root. */
  rootPasswordMissing: 'RootPasswordMissing',
  /** Root's login to the master failed (wrong password, host not allowed...). */
  rootAccessDenied: 'RootAccessDenied',
  /** The chosen master is read-only: no writable master, so nothing is written until there is one. */
  masterReadOnly: 'MasterReadOnly',
  /** The spec names an account or schema of the server or of the operator; the message names the field. Nothing is done, on deletion neither. */
  reservedName: 'ReservedName',
  /** An earlier object (creationTimestamp, then namespace/name) claims the same account or schema on the cluster: nothing is done. */
  alreadyClaimed: 'AlreadyClaimed',
  failoverInProgress: TOPOLOGY_REASONS.failoverInProgress,
  noMaster: TOPOLOGY_REASONS.noMaster,
  masterConflict: TOPOLOGY_REASONS.masterConflict,
  masterViewStale: TOPOLOGY_REASONS.masterViewStale,
  masterUnreachable: TOPOLOGY_REASONS.masterUnreachable,
  operatedSecretIncomplete: TOPOLOGY_REASONS.operatedSecretIncomplete,
  // Events only, on deletion
  dropped: 'Dropped',
  retained: 'Retained',
} as const;
export type ProvisionReason = (typeof PROVISION_REASONS)[keyof typeof PROVISION_REASONS];

/** Pod readiness gate / condition the node controller sets once a pod is configured (anchor). */
export const POD_CONDITION_NODE_INITIALIZED = 'mysql.presslabs.org/NodeInitialized';
export const POD_INIT_REASONS = {
  succeeded: 'mysqlInitializationSucceeded',
  failed: 'mysqlInitializationFailed',
} as const;

/**
 * Node controller: reasons of its Events on pods, and the `<Reason>: ` prefix of a failed
 * NodeInitialized condition's message, one per decision not to configure a pod (yet).
 */
export const NODE_REASONS = {
  // Waits decided from the gathered state
  podNotRunning: 'PodNotRunning',
  failoverInProgress: TOPOLOGY_REASONS.failoverInProgress,
  serverUnreachable: 'ServerUnreachable',
  /** mysqld does not answer yet and its startup probe has not passed: it is still starting. */
  serverStarting: 'ServerStarting',
  /** The master pod's server is read-only since its start: configured once the orchestrator controller made it writable. */
  masterReadOnly: 'MasterReadOnly',
  operatorAccessDenied: 'OperatorAccessDenied',
  noMaster: TOPOLOGY_REASONS.noMaster,
  masterConflict: TOPOLOGY_REASONS.masterConflict,
  masterViewStale: TOPOLOGY_REASONS.masterViewStale,
  masterUnreachable: TOPOLOGY_REASONS.masterUnreachable,
  replicationConnecting: 'ReplicationConnecting',
  replicationNotRunning: 'ReplicationNotRunning',
  replicationAccessDenied: 'ReplicationAccessDenied',
  replicationError: 'ReplicationError',
  /**
   * The pod holds transactions the master lacks (an old master's writes no replica received):
   * it is not made a replica, stays read-only and, not replicating, out of the Services.
   */
  errantTransactions: 'ErrantTransactions',
  // Refusals before a decision: the operated Secret, or a step that threw
  operatedSecretMissing: 'OperatedSecretMissing',
  operatedSecretIncomplete: TOPOLOGY_REASONS.operatedSecretIncomplete,
  stepFailed: 'StepFailed',
  // Events only
  nodeConfigured: 'NodeConfigured',
} as const;
export type NodeReason = (typeof NODE_REASONS)[keyof typeof NODE_REASONS];

/**
 * Orchestrator controller: why no pod is labelled master, why nothing is registered, relabelled,
 * made read-only or acknowledged in a pass.
 */
export const ORCHESTRATOR_REASONS = {
  orchestratorUnreachable: CLUSTER_REASONS.orchestratorUnreachable,
  /** Orchestrator names no master for the cluster's alias. */
  noMaster: TOPOLOGY_REASONS.noMaster,
  /** Orchestrator's master and what its server says (read_only, replication, reachability) differ. */
  masterDisagreement: CLUSTER_REASONS.masterDisagreement,
  /**
   * Orchestrator's master is read-only though it ran writable since its start, and no promotion
   * Orchestrator reported names it: somebody froze it (a takeover), and the operator leaves it so.
   */
  masterFrozen: 'MasterFrozen',
  failoverInProgress: TOPOLOGY_REASONS.failoverInProgress,
  /** A removed pod's instance was seen by Orchestrator too recently to forget it. */
  forgetGracePeriod: 'ForgetGracePeriod',
  /** A removed pod's instance is kept in Orchestrator while pods of the cluster still replicate from it: it is a master to recover. */
  instanceHasReplicas: 'InstanceHasReplicas',
  /** A recovery is younger than the acknowledgement grace period. */
  recoveryTooRecent: 'RecoveryTooRecent',
  clusterNotReady: 'ClusterNotReady',
  /** An old master keeps Orchestrator's lost-in-recovery downtime until it is a healthy replica of the master. */
  rejoinPending: 'RejoinPending',
  /**
   * A replica holds transactions the master lacks (Warning Event naming the GTIDs; node condition
   * ErrantTransactions), or, with spec.rebuildErrantReplicas, why its rebuild waits.
   */
  errantTransactions: NODE_REASONS.errantTransactions,
  /** spec.rebuildErrantReplicas: an errant replica's data claim and pod deleted, for a fresh clone. */
  errantReplicaRebuilt: 'ErrantReplicaRebuilt',
  /** A scale-down removes the master's pod, and no replica that stays can take the master over (yet). */
  noHandoverCandidate: 'NoHandoverCandidate',
  // Events only: what a pass did
  /** role=master moved to a pod (or was taken from one). */
  masterLabelled: 'MasterLabelled',
  /** A scale-down removes the master's pod: the operator asked Orchestrator to hand it to a pod that stays. */
  scaleDownHandover: 'ScaleDownHandover',
  /** That takeover failed (Warning, with Orchestrator's answer); the next pass asks again. */
  scaleDownHandoverFailed: 'ScaleDownHandoverFailed',
  /** The master's server did not answer one pass; its label stayed on Orchestrator's fresh word. */
  masterUnanswered: 'MasterUnanswered',
  /** A server made read-only or writable through Orchestrator. */
  readOnlyChanged: 'ReadOnlyChanged',
  /** The client sessions of a demoted master killed once it was read-only (docs/fencing.md). */
  clientSessionsKilled: 'ClientSessionsKilled',
  /** A demoted master's client sessions could not be killed: its server did not answer, or was writable. */
  fenceIncomplete: 'FenceIncomplete',
  recoveriesAcknowledged: 'RecoveriesAcknowledged',
  instanceForgotten: 'InstanceForgotten',
  /** The cluster is deleted while Orchestrator stayed unreachable: the finalizer went without forgetting. */
  forgetAbandoned: 'ForgetAbandoned',
  /** A rejoined old master's lost-in-recovery downtime ended, so Orchestrator recovers it and promotes it again. */
  downtimeEnded: BACKUP_REASONS.downtimeEnded,
} as const;
export type OrchestratorReason = (typeof ORCHESTRATOR_REASONS)[keyof typeof ORCHESTRATOR_REASONS];

/** The owner Orchestrator shows (API and UI) for the downtimes the operator begins: a backup's source. */
export const ORCHESTRATOR_DOWNTIME_OWNER = 'mysql-operator';

/**
 * Reasons of the Events the failover hook records on a MysqlCluster, one per Orchestrator hook
 * process it accepts (src/controllers/orchestrator-controller/hook.ts).
 */
export const FAILOVER_HOOK_REASONS = {
  PreGracefulTakeover: 'OrchestratorTakeoverStarted',
  PreFailover: 'OrchestratorFailoverStarted',
  PostMasterFailover: 'OrchestratorMasterPromoted',
  PostGracefulTakeover: 'OrchestratorGracefulTakeover',
  PostUnsuccessfulFailover: 'OrchestratorFailoverFailed',
} as const;

/**
 * Events of the PreFailover barrier (orchestrator-controller/hook.ts): the failover held until the
 * dead master's replicas applied what they had fetched, or let go at its deadline without it.
 */
export const PRE_FAILOVER_REASONS = {
  relayLogsApplied: 'RelayLogsApplied',
  relayLogsNotApplied: 'RelayLogsNotApplied',
} as const;

// ---------------------------------------------------------------------------------------------
// Spec enums
// ---------------------------------------------------------------------------------------------

export const REMOTE_DELETE_POLICY = { retain: 'retain', delete: 'delete' } as const;
export type RemoteDeletePolicy = (typeof REMOTE_DELETE_POLICY)[keyof typeof REMOTE_DELETE_POLICY];

export const QUERY_LIMITS_KILL = ['oldest', 'all', 'all-but-oldest'] as const;
export const QUERY_LIMITS_KILL_MODE = ['connection', 'query'] as const;

export const USER_RESOURCE_LIMITS = [
  'MAX_USER_CONNECTIONS',
  'MAX_QUERIES_PER_HOUR',
  'MAX_UPDATES_PER_HOUR',
  'MAX_CONNECTIONS_PER_HOUR',
] as const;
export type UserResourceLimit = (typeof USER_RESOURCE_LIMITS)[number];

// ---------------------------------------------------------------------------------------------
// Containers, volumes, ports (anchor names; the pod shape users and dashboards know)
// ---------------------------------------------------------------------------------------------

export const CONTAINER = {
  init: 'init',
  mysqlInitOnly: 'mysql-init-only',
  mysql: 'mysql',
  sidecar: 'sidecar',
  metricsExporter: 'metrics-exporter',
  heartbeat: 'pt-heartbeat',
  /** Only with spec.queryLimits. */
  ptKill: 'pt-kill',
} as const;

export const VOLUME = { conf: 'conf', configMap: 'config-map', data: 'data', tmp: 'tmp', orchestratorApi: 'orchestrator-api' } as const;

export const PORT = {
  mysql: 3306,
  sidecarHttp: 8080,
  metricsExporter: 9125,
} as const;
export const PORT_NAME = { mysql: 'mysql', sidecarHttp: 'sidecar-http', metricsExporter: 'prometheus' } as const;

// ---------------------------------------------------------------------------------------------
// MySQL system users and schema (anchor)
// ---------------------------------------------------------------------------------------------

export const MYSQL_USER = {
  operator: 'sys_operator',
  replication: 'sys_replication',
  metricsExporter: 'sys_exporter',
  heartbeat: 'sys_heartbeat',
  backup: 'sys_backups',
  /** Ours: the backup tools' account, local to the pod (docs/credentials.md). */
  backupTool: 'sys_xtrabackup',
} as const;
export const OPERATOR_SCHEMA = 'sys_operator';
/** Orchestrator's topology user in a new operated Secret when the operator is given none. */
export const DEFAULT_ORC_TOPOLOGY_USER = 'orchestrator';
/** The account MySQL images create from MYSQL_ROOT_PASSWORD; the user and database controllers write as it (anchor). */
export const ROOT_USER = 'root';

// ---------------------------------------------------------------------------------------------
// Names a MysqlUser or MysqlDatabase may not take (docs/security.md, "Reserved names")
// ---------------------------------------------------------------------------------------------

/**
 * Accounts of the server and of the operator. A MysqlUser naming one would reset its password and
 * revoke its grants, and its deletion would drop it. Besides these, the names a cluster's operated
 * Secret gives its system users are reserved on that cluster.
 */
export const RESERVED_USER_NAMES: readonly string[] = [ROOT_USER, ...Object.values(MYSQL_USER), DEFAULT_ORC_TOPOLOGY_USER];
/** The server's own accounts: `mysql.sys`, `mysql.session`, `mysql.infoschema` (MySQL), `mariadb.sys` (MariaDB). */
export const RESERVED_USER_PREFIXES: readonly string[] = ['mysql.', 'mariadb.'];
/** Schemas of the server and of the operator: a MysqlDatabase may not name them (nor drop them on deletion). */
export const RESERVED_SCHEMAS: readonly string[] = ['mysql', 'sys', 'information_schema', 'performance_schema', OPERATOR_SCHEMA];
/**
 * Schemas a MysqlUser may not be granted on: a privilege on `mysql` is power over every account
 * (INSERT into its grant tables), and `sys_operator` holds the operator's state. `performance_schema`
 * and `sys` stay grantable: monitoring accounts are commonly given SELECT there.
 */
export const UNGRANTABLE_SCHEMAS: readonly string[] = ['mysql', OPERATOR_SCHEMA];

// ---------------------------------------------------------------------------------------------
// Secrets
// ---------------------------------------------------------------------------------------------

/** Keys of the user Secret named by spec.secretName. */
export const USER_SECRET_KEY = {
  rootPassword: 'ROOT_PASSWORD',
  user: 'USER',
  password: 'PASSWORD',
  database: 'DATABASE',
  // Ours: a Secret made the generic way (`kubectl create secret generic --from-literal=username=...
  // --from-literal=password=...`), as our first user guide had it. Its `password` is the root
  // password when ROOT_PASSWORD is absent; its `username` is not read (root's name is fixed).
  seedUsername: 'username',
  seedPassword: 'password',
} as const;

/** Keys of the generated `<c>-mysql-operated` Secret. */
export const OPERATED_SECRET_KEY = {
  operatorUser: 'OPERATOR_USER',
  operatorPassword: 'OPERATOR_PASSWORD',
  replicationUser: 'REPLICATION_USER',
  replicationPassword: 'REPLICATION_PASSWORD',
  metricsExporterUser: 'METRICS_EXPORTER_USER',
  metricsExporterPassword: 'METRICS_EXPORTER_PASSWORD',
  orcTopologyUser: 'ORC_TOPOLOGY_USER',
  orcTopologyPassword: 'ORC_TOPOLOGY_PASSWORD',
  /** Ours: the hash of the topology password, all a tenant namespace gets of it (docs/credentials.md). */
  orcTopologyPasswordHash: 'ORC_TOPOLOGY_PASSWORD_HASH',
  backupUser: 'BACKUP_USER',
  backupPassword: 'BACKUP_PASSWORD',
} as const;

/** The headless Service shared by all clusters of a namespace (anchor). */
export const HEADLESS_SERVICE_NAME = 'mysql';
/** `<cluster>` + this suffix names the generated Secret of system users' passwords. */
export const OPERATED_SECRET_SUFFIX = '-mysql-operated';
/** The Secret of a cluster holding Orchestrator's API credentials for its pods' pre-stop hook (not the anchor's). */
export const ORCHESTRATOR_API_SECRET_SUFFIX = '-mysql-orc-api';
