// Bodies in the shapes of Orchestrator 3.2.6's answers (fixtures/orchestrator/): a recorded body
// is the template, the fields the stand-in knows are filled in, the others keep recorded defaults.
import { readFileSync } from 'node:fs';
import { clusterAliasOf, clusterNameOf, replicasOf, type Analysis, type InstanceState } from './analysis.ts';
import type { Key } from './hooks.ts';

const template = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`./shapes/${name}.json`, import.meta.url), 'utf8')) as Record<string, unknown>;
const INSTANCE = template('instance');
const RECOVERY = template('topology-recovery');
const HEALTH = template('health');

export const keyJson = (k: Key): { Hostname: string; Port: number } => ({ Hostname: k.host, Port: k.port });

/** RFC 3339 to the second, as LastSeenTimestamp and RecoveryStartTimestamp. */
export const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
/** `YYYY-MM-DD hh:mm:ss` without a zone, as RecoveryEndTimestamp and DowntimeEndTimestamp. */
export const plainTime = (d: Date): string =>
  d
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, '');

const nullInt = (n: number | null): { Int64: number; Valid: boolean } => ({ Int64: n ?? 0, Valid: n !== null });
const coords = (b: { file: string; position: number } | null, type = 0): { LogFile: string; LogPos: number; Type: number } => ({
  LogFile: b?.file ?? '',
  LogPos: b?.position ?? 0,
  Type: type,
});

export function instanceJson(all: readonly InstanceState[], i: InstanceState, now: Date): Record<string, unknown> {
  const isReplica = i.master !== null;
  const replicas = replicasOf(all, i.key).map((r) => keyJson(r.key));
  const clusterName = clusterNameOf(all, i);
  const downtimed = i.downtime !== null && i.downtime.endsAt > now;
  const lag = isReplica ? i.secondsBehind : null;
  return {
    ...INSTANCE,
    Key: keyJson(i.key),
    InstanceAlias: i.instanceAlias,
    Uptime: Math.round((now.getTime() - i.firstSeen.getTime()) / 1000),
    ServerID: i.serverId,
    Version: i.version,
    VersionComment: i.versionComment,
    ReadOnly: i.readOnly,
    SelfBinlogCoordinates: coords(i.binlog),
    MasterKey: keyJson(i.master ?? { host: '', port: 0 }),
    MasterUUID: isReplica ? 'No' : '',
    Slave_SQL_Running: i.sqlRunning,
    ReplicationSQLThreadRuning: i.sqlRunning,
    Slave_IO_Running: i.ioRunning,
    ReplicationIOThreadRuning: i.ioRunning,
    ReplicationSQLThreadState: i.sqlRunning ? 1 : isReplica ? 0 : -1,
    ReplicationIOThreadState: i.ioRunning ? 1 : isReplica ? 0 : -1,
    UsingMariaDBGTID: isReplica && i.usingGtid,
    LastSQLError: i.lastSqlError,
    LastIOError: i.lastIoError,
    SecondsBehindMaster: nullInt(lag),
    SlaveLagSeconds: nullInt(lag),
    ReplicationLagSeconds: nullInt(lag),
    SlaveHosts: replicas,
    Replicas: replicas,
    ClusterName: clusterName,
    SuggestedClusterAlias: i.suggestedClusterAlias,
    ReplicationDepth: isReplica ? 1 : 0,
    LastSeenTimestamp: i.lastSeen ? rfc3339(i.lastSeen) : '',
    IsLastCheckValid: i.lastCheckValid,
    SecondsSinceLastSeen: nullInt(i.lastSeen ? Math.round((now.getTime() - i.lastSeen.getTime()) / 1000) : null),
    IsDowntimed: downtimed,
    DowntimeReason: downtimed ? (i.downtime?.reason ?? '') : '',
    DowntimeOwner: downtimed ? (i.downtime?.owner ?? '') : '',
    DowntimeEndTimestamp: downtimed && i.downtime ? plainTime(i.downtime.endsAt) : '',
  };
}

export function clusterInfoJson(all: readonly InstanceState[], clusterName: string, autoRecovery: boolean): Record<string, unknown> {
  return {
    ClusterName: clusterName,
    ClusterAlias: clusterAliasOf(all, clusterName),
    ClusterDomain: '',
    CountInstances: all.filter((i) => clusterNameOf(all, i) === clusterName).length,
    HeuristicLag: 0,
    HasAutomatedMasterRecovery: autoRecovery,
    HasAutomatedIntermediateMasterRecovery: autoRecovery,
  };
}

export interface RecoveryRecord {
  id: number;
  uid: string;
  analysis: string;
  failed: Key;
  clusterName: string;
  clusterAlias: string;
  replicas: Key[];
  successor: Key | null;
  successorAlias: string;
  /** When the active period was cleared early (an acknowledgement); it also ends RecoveryPeriodBlockSeconds after the start. */
  activeClearedAt: Date | null;
  successful: boolean;
  errors: string[];
  startedAt: Date;
  endedAt: Date | null;
  acknowledged: { at: Date; by: string; comment: string } | null;
  detectionId: number;
}

const ENTRY = RECOVERY.AnalysisEntry as Record<string, unknown>;

/** The AnalysisEntry fields a replication-analysis row and a recovery share. */
function entryJson(
  e: { failed: Key; clusterName: string; clusterAlias: string; replicas: Key[]; analysis: string },
  autoRecovery: boolean,
): Record<string, unknown> {
  return {
    ...ENTRY,
    AnalyzedInstanceKey: keyJson(e.failed),
    ClusterDetails: {
      ClusterName: e.clusterName,
      ClusterAlias: e.clusterAlias,
      ClusterDomain: '',
      CountInstances: 0,
      HeuristicLag: 0,
      HasAutomatedMasterRecovery: autoRecovery,
      HasAutomatedIntermediateMasterRecovery: autoRecovery,
    },
    CountReplicas: e.replicas.length,
    Replicas: e.replicas.map(keyJson),
    SlaveHosts: e.replicas.map(keyJson),
    Analysis: e.analysis,
  };
}

/** One row of /api/replication-analysis: a master the stand-in cannot reach. */
export function analysisJson(all: readonly InstanceState[], a: Analysis, autoRecovery: boolean): Record<string, unknown> {
  const clusterName = clusterNameOf(all, a.master);
  const replicas = a.replicas.map((r) => r.key);
  return {
    ...entryJson(
      { failed: a.master.key, clusterName, clusterAlias: clusterAliasOf(all, clusterName), replicas, analysis: a.code },
      autoRecovery,
    ),
    Description: a.description,
    IsMaster: true,
    LastCheckValid: false,
    CountValidReplicas: a.replicas.filter((r) => r.lastCheckValid).length,
    CountValidReplicatingReplicas: a.replicas.filter((r) => r.lastCheckValid && r.ioRunning && r.sqlRunning).length,
    IsActionableRecovery: a.actionable,
    IsReadOnly: a.master.readOnly,
  };
}

/** `active`: whether the recovery is in its active period now (recovery-period.ts). */
export function recoveryJson(r: RecoveryRecord, nodeHostname: string, autoRecovery: boolean, active: boolean): Record<string, unknown> {
  return {
    ...RECOVERY,
    Id: r.id,
    UID: r.uid,
    AnalysisEntry: entryJson(r, autoRecovery),
    SuccessorKey: r.successor ? keyJson(r.successor) : null,
    SuccessorAlias: r.successorAlias,
    IsActive: active,
    IsSuccessful: r.successful,
    AllErrors: r.errors.length > 0 ? r.errors : [''],
    RecoveryStartTimestamp: rfc3339(r.startedAt),
    RecoveryEndTimestamp: r.endedAt ? plainTime(r.endedAt) : '',
    ProcessingNodeHostname: nodeHostname,
    Acknowledged: r.acknowledged !== null,
    AcknowledgedAt: r.acknowledged ? rfc3339(r.acknowledged.at) : '',
    AcknowledgedBy: r.acknowledged?.by ?? '',
    AcknowledgedComment: r.acknowledged?.comment ?? '',
    LastDetectionId: r.detectionId,
  };
}

export function healthJson(nodeHostname: string, token: string, startedAt: Date, now: Date): Record<string, unknown> {
  const details = HEALTH.Details as Record<string, unknown>;
  const node = (details.ActiveNode ?? {}) as Record<string, unknown>;
  const available = ((details.AvailableNodes ?? []) as Record<string, unknown>[])[0] ?? {};
  const seen = { Hostname: nodeHostname, Token: token, FirstSeenActive: rfc3339(startedAt), LastSeenActive: rfc3339(now) };
  return {
    ...HEALTH,
    Details: {
      ...details,
      Hostname: nodeHostname,
      Token: token,
      ActiveNode: { ...node, ...seen },
      AvailableNodes: [{ ...available, ...seen, DBBackend: '' }],
    },
  };
}
