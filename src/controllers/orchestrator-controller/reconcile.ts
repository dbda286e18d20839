// One pass of the orchestrator controller over one cluster (docs/orchestrator-controller.md):
// gather the cluster, its pods, what their servers say and Orchestrator's whole view of it; decide
// with the pure decide-*.ts; then act in a fixed order, stopping at the first failure (the next
// pass decides again on fresh data).
import {
  CONDITION_STATUS,
  FINALIZER_ORCHESTRATOR,
  LABEL_CLUSTER,
  LABEL_ROLE,
  ORCHESTRATOR_REASONS,
  ROLE,
  type ConditionStatus,
} from '../../api/constants.ts';
import type { MysqlCluster } from '../../api/index.ts';
import { names } from '../../api/names.ts';
import { CLUSTER_STATUS_OWNERS } from '../../api/status-owners.ts';
import { isOrchestratorError, type Instance, type InstanceKey, type OrchestratorClient } from '../../orchestrator/index.ts';
import type { ControllerContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import { cacheMoved } from '../../runtime/cache-caught-up.ts';
import type { KubeClient } from '../../runtime/kube/client.ts';
import { isConflict } from '../../runtime/kube/errors.ts';
import type { Informer } from '../../runtime/informer.ts';
import { applyStatus } from '../../runtime/kube/apply-status.ts';
import type { KubeObject, ObjectRef } from '../../runtime/kube/types.ts';
import {
  asNode,
  credentialsFrom,
  missingKeyMessage,
  nodePods,
  PassServers,
  resolveByFqdn,
  systemUserNames,
  type GtidView,
  type NodeView,
  type PassServersOptions,
  type PodObject,
  type ResolvePod,
  type RoleView,
} from '../../topology/index.ts';
import { POD_TARGET } from '../shared/targets.ts';
import { KINDS } from '../shared/kinds.ts';
import { countFailovers } from './count-failovers.ts';
import { decideAck } from './decide-ack.ts';
import { decideDowntime, type DowntimeEnd } from './decide-downtime.ts';
import { decideErrant, decideRebuild, type ErrantDecision, type RebuildDecision } from './decide-errant.ts';
import { decideFinalizer, isDeleting, type FinalizerDecision } from './decide-finalizer.ts';
import { decideHook, freshHook, superseded } from './decide-hook.ts';
import { decideLabels, labelRounds, type LabelPatch } from './decide-labels.ts';
import { demotionsBeforePromotion, labelPatchBody } from './decide-promotion.ts';
import { decideMaster, type MasterVerdict } from './decide-master.ts';
import { decideReadOnly } from './decide-read-only.ts';
import { decideRegistration } from './decide-registration.ts';
import {
  decideSuccessor,
  hookCandidate,
  orchestratorCandidate,
  PROBE_POLL_MS,
  probeOnly,
  successorPending,
  type Candidate,
} from './decide-successor.ts';
import { decideStatus, isReady } from './decide-status.ts';
import { demotedByLabels, fenceDemoted } from './fence-demoted.ts';
import { alias, instanceKey, keyName, podNodes, roleLabel, sameInstance, type Gathered, type OrchestratorState } from './gathered.ts';
import type { FailoverSignals, HookSignal } from './hook-signals.ts';
import { orchestratorMetrics } from './metrics.ts';
import { syncSemiSync } from './semi-sync-step.ts';
import type { OrchestratorControllerOptions } from './options.ts';

type Cluster = MysqlCluster & KubeObject;

/** What a pass needs besides its options: the Orchestrator client, the shared signals, the memory. */
export interface PassDeps {
  opts: OrchestratorControllerOptions;
  orchestrator: OrchestratorClient;
  signals: FailoverSignals;
  memory: ControllerMemory;
  /** Pod → address of its server; default `<pod>.mysql.<ns>:3306`. */
  resolve?: ResolvePod;
  servers?: PassServersOptions;
}

/** Waits that are the system working as intended: Normal Events, not Warnings. */
const EXPECTED_HOLDS: ReadonlySet<string> = new Set([
  ORCHESTRATOR_REASONS.failoverInProgress,
  ORCHESTRATOR_REASONS.forgetGracePeriod,
  ORCHESTRATOR_REASONS.recoveryTooRecent,
  ORCHESTRATOR_REASONS.clusterNotReady,
  ORCHESTRATOR_REASONS.rejoinPending,
]);

/**
 * What the controller remembers between passes, per cluster key: the Ready status (for the
 * clusters gauge), the recoveries already counted, and the last reason each kind of decision held
 * for (so a hold is an Event when it changes, not on every pass).
 */
export class ControllerMemory {
  readonly ready = new Map<string, ConditionStatus>();
  readonly failoversSeen = new Map<string, Set<string>>();
  /** The pod kept labelled master on the last pass though its server did not answer. */
  readonly masterUnanswered = new Map<string, string>();
  /** The master pod the operator made read-only for spec.readOnly (decide-read-only.ts). */
  readonly frozenBySpec = new Map<string, string>();
  /** Hook calls whose successor the fast path labelled (and observed in the hook-to-labels histogram). */
  readonly hookLanded = new WeakSet<HookSignal>();
  /** Hook calls a full pass has gathered (decide-successor.ts probeOnly). */
  readonly fullPassSaw = new WeakSet<HookSignal>();
  readonly #holds = new Map<string, string>();

  /** True when `kind` of the cluster now holds for another reason than last pass (or did not hold). */
  holdChanged(cluster: string, kind: string, reason: string | undefined): boolean {
    const k = `${cluster}\u0000${kind}`;
    const before = this.#holds.get(k);
    if (reason === undefined) this.#holds.delete(k);
    else this.#holds.set(k, reason);
    return reason !== undefined && reason !== before;
  }

  forget(cluster: string): void {
    this.ready.delete(cluster);
    this.failoversSeen.delete(cluster);
    this.masterUnanswered.delete(cluster);
    this.frozenBySpec.delete(cluster);
    for (const k of this.#holds.keys()) if (k.startsWith(`${cluster}\u0000`)) this.#holds.delete(k);
  }
}

export async function reconcileOrchestrator(req: Request, ctx: ControllerContext, deps: PassDeps): Promise<ReconcileResult | undefined> {
  const metrics = orchestratorMetrics(ctx.registry);
  const clusters = await ctx.informer<Cluster>(KINDS.cluster);
  const cluster = clusters.get(req.namespace, req.name);
  if (!cluster) {
    deps.memory.forget(req.key);
    countReady(deps.memory, metrics.clustersByReady);
    return;
  }
  const pods = await ctx.informer<PodObject>(POD_TARGET);
  const steps = new StepClock();
  // One set of connections for the pass: the fast path's and the gather's reads share them.
  const servers = await passServers(ctx, cluster, deps);
  try {
    return await onePass(req, ctx, cluster, { clusters, pods }, servers, deps, metrics, steps);
  } catch (e) {
    // A label patch refused: the pod changed since the version the pass decided on. Decide again
    // on a fresh view rather than overwrite (and rather than back off: nothing failed).
    if (!isConflict(e)) throw e;
    ctx.log.debug('label patch conflict: gathering again', { cluster: req.key, error: e instanceof Error ? e.message : String(e) });
    return { requeueAfterMs: CONFLICT_RETRY_MS };
  } finally {
    if (servers instanceof PassServers) await servers.closeAll();
  }
}

/** How soon a pass whose label patch met a newer pod looks again: the pod cache catches up within a few ms. */
const CONFLICT_RETRY_MS = 50;

async function onePass(
  req: Request,
  ctx: ControllerContext,
  cluster: Cluster,
  caches: { clusters: Informer<Cluster>; pods: Informer<PodObject> },
  servers: PassServers | { message: string },
  deps: PassDeps,
  metrics: ReturnType<typeof orchestratorMetrics>,
  steps: StepClock,
): Promise<ReconcileResult | undefined> {
  const { pods } = caches;
  const probed = await labelHookSuccessor(req, ctx, cluster, pods, servers, deps, metrics, steps);
  if (probed && probeOnly(probed.hook, probed.candidate, deps.memory.fullPassSaw.has(probed.hook), new Date())) {
    ctx.log.debug('pass timings', { cluster: req.key, hook: probed.hook.process, probeOnly: true, ms: steps.laps });
    return { requeueAfterMs: PROBE_POLL_MS };
  }
  const g = await gather(req, ctx, cluster, pods, servers, deps, steps);
  if (g.hook) deps.memory.fullPassSaw.add(g.hook);
  const seen = deps.signals.latest(req.key);
  const pass = new Pass(req, ctx, g, deps, caches, servers);
  try {
    const result = await act(pass, g, deps, metrics, steps, () => superseded(seen, deps.signals.latest(req.key)));
    // Semi-sync follows the role the pass labelled (semi-sync-step.ts, docs/semi-sync.md).
    if (!isDeleting(g) && !superseded(seen, deps.signals.latest(req.key))) {
      pass.wroteCluster(await syncSemiSync(ctx, g, decideMaster(g), servers, metrics));
      steps.lap('semiSync');
    }
    return result;
  } finally {
    await pass.cachesCaughtUp();
    steps.lap('caches');
    // Where a pass spends its time, for the hook-to-label latency (the timings option of bench/failover-routing).
    ctx.log.debug('pass timings', { cluster: req.key, hook: g.hook?.process, ms: steps.laps });
  }
}

/**
 * The failover hook's fast path (decide-successor.ts): while a hook call is fresh and its candidate
 * (a Post* call's successor, or Orchestrator's master after a PreFailover call) is not labelled
 * master, read only read_only and the replication source of each server, side by side, and label
 * the candidate if they prove the promotion, before the full gather and before anything else is
 * written. The full pass follows, on caches that show these labels.
 */
async function labelHookSuccessor(
  req: Request,
  ctx: ControllerContext,
  cluster: Cluster,
  podCache: Informer<PodObject>,
  servers: PassServers | { message: string },
  deps: PassDeps,
  metrics: ReturnType<typeof orchestratorMetrics>,
  steps: StepClock,
): Promise<{ hook: HookSignal; candidate: Candidate | undefined } | undefined> {
  const hook = freshHook(deps.signals.latest(req.key), new Date());
  if (hook === undefined || !(servers instanceof PassServers)) return undefined;
  const pods = podCache.list({ namespace: req.namespace, labels: { [LABEL_CLUSTER]: req.name } });
  const role = (name: string): string | undefined => pods.find((p) => p.metadata?.name === name)?.metadata?.labels?.[LABEL_ROLE];
  const views = nodePods(pods, deps.resolve ?? resolveByFqdn).map((pod) => ({ pod, role: role(pod.name) }));
  const pre = hook.process === 'PreFailover';
  if (!pre && !successorPending(hookCandidate(hook), views)) return undefined;
  const [candidate, nodes] = await Promise.all([
    pre ? orchestratorMaster(deps.orchestrator, names.orchestratorAlias(req.name, req.namespace), ctx.signal) : hookCandidate(hook),
    // Deleting pods too: an old master on its way out may still take writes.
    Promise.all(views.map(async (v) => ({ ...v, server: v.pod.mysqlRunning ? await servers.observeRole(v.pod.endpoint) : null }))),
  ]);
  steps.lap('successorServers');
  const d = decideSuccessor(candidate, nodes);
  if (d.kind === 'wait')
    ctx.log.debug('failover successor not proven: the full pass decides', { cluster: req.key, hook: hook.process, why: d.message });
  if (d.kind !== 'label' || candidate === undefined || !stillNamed(candidate, hook, deps.signals.latest(req.key)))
    return { hook, candidate };
  const before = new Map(d.patches.map((p) => [p.pod, podCache.get(req.namespace, p.pod)?.metadata?.resourceVersion]));
  const demoted = await applyLabelRounds(ctx.client, req.namespace, req.name, d.patches, pods, async (p) => {
    if (!before.has(p.pod)) before.set(p.pod, podCache.get(req.namespace, p.pod)?.metadata?.resourceVersion);
    await patchPodLabels(ctx, req.namespace, p);
  });
  if (!pre) {
    metrics.hookToLabelsSeconds.observe(Math.max(0, Date.now() - hook.at.getTime()) / 1000);
    deps.memory.hookLanded.add(hook);
  }
  const was = d.demoted.length + demoted.length > 0 ? ` (was ${[...new Set([...d.demoted, ...demoted])].join(', ')})` : '';
  ctx.events.normal(
    cluster,
    ORCHESTRATOR_REASONS.masterLabelled,
    `role=master on ${d.successor.pod.name}${was}: named by ${candidate.namedBy}, writable and replicating from no one, and no other server takes writes`,
  );
  steps.lap('successorLabels');
  // The fence (docs/fencing.md): the old master's client sessions, once the labels route no more writes there.
  await fenceDemoted(
    ctx,
    cluster,
    servers,
    views.filter((v) => d.demoted.includes(v.pod.name)).map((v) => v.pod),
  );
  steps.lap('fence');
  await Promise.all([...before].map(([pod, rv]) => cacheMoved(podCache, req.namespace, pod, rv, ctx.signal)));
  return { hook, candidate };
}

/**
 * The servers' proof holds whatever the hook said since, but not the candidate: a call that came
 * during the reads must name the same successor (the PostMasterFailover call that usually
 * follows a PreFailover probe does), else the next pass decides on it.
 */
function stillNamed(c: Candidate, seen: HookSignal, latest: HookSignal | undefined): boolean {
  if (!superseded(seen, latest)) return true;
  const named = hookCandidate(latest);
  return named !== undefined && sameInstance(named.key, c.key);
}

/** Orchestrator's master of the cluster as a fast-path candidate; none when it cannot say (the full pass reports why). */
async function orchestratorMaster(client: OrchestratorClient, clusterAlias: string, signal: AbortSignal): Promise<Candidate | undefined> {
  try {
    return orchestratorCandidate((await client.master(clusterAlias, { signal })).key);
  } catch (e) {
    if (isOrchestratorError(e)) return undefined;
    throw e;
  }
}

export async function patchPodLabels(
  ctx: { client: Pick<KubeClient, 'patch'> },
  namespace: string,
  patch: LabelPatch,
): Promise<KubeObject> {
  return ctx.client.patch({ apiVersion: 'v1', kind: 'Pod', namespace, name: patch.pod }, labelPatchBody(patch), { type: 'merge' });
}

/**
 * The label patches in their rounds (decide-labels.ts), each guarded by the resourceVersion of the
 * pod as the pass decided on it (`decidedOn`): a pod changed since is a 409 Conflict, which ends the
 * pass, and the next one gathers again (reconcileOrchestrator). Before the promotion, the pods the
 * API server lists with role=master right now (not the cache, which may lag) lose the label, each
 * guarded by the version the list returned. Returns the pods demoted that way.
 */
export async function applyLabelRounds(
  client: Pick<KubeClient, 'list'>,
  namespace: string,
  cluster: string,
  patches: readonly LabelPatch[],
  decidedOn: readonly PodObject[],
  patch: (p: LabelPatch) => Promise<void>,
): Promise<string[]> {
  const version = (pod: string): string | undefined => decidedOn.find((o) => o.metadata?.name === pod)?.metadata?.resourceVersion;
  const guarded = patches.map((p) => ({ ...p, ...(version(p.pod) ? { resourceVersion: version(p.pod) } : {}) }));
  const demoted: string[] = [];
  for (const round of labelRounds(guarded)) {
    const promotion = round.find((p) => p.labels[LABEL_ROLE] === ROLE.master);
    if (promotion !== undefined) {
      const live = await client.list<PodObject>(POD_KIND, {
        namespace,
        labelSelector: { [LABEL_CLUSTER]: cluster, [LABEL_ROLE]: ROLE.master },
      });
      const more = demotionsBeforePromotion(promotion.pod, live.items);
      await Promise.all(more.map(patch));
      demoted.push(...more.map((p) => p.pod));
    }
    await Promise.all(round.map(patch));
  }
  return demoted;
}

const POD_KIND = { apiVersion: 'v1', kind: 'Pod' } as const;

/** Milliseconds since the pass began at the end of each named step. */
class StepClock {
  readonly #start = performance.now();
  readonly laps: Record<string, number> = {};
  lap(step: string): void {
    this.laps[step] = Math.round(performance.now() - this.#start);
  }
}

async function act(
  pass: Pass,
  g: Gathered,
  deps: PassDeps,
  metrics: ReturnType<typeof orchestratorMetrics>,
  steps: StepClock,
  stale: () => boolean,
): Promise<ReconcileResult | undefined> {
  const req = pass.req;
  const registration = decideRegistration(g, deps.opts.forgetGraceMs);
  const finalizer = decideFinalizer(g, registration, deps.opts.finalizerTimeoutMs);
  if (isDeleting(g)) return pass.finish(finalizer);

  if (finalizer.kind === 'add') await pass.setFinalizer(true);
  for (const key of registration.discover) await pass.discover(key);
  for (const key of registration.forget) await pass.forget(key);
  pass.hold('forget', registration.held[0]);

  // The labels before the status: they route the writes, and after a failover hook every
  // millisecond before the master label moves is one the master Service points at the old master.
  if (stale()) return;
  const decided = decideStatus(g);
  const labels = decideLabels(g, decided.status.nodes);
  await applyLabelRounds(pass.ctx.client, req.namespace, req.name, labels.patches, g.pods, (patch) => pass.label(patch));
  const labelledAt = new Date();
  steps.lap('labels');
  const verdict = decideMaster(g);
  const master = verdict.kind === 'master' ? verdict.node.pod : undefined;
  pass.announceMaster(labels.patches, labels.noMaster);
  pass.rememberUnanswered(verdict);
  // Measured and counted here, before the steps that may fail: the labels are what the hook waits for.
  const hook = decideHook(g.hook, master?.fqdn, labelledAt);
  if (hook.kind === 'settle' && g.hook) {
    // The fast path observed it when it labelled the successor.
    if (hook.landedSeconds !== undefined && !deps.memory.hookLanded.has(g.hook)) metrics.hookToLabelsSeconds.observe(hook.landedSeconds);
    deps.signals.settle(g.hook);
  }
  if (g.orchestrator.kind === 'reachable') {
    const { seen, counted } = countFailovers(deps.memory.failoversSeen.get(req.key), g.orchestrator.recoveries);
    deps.memory.failoversSeen.set(req.key, seen);
    for (const r of counted) metrics.failovers.inc({ outcome: r.successful ? 'successful' : 'failed' });
  }

  if (stale()) return;
  if (decided.write) await pass.writeStatus(decided.status);
  const errant = decideErrant(g);
  pass.announceErrant(errant);
  deps.memory.ready.set(req.key, decided.status.conditions[0].status);
  countReady(deps.memory, metrics.clustersByReady);
  steps.lap('status');

  if (stale()) return;
  const readOnly = decideReadOnly(g);
  if (readOnly.kind === 'hold') pass.hold('readOnly', readOnly);
  else {
    pass.hold('readOnly', readOnly.held);
    for (const change of readOnly.changes) {
      await pass.setReadOnly(change.key, change.readOnly);
      // The operator's own freeze of the master (spec.readOnly) is the one it may lift later.
      if (change.master !== undefined) {
        if (change.readOnly) deps.memory.frozenBySpec.set(req.key, change.master);
        else deps.memory.frozenBySpec.delete(req.key);
      }
    }
  }
  await pass.fenceDemoted();

  if (stale()) return;
  const rebuild = decideRebuild(g, errant);
  pass.hold('rebuild', rebuild.kind === 'hold' ? rebuild : undefined);
  if (rebuild.kind === 'rebuild') await pass.rebuild(rebuild);

  const downtime = decideDowntime(g, decided.status.nodes);
  pass.hold('downtime', downtime.held);
  for (const end of downtime.end) await pass.endDowntime(end);

  const ack = decideAck(g, isReady(decided.status), deps.opts.ackGraceMs);
  pass.hold('ack', ack.kind === 'hold' ? ack : undefined);
  if (ack.kind === 'ack')
    await pass.acknowledge(
      ack.recoveries.map((r) => r.id),
      ack.comment,
    );
  steps.lap('rest');

  if (hook.kind === 'poll') return { requeueAfterMs: hook.afterMs };
}

/** The clusters gauge from the remembered Ready status of each. */
function countReady(memory: ControllerMemory, gauge: ReturnType<typeof orchestratorMetrics>['clustersByReady']): void {
  for (const status of Object.values(CONDITION_STATUS)) {
    gauge.set({ ready: status }, [...memory.ready.values()].filter((s) => s === status).length);
  }
}

// ---------------------------------------------------------------------------------------------
// Gather

async function gather(
  req: Request,
  ctx: ControllerContext,
  cluster: Cluster,
  podCache: Informer<PodObject>,
  connections: PassServers | { message: string },
  deps: PassDeps,
  steps: StepClock,
): Promise<Gathered> {
  const pods = podCache.list({ namespace: req.namespace, labels: { [LABEL_CLUSTER]: req.name } });
  const keys = nodePods(pods, resolveByFqdn).map((p) => instanceKey(p.fqdn));
  // Side by side: a dead master's server may take its connect timeout to fail, and the labels
  // wait for the slower of the two.
  // The GTID histories after the roles, on the same connections: a failed read closes its
  // connection, which must not cut the role read the labels wait for.
  const [[servers, gtids], orchestrator] = await Promise.all([
    observeServers(pods, connections, deps)
      .then(async (roles) => [roles, await observeGtids(pods, connections, deps)] as const)
      .finally(() => steps.lap('servers')),
    askOrchestrator(deps.orchestrator, names.orchestratorAlias(req.name, req.namespace), keys, ctx.signal).finally(() =>
      steps.lap('orchestrator'),
    ),
  ]);
  const now = new Date();
  const latest = deps.signals.latest(req.key);
  const hook = freshHook(latest, now);
  if (latest !== undefined && hook === undefined) deps.signals.settle(latest);
  const unanswered = deps.memory.masterUnanswered.get(req.key);
  const frozenBySpec = deps.memory.frozenBySpec.get(req.key);
  const g: Gathered = {
    cluster,
    pods,
    servers,
    orchestrator,
    now,
    gtids: { views: gtids },
    ...(hook ? { hook } : {}),
    ...(unanswered ? { masterUnansweredBefore: unanswered } : {}),
    ...(frozenBySpec ? { frozenBySpec } : {}),
  };
  return confirmErrant(g, connections, deps);
}

/** Each running pod's GTID history and clone position (decide-errant.ts); null: not read. */
async function observeGtids(
  pods: readonly PodObject[],
  servers: PassServers | { message: string },
  deps: PassDeps,
): Promise<{ pod: string; gtid: GtidView | null }[]> {
  const views = nodePods(pods, deps.resolve ?? resolveByFqdn);
  return Promise.all(
    views.map(async (p) => ({
      pod: p.name,
      gtid: servers instanceof PassServers && p.mysqlRunning && !p.deleting ? await servers.observeGtid(p.endpoint) : null,
    })),
  );
}

/**
 * A replica is called errant only on a view of the master read after its own: when the pass's
 * side-by-side reads found one, the master's history is read once more (decide-errant.ts `confirm`).
 */
async function confirmErrant(g: Gathered, servers: PassServers | { message: string }, deps: PassDeps): Promise<Gathered> {
  const pod = decideErrant(g).confirm;
  const view = nodePods(g.pods, deps.resolve ?? resolveByFqdn).find((p) => p.name === pod);
  if (view === undefined || g.gtids === undefined || !(servers instanceof PassServers)) return g;
  const gtid = await servers.observeGtid(view.endpoint);
  const views = g.gtids.views.map((v) => (v.pod === view.name ? { pod: view.name, gtid } : v));
  return { ...g, gtids: { views, readLast: view.name } };
}

/** Connections to the cluster's servers as the operator user, or why there are none. */
async function passServers(ctx: ControllerContext, cluster: Cluster, deps: PassDeps): Promise<PassServers | { message: string }> {
  const name = names.operatedSecret(cluster.metadata?.name ?? '');
  const secret = (await ctx.informer<KubeObject & { data?: Record<string, string> }>(KINDS.secret)).get(
    cluster.metadata?.namespace ?? '',
    name,
  );
  const creds = credentialsFrom(secret?.data);
  if (!('missing' in creds)) return new PassServers(creds.operator, deps.servers, systemUserNames(secret?.data));
  return { message: secret ? missingKeyMessage(cluster.metadata?.name ?? '', creds.missing) : `Secret ${name} does not exist yet` };
}

/** What each running pod's server says about its role. */
async function observeServers(
  pods: readonly PodObject[],
  servers: PassServers | { message: string },
  deps: PassDeps,
): Promise<NodeView<RoleView>[]> {
  const views = nodePods(pods, deps.resolve ?? resolveByFqdn);
  if (servers instanceof PassServers) return servers.observeRoles(views);
  // Not observed is not "down": the decisions read an unanswered server as a reason not to act.
  const down = { reachable: false, problem: 'other', message: servers.message } as const;
  return views.map((p) => asNode<RoleView>(p, p.mysqlRunning && !p.deleting ? down : null));
}

/**
 * Orchestrator's whole view of the cluster, or `unreachable`: never a half view, which the labels
 * would follow. `unknown-cluster` is "no cluster yet" and `unknown-instance` "not registered".
 */
export async function askOrchestrator(
  client: OrchestratorClient,
  clusterAlias: string,
  pods: readonly InstanceKey[],
  signal: AbortSignal,
): Promise<OrchestratorState> {
  const o = { signal };
  try {
    const [master, listed, analysis, recoveries] = await allInOrder([
      unless('unknown-cluster', client.master(clusterAlias, o), null),
      unless('unknown-cluster', client.clusterByAlias(clusterAlias, o), []),
      client.replicationAnalysis(clusterAlias, o),
      unless('unknown-cluster', client.recoveries(clusterAlias, o), []),
    ] as const);
    const unlisted = pods.filter((k) => !listed.some((i) => sameInstance(i.key, k)));
    const more = await allInOrder(unlisted.map((k) => unless('unknown-instance', client.instance(k, o), undefined)));
    const instances = [...listed, ...more.filter((i): i is Instance => i !== undefined)];
    return { kind: 'reachable', master, instances, analysis, recoveries };
  } catch (e) {
    if (isOrchestratorError(e)) return { kind: 'unreachable', message: e.message };
    throw e;
  }
}

/**
 * Promise.all, but a failure is the first one in the list's order rather than the first to
 * happen: the message goes into status, and one that changed with the timing would rewrite it on
 * every pass while Orchestrator stays down.
 */
async function allInOrder<T extends readonly unknown[]>(ps: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(ps);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

async function unless<T, F>(kind: 'unknown-cluster' | 'unknown-instance', p: Promise<T>, fallback: F): Promise<T | F> {
  try {
    return await p;
  } catch (e) {
    if (isOrchestratorError(e) && e.kind === kind) return fallback;
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// Act

/** The writes of one pass, each with its Event; a failure throws and ends the pass. */
class Pass {
  readonly req: Request;
  readonly #ctx: ControllerContext;
  get ctx(): ControllerContext {
    return this.#ctx;
  }
  readonly #cluster: Cluster;
  readonly #g: Gathered;
  readonly #deps: PassDeps;
  readonly #caches: { clusters: Informer<Cluster>; pods: Informer<PodObject> };
  /** Reasons of the hold Events of this pass. */
  readonly #announced = new Set<string>();
  /** Objects written, with the cached resourceVersion the pass decided on. */
  readonly #written = new Map<string, { cache: Informer<KubeObject>; name: string; before: string | undefined }>();
  readonly #servers: PassServers | { message: string };
  /** Pods demoted by this pass (role=master taken off, or made read-only): fenced by fenceDemoted(). */
  readonly #demoted = new Set<string>();

  constructor(
    req: Request,
    ctx: ControllerContext,
    g: Gathered,
    deps: PassDeps,
    caches: { clusters: Informer<Cluster>; pods: Informer<PodObject> },
    servers: PassServers | { message: string },
  ) {
    this.req = req;
    this.#ctx = ctx;
    this.#cluster = g.cluster as Cluster;
    this.#g = g;
    this.#deps = deps;
    this.#caches = caches;
    this.#servers = servers;
  }

  /** The fence (docs/fencing.md): the client sessions of the servers this pass demoted, killed once read-only. */
  async fenceDemoted(): Promise<void> {
    if (this.#demoted.size === 0 || !(this.#servers instanceof PassServers)) return;
    const pods = podNodes(this.#g)
      .filter((n) => this.#demoted.has(n.pod.name))
      .map((n) => n.pod);
    await fenceDemoted(this.#ctx, this.#cluster, this.#servers, pods);
  }

  /**
   * Waits until the caches show this pass's writes, so the next pass of the cluster (which may
   * start at once: our own writes enqueue it) does not decide on the versions before them and
   * write, or announce, the same again.
   */
  async cachesCaughtUp(): Promise<void> {
    await Promise.all([...this.#written.values()].map((w) => cacheMoved(w.cache, this.req.namespace, w.name, w.before, this.#ctx.signal)));
  }

  /**
   * `written`: what the API server answered. A write that changed nothing (labels another pass
   * already set) answers with the version the cache holds, which then never moves: the pass waited
   * out CACHE_CATCH_UP_MS with a hook call queued behind it (docs/switchover.md).
   */
  #wrote(cache: Informer<KubeObject>, name: string, before: string | undefined, written: KubeObject): void {
    const after = written?.metadata?.resourceVersion;
    if (after !== undefined && after === before) return;
    if (!this.#written.has(`${cache.target.kind}/${name}`)) this.#written.set(`${cache.target.kind}/${name}`, { cache, name, before });
  }

  /** A status write of the cluster by another step of the pass (semi-sync-step.ts). */
  wroteCluster(written: KubeObject | undefined): void {
    if (written) this.#clusterWritten(written);
  }

  #clusterWritten(written: KubeObject): void {
    this.#wrote(this.#caches.clusters, this.req.name, this.#cluster.metadata?.resourceVersion, written);
  }

  async label(patch: LabelPatch): Promise<void> {
    const cached = this.#caches.pods.get(this.req.namespace, patch.pod);
    for (const pod of demotedByLabels(() => cached?.metadata?.labels?.[LABEL_ROLE], [patch])) this.#demoted.add(pod);
    const before = cached?.metadata?.resourceVersion;
    const written = await patchPodLabels(this.#ctx, this.req.namespace, patch);
    this.#wrote(this.#caches.pods, patch.pod, before, written);
  }

  #clusterRef(): ObjectRef {
    return {
      apiVersion: this.#cluster.apiVersion ?? KINDS.cluster.apiVersion,
      kind: KINDS.cluster.kind,
      namespace: this.req.namespace,
      name: this.req.name,
    };
  }

  /** Guarded by resourceVersion: a merge patch replaces the whole list, and others may change it. */
  async setFinalizer(present: boolean): Promise<void> {
    const others = (this.#cluster.metadata?.finalizers ?? []).filter((f) => f !== FINALIZER_ORCHESTRATOR);
    const finalizers = present ? [...others, FINALIZER_ORCHESTRATOR] : others;
    this.#clusterWritten(
      await this.#ctx.client.patch(
        this.#clusterRef(),
        { metadata: { resourceVersion: this.#cluster.metadata?.resourceVersion, finalizers } },
        { type: 'merge' },
      ),
    );
  }

  async discover(key: InstanceKey): Promise<void> {
    try {
      await this.#deps.orchestrator.discover(key, { signal: this.#ctx.signal });
      this.#ctx.log.info('registered in Orchestrator', { cluster: this.req.key, instance: keyName(key) });
    } catch (e) {
      // Its server does not answer Orchestrator yet: not yet, and nothing to tell anyone.
      if (isOrchestratorError(e) && e.kind === 'mysql-unreachable') return;
      throw e;
    }
  }

  async forget(key: InstanceKey): Promise<void> {
    try {
      await this.#deps.orchestrator.forget(key, { signal: this.#ctx.signal });
    } catch (e) {
      if (!(isOrchestratorError(e) && e.kind === 'unknown-instance')) throw e;
    }
    this.#ctx.events.normal(this.#cluster, ORCHESTRATOR_REASONS.instanceForgotten, `${keyName(key)} forgotten in Orchestrator`);
  }

  async writeStatus(status: ReturnType<typeof decideStatus>['status']): Promise<void> {
    this.#clusterWritten(
      await applyStatus(this.#ctx.client, this.#clusterRef(), CLUSTER_STATUS_OWNERS.orchestrator, {
        nodes: status.nodes,
        conditions: status.conditions,
      }),
    );
  }

  /**
   * An Event when the patches moved role=master (to a pod, or off every pod), else when the reason
   * no master is labelled changed; while Orchestrator is unreachable the labels stay as they were.
   */
  announceMaster(patches: readonly LabelPatch[], noMaster: { reason: string; message: string } | undefined): void {
    const role = new Map(podNodes(this.#g).map((n) => [n.pod.name, roleLabel(n)]));
    const masters = (): string[] => [...role].filter(([, r]) => r === ROLE.master).map(([pod]) => pod);
    const before = masters();
    for (const p of patches) role.set(p.pod, p.labels[LABEL_ROLE]);
    const after = masters();
    const moved = after.join() !== before.join();
    const changed = this.#deps.memory.holdChanged(this.req.key, 'master', noMaster?.reason);
    if (moved && after.length > 0) {
      const was = before.length > 0 ? ` (was ${before.join(', ')})` : '';
      this.#ctx.events.normal(this.#cluster, ORCHESTRATOR_REASONS.masterLabelled, `role=master on ${after.join(', ')}${was}`);
      return;
    }
    if (noMaster === undefined || !(moved || changed)) return;
    const what = moved
      ? `role=master taken from ${before.join(', ')}`
      : after.length > 0
        ? `role=master left on ${after.join(', ')}`
        : 'no pod is labelled master';
    this.#announced.add(noMaster.reason);
    this.#ctx.events.warning(this.#cluster, noMaster.reason, `${what}: ${noMaster.message}`);
  }

  /**
   * The master kept labelled though its server did not answer: remembered, so a second miss in a
   * row takes the label off, and a Warning Event the first time (an on-call engineer sees it).
   */
  rememberUnanswered(verdict: MasterVerdict): void {
    const memory = this.#deps.memory.masterUnanswered;
    if (verdict.kind !== 'master' || verdict.unanswered === undefined) {
      memory.delete(this.req.key);
      return;
    }
    const pod = verdict.node.pod.name;
    if (memory.get(this.req.key) === pod) return;
    memory.set(this.req.key, pod);
    const message = `role=master kept on ${pod} on Orchestrator's word: its server did not answer this pass (${verdict.unanswered})`;
    this.#ctx.log.info('master unanswered, label kept', { cluster: this.req.key, pod, error: verdict.unanswered });
    this.#ctx.events.warning(this.#cluster, ORCHESTRATOR_REASONS.masterUnanswered, message);
  }

  /**
   * A Warning Event for each replica found errant, when what it holds changed since it was last
   * announced (not on every pass); a replica compared clean is forgotten.
   */
  announceErrant(d: ErrantDecision): void {
    for (const n of podNodes(this.#g)) {
      const found = d.errant.find((e) => e.pod === n.pod.name);
      const kind = `errant/${n.pod.name}`;
      if (found !== undefined) {
        if (this.#deps.memory.holdChanged(this.req.key, kind, found.gtids.join(','))) {
          this.#ctx.events.warning(this.#cluster, ORCHESTRATOR_REASONS.errantTransactions, found.message);
        }
      } else if (d.status.get(n.pod.fqdn) === CONDITION_STATUS.false) {
        this.#deps.memory.holdChanged(this.req.key, kind, undefined);
      }
    }
  }

  /**
   * spec.rebuildErrantReplicas: the data claim first (it stays Terminating while the pod uses it),
   * then the pod, guarded by the uid the pass decided on; the StatefulSet makes the claim and the
   * pod again once the old claim is gone, and the new pod's init container clones.
   */
  async rebuild(r: Extract<RebuildDecision, { kind: 'rebuild' }>): Promise<void> {
    await this.#ctx.client.delete({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: this.req.namespace, name: r.claim });
    await this.#ctx.client.delete(
      { apiVersion: 'v1', kind: 'Pod', namespace: this.req.namespace, name: r.pod },
      r.uid === undefined ? {} : { preconditions: { uid: r.uid } },
    );
    this.#ctx.log.info('errant replica rebuilt', { cluster: this.req.key, pod: r.pod });
    this.#ctx.events.warning(this.#cluster, ORCHESTRATOR_REASONS.errantReplicaRebuilt, r.message);
  }

  async setReadOnly(key: InstanceKey, readOnly: boolean): Promise<void> {
    const o = { signal: this.#ctx.signal };
    await (readOnly ? this.#deps.orchestrator.setReadOnly(key, o) : this.#deps.orchestrator.setWriteable(key, o));
    const node = readOnly ? podNodes(this.#g).find((n) => sameInstance(n.key, key)) : undefined;
    if (node) this.#demoted.add(node.pod.name);
    this.#ctx.events.normal(
      this.#cluster,
      ORCHESTRATOR_REASONS.readOnlyChanged,
      `${keyName(key)} made ${readOnly ? 'read-only' : 'writable'} through Orchestrator`,
    );
  }

  async endDowntime(end: DowntimeEnd): Promise<void> {
    await this.#deps.orchestrator.endDowntime(end.key, { signal: this.#ctx.signal });
    this.#ctx.events.normal(this.#cluster, ORCHESTRATOR_REASONS.downtimeEnded, end.message);
  }

  async acknowledge(ids: number[], comment: string): Promise<void> {
    await this.#deps.orchestrator.ackRecoveries(alias(this.#g), comment, { signal: this.#ctx.signal });
    this.#ctx.events.normal(
      this.#cluster,
      ORCHESTRATOR_REASONS.recoveriesAcknowledged,
      `recoveries ${ids.join(', ')} acknowledged in Orchestrator`,
    );
  }

  /**
   * A decision not to act, as an Event when its reason changed since the last pass; one per reason
   * and pass (Orchestrator down holds every kind of decision for the same reason).
   */
  hold(kind: string, held: { reason: string; message: string } | undefined): void {
    if (!this.#deps.memory.holdChanged(this.req.key, kind, held?.reason) || held === undefined) return;
    if (this.#announced.has(held.reason)) return;
    this.#announced.add(held.reason);
    if (EXPECTED_HOLDS.has(held.reason)) this.#ctx.events.normal(this.#cluster, held.reason, held.message);
    else this.#ctx.events.warning(this.#cluster, held.reason, held.message);
  }

  /** A cluster being deleted: forget its instances, then let it go (decide-finalizer.ts). */
  async finish(d: FinalizerDecision): Promise<ReconcileResult | undefined> {
    switch (d.kind) {
      case 'forget':
        for (const key of d.keys) await this.forget(key);
        await this.setFinalizer(false);
        this.#deps.memory.forget(this.req.key);
        return;
      case 'wait': {
        const decided = decideStatus(this.#g);
        if (decided.write) await this.writeStatus(decided.status);
        this.hold('delete', d);
        return { requeueAfterMs: d.retryAfterMs };
      }
      case 'release':
        await this.setFinalizer(false);
        this.#ctx.events.warning(this.#cluster, d.reason, d.message);
        this.#deps.memory.forget(this.req.key);
        return;
      default:
        return;
    }
  }
}
