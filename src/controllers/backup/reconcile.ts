// One reconcile of a MysqlBackup, as named steps: gather (caches), decide (decide-backup.ts),
// act (Orchestrator downtime, the Job, the status, the stored object on deletion). See
// docs/backups.md.
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import { BACKUP_REASONS, FINALIZER_BACKUP_REMOTE_CLEANUP, LABEL_CLUSTER, ORCHESTRATOR_DOWNTIME_OWNER, PORT } from '../../api/constants.ts';
import { names } from '../../api/names.ts';
import { BACKUP_STATUS_OWNERS } from '../../api/status-owners.ts';
import type { OrchestratorClient } from '../../orchestrator/index.ts';
import type { ControllerContext, Request } from '../../runtime/controller.ts';
import { applyStatus } from '../../runtime/kube/apply-status.ts';
import { AlreadyExistsError } from '../../runtime/kube/errors.ts';
import { decodeSecretData } from '../../runtime/kube/secret-data.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';
import { errorMessage, type Logger } from '../../runtime/logger.ts';
import type { BackupStorage, StorageEnv } from '../../storage/index.ts';
import { KINDS } from '../shared/kinds.ts';
import {
  decideStart,
  downtimedHost,
  finishedStatus,
  isFinished,
  releasedStatus,
  startedStatus,
  statusChange,
  type Backup,
  type Cluster,
  type DowntimeResult,
  type OwnedStatus,
  type StartDecision,
} from './decide-backup.ts';
import { jobOutcome, type JobOutcome } from './job-outcome.ts';
import { POD_TARGET } from '../shared/targets.ts';
import { JOB_POD_LABELS } from './render-job.ts';
import type { BackupControllerOptions } from './options.ts';

/** The pods of backup Jobs (their report), apart from the servers' pods. */
export const JOB_POD_TARGET = { ...KINDS.pod, labelSelector: JOB_POD_LABELS };

export interface BackupDeps {
  orchestrator: Pick<OrchestratorClient, 'beginDowntime' | 'endDowntime'>;
  storageFor: (url: string, env: StorageEnv) => Pick<BackupStorage, 'delete'>;
  now: () => Date;
}

/**
 * Replicas downtimed for a backup, by backup key: a backup deleted without a finalizer is gone
 * before its reconcile, which then still knows whom to release. Lost on restart: the downtime
 * then ends by itself at its duration (the backup timeout).
 */
export type DowntimeMemory = Map<string, string>;

/** One pass over one backup: who asks, the backup as cached, and the replica it keeps downtimed. */
interface Pass {
  req: Request;
  ctx: ControllerContext;
  opts: BackupControllerOptions;
  deps: BackupDeps;
  backup: Backup;
  /** The replica the status says is downtimed for this backup. */
  host: string | undefined;
  log: Logger;
  now: Date;
}

interface Gathered {
  outcome: JobOutcome;
  cluster: Cluster | undefined;
  /** The cluster's pods, by name. */
  clusterPods: ReadonlyMap<string, V1Pod & KubeObject>;
}

export async function reconcileBackup(
  req: Request,
  ctx: ControllerContext,
  opts: BackupControllerOptions,
  deps: BackupDeps,
  memory: DowntimeMemory,
): Promise<void> {
  const backup = (await ctx.informer<Backup>(KINDS.backup)).get(req.namespace, req.name);
  const log = ctx.log.child({ backup: req.name, namespace: req.namespace });
  if (!backup) {
    const host = memory.get(req.key);
    if (host) await endDowntime(deps, host, ctx, log);
    memory.delete(req.key);
    return;
  }
  if (backup.metadata?.deletionTimestamp) {
    await deleteBackup(ctx, deps, backup, log);
    memory.delete(req.key);
    return;
  }
  const host = downtimedHost(backup);
  if (host) memory.set(req.key, host);
  else memory.delete(req.key);

  const g = await gather(req, ctx, backup);
  const pass: Pass = { req, ctx, opts, deps, backup, host, log, now: deps.now() };
  if (isFinished(backup)) return releaseFinished(pass);
  if (g.outcome.state === 'running') return;
  if (g.outcome.state === 'succeeded' || g.outcome.state === 'failed') return recordOutcome(pass, g.outcome);
  return start(pass, decideStart({ backup, cluster: g.cluster, pods: g.clusterPods, opts, now: pass.now }));
}

/** The backup's Job and its pods' report, its cluster and the cluster's pods, from the caches. */
async function gather(req: Request, ctx: ControllerContext, backup: Backup): Promise<Gathered> {
  const [clusters, jobs, jobPodCache, pods] = await Promise.all([
    ctx.informer<Cluster>(KINDS.cluster),
    ctx.informer<V1Job & KubeObject>(KINDS.job),
    ctx.informer<V1Pod & KubeObject>(JOB_POD_TARGET),
    ctx.informer<V1Pod & KubeObject>(POD_TARGET),
  ]);
  const jobName = names.backupJob(req.name);
  const jobPods = jobPodCache
    .list({ namespace: req.namespace })
    .filter((p) => p.metadata?.ownerReferences?.some((o) => o.kind === 'Job' && o.name === jobName));
  const cluster = clusters.get(req.namespace, backup.spec.clusterName);
  const clusterPods = new Map(
    cluster
      ? pods
          .list({ namespace: req.namespace, labels: { [LABEL_CLUSTER]: cluster.metadata!.name! } })
          .map((p) => [p.metadata!.name!, p] as const)
      : [],
  );
  return { outcome: jobOutcome(jobs.get(req.namespace, jobName), jobPods), cluster, clusterPods };
}

/** A finished backup whose replica is still downtimed: the downtime ends, and the status says so. */
async function releaseFinished(pass: Pass): Promise<void> {
  const { deps, host, ctx, log } = pass;
  if (host && (await endDowntime(deps, host, ctx, log))) await writeStatus(ctx, pass.backup, releasedStatus(pass.backup, pass.now));
}

/** The Job ended: the downtime ends, the status records the outcome, with an Event. */
async function recordOutcome(pass: Pass, outcome: JobOutcome & { state: 'succeeded' | 'failed' }): Promise<void> {
  const { deps, host, ctx, log, backup } = pass;
  const released = host ? await endDowntime(deps, host, ctx, log) : true;
  const status = finishedStatus(backup, outcome, released, pass.now);
  const ok = outcome.state === 'succeeded';
  const what = ok ? `backup stored at ${status.backupURL}` : `backup failed: ${outcome.message || outcome.reason}`;
  if (ok) ctx.events.normal(backup, BACKUP_REASONS.jobSucceeded, what);
  else ctx.events.warning(backup, BACKUP_REASONS.jobFailed, what);
  log.info('backup finished', { outcome: outcome.state, reason: outcome.reason });
  await writeStatus(ctx, backup, status);
}

/**
 * No Job yet: a refusal is the status and a Warning; else the resolved URL and Secret are
 * persisted first (the next pass goes on), then the source replica is downtimed, the status
 * names it, and the Job is created.
 */
async function start(pass: Pass, d: StartDecision): Promise<void> {
  const { req, ctx, backup, log, host } = pass;
  if (d.action === 'refuse') {
    if (await writeStatus(ctx, backup, d.status)) {
      ctx.events.warning(backup, d.reason, d.message);
      log.warn('backup refused', { reason: d.reason, message: d.message });
    }
    return;
  }
  // The resolved URL and Secret are persisted first (as the anchor did): later passes, and a
  // restore, read the one URL this backup was written to even if the cluster's changes.
  if (Object.keys(d.specPatch).length || d.finalizers) {
    await ctx.client.patch(
      { ...KINDS.backup, namespace: req.namespace, name: req.name },
      {
        metadata: { resourceVersion: backup.metadata!.resourceVersion, ...(d.finalizers ? { finalizers: d.finalizers } : {}) },
        ...(Object.keys(d.specPatch).length ? { spec: d.specPatch } : {}),
      },
    );
    return;
  }
  if (host && host !== d.source.host) await endDowntime(pass.deps, host, ctx, log);
  const downtime = d.source.replica ? await beginDowntime(pass, d.source.host) : ({ ok: 'not-needed' } as const);
  // The status before the Job: a retry after a failed create knows which replica it downtimed.
  await writeStatus(ctx, backup, startedStatus(backup, d.url, d.source.host, downtime, pass.now));
  const jobName = names.backupJob(req.name);
  try {
    await ctx.client.create(d.job as KubeObject);
    ctx.events.normal(backup, BACKUP_REASONS.jobCreated, `Job ${jobName} backs up ${d.source.host} to ${d.url}`);
    log.info('backup job created', { job: jobName, source: d.source.host });
  } catch (err) {
    if (!(err instanceof AlreadyExistsError)) throw err;
  }
}

/** Applies the owned status when it differs from the cached one; true when it wrote. */
async function writeStatus(ctx: ControllerContext, backup: Backup, next: OwnedStatus): Promise<boolean> {
  if (!statusChange(backup.status, next)) return false;
  const ref = { ...KINDS.backup, namespace: backup.metadata!.namespace!, name: backup.metadata!.name! };
  await applyStatus(ctx.client, ref, BACKUP_STATUS_OWNERS.backup, next as Record<string, unknown>);
  return true;
}

/**
 * Orchestrator unreachable (or not answering) does not stop the backup: a backup matters more
 * than the small chance that Orchestrator picks that replica in the meantime (it never fails
 * over a replica; a downtime only keeps it from being chosen or recovered). The status and a
 * Warning say the replica was not downtimed.
 */
async function beginDowntime(pass: Pass, host: string): Promise<DowntimeResult> {
  const { deps, req, opts, ctx, log } = pass;
  try {
    await deps.orchestrator.beginDowntime(
      { host, port: PORT.mysql },
      {
        owner: ORCHESTRATOR_DOWNTIME_OWNER,
        reason: `backup ${req.namespace}/${req.name}`,
        seconds: Math.max(1, Math.ceil(opts.backupTimeoutMs / 1000)),
      },
      { signal: ctx.signal },
    );
    return { ok: true };
  } catch (err) {
    log.warn('replica not downtimed in Orchestrator; the backup proceeds', { host, error: errorMessage(err) });
    return { ok: false, message: errorMessage(err) };
  }
}

/** True when Orchestrator took it; a failure is logged (the downtime ends by itself at its duration). */
async function endDowntime(deps: BackupDeps, host: string, ctx: ControllerContext, log: Logger): Promise<boolean> {
  try {
    await deps.orchestrator.endDowntime({ host, port: PORT.mysql }, { signal: ctx.signal });
    return true;
  } catch (err) {
    log.warn('downtime not ended in Orchestrator; it expires by itself', { host, error: errorMessage(err) });
    return false;
  }
}

/** remoteDeletePolicy delete: the stored object goes first, then the finalizer that waited for it. */
async function deleteBackup(ctx: ControllerContext, deps: BackupDeps, backup: Backup, log: Logger): Promise<void> {
  const host = downtimedHost(backup);
  if (host) await endDowntime(deps, host, ctx, log);
  const finalizers = backup.metadata?.finalizers ?? [];
  if (!finalizers.includes(FINALIZER_BACKUP_REMOTE_CLEANUP)) return;
  const ns = backup.metadata!.namespace!;
  // The URL the Job wrote to: the report's, else the one persisted in spec at start.
  const url = backup.status?.backupURL || backup.spec.backupURL;
  if (url) {
    try {
      const secret = backup.spec.backupSecretName
        ? await ctx.client.getIfExists({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: backup.spec.backupSecretName })
        : undefined;
      await deps.storageFor(url, decodeSecretData((secret as { data?: Record<string, string> } | undefined)?.data)).delete(url);
    } catch (err) {
      ctx.events.warning(backup, BACKUP_REASONS.remoteDeleteFailed, `${url} not deleted: ${errorMessage(err)}`);
      throw err;
    }
    ctx.events.normal(backup, BACKUP_REASONS.remoteObjectDeleted, `deleted ${url}`);
    log.info('stored backup deleted', { url });
  }
  await ctx.client.patch(
    { ...KINDS.backup, namespace: ns, name: backup.metadata!.name! },
    {
      metadata: {
        resourceVersion: backup.metadata!.resourceVersion,
        finalizers: finalizers.filter((f) => f !== FINALIZER_BACKUP_REMOTE_CLEANUP),
      },
    },
  );
}
