// The parts of Orchestrator's answers the project reads, in the project's words, and their
// decoders. Shapes are those recorded from Orchestrator 3.2.6 (test/fixtures/orchestrator/).
// Where 3.2 renamed a field and kept the old one (Slave_SQL_Running and ReplicationSQLThreadRuning,
// SlaveLagSeconds and ReplicationLagSeconds) the old name is read: both generations send it.
import { asObject, asString, bool, list, nullInt, num, obj, str, time, type At, type Json } from './decode.ts';

/**
 * The reason of the downtime Orchestrator puts on the master a recovery failed over from (and on a
 * gracefully demoted one), renewed until it replicates again (its DowntimeLostInRecoveryMessage).
 */
export const DOWNTIME_LOST_IN_RECOVERY = 'lost-in-recovery';

/** A server as Orchestrator names it: for this operator the pod FQDN and 3306. */
export interface InstanceKey {
  host: string;
  port: number;
}

export interface Instance {
  key: InstanceKey;
  /** Whom it replicates from; null for a master (Orchestrator's empty key). */
  master: InstanceKey | null;
  /** The cluster name: the master's host:port, changed by every promotion. */
  clusterName: string;
  /** The stable alias (`<cluster>.<namespace>`). */
  clusterAlias: string;
  readOnly: boolean;
  sqlThreadRunning: boolean;
  ioThreadRunning: boolean;
  /** Seconds_Behind_Master; null when unknown (replication stopped, not a replica). */
  secondsBehindMaster: number | null;
  /** Lag by Orchestrator's ReplicationLagQuery when configured, else Seconds_Behind_Master. */
  lagSeconds: number | null;
  lastIoError: string;
  lastSqlError: string;
  replicas: InstanceKey[];
  /** False when Orchestrator's last poll of the server failed (a dead master keeps stale fields). */
  lastCheckValid: boolean;
  upToDate: boolean;
  recentlyChecked: boolean;
  lastSeen: Date | null;
  downtimed: boolean;
  downtimeOwner: string;
  downtimeReason: string;
  problems: string[];
}

export interface ClusterInfo {
  clusterName: string;
  clusterAlias: string;
  countInstances: number;
  automatedMasterRecovery: boolean;
}

/** One row of replication-analysis: a problem Orchestrator sees (DeadMaster, ...). */
export interface AnalysisEntry {
  instance: InstanceKey;
  master: InstanceKey | null;
  clusterName: string;
  clusterAlias: string;
  /** Orchestrator's analysis code: DeadMaster, UnreachableMaster, FirstTierReplicaFailingToConnectToMaster, ... */
  analysis: string;
  description: string;
  isMaster: boolean;
  lastCheckValid: boolean;
  downtimed: boolean;
}

/** One recovery (automatic failover or graceful takeover), from audit-recovery or a takeover answer. */
export interface Recovery {
  id: number;
  uid: string;
  /** The instance the recovery was about: the failed or demoted master. */
  failed: InstanceKey;
  analysis: string;
  /** Cluster name at the time of the recovery (the old master's host:port). */
  clusterName: string;
  clusterAlias: string;
  /** The promoted server; null while active or when the recovery found none. */
  successor: InstanceKey | null;
  /**
   * Orchestrator's `IsActive`: the recovery is in its blocking period, which lasts
   * `RecoveryPeriodBlockSeconds` after it began (or until it is acknowledged), long after it ended.
   * It is not "running": see `ended`.
   */
  active: boolean;
  /** The recovery has finished, successfully or not (`RecoveryEndTimestamp` is set). */
  ended: boolean;
  successful: boolean;
  lostReplicas: InstanceKey[];
  /** Orchestrator's errors, without the empty strings it reports on success. */
  errors: string[];
  startedAt: Date | null;
  acknowledged: boolean;
  acknowledgedAt: Date | null;
  acknowledgedComment: string;
}

export function decodeKey(v: unknown, at: At): InstanceKey {
  const o = asObject(v, at);
  return { host: str(o, 'Hostname', at), port: num(o, 'Port', at) };
}

/** Orchestrator says "none" with an empty key (`{Hostname:"",Port:0}`) or, in recoveries, null. */
function optionalKey(o: Json, name: string, at: At): InstanceKey | null {
  if (o[name] === null && name in o) return null;
  const [k, here] = obj(o, name, at);
  const key = decodeKey(k, here);
  return key.host === '' ? null : key;
}

function keys(o: Json, name: string, at: At): InstanceKey[] {
  return list(o, name, at, decodeKey);
}

export function decodeInstance(v: unknown, at: At): Instance {
  const o = asObject(v, at);
  const [k, kAt] = obj(o, 'Key', at);
  return {
    key: decodeKey(k, kAt),
    master: optionalKey(o, 'MasterKey', at),
    clusterName: str(o, 'ClusterName', at),
    clusterAlias: str(o, 'SuggestedClusterAlias', at),
    readOnly: bool(o, 'ReadOnly', at),
    sqlThreadRunning: bool(o, 'Slave_SQL_Running', at),
    ioThreadRunning: bool(o, 'Slave_IO_Running', at),
    secondsBehindMaster: nullInt(o, 'SecondsBehindMaster', at),
    lagSeconds: nullInt(o, 'SlaveLagSeconds', at),
    lastIoError: str(o, 'LastIOError', at),
    lastSqlError: str(o, 'LastSQLError', at),
    replicas: keys(o, 'Replicas', at),
    lastCheckValid: bool(o, 'IsLastCheckValid', at),
    upToDate: bool(o, 'IsUpToDate', at),
    recentlyChecked: bool(o, 'IsRecentlyChecked', at),
    lastSeen: time(o, 'LastSeenTimestamp', at),
    downtimed: bool(o, 'IsDowntimed', at),
    downtimeOwner: str(o, 'DowntimeOwner', at),
    downtimeReason: str(o, 'DowntimeReason', at),
    problems: list(o, 'Problems', at, asString),
  };
}

export function decodeClusterInfo(v: unknown, at: At): ClusterInfo {
  const o = asObject(v, at);
  return {
    clusterName: str(o, 'ClusterName', at),
    clusterAlias: str(o, 'ClusterAlias', at),
    countInstances: num(o, 'CountInstances', at),
    automatedMasterRecovery: bool(o, 'HasAutomatedMasterRecovery', at),
  };
}

export function decodeAnalysisEntry(v: unknown, at: At): AnalysisEntry {
  const o = asObject(v, at);
  const [k, kAt] = obj(o, 'AnalyzedInstanceKey', at);
  const cluster = decodeClusterInfo(...obj(o, 'ClusterDetails', at));
  return {
    instance: decodeKey(k, kAt),
    master: optionalKey(o, 'AnalyzedInstanceMasterKey', at),
    clusterName: cluster.clusterName,
    clusterAlias: cluster.clusterAlias,
    analysis: str(o, 'Analysis', at),
    description: str(o, 'Description', at),
    isMaster: bool(o, 'IsMaster', at),
    lastCheckValid: bool(o, 'LastCheckValid', at),
    downtimed: bool(o, 'IsDowntimed', at),
  };
}

export function decodeRecovery(v: unknown, at: At): Recovery {
  const o = asObject(v, at);
  const entry = decodeAnalysisEntry(...obj(o, 'AnalysisEntry', at));
  // AllErrors is null on some recoveries and [""] on successful ones.
  const allErrors = o.AllErrors === null ? [] : list(o, 'AllErrors', at, asString);
  return {
    id: num(o, 'Id', at),
    uid: str(o, 'UID', at),
    failed: entry.instance,
    analysis: entry.analysis,
    clusterName: entry.clusterName,
    clusterAlias: entry.clusterAlias,
    successor: optionalKey(o, 'SuccessorKey', at),
    active: bool(o, 'IsActive', at),
    // "YYYY-MM-DD hh:mm:ss" without a zone once ended, "" while the recovery runs.
    ended: str(o, 'RecoveryEndTimestamp', at) !== '',
    successful: bool(o, 'IsSuccessful', at),
    lostReplicas: o.LostReplicas === null ? [] : keys(o, 'LostReplicas', at),
    errors: allErrors.filter((e) => e !== ''),
    startedAt: time(o, 'RecoveryStartTimestamp', at),
    acknowledged: bool(o, 'Acknowledged', at),
    acknowledgedAt: time(o, 'AcknowledgedAt', at),
    acknowledgedComment: str(o, 'AcknowledgedComment', at),
  };
}
