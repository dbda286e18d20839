// One pass over one pod: gather the pod, its cluster and the operated Secret (gather,
// readCredentials); then observe → decide (decide-node-step.ts) → act (act, report), one step at
// a time (configure), until the pod is configured, a wait is decided, or the step budget is spent. Every step is idempotent and the decision is re-made from freshly read server
// state after each one, so a pass killed between two steps resumes correctly.
import { setTimeout as sleep } from 'node:timers/promises';
import { LABEL_CLUSTER, LABEL_ROLE, NODE_REASONS, ROLE, type NodeReason } from '../../api/constants.ts';
import type { MysqlCluster } from '../../api/index.ts';
import type { MysqlNode } from '../../mysql/index.ts';
import type { ControllerContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import { cacheMoved } from '../../runtime/cache-caught-up.ts';
import type { Informer } from '../../runtime/informer.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';
import { errorMessage, type Logger } from '../../runtime/logger.ts';
import { names } from '../../api/names.ts';
import {
  clusterView,
  credentialsFrom,
  missingKeyMessage,
  nodePods,
  PassServers,
  podView,
  resolveByFqdn,
  type ClusterView,
  type NodeView,
  type OperatedCredentials,
  type PassServersOptions,
  type PodObject,
  type ResolvePod,
} from '../../topology/index.ts';
import { KINDS } from '../shared/kinds.ts';
import { POD_TARGET } from '../shared/targets.ts';
import { decideNodeStep, needsCheck, type NodePod, type NodeStep, type StepKind } from './decide-node-step.ts';
import { nodeInitializedCondition, verifiedSinceStart, type NodeOutcome } from './decide-condition.ts';

export { POD_TARGET };
/** The cluster controller's targets, so both controllers share one cache of each. */
export const CLUSTER_TARGET = KINDS.cluster;
export const SECRET_TARGET = KINDS.secret;

/** `connect` and the timeouts: how the pass reaches the servers. */
export interface NodeControllerOptions extends PassServersOptions {
  /** Pod → address of its server; default `<pod>.mysql.<ns>:3306`. */
  resolve?: ResolvePod;
  /** The replica IO thread's reconnect interval set with CHANGE MASTER. */
  connectRetrySeconds?: number;
  /** How long a pass polls a transient state (replication connecting) before requeueing. */
  settleMs?: number;
  /** Called after each performed step (tests stop the process here). */
  afterStep?: (pod: string, step: NodeStep) => void | Promise<void>;
}

/** A decision not to act yet: thrown so the queue retries the pod with backoff. */
export class NodeNotConfiguredError extends Error {
  readonly reason: string;
  constructor(reason: string, message: string) {
    super(`${reason}: ${message}`);
    this.name = 'NodeNotConfiguredError';
    this.reason = reason;
  }
}

const MAX_STEPS_PER_PASS = 8;
const POLL_MS = 250;
/** Waits that are the system working as intended, not something to fix: Normal Events. */
const EXPECTED_WAITS: ReadonlySet<string> = new Set([
  NODE_REASONS.failoverInProgress,
  NODE_REASONS.replicationConnecting,
  NODE_REASONS.serverStarting,
  NODE_REASONS.masterReadOnly,
]);

interface Pass {
  req: Request;
  ctx: ControllerContext;
  opts: NodeControllerOptions;
  pod: PodObject;
  view: NodePod;
  cluster: ClusterView;
  pods: Informer<PodObject>;
  resolve: ResolvePod;
  log: Logger;
  /** The pass wrote the pod's condition (it ends once the pod cache shows it). */
  wroteCondition: boolean;
}

export async function reconcileNode(
  req: Request,
  ctx: ControllerContext,
  opts: NodeControllerOptions,
): Promise<ReconcileResult | undefined> {
  const pass = await gather(req, ctx, opts);
  if (!pass) return;
  const { pods, pod } = pass;
  try {
    const creds = await readCredentials(pass);
    const servers = new PassServers(creds.operator, opts);
    try {
      return await configure(pass, creds, servers);
    } catch (err) {
      if (err instanceof NodeNotConfiguredError) throw err;
      return await refuse(pass, NODE_REASONS.stepFailed, errorMessage(err));
    } finally {
      await servers.closeAll();
    }
  } finally {
    // The next pass of this pod may be queued already (a resync, a cluster change): on the cached
    // pod from before the write it would write the condition and its Event again.
    if (pass.wroteCondition) await cacheMoved(pods, req.namespace, req.name, pod.metadata?.resourceVersion, ctx.signal);
  }
}

/**
 * The pod, its cluster and the pod cache, as one pass; none when there is nothing to configure
 * yet (the pod's next status change, its container started, enqueues it again).
 */
async function gather(req: Request, ctx: ControllerContext, opts: NodeControllerOptions): Promise<Pass | undefined> {
  const pods = await ctx.informer<PodObject>(POD_TARGET);
  const pod = pods.get(req.namespace, req.name);
  const clusterName = pod?.metadata?.labels?.[LABEL_CLUSTER];
  if (!pod || !clusterName) return undefined;
  const cluster = (await ctx.informer<MysqlCluster>(CLUSTER_TARGET)).get(req.namespace, clusterName);
  if (!cluster) return undefined;
  const resolve = opts.resolve ?? resolveByFqdn;
  const view = {
    ...podView(pod, resolve),
    verifiedSinceStart: verifiedSinceStart(pod),
    labelledMaster: pod.metadata?.labels?.[LABEL_ROLE] === ROLE.master,
  };
  if (view.ordinal < 0 || view.deleting || !view.mysqlRunning) return undefined;
  const log = ctx.log.child({ cluster: clusterName, namespace: req.namespace, pod: req.name });
  return { req, ctx, opts, pod, view, cluster: clusterView(cluster), pods, resolve, log, wroteCondition: false };
}

async function readCredentials(pass: Pass): Promise<OperatedCredentials> {
  const name = names.operatedSecret(pass.cluster.name);
  const secret = (await pass.ctx.informer<KubeObject & { data?: Record<string, string> }>(SECRET_TARGET)).get(pass.req.namespace, name);
  if (!secret) return refuse(pass, NODE_REASONS.operatedSecretMissing, `Secret ${name} does not exist yet`);
  const creds = credentialsFrom(secret.data);
  if ('missing' in creds) return refuse(pass, NODE_REASONS.operatedSecretIncomplete, missingKeyMessage(pass.cluster.name, creds.missing));
  return creds;
}

/** The observe → decide → act loop. */
async function configure(pass: Pass, creds: OperatedCredentials, servers: PassServers): Promise<ReconcileResult | undefined> {
  const { view, cluster } = pass;
  const attempted: StepKind[] = [];
  let others: NodeView[] | undefined;
  const settleUntil = Date.now() + (pass.opts.settleMs ?? 3000);
  while (attempted.length < MAX_STEPS_PER_PASS) {
    const self = await servers.observe(view.endpoint);
    // The other servers matter only when this one is (re)checked; read them once per pass.
    let othersAfterSelf = false;
    if (needsCheck(view, self, cluster) && others === undefined) {
      others = await observeOthers(pass, servers);
      othersAfterSelf = true;
    }
    let decision = decideNodeStep({ cluster, pod: view, self, others: others ?? [], attempted });
    if (decision.kind === 'wait' && decision.reason === NODE_REASONS.errantTransactions && !othersAfterSelf) {
      // Errant only against a master read after this server: since the pass's first read of the
      // master, a replica may have received transactions that read did not show.
      others = await observeOthers(pass, servers);
      decision = decideNodeStep({ cluster, pod: view, self, others, attempted });
    }
    if (decision.kind === 'done') {
      await report(pass, { configured: true, verified: !view.verifiedSinceStart });
      return;
    }
    if (decision.kind === 'wait') {
      if (decision.recheckMs !== undefined) {
        await report(pass, { configured: false, reason: decision.reason, message: decision.message });
        return { requeueAfterMs: decision.recheckMs };
      }
      if (!decision.soon) return refuse(pass, decision.reason, decision.message);
      if (Date.now() < settleUntil) {
        // An abort only cuts the pause short; the next step sees the aborted signal.
        await sleep(POLL_MS, undefined, { signal: pass.ctx.signal }).catch(() => undefined);
        continue;
      }
      // Still transient after the settle time: say so, and poll rather than back off.
      await report(pass, { configured: false, reason: decision.reason, message: decision.message });
      return { requeueAfterMs: 1000 };
    }
    await act(decision.step, await servers.node(view.endpoint), creds, pass);
    attempted.push(decision.step.kind);
    await pass.opts.afterStep?.(pass.req.name, decision.step);
  }
  return { requeueAfterMs: 1000 };
}

function observeOthers(pass: Pass, servers: PassServers): Promise<NodeView[]> {
  const pods = pass.pods.list({ namespace: pass.req.namespace, labels: { [LABEL_CLUSTER]: pass.cluster.name } });
  return servers.observeNodes(nodePods(pods, pass.resolve).filter((p) => p.name !== pass.view.name));
}

async function act(step: NodeStep, node: MysqlNode, creds: OperatedCredentials, pass: Pass): Promise<void> {
  switch (step.kind) {
    case 'setReadOnly':
      await node.setReadOnly(true);
      break;
    case 'seedGtid':
      await node.seedGtid(step.gtid);
      break;
    case 'pointAt':
      await node.pointAt(step.master.endpoint, creds.replication, {
        connectRetrySeconds: pass.opts.connectRetrySeconds,
        start: { kind: 'gtid', mariadbPos: step.fromOwnPosition ? 'current_pos' : 'slave_pos' },
      });
      break;
    case 'startReplication':
      await node.startReplication();
      break;
    case 'markConfigured':
      await node.markConfigured();
      break;
  }
  const master = step.kind === 'pointAt' ? step.master.pod : step.kind === 'markConfigured' ? step.master : undefined;
  pass.log.info('node step done', { step: step.kind, ...(master ? { master } : {}) });
}

/** Writes the pod condition when it changed, with an Event. */
async function report(pass: Pass, outcome: NodeOutcome): Promise<void> {
  const { ctx, req, pod } = pass;
  const cond = nodeInitializedCondition(outcome, pod.status?.conditions, new Date());
  if (cond === null) return;
  await ctx.client.patchStatus(
    { apiVersion: 'v1', kind: 'Pod', namespace: req.namespace, name: req.name },
    { status: { conditions: [cond] } },
    'strategic',
  );
  pass.wroteCondition = true;
  if (outcome.configured) ctx.events.normal(pod, NODE_REASONS.nodeConfigured, `${req.name} is configured`);
  else if (EXPECTED_WAITS.has(outcome.reason)) ctx.events.normal(pod, outcome.reason, outcome.message);
  else ctx.events.warning(pod, outcome.reason, outcome.message);
}

/** A decision not to act: logged, reported, and thrown so the queue backs off. */
async function refuse(pass: Pass, reason: NodeReason, message: string): Promise<never> {
  pass.log.info('node not configured', { reason, message });
  await report(pass, { configured: false, reason, message });
  throw new NodeNotConfiguredError(reason, message);
}
