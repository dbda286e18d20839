// The failover hook's fast path: the successor a hook call names labelled master as soon as its
// server proves the promotion (decide-successor.ts), before the full gather.
import { LABEL_CLUSTER, LABEL_ROLE, ORCHESTRATOR_REASONS } from '../../api/constants.ts';
import { names } from '../../api/names.ts';
import { isOrchestratorError, type OrchestratorClient } from '../../orchestrator/index.ts';
import { cacheMoved } from '../../runtime/cache-caught-up.ts';
import { nodePods, PassServers, resolveByFqdn } from '../../topology/index.ts';
import { freshHook, superseded } from './decide-hook.ts';
import { decideSuccessor, hookCandidate, orchestratorCandidate, successorPending, type Candidate } from './decide-successor.ts';
import { fenceDemoted } from './fence-demoted.ts';
import { sameInstance } from './gathered.ts';
import type { HookSignal } from './hook-signals.ts';
import type { PassInput } from './pass-input.ts';
import { applyLabelRounds, patchPodLabels } from './pod-labels.ts';

/**
 * The failover hook's fast path (decide-successor.ts): while a hook call is fresh and its candidate
 * (a Post* call's successor, or Orchestrator's master after a PreFailover call) is not labelled
 * master, read only read_only and the replication source of each server, side by side, and label
 * the candidate if they prove the promotion, before the full gather and before anything else is
 * written. The full pass follows, on caches that show these labels.
 */
export async function labelHookSuccessor(p: PassInput): Promise<{ hook: HookSignal; candidate: Candidate | undefined } | undefined> {
  const { req, ctx, cluster, servers, deps, metrics, steps } = p;
  const podCache = p.caches.pods;
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
