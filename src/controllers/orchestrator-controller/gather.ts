// Gather: one pass's whole view of a cluster, read side by side: its pods, what their servers say
// about their roles and GTID histories (src/topology/), and Orchestrator's view of it.
import { LABEL_CLUSTER } from '../../api/constants.ts';
import { names } from '../../api/names.ts';
import { isOrchestratorError, type Instance, type InstanceKey, type OrchestratorClient } from '../../orchestrator/index.ts';
import type { ControllerContext } from '../../runtime/controller.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';
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
  type PodObject,
  type RoleView,
} from '../../topology/index.ts';
import { KINDS } from '../shared/kinds.ts';
import { decideErrant } from './decide-errant.ts';
import { freshHook } from './decide-hook.ts';
import { instanceKey, sameInstance, type Gathered, type OrchestratorState } from './gathered.ts';
import type { Cluster, PassDeps, PassInput, Servers } from './pass-input.ts';

/** Everything one pass decides on, read side by side (decide-*.ts take it whole). */
export async function gather(p: PassInput): Promise<Gathered> {
  const { req, ctx, cluster, deps, steps } = p;
  const podCache = p.caches.pods;
  const connections = p.servers;
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
  servers: Servers,
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
async function confirmErrant(g: Gathered, servers: Servers, deps: PassDeps): Promise<Gathered> {
  const pod = decideErrant(g).confirm;
  const view = nodePods(g.pods, deps.resolve ?? resolveByFqdn).find((p) => p.name === pod);
  if (view === undefined || g.gtids === undefined || !(servers instanceof PassServers)) return g;
  const gtid = await servers.observeGtid(view.endpoint);
  const views = g.gtids.views.map((v) => (v.pod === view.name ? { pod: view.name, gtid } : v));
  return { ...g, gtids: { views, readLast: view.name } };
}

/** Connections to the cluster's servers as the operator user, or why there are none. */
export async function passServers(ctx: ControllerContext, cluster: Cluster, deps: Pick<PassDeps, 'servers'>): Promise<Servers> {
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
async function observeServers(pods: readonly PodObject[], servers: Servers, deps: PassDeps): Promise<NodeView<RoleView>[]> {
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
