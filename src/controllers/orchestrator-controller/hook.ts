// The failover hook endpoint: Orchestrator's PreFailover, PostMasterFailover, PostGracefulTakeover
// and PostUnsuccessfulFailover processes call it (hook-request.ts's `hookCommand`), and the
// orchestrator controller looks at that cluster at once instead of at its next poll. A call is a
// push to look, never a source of truth: the signal it records only says "look now" and "a
// failover runs"; the labels follow Orchestrator's view as polled. docs/failover-hook.md.
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { LABEL_CLUSTER } from '../../api/constants.ts';
import { KINDS } from '../shared/kinds.ts';
import { POD_TARGET } from '../shared/targets.ts';
import type { ControllerContext, HttpRoute } from '../../runtime/controller.ts';
import type { Logger } from '../../runtime/logger.ts';
import { stringSetting, type SettingTable } from '../../runtime/settings.ts';
import { nodePods, PassServers, resolveByFqdn, type PassServersOptions, type PodObject, type ResolvePod } from '../../topology/index.ts';
import {
  appliedPositions,
  decidePreFailover,
  HOLD_LIMITS,
  letGo,
  PRE_FAILOVER_POLL_MS,
  preFailoverEvent,
  progressed,
  type HoldLimits,
  type PreFailoverHold,
} from './decide-pre-failover.ts';
import { passServers } from './gather.ts';
import type { FailoverSignals, HookSignal } from './hook-signals.ts';
import type { Cluster } from './pass-input.ts';
import {
  FAILOVER_HOOK_PATH,
  HOOK_RESULT,
  hookEvent,
  judgeHookCall,
  secretFromFileText,
  secretProblem,
  type HookRequest,
  type HookResult,
  type HookSecret,
} from './hook-request.ts';
import { orchestratorMetrics } from './metrics.ts';

export interface FailoverHookOptions {
  /** A file holding the shared secret (a mounted Secret key); read at each call, so a rotation applies at once. */
  failoverHookSecretFile: string;
  /** The shared secret itself, for setups without a file. */
  failoverHookSecret: string;
}

export const FAILOVER_HOOK_SETTINGS: SettingTable<FailoverHookOptions> = {
  failoverHookSecretFile: stringSetting({
    flag: 'failover-hook-secret-file',
    env: 'FAILOVER_HOOK_SECRET_FILE',
    help: `file holding the secret Orchestrator's failover hooks send to POST ${FAILOVER_HOOK_PATH} (none: the hook is off)`,
    default: '',
  }),
  failoverHookSecret: stringSetting({
    flag: 'failover-hook-secret',
    env: 'FAILOVER_HOOK_SECRET',
    help: 'the failover hook secret itself, when there is no file; prefer the variable, a flag shows in the process list',
    default: '',
    secret: true,
  }),
};

const { failoverHookSecretFile: FILE, failoverHookSecret: SECRET } = FAILOVER_HOOK_SETTINGS;

/** The configured secret, or why the hook is off. */
export async function readHookSecret(o: FailoverHookOptions): Promise<HookSecret> {
  if (o.failoverHookSecretFile !== '' && o.failoverHookSecret !== '')
    return { off: `both --${FILE.flag} and ${SECRET.env} are set; give one` };
  if (o.failoverHookSecretFile !== '') {
    let text: string;
    try {
      text = await readFile(o.failoverHookSecretFile, 'utf8');
    } catch (err) {
      return { off: `cannot read --${FILE.flag} ${o.failoverHookSecretFile} (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
    }
    const secret = secretFromFileText(text);
    const problem = secretProblem(secret);
    return problem ? { off: `the secret in --${FILE.flag} ${o.failoverHookSecretFile} ${problem}` } : { secret };
  }
  if (o.failoverHookSecret !== '') {
    const problem = secretProblem(o.failoverHookSecret);
    return problem ? { off: `${SECRET.env} ${problem}` } : { secret: o.failoverHookSecret };
  }
  return { off: `no shared secret is configured (--${FILE.flag} or ${SECRET.env})` };
}

/** One line when the controller starts: whether the hook takes calls, and if not why. */
export async function logFailoverHookState(log: Logger, o: FailoverHookOptions): Promise<void> {
  const secret = await readHookSecret(o);
  if ('off' in secret)
    log.warn('failover hook is off: failovers are seen by polling only', { path: FAILOVER_HOOK_PATH, reason: secret.off });
  else log.info('failover hook is on', { path: FAILOVER_HOOK_PATH });
}

export interface FailoverHookDeps {
  options: FailoverHookOptions;
  /** Shared with the orchestrator controller, which reads and settles them. */
  signals: FailoverSignals;
  /** The PreFailover hold's reads of the servers: as the controller's (OrchestratorWiring). */
  hold?: PreFailoverHoldDeps;
}

export interface PreFailoverHoldDeps {
  /** Pod → address of its server; default `<pod>.mysql.<ns>:3306`. */
  resolve?: ResolvePod;
  servers?: PassServersOptions;
  /** Default HOLD_LIMITS. */
  limits?: HoldLimits;
}

/**
 * Holds a PreFailover call until the cluster's replicas applied what they fetched, or the deadline
 * (decide-pre-failover.ts), reading them as the operator user every PRE_FAILOVER_POLL_MS; posts
 * the hold's Event. Never throws: a hook must not stop a failover.
 */
export async function holdPreFailover(cluster: Cluster, ctx: ControllerContext, deps: PreFailoverHoldDeps = {}): Promise<PreFailoverHold> {
  const started = Date.now();
  const servers = await passServers(ctx, cluster, deps);
  let hold: PreFailoverHold;
  if (!(servers instanceof PassServers)) hold = { kind: 'unread', message: servers.message };
  else {
    try {
      hold = await pollRelayLogs(cluster, ctx, servers, deps, started);
    } catch (err) {
      hold = { kind: 'unread', message: (err as Error).message };
    } finally {
      await servers.closeAll();
    }
  }
  const event = preFailoverEvent(hold);
  if (event) postEvent(ctx, cluster, event);
  return hold;
}

/** An Event on the cluster, of the type the pure decision gave it. */
function postEvent(ctx: ControllerContext, cluster: Cluster, e: { type: 'Normal' | 'Warning'; reason: string; message: string }): void {
  if (e.type === 'Warning') ctx.events.warning(cluster, e.reason, e.message);
  else ctx.events.normal(cluster, e.reason, e.message);
}

async function pollRelayLogs(
  cluster: Cluster,
  ctx: ControllerContext,
  servers: PassServers,
  deps: PreFailoverHoldDeps,
  started: number,
): Promise<PreFailoverHold> {
  const pods = await ctx.informer<PodObject>(POD_TARGET);
  const selector = { namespace: cluster.metadata?.namespace ?? '', labels: { [LABEL_CLUSTER]: cluster.metadata?.name ?? '' } };
  const waited = new Set<string>();
  let previous = new Map<string, string>();
  let lastProgressMs = started;
  for (;;) {
    const nodes = await servers.observeRoles(nodePods(pods.list(selector), deps.resolve ?? resolveByFqdn));
    const d = decidePreFailover(nodes);
    const nowMs = Date.now();
    if (d.kind === 'go') return { kind: 'applied', waitedMs: nowMs - started, waited: [...waited] };
    for (const p of d.pending) waited.add(p);
    const applied = appliedPositions(nodes, d.pending);
    if (progressed(previous, applied)) lastProgressMs = nowMs;
    previous = applied;
    const why = letGo({ startedMs: started, lastProgressMs, nowMs }, deps.limits ?? HOLD_LIMITS);
    if (why !== null) return { kind: 'deadline', waitedMs: nowMs - started, pending: d.pending, why };
    await sleep(PRE_FAILOVER_POLL_MS);
  }
}

export interface Answer {
  status: number;
  result: HookResult;
  body: unknown;
}

/**
 * An authenticated call: recorded as the cluster's signal, its Event posted, the cluster enqueued;
 * a PreFailover call held (holdPreFailover). Exported for the controller's component tests, whose
 * Orchestrator hooks skip the authentication.
 */
export async function acceptHookCall(
  r: HookRequest,
  ctx: ControllerContext,
  deps: Pick<FailoverHookDeps, 'signals' | 'hold'>,
): Promise<Answer> {
  const key = `${r.namespace}/${r.name}`;
  const cluster = (await ctx.informer<Cluster>(KINDS.cluster)).get(r.namespace, r.name);
  if (!cluster)
    return {
      status: 404,
      result: HOOK_RESULT.unknownCluster,
      body: `unknown cluster: no MysqlCluster ${key} for the alias '${r.alias}'\n`,
    };
  const signal: HookSignal = {
    process: r.process,
    clusterKey: key,
    ...(r.failed && { failed: r.failed }),
    ...(r.successor && { successor: r.successor }),
    at: new Date(),
  };
  deps.signals.record(signal);
  postEvent(ctx, cluster, hookEvent(r));
  ctx.enqueue(key);
  const fields = { cluster: r.name, namespace: r.namespace, process: r.process, failed: r.failed, successor: r.successor };
  ctx.log.info('failover hook call', fields);
  if (r.process !== 'PreFailover') return { status: 202, result: HOOK_RESULT.accepted, body: { cluster: key, process: r.process } };
  const hold = await holdPreFailover(cluster, ctx, deps.hold);
  // The failover goes on from now: the controller's fast look for its successor starts again.
  if (deps.signals.renew(signal)) ctx.enqueue(key);
  ctx.log.info('failover hook call answered', { ...fields, hold });
  return { status: 202, result: HOOK_RESULT.accepted, body: { cluster: key, process: r.process, hold } };
}

/** `POST /hooks/orchestrator/failover`, for the orchestrator controller's `routes`. */
export function failoverHookRoute(deps: FailoverHookDeps): HttpRoute {
  return {
    method: 'POST',
    path: FAILOVER_HOOK_PATH,
    async handle(req, ctx) {
      const verdict = judgeHookCall({
        secret: await readHookSecret(deps.options),
        authorization: req.headers.authorization,
        body: req.body,
      });
      const process = verdict.kind === 'accept' ? verdict.request.process : verdict.process;
      const answer: Answer =
        verdict.kind === 'accept'
          ? await acceptHookCall(verdict.request, ctx, deps)
          : { status: verdict.status, result: verdict.result, body: `${verdict.message}\n` };
      orchestratorMetrics(ctx.registry).hookCalls.inc({ process, result: answer.result });
      if (answer.result !== HOOK_RESULT.accepted)
        ctx.log.warn('failover hook call refused', { process, result: answer.result, answer: answer.body });
      return { status: answer.status, body: answer.body };
    },
  };
}
