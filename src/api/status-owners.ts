// Who writes which part of a status. Every field of a status has exactly one owning controller
// (docs/architecture.md §2); each applies its part with its own field manager (src/runtime/kube/apply-status.ts)
// and names the whole of it on every write. A unit test checks the owners of a kind share nothing
// and cover its status schema.
import { BACKUP_CONDITION, CLUSTER_CONDITION, FIELD_MANAGER, PROVISION_CONDITION } from './constants.ts';

/**
 * One writer's part of a status: its field manager, the top-level fields and the conditions (by
 * type) it owns alone. Plain data; the runtime's StatusOwner (apply-status.ts) has the same shape.
 */
export interface StatusOwner {
  fieldManager: string;
  fields: readonly string[];
  conditions: readonly string[];
}

export const CLUSTER_STATUS_OWNERS = {
  /** The Kubernetes objects of the cluster: how many pods are ready, which spec was acted on. */
  cluster: {
    fieldManager: FIELD_MANAGER.cluster,
    fields: ['readyNodes', 'observedGeneration'],
    conditions: [CLUSTER_CONDITION.synced],
  },
  /** Orchestrator's view of the topology. */
  orchestrator: {
    fieldManager: FIELD_MANAGER.orchestrator,
    fields: ['nodes'],
    conditions: [
      CLUSTER_CONDITION.ready,
      CLUSTER_CONDITION.pendingFailoverAck,
      CLUSTER_CONDITION.readOnly,
      CLUSTER_CONDITION.failoverInProgress,
    ],
  },
  /** Semi-sync (orchestrator controller, semi-sync-step.ts): whether the master's commits wait for acknowledgements. */
  semiSync: {
    fieldManager: FIELD_MANAGER.semiSync,
    fields: [],
    conditions: [CLUSTER_CONDITION.semiSyncWaiting],
  },
  /** The backup schedule: whether spec.backupSchedule is running, or why not. */
  backupCron: {
    fieldManager: FIELD_MANAGER.backupCron,
    fields: [],
    conditions: [CLUSTER_CONDITION.backupSchedule],
  },
  /** Restore on bootstrap: which backup and position pod 0 started from, or why its restore failed. */
  restore: {
    fieldManager: FIELD_MANAGER.restore,
    fields: ['restoredFrom'],
    conditions: [CLUSTER_CONDITION.restored],
  },
  /** The binlog archive (docs/pitr.md): what a restore to a point in time can reach, and whether it is current. */
  pitr: {
    fieldManager: FIELD_MANAGER.pitr,
    fields: ['binlogArchive'],
    conditions: [CLUSTER_CONDITION.binlogArchive],
  },
} as const satisfies Record<string, StatusOwner>;

/** A MysqlBackup's status has one writer, the backup controller. */
export const BACKUP_STATUS_OWNERS = {
  backup: {
    fieldManager: FIELD_MANAGER.backup,
    fields: [
      'completed',
      'backupURL',
      'sizeBytes',
      'startTime',
      'completionTime',
      'sourceNode',
      'binlogFile',
      'binlogPosition',
      'gtidExecuted',
    ],
    conditions: [BACKUP_CONDITION.complete, BACKUP_CONDITION.failed, BACKUP_CONDITION.replicaDowntimed],
  },
} as const satisfies Record<string, StatusOwner>;

/** MysqlUser: one writer, the user controller; `allowedHosts` are the hosts last applied. */
export const USER_STATUS_OWNER = {
  fieldManager: FIELD_MANAGER.user,
  fields: ['allowedHosts', 'adoptedHosts'],
  conditions: [PROVISION_CONDITION.ready],
} as const satisfies StatusOwner;

/** MysqlDatabase: one writer, the database controller. */
export const DATABASE_STATUS_OWNER = {
  fieldManager: FIELD_MANAGER.database,
  fields: ['adopted'],
  conditions: [PROVISION_CONDITION.ready],
} as const satisfies StatusOwner;
