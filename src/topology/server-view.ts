// What the servers of a cluster say about themselves, as plain values the decisions read
// (observe-server.ts gathers them through src/mysql).

import type { ServerFamily } from '../api/versions.ts';
import type { Endpoint } from '../mysql/index.ts';

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
  /** Received from the source: MySQL Retrieved_Gtid_Set, MariaDB Gtid_IO_Pos. */
  gtidReceived: string;
  /** Applied from the source: MySQL Executed_Gtid_Set, MariaDB gtid_slave_pos. */
  gtidApplied: string;
  /**
   * The SQL thread has applied everything the IO thread fetched: its source coordinates
   * (Relay_Master_Log_File, Exec_Master_Log_Pos) reached the fetched ones (Master_Log_File,
   * Read_Master_Log_Pos). Orchestrator's "SQL thread up to date" is the same comparison.
   */
  relayLogApplied: boolean;
}

/** Why a server could not be read: `accessDenied` means our credentials were refused. */
export type ServerProblem = 'accessDenied' | 'unreachable' | 'other';

export type ServerView =
  | { reachable: false; problem: ServerProblem; message: string }
  | {
      reachable: true;
      family: ServerFamily;
      readOnly: boolean;
      /** `sys_operator.status` row `configured = 1` (the anchor's readiness). */
      configured: boolean;
      /** null when no replication source is configured. */
      replication: ReplicationView | null;
      /** Every transaction the server has, written or applied: MySQL gtid_executed, MariaDB gtid_current_pos. */
      gtidExecuted: string;
      /** The same, in the form `extraGtids` compares across servers (MariaDB: gtid_binlog_state). */
      gtidHistory: string;
      /** `backup_gtid_purged` row: the clone's GTID set still to be seeded, or null. */
      backupGtidPurged: string | null;
      /** `set_gtid_purged` row present: the seed has been applied. */
      gtidSeeded: boolean;
    };

export type ReachableServer = Extract<ServerView, { reachable: true }>;
export type UnreachableServer = Extract<ServerView, { reachable: false }>;

/**
 * The part of a server's view that says whether it can be the master (writable, replicating from
 * no one) and whether it is read-only since its start (`configured` still 0: the init-file froze it,
 * not Orchestrator): three statements instead of a whole observation, for a pass that races a failover.
 */
export type RoleView = UnreachableServer | Pick<ReachableServer, 'reachable' | 'readOnly' | 'replication' | 'configured'>;

/**
 * What the errant-transaction check compares (src/mysql `extraGtids`): the server's history and,
 * for a server made by a clone or a restore, the position it started from.
 */
export type GtidView = UnreachableServer | Pick<ReachableServer, 'reachable' | 'family' | 'gtidHistory' | 'backupGtidPurged'>;

/** `S`: what was read of its server; the whole view unless a reader needs only its role. */
export interface NodeView<S extends RoleView = ServerView> {
  pod: string;
  ordinal: number;
  /** `<pod>.mysql.<ns>`, the name Orchestrator and status.nodes use. */
  fqdn: string;
  endpoint: Endpoint;
  /** Not gathered (e.g. the pod is not running) → null. */
  server: S | null;
}
