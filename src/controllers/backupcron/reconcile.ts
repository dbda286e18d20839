// One pass over one MysqlCluster, and one tick of its schedule. The timers are the controller's
// state (CronState): they live as long as the controller runs and are rebuilt from the clusters by
// the first passes after a restart or a change of leader.
//
// The pass: gather the cluster, its scheduled backups and whether the credentials Secret exists;
// decide the schedule and its BackupSchedule condition (decide-schedule.ts); act: the timer first
// (it needs no API), then the condition, then retention (retention.ts).
// The tick: gather the cluster's scheduled backups from the API; decide whether to create one
// (decide-tick.ts); act: create it.
import { BACKUP_RECURRENT_TRUE, CLUSTER_REASONS, LABEL_BACKUP_CLUSTER, LABEL_BACKUP_RECURRENT } from '../../api/constants.ts';
import type { MysqlCluster } from '../../api/index.ts';
import { CLUSTER_STATUS_OWNERS } from '../../api/status-owners.ts';
import type { ControllerContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import type { Informer } from '../../runtime/informer.ts';
import { applyStatus } from '../../runtime/kube/apply-status.ts';
import { AlreadyExistsError } from '../../runtime/kube/errors.ts';
import { objectKey, parseKey, type KubeObject } from '../../runtime/kube/types.ts';
import { errorMessage, type Logger } from '../../runtime/logger.ts';
import { KINDS } from '../shared/kinds.ts';
import { decideSchedule, decideScheduleCondition, missedTick, type ScheduleDecision } from './decide-schedule.ts';
import { decideTick, type Backup } from './decide-tick.ts';
import { chooseBackupsToPrune } from './retention.ts';
import { sameSchedule, type Schedule } from './schedule.ts';
import { startTicker as realTicker, type StartTicker, type Ticker } from './ticker.ts';

export type Cluster = MysqlCluster & KubeObject;

export interface BackupCronDeps {
  /** How schedules tick; tests pass a ticker they fire by hand. */
  startTicker?: StartTicker;
  now?: () => Date;
}

/** The controller's timers, and the run they belong to. */
export interface CronState {
  startTicker: StartTicker;
  now: () => Date;
  running: Map<string, { schedule: Schedule; ticker: Ticker }>;
  /**
   * The context of the controller's current run: ticks write with its client, which is not bound
   * to any one reconcile's deadline. Unset before the start hook and after the run ends.
   */
  runCtx?: ControllerContext;
  clusterCache?: Informer<Cluster>;
}

export function newCronState(deps: BackupCronDeps = {}): CronState {
  return { startTicker: deps.startTicker ?? realTicker, now: deps.now ?? (() => new Date()), running: new Map() };
}

/** The start hook: remembers the run, and stops every timer when it ends. */
export async function startRun(state: CronState, ctx: ControllerContext): Promise<void> {
  state.runCtx = ctx;
  state.clusterCache = await ctx.informer<Cluster>(KINDS.cluster);
  const stopAll = (): void => {
    for (const key of [...state.running.keys()]) stopTicker(state, key);
    if (state.runCtx === ctx) state.runCtx = undefined;
  };
  if (ctx.signal.aborted) stopAll();
  else ctx.signal.addEventListener('abort', stopAll, { once: true });
}

/** The clusters of a Secret's namespace whose spec.backupSecretName names it. */
export function clustersNaming(state: CronState, secret: KubeObject): string[] {
  const ns = secret.metadata?.namespace ?? '';
  return (state.clusterCache?.list({ namespace: ns }) ?? [])
    .filter((c) => c.spec.backupSecretName?.trim() === secret.metadata?.name)
    .map((c) => objectKey(c));
}

/** The labels the schedule puts on a cluster's backups (anchor). */
function scheduledLabels(cluster: string): Record<string, string> {
  return { [LABEL_BACKUP_RECURRENT]: BACKUP_RECURRENT_TRUE, [LABEL_BACKUP_CLUSTER]: cluster };
}

function stopTicker(state: CronState, key: string): void {
  state.running.get(key)?.ticker.stop();
  state.running.delete(key);
}

interface Gathered {
  cluster: Cluster;
  backups: Informer<Backup>;
  /** Whether the Secret spec.backupSecretName names exists (true when none is named). */
  backupSecretFound: boolean;
}

interface Decided {
  schedule: ScheduleDecision;
  /** The BackupSchedule condition to write; undefined: the status already says it. */
  conditions: ReturnType<typeof decideScheduleCondition>;
}

interface Pass {
  state: CronState;
  req: Request;
  ctx: ControllerContext;
  cluster: Cluster;
  log: Logger;
}

export async function reconcileBackupCron(state: CronState, req: Request, ctx: ControllerContext): Promise<ReconcileResult | undefined> {
  const gathered = await gather(req, ctx);
  if (!gathered) {
    stopTicker(state, req.key);
    return;
  }
  const decided = decide(req, gathered, state.now());
  // The start hook runs just after the queue starts: a first reconcile may come before it.
  if (!state.runCtx) return { requeueAfterMs: 1000 };
  const pass: Pass = { state, req, ctx, cluster: gathered.cluster, log: ctx.log.child({ cluster: req.name, namespace: req.namespace }) };
  await actTimer(pass, decided.schedule);
  await actCondition(pass, decided);
  if (decided.schedule.state === 'scheduled') await actRetention(pass, gathered.backups, decided.schedule);
}

/** The cluster (none when gone or being deleted), its backups and the credentials Secret, from the caches. */
async function gather(req: Request, ctx: ControllerContext): Promise<Gathered | undefined> {
  const [clusters, backups, secrets] = await Promise.all([
    ctx.informer<Cluster>(KINDS.cluster),
    ctx.informer<Backup>(KINDS.backup),
    ctx.informer<KubeObject>(KINDS.secret),
  ]);
  const cluster = clusters.get(req.namespace, req.name);
  if (!cluster || cluster.metadata?.deletionTimestamp) return undefined;
  const secretName = cluster.spec.backupSecretName?.trim();
  return { cluster, backups, backupSecretFound: !secretName || secrets.get(req.namespace, secretName) !== undefined };
}

function decide(req: Request, g: Gathered, now: Date): Decided {
  const schedule = decideSchedule(g.cluster.spec, { namespace: req.namespace, backupSecretFound: g.backupSecretFound });
  return { schedule, conditions: decideScheduleCondition(g.cluster, schedule, now) };
}

/** Starts, replaces or stops the cluster's timer; a timer new to this run first runs the tick no operator ran. */
async function actTimer(pass: Pass, d: ScheduleDecision): Promise<void> {
  const { state, req, cluster, log } = pass;
  const current = state.running.get(req.key);
  // A reconcile still running when the controller stopped (leadership lost) starts no timer.
  if (d.state !== 'scheduled' || state.runCtx?.signal.aborted) {
    stopTicker(state, req.key);
    return;
  }
  if (current && sameSchedule(current.schedule, d.schedule)) return;
  stopTicker(state, req.key);
  const onTick = (at: Date): Promise<void> =>
    runTick(state, req.key, at).catch((err: unknown) =>
      state.runCtx?.log.error('scheduled backup failed', { cluster: req.name, namespace: req.namespace, error: errorMessage(err) }),
    );
  state.running.set(req.key, { schedule: d.schedule, ticker: state.startTicker(d.schedule, onTick) });
  log.info('backup schedule started', { schedule: cluster.spec.backupSchedule });
  const missed = current ? undefined : missedTick(cluster, d.schedule, state.now());
  if (missed) {
    log.info('running a tick no operator ran', { tick: missed.toISOString() });
    await onTick(missed);
  }
}

/** The BackupSchedule condition when it changed, with a Warning when the schedule is refused. */
async function actCondition(pass: Pass, d: Decided): Promise<void> {
  const { req, ctx, cluster, log } = pass;
  if (!d.conditions) return;
  if (d.schedule.state === 'invalid') {
    ctx.events.warning(cluster, d.schedule.reason, d.schedule.message);
    log.warn('backup schedule refused', { message: d.schedule.message });
  }
  await applyStatus(ctx.client, { ...KINDS.cluster, namespace: req.namespace, name: req.name }, CLUSTER_STATUS_OWNERS.backupCron, {
    conditions: d.conditions,
  });
}

/** Deletes the scheduled backups the retention policy no longer keeps. */
async function actRetention(pass: Pass, backups: Informer<Backup>, d: ScheduleDecision & { state: 'scheduled' }): Promise<void> {
  const { state, req, ctx, cluster } = pass;
  const scheduled = backups.list({ namespace: req.namespace, labels: scheduledLabels(req.name) });
  for (const name of chooseBackupsToPrune(scheduled, d.retention, state.now())) {
    if (await ctx.client.delete({ ...KINDS.backup, namespace: req.namespace, name })) {
      ctx.events.normal(cluster, CLUSTER_REASONS.scheduledBackupPruned, `deleted MysqlBackup ${name} (retention)`);
    }
  }
}

/** One tick of a cluster's schedule: a scheduled MysqlBackup, unless one of this time exists or one still runs. */
async function runTick(state: CronState, key: string, at: Date): Promise<void> {
  const ctx = state.runCtx;
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
