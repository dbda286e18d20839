// Reads one server's state (thin I/O over src/mysql).
import { isMysqlError, STATUS, type MysqlNode, type ReplicationStatus } from '../mysql/index.ts';
import type { GtidView, ReplicationView, RoleView, ServerView, UnreachableServer } from './server-view.ts';

function replicationView(s: ReplicationStatus | null): ReplicationView | null {
  if (s === null || s.masterHost === '') return null;
  return {
    sourceHost: s.masterHost,
    sourcePort: s.masterPort,
    ioState: s.ioState,
    sqlRunning: s.sqlRunning,
    lastIoErrno: s.lastIoErrno,
    lastIoError: s.lastIoError,
    lastSqlErrno: s.lastSqlErrno,
    lastSqlError: s.lastSqlError,
    gtidReceived: s.gtidReceived,
    gtidApplied: s.gtidExecuted,
    relayLogApplied: s.relayMasterLogFile === s.masterLogFile && s.execMasterLogPos >= s.readMasterLogPos,
  };
}

export async function observeServer(node: MysqlNode): Promise<ServerView> {
  // One call after the other: the node serialises them on its single connection anyway.
  const readOnly = await node.isReadOnly();
  const configured = await node.isConfigured();
  const replication = replicationView(await node.replicationStatus());
  const gtidExecuted = await node.gtidExecuted();
  const gtidHistory = await node.gtidHistory();
  const backup = await node.getStatusValue(STATUS.backupGtidPurged);
  const seeded = await node.getStatusValue(STATUS.setGtidPurged);
  return {
    reachable: true,
    family: node.flavour.family,
    readOnly,
    configured,
    replication,
    gtidExecuted,
    gtidHistory,
    backupGtidPurged: backup === null || backup === '' ? null : backup,
    gtidSeeded: seeded !== null,
  };
}

export async function observeRole(node: MysqlNode): Promise<RoleView> {
  const readOnly = await node.isReadOnly();
  const replication = replicationView(await node.replicationStatus());
  return { reachable: true, readOnly, replication, configured: await node.isConfigured() };
}

/** The server's GTID history and clone position: two statements, for a check made every pass. */
export async function observeGtid(node: MysqlNode): Promise<GtidView> {
  const gtidHistory = await node.gtidHistory();
  const backup = await node.getStatusValue(STATUS.backupGtidPurged);
  return { reachable: true, family: node.flavour.family, gtidHistory, backupGtidPurged: backup === null || backup === '' ? null : backup };
}

/** A failed connect or read as the decision sees it; the message never holds a password. */
export function unreachableView(e: unknown): UnreachableServer {
  if (isMysqlError(e)) {
    const problem =
      e.kind === 'access-denied' ? 'accessDenied' : e.kind === 'unreachable' || e.kind === 'timeout' ? 'unreachable' : 'other';
    return { reachable: false, problem, message: e.message };
  }
  return { reachable: false, problem: 'other', message: e instanceof Error ? e.message : String(e) };
}
