// The backup controller's decisions, pure: where a MysqlBackup stands, what its Job and its
// status should be. reconcile.ts gathers the inputs and performs what these return.
import type { V1Job } from '@kubernetes/client-node';
import {
  BACKUP_CONDITION,
  BACKUP_REASONS,
  CONDITION_STATUS,
  FINALIZER_BACKUP_REMOTE_CLEANUP,
  REMOTE_DELETE_POLICY,
} from '../../api/constants.ts';
import type { MysqlBackup, MysqlBackupStatus, MysqlCluster } from '../../api/index.ts';
import { deepEqual } from '../../api/json-value.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';
import { redactString } from '../../runtime/redact.ts';
import { kubeTime, transitionTime } from '../shared/condition-time.ts';
import { resolveVersion } from '../shared/resolve-version.ts';
import { sidecarFor } from '../shared/sidecar-images.ts';
import { backupSecretName, resolveBackupUrl } from './backup-url.ts';
import { chooseBackupSource, type BackupSource } from './choose-source.ts';
import type { JobOutcome } from './job-outcome.ts';
import type { BackupControllerOptions } from './options.ts';
import { renderBackupJob } from './render-job.ts';

export type Backup = MysqlBackup & KubeObject;
export type Cluster = MysqlCluster & KubeObject;
type Condition = NonNullable<MysqlBackupStatus['conditions']>[number];

/** The status the controller owns, whole (BACKUP_STATUS_OWNERS.backup): what is left out is removed. */
export type OwnedStatus = MysqlBackupStatus;

/** A backup with a completion time is over: its Job is never made again, even if deleted. */
export function isFinished(b: MysqlBackup): boolean {
  return Boolean(b.status?.completionTime);
}

/** The replica Orchestrator was told to leave alone, while it still is. */
export function downtimedHost(b: MysqlBackup): string | undefined {
  const c = b.status?.conditions?.find((x) => x.type === BACKUP_CONDITION.replicaDowntimed);
  return c?.status === CONDITION_STATUS.true ? b.status?.sourceNode : undefined;
}

export function wantsRemoteCleanup(b: MysqlBackup): boolean {
  return b.spec.remoteDeletePolicy === REMOTE_DELETE_POLICY.delete;
}

function condition(
  current: MysqlBackupStatus | undefined,
  type: string,
  status: string,
  reason: string,
  message: string,
  now: Date,
): Condition {
  const old = current?.conditions?.find((c) => c.type === type);
  // Redacted here, the one place a MysqlBackup condition is made: messages quote Orchestrator's and the Job's text.
  return { type, status, reason, message: redactString(message), lastTransitionTime: transitionTime(old, status, now) } as Condition;
}

/** `status` with `conditions` replacing those of the same type; the others kept. */
export function withConditions(
  status: MysqlBackupStatus | undefined,
  conditions: Condition[],
  fields: Partial<OwnedStatus> = {},
): OwnedStatus {
  const replaced = new Set(conditions.map((c) => c.type));
  const kept = (status?.conditions ?? []).filter((c) => !replaced.has(c.type));
  return { ...status, ...fields, conditions: [...kept, ...conditions] };
}

/** Undefined when `next` is what the object already holds (no write in steady state). */
export function statusChange(current: MysqlBackupStatus | undefined, next: OwnedStatus): OwnedStatus | undefined {
  const byType = (s: MysqlBackupStatus | undefined) => ({
    ...s,
    conditions: [...(s?.conditions ?? [])].sort((a, b) => a.type.localeCompare(b.type)),
  });
  return deepEqual(byType(current), byType(next)) ? undefined : next;
}

/** What to do with a backup that has no Job yet. */
export type StartDecision =
  | { action: 'refuse'; status: OwnedStatus; reason: string; message: string }
  | {
      action: 'start';
      url: string;
      source: BackupSource;
      job: V1Job;
      /** What is persisted in spec, as the anchor did: the resolved URL and the credentials Secret. */
      specPatch: Partial<MysqlBackup['spec']>;
      /** The finalizers the object should carry (the cleanup one under remoteDeletePolicy delete). */
      finalizers: string[] | undefined;
    };

export interface StartInput {
  backup: Backup;
  cluster: Cluster | undefined;
  /** The cluster's pods, by name (labels role, healthy). */
  pods: ReadonlyMap<string, KubeObject>;
  opts: BackupControllerOptions;
  now: Date;
}

export function decideStart(i: StartInput): StartDecision {
  const { backup, cluster } = i;
  const name = backup.metadata!.name!;
  const refuse = (reason: string, message: string): StartDecision => ({
    action: 'refuse',
    reason,
    message,
    status: withConditions(
      backup.status,
      [
        condition(backup.status, BACKUP_CONDITION.failed, CONDITION_STATUS.true, reason, message, i.now),
        condition(backup.status, BACKUP_CONDITION.complete, CONDITION_STATUS.false, reason, message, i.now),
      ],
      { completed: false },
    ),
  });
  if (!cluster)
    return refuse(
      BACKUP_REASONS.clusterNotFound,
      `spec.clusterName: MysqlCluster ${backup.spec.clusterName} not found in namespace ${backup.metadata!.namespace}`,
    );
  const url = resolveBackupUrl(name, backup.spec, cluster.spec);
  if (!url.ok) return refuse(url.reason, url.message);
  const version = resolveVersion(cluster.spec.mysqlVersion);
  if (!version.ok)
    return refuse(BACKUP_REASONS.invalidClusterVersion, `spec.mysqlVersion of MysqlCluster ${cluster.metadata!.name}: ${version.message}`);
  const secretName = backupSecretName(backup.spec, cluster.spec);
  const source = chooseBackupSource(cluster, i.pods);
  const job = renderBackupJob({
    backup: { name, namespace: backup.metadata!.namespace!, uid: backup.metadata!.uid ?? '' },
    cluster: { name: cluster.metadata!.name!, spec: cluster.spec },
    image: cluster.spec.sidecarImage?.trim() || sidecarFor(version.version, i.opts),
    imagePullPolicy: i.opts.imagePullPolicy,
    host: source.host,
    url: url.url,
    secretName,
    timeoutSeconds: Math.max(1, Math.ceil(i.opts.backupTimeoutMs / 1000)),
  });
  const specPatch: Partial<MysqlBackup['spec']> = {};
  if (backup.spec.backupURL !== url.url) specPatch.backupURL = url.url;
  if (secretName && backup.spec.backupSecretName !== secretName) specPatch.backupSecretName = secretName;
  const current = backup.metadata?.finalizers ?? [];
  const finalizers =
    wantsRemoteCleanup(backup) && !current.includes(FINALIZER_BACKUP_REMOTE_CLEANUP)
      ? [...current, FINALIZER_BACKUP_REMOTE_CLEANUP]
      : undefined;
  return { action: 'start', url: url.url, source, job, specPatch, finalizers };
}

/** How Orchestrator took the request to leave the source alone. */
export type DowntimeResult = { ok: true } | { ok: false; message: string } | { ok: 'not-needed' };

/** The status once the Job is created (or found created): running, from `source`, maybe downtimed. */
export function startedStatus(backup: Backup, url: string, source: string, downtime: DowntimeResult, now: Date): OwnedStatus {
  const s = backup.status;
  const downtimed =
    downtime.ok === true
      ? condition(
          s,
          BACKUP_CONDITION.replicaDowntimed,
          CONDITION_STATUS.true,
          BACKUP_REASONS.downtimeBegun,
          `Orchestrator leaves ${source} alone while the backup streams from it`,
          now,
        )
      : downtime.ok === false
        ? condition(
            s,
            BACKUP_CONDITION.replicaDowntimed,
            CONDITION_STATUS.false,
            BACKUP_REASONS.orchestratorUnreachable,
            `${source} was not downtimed, the backup proceeds: ${downtime.message}`,
            now,
          )
        : condition(
            s,
            BACKUP_CONDITION.replicaDowntimed,
            CONDITION_STATUS.false,
            BACKUP_REASONS.sourceIsMaster,
            `the backup streams from ${source}, not from a replica`,
            now,
          );
  const running = `backup of ${backup.spec.clusterName} from ${source} to ${url} is running`;
  const cleared = (s?.conditions ?? []).filter((c) => c.type !== BACKUP_CONDITION.failed);
  return withConditions(
    { ...s, conditions: cleared },
    [condition(s, BACKUP_CONDITION.complete, CONDITION_STATUS.false, BACKUP_REASONS.backupRunning, running, now), downtimed],
    { completed: false, backupURL: url, sourceNode: source, startTime: s?.startTime ?? kubeTime(now) },
  );
}

/**
 * The status once the Job has ended. `released`: whether Orchestrator took the end of the
 * source's downtime; if not, the downtime ends by itself at its duration, which the condition says.
 */
export function finishedStatus(
  backup: Backup,
  outcome: Extract<JobOutcome, { state: 'succeeded' | 'failed' }>,
  released: boolean,
  now: Date,
): OwnedStatus {
  const s = backup.status;
  const ok = outcome.state === 'succeeded';
  const reason = outcome.reason || (ok ? BACKUP_REASONS.jobSucceeded : BACKUP_REASONS.jobFailed);
  const r = outcome.report;
  const conditions = [
    condition(s, BACKUP_CONDITION.complete, ok ? CONDITION_STATUS.true : CONDITION_STATUS.false, reason, outcome.message, now),
    condition(s, BACKUP_CONDITION.failed, ok ? CONDITION_STATUS.false : CONDITION_STATUS.true, reason, outcome.message, now),
  ];
  if (downtimedHost(backup)) conditions.push(released ? downtimeEnded(s, now) : downtimeLeft(s, now));
  // The report's times are the sidecar's own, closer to the backup than the Job's.
  return withConditions(s, conditions, {
    completed: ok,
    startTime: r?.startTime ?? outcome.startTime ?? s?.startTime,
    completionTime: r?.completionTime ?? outcome.completionTime ?? kubeTime(now),
    ...(r ? { backupURL: r.url, sizeBytes: r.bytes } : {}),
    ...(r?.position ? { binlogFile: r.position.binlogFile, binlogPosition: r.position.binlogPosition } : {}),
    ...(r?.position?.gtid ? { gtidExecuted: r.position.gtid } : {}),
  });
}

function downtimeEnded(s: MysqlBackupStatus | undefined, now: Date): Condition {
  return condition(
    s,
    BACKUP_CONDITION.replicaDowntimed,
    CONDITION_STATUS.false,
    BACKUP_REASONS.downtimeEnded,
    `Orchestrator manages ${s?.sourceNode} again`,
    now,
  );
}

function downtimeLeft(s: MysqlBackupStatus | undefined, now: Date): Condition {
  const message = `Orchestrator did not take the end of ${s?.sourceNode}'s downtime; it ends by itself at the backup timeout`;
  return condition(s, BACKUP_CONDITION.replicaDowntimed, CONDITION_STATUS.false, BACKUP_REASONS.orchestratorUnreachable, message, now);
}

/** Only the ReplicaDowntimed condition turned False, for a finished backup still marked downtimed. */
export function releasedStatus(backup: Backup, now: Date): OwnedStatus {
  return withConditions(backup.status, [downtimeEnded(backup.status, now)]);
}
