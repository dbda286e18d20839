// The typed client of Orchestrator's HTTP API: the only code that speaks HTTP to Orchestrator.
// Every route is a GET (Orchestrator registers its mutating routes for GET only), so whether a
// failed call is retried is decided per method: reads that change nothing are retried when
// Orchestrator did not answer; anything that changes Orchestrator's or a server's state is tried
// once and the caller's next reconcile decides again, because a timeout does not tell whether the
// change happened (a repeated graceful takeover would move the master twice).
import { setTimeout as sleep } from 'node:timers/promises';
import axios, { type AxiosInstance } from 'axios';
import { asArray, asObject, asString, str, type At } from './decode.ts';
import { OrchestratorError, cleanMessage, kindOfMessage } from './errors.ts';
import {
  decodeAnalysisEntry,
  decodeClusterInfo,
  decodeInstance,
  decodeKey,
  decodeRecovery,
  type AnalysisEntry,
  type ClusterInfo,
  type Instance,
  type InstanceKey,
  type Recovery,
} from './responses.ts';

export interface OrchestratorClientOptions {
  /** The API base, as given to the operator (`--orchestrator-uri`), e.g. `http://orchestrator.ns/api`. */
  baseUrl: string;
  /** Per request. Default 10 s. */
  timeoutMs?: number;
  /** Graceful takeovers wait for Orchestrator's synchronous hooks. Default 120 s. */
  takeoverTimeoutMs?: number;
  /** Extra attempts of a read when Orchestrator did not answer. Default 2. */
  readRetries?: number;
  /** Wait before the first retry, doubled for each next one. Default 250 ms. */
  retryDelayMs?: number;
  /**
   * Basic credentials of Orchestrator's API (AuthenticationMethod basic or multi), asked for at
   * each request so a rotated Secret file is used without a restart; undefined: none sent.
   */
  credentials?: () => OrchestratorCredentials | undefined;
}

export interface OrchestratorCredentials {
  user: string;
  password: string;
}

export interface CallOptions {
  /** Aborting rejects the call with the signal's reason. */
  signal?: AbortSignal;
}

export interface OrchestratorClient {
  /** Asks Orchestrator to read the server now (it polls it from then on). */
  discover(key: InstanceKey, o?: CallOptions): Promise<Instance>;
  /** Removes the server from Orchestrator's view (it comes back if a replica lists it or on discover). */
  forget(key: InstanceKey, o?: CallOptions): Promise<void>;
  instance(key: InstanceKey, o?: CallOptions): Promise<Instance>;
  /** Every instance of the cluster with that alias. */
  clusterByAlias(alias: string, o?: CallOptions): Promise<Instance[]>;
  /** The cluster's master as Orchestrator sees it (alias or cluster name). */
  master(alias: string, o?: CallOptions): Promise<Instance>;
  clustersInfo(o?: CallOptions): Promise<ClusterInfo[]>;
  /** Current problems; with an alias, only that cluster's. */
  replicationAnalysis(alias?: string, o?: CallOptions): Promise<AnalysisEntry[]>;
  /** The newest page of recoveries of the cluster with that alias, newest first. */
  recoveries(alias: string, o?: CallOptions): Promise<Recovery[]>;
  /** Acknowledges the cluster's recoveries, so Orchestrator may recover it again; returns the cluster name. */
  ackRecoveries(alias: string, comment: string, o?: CallOptions): Promise<string>;
  beginDowntime(key: InstanceKey, d: { owner: string; reason: string; seconds: number }, o?: CallOptions): Promise<void>;
  /** Succeeds also when the server is not downtimed. */
  endDowntime(key: InstanceKey, o?: CallOptions): Promise<void>;
  setReadOnly(key: InstanceKey, o?: CallOptions): Promise<Instance>;
  setWriteable(key: InstanceKey, o?: CallOptions): Promise<Instance>;
  /** Planned switchover to the designated replica; the demoted master is left not replicating. */
  gracefulMasterTakeover(alias: string, designated: InstanceKey, o?: CallOptions): Promise<Recovery>;
  /** Planned switchover (to the designated replica, or Orchestrator's choice); the demoted master replicates. */
  gracefulMasterTakeoverAuto(alias: string, designated?: InstanceKey, o?: CallOptions): Promise<Recovery>;
}

interface Call {
  path: string;
  /** Extra attempts when Orchestrator did not answer: only for reads. */
  retries: number;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  credentials: () => OrchestratorCredentials | undefined;
}

const seg = encodeURIComponent;
const keyPath = (k: InstanceKey): string => `${seg(k.host)}/${k.port}`;

export function orchestratorClient(opts: OrchestratorClientOptions): OrchestratorClient {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const takeoverTimeoutMs = opts.takeoverTimeoutMs ?? 120_000;
  const readRetries = opts.readRetries ?? 2;
  const retryDelayMs = opts.retryDelayMs ?? 250;
  const http = axios.create({
    baseURL: opts.baseUrl,
    // Orchestrator runs next to the operator: a proxy from the environment would only get in the way.
    proxy: false,
    maxRedirects: 0,
    responseType: 'text',
    transformResponse: (body: unknown) => body,
    validateStatus: () => true,
  });

  const credentials = opts.credentials ?? (() => undefined);
  const read = (path: string, o: CallOptions | undefined): Promise<unknown> =>
    call(http, { path, retries: readRetries, timeoutMs, signal: o?.signal, credentials }, retryDelayMs);
  const write = (path: string, o: CallOptions | undefined, ms = timeoutMs): Promise<unknown> =>
    call(http, { path, retries: 0, timeoutMs: ms, signal: o?.signal, credentials }, retryDelayMs);

  return {
    discover: async (key, o) => {
      const path = `discover/${keyPath(key)}`;
      return envelope(await write(path, o), path, decodeInstance);
    },
    forget: async (key, o) => {
      const path = `forget/${keyPath(key)}`;
      envelope(await write(path, o), path, decodeKey);
    },
    instance: async (key, o) => {
      const path = `instance/${keyPath(key)}`;
      return decodeInstance(await read(path, o), at(path));
    },
    clusterByAlias: async (alias, o) => {
      const path = `cluster/alias/${seg(alias)}`;
      return asArray(await read(path, o), at(path), decodeInstance);
    },
    master: async (alias, o) => {
      const path = `master/${seg(alias)}`;
      return decodeInstance(await read(path, o), at(path));
    },
    clustersInfo: async (o) => asArray(await read('clusters-info', o), at('clusters-info'), decodeClusterInfo),
    // The per-cluster route matches the cluster NAME exactly and answers [] for anything else
    // (also an alias), so the whole analysis is read and filtered by alias here.
    replicationAnalysis: async (alias, o) => {
      const path = 'replication-analysis';
      const all = envelope(await read(path, o), path, (d, dAt) => asArray(d, dAt, decodeAnalysisEntry));
      return alias === undefined ? all : all.filter((e) => e.clusterAlias === alias);
    },
    recoveries: async (alias, o) => {
      const path = `audit-recovery/alias/${seg(alias)}`;
      return asArray(await read(path, o), at(path), decodeRecovery);
    },
    ackRecoveries: async (alias, comment, o) => {
      const path = `ack-recovery/cluster/${seg(alias)}?comment=${seg(comment)}`;
      return envelope(await write(path, o), path, asString);
    },
    beginDowntime: async (key, d, o) => {
      if (!Number.isInteger(d.seconds) || d.seconds <= 0) {
        throw new RangeError(`beginDowntime: seconds must be a positive integer, got ${d.seconds}`);
      }
      const path = `begin-downtime/${keyPath(key)}/${seg(d.owner)}/${seg(d.reason)}/${d.seconds}s`;
      envelope(await write(path, o), path, decodeKey);
    },
    endDowntime: async (key, o) => {
      const path = `end-downtime/${keyPath(key)}`;
      envelope(await write(path, o), path, decodeKey);
    },
    setReadOnly: async (key, o) => {
      const path = `set-read-only/${keyPath(key)}`;
      return envelope(await write(path, o), path, decodeInstance);
    },
    setWriteable: async (key, o) => {
      const path = `set-writeable/${keyPath(key)}`;
      return envelope(await write(path, o), path, decodeInstance);
    },
    gracefulMasterTakeover: async (alias, designated, o) => {
      const path = `graceful-master-takeover/${seg(alias)}/${keyPath(designated)}`;
      return envelope(await write(path, o, takeoverTimeoutMs), path, decodeRecovery);
    },
    gracefulMasterTakeoverAuto: async (alias, designated, o) => {
      const to = designated === undefined ? '' : `/${keyPath(designated)}`;
      const path = `graceful-master-takeover-auto/${seg(alias)}${to}`;
      return envelope(await write(path, o, takeoverTimeoutMs), path, decodeRecovery);
    },
  };
}

function at(path: string): At {
  return { route: route(path), path: '' };
}

function route(path: string): string {
  return `GET /${path}`;
}

/** The `{Code:"OK", Message, Details}` answer of most mutating routes: Details decoded. */
function envelope<T>(body: unknown, path: string, decode: (v: unknown, at: At) => T): T {
  const here = at(path);
  const o = asObject(body, here);
  const code = str(o, 'Code', here);
  if (code !== 'OK') {
    throw new OrchestratorError('unexpected-response', here.route, `Code is "${code}", expected "OK"`, { field: 'Code' });
  }
  if (!('Details' in o)) throw new OrchestratorError('unexpected-response', here.route, 'Details is missing', { field: 'Details' });
  return decode(o.Details, { route: here.route, path: 'Details' });
}

async function call(http: AxiosInstance, c: Call, delayMs: number): Promise<unknown> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await once(http, c);
    } catch (e) {
      const again = attempt < c.retries && e instanceof OrchestratorError && e.kind === 'unreachable';
      if (!again) throw e;
      await sleep(delayMs * 2 ** attempt, undefined, { signal: c.signal });
    }
  }
}

/** One request: the parsed JSON body of a 2xx answer, or the typed error. */
async function once(http: AxiosInstance, c: Call): Promise<unknown> {
  const r = route(c.path);
  let res: { status: number; data: unknown };
  let auth: OrchestratorCredentials | undefined;
  try {
    auth = c.credentials();
  } catch (e) {
    throw new OrchestratorError('unauthorized', r, (e as Error).message);
  }
  try {
    res = await http.get(c.path, {
      timeout: c.timeoutMs,
      signal: c.signal,
      ...(auth ? { auth: { username: auth.user, password: auth.password } } : {}),
    });
  } catch (e) {
    if (c.signal?.aborted) throw c.signal.reason;
    if (axios.isAxiosError(e) && e.response === undefined) {
      const timedOut = e.code === 'ECONNABORTED' || e.code === 'ETIMEDOUT';
      throw new OrchestratorError(
        'unreachable',
        r,
        timedOut ? `no answer within ${c.timeoutMs} ms` : `${e.code ?? 'no answer'}: ${e.message}`,
      );
    }
    throw e;
  }
  const text = typeof res.data === 'string' ? res.data : '';
  if (res.status === 401) {
    // 3.2.6's answer to missing or wrong credentials, on every path (test/fixtures/orchestrator/auth/).
    throw new OrchestratorError(
      'unauthorized',
      r,
      'HTTP 401: Orchestrator refused the credentials (none sent, or not its HTTPAuthUser/HTTPAuthPassword)',
      { status: 401 },
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // Unknown routes (and POSTs) get Go's plain-text "404 page not found".
    const excerpt = text.trim().slice(0, 200);
    throw new OrchestratorError('unexpected-response', r, `HTTP ${res.status} with a body that is not JSON: ${excerpt}`, {
      status: res.status,
    });
  }
  const err = errorOf(body);
  if (err !== undefined) throw new OrchestratorError(kindOfMessage(err), r, cleanMessage(err), { status: res.status });
  if (res.status < 200 || res.status > 299) {
    throw new OrchestratorError('unexpected-response', r, `HTTP ${res.status} without an error message`, { status: res.status });
  }
  return body;
}

/** Message of an `{Code:"ERROR", Message}` body (Orchestrator sends it with HTTP 500). */
function errorOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const o = body as Record<string, unknown>;
  return o.Code === 'ERROR' ? (typeof o.Message === 'string' ? o.Message : 'no message') : undefined;
}
