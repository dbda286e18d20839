// One pass of the orchestrator controller over one cluster (docs/orchestrator-controller.md):
// label a failover hook's successor first when its server proves it (label-successor.ts); gather
// the cluster, its pods, what their servers say and Orchestrator's whole view of it (gather.ts);
// then decide with the pure decide-*.ts and act (pass-writes.ts) in a fixed order of named steps,
// stopping at the first failure (the next pass decides again on fresh data) and before each step
// once a newer hook call has made the gathered view stale.
import { isConflict } from '../../runtime/kube/errors.ts';
import type { ControllerContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import { PassServers, type PodObject } from '../../topology/index.ts';
import { KINDS } from '../shared/kinds.ts';
import { POD_TARGET } from '../shared/targets.ts';
import { countFailovers } from './count-failovers.ts';
import { decideAck } from './decide-ack.ts';
import { decideDowntime } from './decide-downtime.ts';
import { decideErrant, decideRebuild, type ErrantDecision } from './decide-errant.ts';
import { decideFinalizer, isDeleting } from './decide-finalizer.ts';
import { decideHandover } from './decide-handover.ts';
import { decideHook, superseded, type HookDecision } from './decide-hook.ts';
import { decideLabels } from './decide-labels.ts';
import { decideMaster, type MasterVerdict } from './decide-master.ts';
import { decideReadOnly } from './decide-read-only.ts';
import { decideRequeue } from './decide-requeue.ts';
import { decideRegistration } from './decide-registration.ts';
import { decideStatus, isReady } from './decide-status.ts';
import { PROBE_POLL_MS, probeOnly } from './decide-successor.ts';
import { gather, passServers } from './gather.ts';
import type { Gathered } from './gathered.ts';
import { labelHookSuccessor } from './label-successor.ts';
import { countReady } from './memory.ts';
import { orchestratorMetrics } from './metrics.ts';
import type { Cluster, PassDeps, PassInput } from './pass-input.ts';
import { PassWrites } from './pass-writes.ts';
import { applyLabelRounds } from './pod-labels.ts';
import { syncSemiSync } from './semi-sync-step.ts';
import { StepClock } from './step-clock.ts';

/** How soon a pass whose label patch met a newer pod looks again: the pod cache catches up within a few ms. */
const CONFLICT_RETRY_MS = 50;

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
    return await onePass({ req, ctx, cluster, caches: { clusters, pods }, servers, deps, metrics, steps });
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

async function onePass(p: PassInput): Promise<ReconcileResult | undefined> {
  const { req, ctx, deps, steps } = p;
  const probed = await labelHookSuccessor(p);
  if (probed && probeOnly(probed.hook, probed.candidate, deps.memory.fullPassSaw.has(probed.hook), new Date())) {
    ctx.log.debug('pass timings', { cluster: req.key, hook: probed.hook.process, probeOnly: true, ms: steps.laps });
    return { requeueAfterMs: PROBE_POLL_MS };
  }
  const g = await gather(p);
  if (g.hook) deps.memory.fullPassSaw.add(g.hook);
  const seen = deps.signals.latest(req.key);
  const writes = new PassWrites(req, ctx, g, deps, p.caches, p.servers);
  const step: Step = { p, g, writes, stale: () => superseded(seen, deps.signals.latest(req.key)) };
  try {
    const result = await decideAndAct(step);
    // Semi-sync follows the role the pass labelled (semi-sync-step.ts, docs/semi-sync.md).
    if (!isDeleting(g) && !step.stale()) {
      writes.wroteCluster(await syncSemiSync(ctx, g, decideMaster(g), p.servers, p.metrics));
      steps.lap('semiSync');
    }
    return result;
  } finally {
    await writes.cachesCaughtUp();
    steps.lap('caches');
    // Where a pass spends its time, for the hook-to-label latency (the timings option of bench/failover-routing).
    ctx.log.debug('pass timings', { cluster: req.key, hook: g.hook?.process, ms: steps.laps });
  }
}

/** One step of decide → act: the pass's input, its gathered view, its writes, and whether a newer hook call made the view stale. */
interface Step {
  p: PassInput;
  g: Gathered;
  writes: PassWrites;
  stale: () => boolean;
}

/** The steps in their order; a stale view ends the pass before the next step. */
async function decideAndAct(s: Step): Promise<ReconcileResult | undefined> {
  if (isDeleting(s.g))
    return s.writes.finish(decideFinalizer(s.g, decideRegistration(s.g, s.p.deps.opts.forgetGraceMs), s.p.deps.opts.finalizerTimeoutMs));
  const discovered = await registration(s);
  s.p.steps.lap('registration');
  // The labels before the status: they route the writes, and after a failover hook every
  // millisecond before the master label moves is one the master Service points at the old master.
  if (s.stale()) return;
  const decided = decideStatus(s.g);
  const hook = await labels(s, decided.status.nodes);
  if (s.stale()) return;
  const errant = await status(s, decided);
  if (s.stale()) return;
  const madeWritable = await readOnly(s);
  if (s.stale()) return;
  await repairs(s, errant, decided.status);
  if (s.stale()) return;
  const verdict = decideMaster(s.g);
  await handover(s, verdict);
  const anyServerAnswered = s.g.servers.some((v) => v.server?.reachable === true);
  const soon = decideRequeue({ discovered, madeWritable, anyServerAnswered }, verdict);
  const after = [hook.kind === 'poll' ? hook.afterMs : undefined, soon].filter((ms): ms is number => ms !== undefined);
  if (after.length > 0) return { requeueAfterMs: Math.min(...after) };
}

/** The finalizer, then Orchestrator's registrations: pods discovered, gone pods forgotten. Returns how many were discovered. */
async function registration(s: Step): Promise<number> {
  const { g, writes } = s;
  const d = decideRegistration(g, s.p.deps.opts.forgetGraceMs);
  if (decideFinalizer(g, d, s.p.deps.opts.finalizerTimeoutMs).kind === 'add') await writes.setFinalizer(true);
  for (const key of d.discover) await writes.discover(key);
  for (const key of d.forget) await writes.forget(key);
  writes.hold('forget', d.held[0]);
  return d.discover.length;
}

/** The pod labels `role` and `healthy`; then the hook call they answer, and the failovers Orchestrator recorded. */
async function labels(s: Step, nodes: ReturnType<typeof decideStatus>['status']['nodes']): Promise<HookDecision> {
  const { p, g, writes } = s;
  const { req, deps, metrics } = p;
  const d = decideLabels(g, nodes);
  await applyLabelRounds(p.ctx.client, req.namespace, req.name, d.patches, g.pods, (patch) => writes.label(patch));
  const labelledAt = new Date();
  p.steps.lap('labels');
  const verdict = decideMaster(g);
  const master = verdict.kind === 'master' ? verdict.node.pod : undefined;
  writes.announceMaster(d.patches, d.noMaster);
  writes.rememberUnanswered(verdict);
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
  return hook;
}

/** status.nodes and the conditions, the errant replicas' Events, and the clusters gauge. */
async function status(s: Step, decided: ReturnType<typeof decideStatus>): Promise<ErrantDecision> {
  const { p, g, writes } = s;
  if (decided.write) await writes.writeStatus(decided.status);
  const errant = decideErrant(g);
  writes.announceErrant(errant);
  p.deps.memory.ready.set(p.req.key, decided.status.conditions[0].status);
  countReady(p.deps.memory, p.metrics.clustersByReady);
  p.steps.lap('status');
  return errant;
}

/** read_only of the master and the replicas, then the fence on the servers this pass demoted. */
/** Returns how many servers it made writable. */
async function readOnly(s: Step): Promise<number> {
  const { p, g, writes } = s;
  const memory = p.deps.memory;
  const d = decideReadOnly(g);
  let madeWritable = 0;
  if (d.kind === 'hold') writes.hold('readOnly', d);
  else {
    writes.hold('readOnly', d.held);
    for (const change of d.changes) {
      await writes.setReadOnly(change.key, change.readOnly);
      if (!change.readOnly) madeWritable += 1;
      // The operator's own freeze of the master (spec.readOnly) is the one it may lift later.
      if (change.master !== undefined) {
        if (change.readOnly) memory.frozenBySpec.set(p.req.key, change.master);
        else memory.frozenBySpec.delete(p.req.key);
      }
    }
  }
  await writes.fenceDemoted();
  return madeWritable;
}

/** A master whose pod a scale-down removes handed over to a pod that stays (decide-handover.ts). */
async function handover(s: Step, verdict: MasterVerdict): Promise<void> {
  const d = decideHandover(s.g, verdict);
  s.writes.hold('handover', d.kind === 'hold' ? d : undefined);
  if (d.kind === 'takeover') await s.writes.takeover(d);
  s.p.steps.lap('handover');
}

/** An errant replica rebuilt, downtimes ended, recoveries acknowledged. */
async function repairs(s: Step, errant: ErrantDecision, status: ReturnType<typeof decideStatus>['status']): Promise<void> {
  const { p, g, writes } = s;
  const rebuild = decideRebuild(g, errant);
  writes.hold('rebuild', rebuild.kind === 'hold' ? rebuild : undefined);
  if (rebuild.kind === 'rebuild') await writes.rebuild(rebuild);

  const downtime = decideDowntime(g, status.nodes);
  writes.hold('downtime', downtime.held);
  for (const end of downtime.end) await writes.endDowntime(end);

  const ack = decideAck(g, isReady(status), p.deps.opts.ackGraceMs);
  writes.hold('ack', ack.kind === 'hold' ? ack : undefined);
  if (ack.kind === 'ack')
    await writes.acknowledge(
      ack.recoveries.map((r) => r.id),
      ack.comment,
    );
  p.steps.lap('rest');
}
