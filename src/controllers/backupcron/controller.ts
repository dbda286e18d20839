// The backupcron controller: one schedule per MysqlCluster with spec.backupSchedule, creating
// scheduled MysqlBackups, and the retention of those (docs/backups.md). Controllers run only on
// the leader, so only the leader schedules; the timers live as long as the controller runs (its
// start's signal) and are rebuilt from the clusters by the first reconciles after a restart or a
// change of leader.
import { API_GROUP, BACKUP_RECURRENT_TRUE, CLUSTER_REASONS, LABEL_BACKUP_CLUSTER, LABEL_BACKUP_RECURRENT } from '../../api/constants.ts';
import type { MysqlCluster } from '../../api/index.ts';
import { CLUSTER_STATUS_OWNERS } from '../../api/status-owners.ts';
import {
  keyFromLabel,
  type ControllerContext,
  type ControllerDefinition,
  type ControllerSpec,
  type ReconcileResult,
  type Request,
} from '../../runtime/controller.ts';
import { applyStatus } from '../../runtime/kube/apply-status.ts';
import { AlreadyExistsError } from '../../runtime/kube/errors.ts';
import { objectKey, parseKey, type KubeObject } from '../../runtime/kube/types.ts';
import type { Informer } from '../../runtime/informer.ts';
import { errorMessage } from '../../runtime/logger.ts';
import type { Permission } from '../../runtime/permissions.ts';
import { KINDS } from '../shared/kinds.ts';
import { decideSchedule, decideScheduleCondition, missedTick } from './decide-schedule.ts';
import { decideTick, type Backup } from './decide-tick.ts';
import { chooseBackupsToPrune } from './retention.ts';
import { sameSchedule, type Schedule } from './schedule.ts';
import { startTicker as realTicker, type StartTicker, type Ticker } from './ticker.ts';

type Cluster = MysqlCluster & KubeObject;

export const BACKUP_CRON_PERMISSIONS: readonly Permission[] = [
  // patch on the object: applyStatus's one-time hand-over of managedFields from an older writer.
  { group: API_GROUP, resources: ['mysqlclusters'], verbs: ['list', 'watch', 'patch'] },
  { group: API_GROUP, resources: ['mysqlclusters/status'], verbs: ['patch'] },
  { group: API_GROUP, resources: ['mysqlbackups'], verbs: ['list', 'watch', 'create', 'delete'] },
  // Whether spec.backupSecretName exists, and to decide again when it comes or goes.
  { group: '', resources: ['secrets'], verbs: ['list', 'watch'] },
];

export interface BackupCronDeps {
  /** How schedules tick; tests pass a ticker they fire by hand. */
  startTicker?: StartTicker;
  now?: () => Date;
}

/** The labels the schedule puts on a cluster's backups (anchor). */
function scheduledLabels(cluster: string): Record<string, string> {
  return { [LABEL_BACKUP_RECURRENT]: BACKUP_RECURRENT_TRUE, [LABEL_BACKUP_CLUSTER]: cluster };
}

export function makeBackupCronController(deps: BackupCronDeps = {}): ControllerSpec {
  const startTicker = deps.startTicker ?? realTicker;
  const now = deps.now ?? (() => new Date());
  const running = new Map<string, { schedule: Schedule; ticker: Ticker }>();
  // The context of the controller's current run: ticks write with its client, which is not bound
  // to any one reconcile's deadline.
  let runCtx: ControllerContext | undefined;
  let clusterCache: Informer<Cluster> | undefined;
  const clustersNaming = (secret: KubeObject): string[] => {
    const ns = secret.metadata?.namespace ?? '';
    return (clusterCache?.list({ namespace: ns }) ?? [])
      .filter((c) => c.spec.backupSecretName?.trim() === secret.metadata?.name)
      .map((c) => objectKey(c));
  };

  const stopTicker = (key: string): void => {
    running.get(key)?.ticker.stop();
    running.delete(key);
  };

  async function tick(key: string, at: Date): Promise<void> {
    const ctx = runCtx;
    if (!ctx || ctx.signal.aborted) return;
    const { namespace, name } = parseKey(key);
    const log = ctx.log.child({ cluster: name, namespace, step: 'tick' });
    const cluster = (await ctx.informer<Cluster>(KINDS.cluster)).get(namespace, name);
    if (!cluster) return;
    // From the API, not the cache: whether this tick's backup exists, or one still runs, must not
    // be missed because a watch event is late (right after a restart, or the previous tick).
    const listed = await ctx.client.list<Backup>(KINDS.backup, { namespace, labelSelector: scheduledLabels(name) });
    const d = decideTick(cluster, listed.items, at);
    if (d.action === 'skip') {
      if (d.why === 'running') ctx.events.normal(cluster, CLUSTER_REASONS.scheduledBackupSkipped, d.message);
      log.info('scheduled backup not created', { reason: d.why, message: d.message });
      return;
    }
    try {
      await ctx.client.create(d.backup);
      ctx.events.normal(cluster, CLUSTER_REASONS.scheduledBackupCreated, `created MysqlBackup ${d.backup.metadata!.name}`);
      log.info('scheduled backup created', { backup: d.backup.metadata!.name });
    } catch (err) {
      // Another tick of the same time (a second timer, a restarted operator) made it first.
      if (!(err instanceof AlreadyExistsError)) throw err;
    }
  }

  async function reconcile(req: Request, ctx: ControllerContext): Promise<ReconcileResult | undefined> {
    const [clusters, backups, secrets] = await Promise.all([
      ctx.informer<Cluster>(KINDS.cluster),
      ctx.informer<Backup>(KINDS.backup),
      ctx.informer<KubeObject>(KINDS.secret),
    ]);
    const cluster = clusters.get(req.namespace, req.name);
    if (!cluster || cluster.metadata?.deletionTimestamp) {
      stopTicker(req.key);
      return;
    }
    const log = ctx.log.child({ cluster: req.name, namespace: req.namespace });

    // decide
    const secretName = cluster.spec.backupSecretName?.trim();
    const d = decideSchedule(cluster.spec, {
      namespace: req.namespace,
      backupSecretFound: !secretName || secrets.get(req.namespace, secretName) !== undefined,
    });
    const conditions = decideScheduleCondition(cluster, d, now());

    // act: the timer first (it needs no API), then the condition, then retention.
    // The start hook runs just after the queue starts: a first reconcile may come before it.
    if (!runCtx) return { requeueAfterMs: 1000 };
    const current = running.get(req.key);
    // A reconcile still running when the controller stopped (leadership lost) starts no timer.
    if (d.state !== 'scheduled' || runCtx.signal.aborted) {
      stopTicker(req.key);
    } else if (!current || !sameSchedule(current.schedule, d.schedule)) {
      stopTicker(req.key);
      const onTick = (at: Date): Promise<void> =>
        tick(req.key, at).catch((err: unknown) =>
          runCtx?.log.error('scheduled backup failed', { cluster: req.name, namespace: req.namespace, error: errorMessage(err) }),
        );
      running.set(req.key, { schedule: d.schedule, ticker: startTicker(d.schedule, onTick) });
      log.info('backup schedule started', { schedule: cluster.spec.backupSchedule });
      const missed = current ? undefined : missedTick(cluster, d.schedule, now());
      if (missed) {
        log.info('running a tick no operator ran', { tick: missed.toISOString() });
        await onTick(missed);
      }
    }
    if (conditions) {
      if (d.state === 'invalid') {
        ctx.events.warning(cluster, d.reason, d.message);
        log.warn('backup schedule refused', { message: d.message });
      }
      await applyStatus(ctx.client, { ...KINDS.cluster, namespace: req.namespace, name: req.name }, CLUSTER_STATUS_OWNERS.backupCron, {
        conditions,
      });
    }
    if (d.state !== 'scheduled') return;
    for (const name of chooseBackupsToPrune(
      backups.list({ namespace: req.namespace, labels: scheduledLabels(req.name) }),
      d.retention,
      now(),
    )) {
      if (await ctx.client.delete({ ...KINDS.backup, namespace: req.namespace, name })) {
        ctx.events.normal(cluster, CLUSTER_REASONS.scheduledBackupPruned, `deleted MysqlBackup ${name} (retention)`);
      }
    }
  }

  return {
    name: 'backupcron',
    for: KINDS.cluster,
    // A scheduled backup that finishes or goes may change what retention keeps.
    // A credentials Secret that comes or goes decides the clusters of its namespace naming it again.
    watches: [
      { target: KINDS.backup, map: keyFromLabel(LABEL_BACKUP_CLUSTER) },
      { target: KINDS.secret, map: (secret) => clustersNaming(secret) },
    ],
    async start(ctx) {
      runCtx = ctx;
      clusterCache = await ctx.informer<Cluster>(KINDS.cluster);
      const stopAll = (): void => {
        for (const key of [...running.keys()]) stopTicker(key);
        if (runCtx === ctx) runCtx = undefined;
      };
      if (ctx.signal.aborted) stopAll();
      else ctx.signal.addEventListener('abort', stopAll, { once: true });
    },
    reconcile,
  };
}

export const backupCronControllerDefinition: ControllerDefinition<Record<never, never>> = {
  name: 'backupcron',
  settings: {},
  permissions: BACKUP_CRON_PERMISSIONS,
  build: () => makeBackupCronController(),
};
