// The failover hook's wire contract, both ends: the command line Orchestrator's hook processes run
// (`hookCommand`, for the chart and the tests) and how the operator judges what arrives
// (`judgeHookCall`). Pure; the route in hook.ts does the I/O. docs/failover-hook.md.
import { createHash, timingSafeEqual } from 'node:crypto';
import { FAILOVER_HOOK_REASONS } from '../../api/constants.ts';
import { clusterOfOrchestratorAlias } from '../../api/names.ts';
import { PRE_FAILOVER_HOLD_MS } from './decide-pre-failover.ts';
import { HOOK_PROCESSES, type HookProcess } from './hook-signals.ts';

export const FAILOVER_HOOK_PATH = '/hooks/orchestrator/failover';

/** The fields of a call: an `application/x-www-form-urlencoded` POST body. */
export const HOOK_FIELD = { process: 'process', alias: 'alias', failed: 'failed', successor: 'successor' } as const;

/** What one accepted call says. */
export interface HookRequest {
  process: HookProcess;
  /** The Orchestrator cluster alias as sent (`<cluster>.<namespace>`). */
  alias: string;
  namespace: string;
  name: string;
  /** `host:port` of the failed master, when Orchestrator filled it in. */
  failed?: string;
  /** `host:port` of the promoted instance, when there is one. */
  successor?: string;
}

/** The result label of `hookCalls` and the HTTP status of each refusal. */
export const HOOK_RESULT = {
  accepted: 'accepted',
  disabled: 'disabled',
  unauthorized: 'unauthorized',
  invalid: 'invalid',
  unknownCluster: 'unknown-cluster',
} as const;
export type HookResult = (typeof HOOK_RESULT)[keyof typeof HOOK_RESULT];

/** The operator's shared secret, or why the hook is off. */
export type HookSecret = { secret: string } | { off: string };

export type HookVerdict =
  | { kind: 'accept'; request: HookRequest }
  | { kind: 'refuse'; status: number; result: HookResult; message: string; process: HookProcess | 'unknown' };

/**
 * Characters the secret may hold: it travels inside a quoted curl config line (`header = "..."`),
 * where a quote or a backslash would end or escape it, and in an HTTP header.
 */
const SECRET_TEXT = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** Why `secret` cannot be the hook's shared secret, or null. */
export function secretProblem(secret: string): string | null {
  if (secret === '') return 'is empty';
  if (!SECRET_TEXT.test(secret)) return 'holds characters other than printable ASCII without spaces, quotes and backslashes';
  return null;
}

/** The secret as a mounted Secret file holds it: a trailing newline (`echo > file`) is not part of it. */
export function secretFromFileText(text: string): string {
  return text.replace(/\r?\n$/, '');
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Whether the Authorization header carries `Bearer <secret>`; compares in constant time. */
export function authorized(header: string | string[] | undefined, secret: string): boolean {
  const value = Array.isArray(header) ? header[0] : header;
  const m = /^Bearer (.+)$/.exec(value ?? '');
  // Digests of equal length: timingSafeEqual needs them, and the length of the secret stays hidden.
  return m !== null && timingSafeEqual(digest(m[1] ?? ''), digest(secret));
}

/** A caller's text as an answer or a log line quotes it: the body may be up to 1 MiB. */
function quoted(text: string): string {
  return `'${text.length > 80 ? `${text.slice(0, 80)}...` : text}'`;
}

/**
 * A `host:port` field. Orchestrator leaves a placeholder it cannot fill as its literal text
 * (`{successorHost}:{successorPort}` before a promotion): that is "not given", not an error.
 */
function endpointField(params: URLSearchParams, field: string): { value?: string } | { error: string } {
  const text = params.get(field);
  if (text === null || text === '' || text.includes('{')) return {};
  const colon = text.lastIndexOf(':');
  const port = Number(text.slice(colon + 1));
  if (colon <= 0 || /\s/.test(text) || !Number.isInteger(port) || port < 1 || port > 65535)
    return { error: `${quoted(text)} is not host:port` };
  return { value: text };
}

function isProcess(text: string | null): text is HookProcess {
  return (HOOK_PROCESSES as readonly (string | null)[]).includes(text);
}

/**
 * What to answer to a call: the secret first (nothing about the request is judged for a caller
 * who cannot prove it is Orchestrator), then the fields.
 */
export function judgeHookCall(call: { secret: HookSecret; authorization: string | string[] | undefined; body: string }): HookVerdict {
  const params = new URLSearchParams(call.body);
  const processText = params.get(HOOK_FIELD.process);
  const process = isProcess(processText) ? processText : 'unknown';
  const refuse = (status: number, result: HookResult, message: string): HookVerdict => ({
    kind: 'refuse',
    status,
    result,
    message,
    process,
  });
  if ('off' in call.secret) return refuse(503, HOOK_RESULT.disabled, `the failover hook is off: ${call.secret.off}`);
  if (!authorized(call.authorization, call.secret.secret)) {
    return refuse(
      401,
      HOOK_RESULT.unauthorized,
      'unauthorized: the call must carry "Authorization: Bearer <the shared failover hook secret>"',
    );
  }
  if (process === 'unknown') {
    return refuse(
      400,
      HOOK_RESULT.invalid,
      `invalid ${HOOK_FIELD.process}: ${quoted(processText ?? '')} is not one of ${HOOK_PROCESSES.join(', ')}`,
    );
  }
  const alias = params.get(HOOK_FIELD.alias) ?? '';
  const cluster = clusterOfOrchestratorAlias(alias);
  if (!cluster)
    return refuse(400, HOOK_RESULT.invalid, `invalid ${HOOK_FIELD.alias}: ${quoted(alias)} is not a cluster alias <cluster>.<namespace>`);
  const failed = endpointField(params, HOOK_FIELD.failed);
  if ('error' in failed) return refuse(400, HOOK_RESULT.invalid, `invalid ${HOOK_FIELD.failed}: ${failed.error}`);
  const successor = endpointField(params, HOOK_FIELD.successor);
  if ('error' in successor) return refuse(400, HOOK_RESULT.invalid, `invalid ${HOOK_FIELD.successor}: ${successor.error}`);
  return {
    kind: 'accept',
    request: {
      process,
      alias,
      ...cluster,
      ...(failed.value && { failed: failed.value }),
      ...(successor.value && { successor: successor.value }),
    },
  };
}

/** The Event an accepted call records on its MysqlCluster. */
export function hookEvent(r: HookRequest): { type: 'Normal' | 'Warning'; reason: string; message: string } {
  const failed = r.failed ?? 'an unknown instance';
  const successor = r.successor ?? 'an unknown instance';
  const reason = FAILOVER_HOOK_REASONS[r.process];
  switch (r.process) {
    case 'PreGracefulTakeover':
      return {
        type: 'Normal',
        reason,
        message: `Orchestrator is handing the master ${failed} over to ${successor} (graceful takeover): it freezes ${failed} now`,
      };
    case 'PreFailover':
      return { type: 'Normal', reason, message: `Orchestrator is failing over the master ${failed}` };
    case 'PostMasterFailover':
      return { type: 'Normal', reason, message: `Orchestrator promoted ${successor} to master in place of ${failed}` };
    case 'PostGracefulTakeover':
      return { type: 'Normal', reason, message: `Orchestrator moved the master from ${failed} to ${successor} (graceful takeover)` };
    case 'PostUnsuccessfulFailover':
      return { type: 'Warning', reason, message: `Orchestrator could not fail over the master ${failed}: no replica was promoted` };
  }
}

const shellQuote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

export interface HookCommandOptions {
  /** The operator's HTTP server as Orchestrator reaches it, e.g. `http://mysql-operator.mysql-operator:8080`. */
  operatorUrl: string;
  process: HookProcess;
  /** A file in Orchestrator's pod holding the shared secret (a mounted Secret key). */
  secretFile: string;
  /**
   * curl's whole-call limit: hooks are synchronous, a slow call delays the recovery. Default
   * `hookTimeoutSeconds(process)`.
   */
  timeoutSeconds?: number;
}

/**
 * A PreFailover call is held until the replicas applied their relay logs (decide-pre-failover.ts),
 * so its curl waits past that hold; the other calls answer at once.
 */
export function hookTimeoutSeconds(process: HookProcess): number {
  return process === 'PreFailover' ? Math.ceil(PRE_FAILOVER_HOLD_MS / 1000) + 5 : 2;
}

/**
 * The command line for one of Orchestrator's `<Process>Processes` lists. The secret never appears
 * on a command line: `printf` is a shell builtin, and curl reads the header from its config on
 * stdin (`-K -`). `|| true`: a failing PreFailover hook aborts the recovery, and the operator
 * being down must never stop a failover (its polling catches up).
 */
export function hookCommand(o: HookCommandOptions): string {
  const url = `${o.operatorUrl.replace(/\/+$/, '')}${FAILOVER_HOOK_PATH}`;
  const field = (name: string, value: string): string => `--data-urlencode ${shellQuote(`${name}=${value}`)}`;
  return [
    `printf 'header = "Authorization: Bearer %s"\\n' "$(cat ${shellQuote(o.secretFile)})"`,
    '|',
    `curl -fsS --max-time ${o.timeoutSeconds ?? hookTimeoutSeconds(o.process)} -K -`,
    field(HOOK_FIELD.process, o.process),
    field(HOOK_FIELD.alias, '{failureClusterAlias}'),
    field(HOOK_FIELD.failed, '{failedHost}:{failedPort}'),
    field(HOOK_FIELD.successor, '{successorHost}:{successorPort}'),
    shellQuote(url),
    '|| true',
  ].join(' ');
}

/** Orchestrator's config keys for the hook: `<Process>Processes` → `[hookCommand(...)]`. */
export function hookProcessesConfig(o: Omit<HookCommandOptions, 'process'>): Record<`${HookProcess}Processes`, string[]> {
  return Object.fromEntries(HOOK_PROCESSES.map((p) => [`${p}Processes`, [hookCommand({ ...o, process: p })]])) as Record<
    `${HookProcess}Processes`,
    string[]
  >;
}
