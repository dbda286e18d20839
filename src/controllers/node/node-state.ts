// The gathered state the node controller decides on: one plain value per pass, built by
// gather-node.ts from the pod, the MysqlCluster and the servers, read by the pure functions.

import type { Endpoint } from '../../mysql/index.ts';

export type { Endpoint };

export interface ReplicationView {
  sourceHost: string;
  sourcePort: number;
  ioState: 'running' | 'connecting' | 'stopped';
  sqlRunning: boolean;
  lastIoErrno: number;
  lastIoError: string;
  lastSqlErrno: number;
  lastSqlError: string;
}

/** Why a server could not be read: `accessDenied` means our credentials were refused. */
export type ServerProblem = 'accessDenied' | 'unreachable' | 'other';

export type ServerView =
  | { reachable: false; problem: ServerProblem; message: string }
  | {
      reachable: true;
      readOnly: boolean;
      configured: boolean;
      /** null when no replication source is configured. */
      replication: ReplicationView | null;
      /** `backup_gtid_purged` row: the clone's GTID set still to be seeded, or null. */
      backupGtidPurged: string | null;
      /** `set_gtid_purged` row present: the seed has been applied. */
      gtidSeeded: boolean;
    };

export interface NodeView {
  pod: string;
  ordinal: number;
  /** `<pod>.mysql.<ns>`, the name Orchestrator and status.nodes use. */
  fqdn: string;
  endpoint: Endpoint;
  /** Not gathered (e.g. the pod is not running) → null. */
  server: ServerView | null;
}

export interface PodView {
  name: string;
  ordinal: number;
  fqdn: string;
  endpoint: Endpoint;
  /** Pod phase Running and the mysql container running. */
  mysqlRunning: boolean;
  deleting: boolean;
  /**
   * The operator checked this server since its mysqld last started (NodeInitialized True with a
   * lastProbeTime not older than the mysql container's start). A `configured` flag kept across
   * a restart by the init-file is trusted for readiness, but re-checked by the operator.
   */
  verifiedSinceStart: boolean;
}

export interface ClusterView {
  name: string;
  namespace: string;
  /** FailoverInProgress=True on the MysqlCluster, with its message. */
  failoverInProgress: boolean;
  failoverMessage: string;
  /** status.nodes[].name with the Master condition True (Orchestrator's view). */
  orchestratorMasters: string[];
}

export type StepKind = 'setReadOnly' | 'seedGtid' | 'pointAt' | 'startReplication' | 'markConfigured';

export interface NodeGathered {
  cluster: ClusterView;
  pod: PodView;
  self: ServerView;
  /** Every other pod of the cluster; empty when the decision does not need them. */
  others: NodeView[];
  /** Steps already performed in this pass: each is retried at most once per pass. */
  attempted: readonly StepKind[];
}
