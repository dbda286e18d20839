// One pass over one pod: gather → decide → act, repeated until the pod is configured, a wait is
// decided, or the step budget is spent. Every step is idempotent and the decision is re-made from
// freshly read state after each one, so a pass killed between two steps resumes correctly.
import { LABEL_CLUSTER, OPERATED_SECRET_KEY } from '../../api/constants.ts';
import type { MysqlCluster } from '../../api/index.ts';
import { connectNode, type ConnectParams, type MysqlNode } from '../../mysql/index.ts';
import type { ControllerContext, ReconcileResult, Request } from '../../runtime/controller.ts';
import type { KubeObject } from '../../runtime/kube/types.ts';
import { errorMessage, type Logger } from '../../runtime/logger.ts';
import { clusterView } from './cluster-view.ts';
import { decideNodeStep, NODE_WAIT_REASONS, operatedSecretName, type NodeStep } from './decide-node-step.ts';
import { nodeInitializedCondition, type NodeOutcome } from './node-condition.ts';
import type { Endpoint, NodeView, PodView, ServerView, StepKind } from './node-state.ts';
import { observeServer, unreachableView } from './observe-server.ts';
import { podView, resolveByFqdn, type PodObject, type ResolvePod } from './pod-view.ts';

export const POD_TARGET = {
  apiVersion: 'v1',
  kind: 'Pod',
  labelSelector: { 'app.kubernetes.io/name': 'mysql', 'app.kubernetes.io/managed-by': 'mysql.presslabs.org' },
};
export const CLUSTER_TARGET = { apiVersion: 'mysql.presslabs.org/v1alpha1', kind: 'MysqlCluster' };

export interface NodeControllerOptions {
  /** Pod → address of its server; default `<pod>.mysql.<ns>:3306`. */
  resolve?: ResolvePod;
  connect?: (p: ConnectParams) => Promise<MysqlNode>;
  connectTimeoutMs?: number;
  queryTimeoutMs?: number;
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

interface Credentials {
  operator: { user: string; password: string };
  replication: { user: string; password: string };
}

const MAX_STEPS_PER_PASS = 12;
/** Waits that are the system working as intended, not something to fix: Normal Events. */
const EXPECTED_WAITS: ReadonlySet<string> = new Set([NODE_WAIT_REASONS.failoverInProgress, NODE_WAIT_REASONS.replicationConnecting]);
const POLL_MS = 250;

function decode(data: Record<string, string> | undefined, key: string): string {
  const v = data?.[key];
  return v === undefined ? '' : Buffer.from(v, 'base64').toString('utf8');
}

function credentialsFrom(secret: { data?: Record<string, string> }): Credentials | { missing: string } {
  const get = (k: string): string => decode(secret.data, k);
  for (const k of [OPERATED_SECRET_KEY.operatorUser, OPERATED_SECRET_KEY.operatorPassword, OPERATED_SECRET_KEY.replicationUser, OPERATED_SECRET_KEY.replicationPassword]) {
    if (get(k) === '') return { missing: k };
  }
  return {
    operator: { user: get(OPERATED_SECRET_KEY.operatorUser), password: get(OPERATED_SECRET_KEY.operatorPassword) },
    replication: { user: get(OPERATED_SECRET_KEY.replicationUser), password: get(OPERATED_SECRET_KEY.replicationPassword) },
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The servers of one pass: connections opened on first use, all closed at the end. */
class Servers {
  readonly #open = new Map<string, Promise<MysqlNode>>();
  readonly #params: (e: Endpoint) => ConnectParams;
  readonly #connect: (p: ConnectParams) => Promise<MysqlNode>;

  constructor(params: (e: Endpoint) => ConnectParams, connect: (p: ConnectParams) => Promise<MysqlNode>) {
    this.#params = params;
    this.#connect = connect;
  }

  node(e: Endpoint): Promise<MysqlNode> {
    const id = `${e.host}:${e.port}`;
    let n = this.#open.get(id);
    if (!n) {
      n = this.#connect(this.#params(e));
      // A failed connect is retried on the next call rather than cached.
      n.catch(() => this.#open.delete(id));
      this.#open.set(id, n);
    }
    return n;
  }

  async observe(e: Endpoint): Promise<ServerView> {
    try {
      return await observeServer(await this.node(e));
    } catch (err) {
      await this.#forget(e);
      return unreachableView(err);
    }
  }

  async #forget(e: Endpoint): Promise<void> {
    const id = `${e.host}:${e.port}`;
    const n = this.#open.get(id);
    this.#open.delete(id);
    await n?.then((x) => x.close(), () => undefined);
  }

  async closeAll(): Promise<void> {
    const all = [...this.#open.values()];
    this.#open.clear();
    await Promise.all(all.map((n) => n.then((x) => x.close(), () => undefined)));
  }
}

export async function reconcileNode(req: Request, ctx: ControllerContext, opts: NodeControllerOptions): Promise<ReconcileResult | void> {
  const pods = await ctx.informer<PodObject>(POD_TARGET);
  const pod = pods.get(req.namespace, req.name);
  const clusterName = pod?.metadata?.labels?.[LABEL_CLUSTER];
  if (!pod || !clusterName) return;
  const cluster = (await ctx.informer<MysqlCluster>(CLUSTER_TARGET)).get(req.namespace, clusterName);
  if (!cluster) return;
  const resolve = opts.resolve ?? resolveByFqdn;
  const view = podView(pod, resolve);
  // The pod's next status change (container running) enqueues it again.
  if (view.ordinal < 0 || view.deleting || !view.mysqlRunning) return;
  const log = ctx.log.child({ cluster: clusterName, namespace: req.namespace, pod: req.name });

  const report = async (outcome: NodeOutcome): Promise<void> => {
    const cond = nodeInitializedCondition(outcome, pod.status?.conditions, new Date());
    if (cond === null) return;
    await ctx.client.patchStatus({ apiVersion: 'v1', kind: 'Pod', namespace: req.namespace, name: req.name }, { status: { conditions: [cond] } }, 'strategic');
    if (outcome.configured) ctx.events.normal(pod, 'NodeConfigured', `${req.name} is configured`);
    else if (EXPECTED_WAITS.has(outcome.reason)) ctx.events.normal(pod, outcome.reason, outcome.message);
    else ctx.events.warning(pod, outcome.reason, outcome.message);
  };
  const refuse = async (reason: string, message: string): Promise<never> => {
    log.info('node not configured', { reason, message });
    await report({ configured: false, reason, message });
    throw new NodeNotConfiguredError(reason, message);
  };

  const secretName = operatedSecretName(clusterName);
  const secret = await ctx.client.getIfExists<KubeObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'Secret', namespace: req.namespace, name: secretName });
  if (!secret) return refuse('OperatedSecretMissing', `Secret ${secretName} does not exist yet`);
  const creds = credentialsFrom(secret);
  if ('missing' in creds) return refuse('OperatedSecretIncomplete', `key ${creds.missing} of Secret ${secretName} is missing or empty`);

  const servers = new Servers(
    (e) => ({ host: e.host, port: e.port, ...creds.operator, connectTimeoutMs: opts.connectTimeoutMs ?? 3000, queryTimeoutMs: opts.queryTimeoutMs ?? 10_000 }),
    opts.connect ?? connectNode,
  );
  try {
    const attempted: StepKind[] = [];
    let others: NodeView[] | undefined;
    const settleUntil = Date.now() + (opts.settleMs ?? 3000);
    const cv = clusterView(cluster);
    for (let i = 0; i < MAX_STEPS_PER_PASS; i++) {
      const self = await servers.observe(view.endpoint);
      const needOthers = self.reachable && !(self.configured && view.verifiedSinceStart);
      if (needOthers && others === undefined) others = await gatherOthers(pods, req.namespace, view, cv.name, resolve, servers);
      const decision = decideNodeStep({ cluster: cv, pod: view, self, others: others ?? [], attempted });
      if (decision.kind === 'done') {
        await report({ configured: true, verified: !view.verifiedSinceStart });
        return;
      }
      if (decision.kind === 'wait') {
        if (decision.soon && Date.now() < settleUntil) {
          await sleep(POLL_MS, ctx.signal);
          continue;
        }
        if (decision.soon) {
          // Still transient after the settle time: say so, and poll rather than back off.
          await report({ configured: false, reason: decision.reason, message: decision.message });
          return { requeueAfterMs: 1000 };
        }
        return await refuse(decision.reason, decision.message);
      }
      await act(decision.step, await servers.node(view.endpoint), creds, opts, log);
      attempted.push(decision.step.kind);
      await opts.afterStep?.(req.name, decision.step);
    }
    return { requeueAfterMs: 1000 };
  } catch (err) {
    if (err instanceof NodeNotConfiguredError) throw err;
    return await refuse('StepFailed', errorMessage(err));
  } finally {
    await servers.closeAll();
  }
}

async function gatherOthers(
  pods: { list(q: { namespace: string; labels: Record<string, string> }): PodObject[] },
  namespace: string,
  self: PodView,
  cluster: string,
  resolve: ResolvePod,
  servers: Servers,
): Promise<NodeView[]> {
  const views = pods
    .list({ namespace, labels: { [LABEL_CLUSTER]: cluster } })
    .map((p) => podView(p, resolve))
    .filter((p) => p.name !== self.name && p.ordinal >= 0);
  return Promise.all(
    views.map(async (p) => ({
      pod: p.name,
      ordinal: p.ordinal,
      fqdn: p.fqdn,
      endpoint: p.endpoint,
      server: p.mysqlRunning && !p.deleting ? await servers.observe(p.endpoint) : null,
    })),
  );
}

async function act(step: NodeStep, node: MysqlNode, creds: Credentials, opts: NodeControllerOptions, log: Logger): Promise<void> {
  switch (step.kind) {
    case 'setReadOnly':
      await node.setReadOnly(true);
      break;
    case 'seedGtid':
      await node.seedGtid(step.gtid);
      break;
    case 'pointAt':
      await node.pointAt(step.master.endpoint, creds.replication, { connectRetrySeconds: opts.connectRetrySeconds });
      break;
    case 'startReplication':
      await node.startReplication();
      break;
    case 'markConfigured':
      await node.markConfigured();
      break;
  }
  const master = step.kind === 'pointAt' ? step.master.pod : step.kind === 'markConfigured' ? step.master : undefined;
  log.info('node step done', { step: step.kind, ...(master ? { master } : {}) });
}
