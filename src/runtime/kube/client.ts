// A thin client for any kind: CRUD, patch, status and watch over plain HTTP(S), speaking JSON and
// returning plain objects (client-node's typed models would turn timestamps into Dates and lose
// unknown fields). Authentication and TLS come from client-node's KubeConfig.
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { apiError, NotFoundError, statusError, type StatusBody } from './errors.ts';
import type { TokenBucket } from './token-bucket.ts';
import { isCachedCopy } from '../projection.ts';
import { selectorString, type KindRef, type KubeList, type KubeObject, type LabelSelector, type ObjectRef } from './types.ts';

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';
const PATCH_CONTENT_TYPE: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export interface ListOptions {
  namespace?: string;
  labelSelector?: LabelSelector;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
}

export interface WatchOptions {
  namespace?: string;
  labelSelector?: LabelSelector;
  resourceVersion?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  signal?: AbortSignal;
  /** Called for every chunk of bytes, events or not (the informer's watchdog feeds on it). */
  onData?: () => void;
  /** Called once the server accepted the watch (HTTP 200). */
  onOpen?: () => void;
}

export interface WatchEvent<T = KubeObject> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

export interface ResourceInfo {
  plural: string;
  namespaced: boolean;
}

/** Per-call options: `signal` aborts the request (e.g. a deadline). */
export interface CallOptions {
  signal?: AbortSignal;
}

interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || host.startsWith('127.');
}

async function readText(res: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Built-in lists and watches omit kind/apiVersion on items; put them back so objects are self-describing. */
function describe(obj: KubeObject, ref: KindRef): void {
  obj.apiVersion ??= ref.apiVersion;
  obj.kind ??= ref.kind;
}

export interface KubeClientOptions {
  userAgent?: string;
  fieldManager?: string;
  requestTimeoutMs?: number;
  /** Every request but watches takes a token first; none: unlimited (tests, tools). */
  rateLimiter?: TokenBucket;
}

/** What a client and its views (`withSignal`, `withRateLimiter`) share. */
interface Shared {
  agent: http.Agent;
  discovery: Map<string, Map<string, ResourceInfo>>;
}

interface View {
  shared: Shared;
  signal: AbortSignal | undefined;
}

function either(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  return a && b ? AbortSignal.any([a, b]) : (a ?? b);
}

function queryString(q: RequestOptions['query']): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q ?? {})) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

export class KubeClient {
  readonly kubeConfig: KubeConfig;
  readonly server: URL;
  readonly userAgent: string;
  readonly fieldManager: string;
  readonly requestTimeoutMs: number;
  readonly rateLimiter: TokenBucket | undefined;
  readonly #opts: KubeClientOptions;
  readonly #shared: Shared;
  /** Added to every call of this view (a reconcile's deadline). */
  readonly #signal: AbortSignal | undefined;

  /** `view` is internal: the state a view shares with its client (see `withSignal`). */
  constructor(kubeConfig: KubeConfig, opts: KubeClientOptions = {}, view?: View) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    this.kubeConfig = kubeConfig;
    this.server = new URL(cluster.server);
    this.userAgent = opts.userAgent ?? 'mysql-operator/0.1';
    this.fieldManager = opts.fieldManager ?? 'mysql-operator';
    // A server that accepts a request and never answers must not hang a reconcile or shutdown.
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 60_000;
    this.rateLimiter = opts.rateLimiter;
    this.#opts = opts;
    this.#signal = view?.signal;
    this.#shared = view?.shared ?? {
      agent: this.server.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true }),
      discovery: new Map(),
    };
  }

  /**
   * This client with `signal` added to every call (a reconcile's deadline aborts its requests and
   * watches). Connections, discovery and the rate limiter are shared with this client.
   */
  withSignal(signal: AbortSignal): KubeClient {
    return new KubeClient(this.kubeConfig, this.#opts, { shared: this.#shared, signal: either(this.#signal, signal) });
  }

  /** This client with its own rate limiter (leader election must not queue behind reconciles). */
  withRateLimiter(rateLimiter: TokenBucket | undefined): KubeClient {
    const { rateLimiter: _, ...opts } = this.#opts;
    return new KubeClient(this.kubeConfig, rateLimiter ? { ...opts, rateLimiter } : opts, { shared: this.#shared, signal: this.#signal });
  }

  /** Closes idle keep-alive connections, of this client and its views (tests call this before stopping a server). */
  close(): void {
    this.#shared.agent.destroy();
  }

  async #open(method: string, path: string, opts: RequestOptions): Promise<http.IncomingMessage> {
    const tls: https.RequestOptions = { headers: {} };
    try {
      await this.kubeConfig.applyToHTTPSOptions(tls);
    } catch (err) {
      // client-node refuses plain HTTP unless the kubeconfig says insecure-skip-tls-verify. The
      // auth headers are already set when it throws; accept plain HTTP on loopback only (the
      // project's test API server).
      if (!(this.server.protocol === 'http:' && isLoopback(this.server.hostname))) throw err;
    }
    const headers: http.OutgoingHttpHeaders = {
      ...(tls.headers as http.OutgoingHttpHeaders),
      Accept: 'application/json',
      'User-Agent': this.userAgent,
    };
    let payload: string | undefined;
    if (opts.body !== undefined) {
      payload = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['Content-Type'] = opts.contentType ?? 'application/json';
      headers['Content-Length'] = Buffer.byteLength(payload);
    }
    const base = this.server.pathname.replace(/\/$/, '');
    const reqOpts: https.RequestOptions = {
      protocol: this.server.protocol,
      hostname: this.server.hostname,
      port: this.server.port,
      path: base + path + queryString(opts.query),
      method,
      headers,
      agent: this.#shared.agent,
    };
    if (this.server.protocol === 'https:') {
      Object.assign(reqOpts, {
        ca: tls.ca,
        cert: tls.cert,
        key: tls.key,
        servername: tls.servername,
        rejectUnauthorized: tls.rejectUnauthorized,
      });
      // The shared keep-alive agent must not mix TLS identities; the kubeconfig is fixed per client.
    }
    const lib = this.server.protocol === 'https:' ? https : http;
    const signal = opts.signal;
    signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      // Abort by hand rather than with `signal:` on the request: node would also destroy a
      // keep-alive socket already handed back to the agent, raising an unhandled error there.
      // Destroying without an error: a socket already released to the pool has no listener.
      let response: http.IncomingMessage | undefined;
      const onAbort = (): void => {
        if (response) response.destroy();
        else req.destroy();
      };
      const cleanup = (): void => signal?.removeEventListener('abort', onAbort);
      const req = lib.request(reqOpts, (res) => {
        response = res;
        res.once('end', cleanup);
        res.once('close', cleanup);
        resolve(res);
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', (err) => {
        cleanup();
        reject(signal?.aborted ? (signal.reason ?? err) : err);
      });
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  /**
   * One request; resolves with the parsed JSON body, rejects with a typed KubeApiError. Waits for
   * the rate limiter first; the answer timeout starts once the request may go.
   */
  async request<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const caller = either(this.#signal, opts.signal);
    try {
      await this.rateLimiter?.take(caller);
    } catch (err) {
      throw new Error(`${method} ${path}: aborted while waiting for the client rate limit`, { cause: err });
    }
    const timeout = AbortSignal.timeout(this.requestTimeoutMs);
    const signal = caller ? AbortSignal.any([caller, timeout]) : timeout;
    let res: http.IncomingMessage;
    let text: string;
    try {
      res = await this.#open(method, path, { ...opts, signal });
      text = await readText(res);
    } catch (err) {
      if (signal.aborted) {
        const why = timeout.aborted ? `no answer within ${this.requestTimeoutMs} ms` : 'aborted';
        throw new Error(`${method} ${path}: ${why}`, { cause: err });
      }
      throw err;
    }
    const code = res.statusCode ?? 0;
    if (code < 200 || code > 299) throw apiError(method, path, code, text);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  // ---- resource mapping (discovery, cached per group/version) ----

  static groupVersionPath(apiVersion: string): string {
    return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  }

  async resourceFor(ref: KindRef): Promise<ResourceInfo> {
    let known = this.#shared.discovery.get(ref.apiVersion);
    let info = known?.get(ref.kind);
    if (info) return info;
    // A miss may be a CRD applied since the last look: ask again once.
    const list = await this.request<{ resources: Array<{ name: string; kind: string; namespaced: boolean }> }>(
      'GET',
      KubeClient.groupVersionPath(ref.apiVersion),
    );
    known = new Map();
    for (const r of list.resources) {
      if (!r.name.includes('/')) known.set(r.kind, { plural: r.name, namespaced: r.namespaced });
    }
    this.#shared.discovery.set(ref.apiVersion, known);
    info = known.get(ref.kind);
    if (!info) {
      throw new NotFoundError('GET', KubeClient.groupVersionPath(ref.apiVersion), 404, {
        kind: 'Status',
        reason: 'NotFound',
        message: `the server does not serve kind ${ref.kind} in ${ref.apiVersion}`,
        code: 404,
      });
    }
    return info;
  }

  /** Collection path (`name` omitted) or object path; namespace ignored for cluster-scoped kinds. */
  async pathFor(ref: KindRef & { namespace?: string; name?: string }, subresource?: string): Promise<string> {
    const r = await this.resourceFor(ref);
    let p = KubeClient.groupVersionPath(ref.apiVersion);
    if (r.namespaced && ref.namespace) p += `/namespaces/${encodeURIComponent(ref.namespace)}`;
    p += `/${r.plural}`;
    if (ref.name !== undefined) p += `/${encodeURIComponent(ref.name)}`;
    if (subresource) p += `/${subresource}`;
    return p;
  }

  #refOf(obj: KubeObject): ObjectRef {
    if (!obj.apiVersion || !obj.kind) throw new Error('object needs apiVersion and kind');
    return {
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      namespace: obj.metadata?.namespace,
      name: obj.metadata?.name ?? '',
    };
  }

  // ---- verbs ----

  async get<T extends KubeObject = KubeObject>(ref: ObjectRef, opts: CallOptions = {}): Promise<T> {
    return this.request<T>('GET', await this.pathFor(ref), opts);
  }

  /** Like `get`, but `undefined` when the object does not exist. */
  async getIfExists<T extends KubeObject = KubeObject>(ref: ObjectRef, opts: CallOptions = {}): Promise<T | undefined> {
    try {
      return await this.get<T>(ref, opts);
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  async list<T extends KubeObject = KubeObject>(ref: KindRef, opts: ListOptions = {}): Promise<KubeList<T>> {
    const list = await this.request<KubeList<T>>('GET', await this.pathFor({ ...ref, namespace: opts.namespace }), {
      query: {
        labelSelector: selectorString(opts.labelSelector),
        fieldSelector: opts.fieldSelector,
        limit: opts.limit,
        continue: opts.continue,
        resourceVersion: opts.resourceVersion,
      },
    });
    for (const item of list.items) describe(item, ref);
    return list;
  }

  /** Every page of a list (follows `continue`). */
  async listAll<T extends KubeObject = KubeObject>(ref: KindRef, opts: ListOptions = {}): Promise<KubeList<T>> {
    const first = await this.list<T>(ref, { limit: 500, ...opts });
    let cont = first.metadata?.continue;
    while (cont) {
      const page = await this.list<T>(ref, { limit: 500, ...opts, continue: cont });
      first.items.push(...page.items);
      cont = page.metadata?.continue;
    }
    return first;
  }

  async create<T extends KubeObject>(obj: T, opts: CallOptions = {}): Promise<T> {
    const ref = this.#refOf(obj);
    const path = await this.pathFor({ ...ref, name: undefined });
    return this.request<T>('POST', path, { body: obj, query: { fieldManager: this.fieldManager }, signal: opts.signal });
  }

  /**
   * PUT: optimistic concurrency through `metadata.resourceVersion` (stale → ConflictError).
   * Refuses a body built from an informer's cached copy: the cache holds a projection, and a PUT
   * of it would delete on the server what the cache dropped (docs/runtime.md, "What the caches hold").
   */
  async update<T extends KubeObject>(obj: T, opts: CallOptions = {}): Promise<T> {
    if (isCachedCopy(obj) || (obj.metadata && isCachedCopy(obj.metadata))) {
      throw new Error(`${obj.kind} ${obj.metadata?.name}: refusing to PUT an object built from a cached copy; GET it first, or patch`);
    }
    return this.request<T>('PUT', await this.pathFor(this.#refOf(obj)), {
      signal: opts.signal,
      body: obj,
      query: { fieldManager: this.fieldManager },
    });
  }

  async updateStatus<T extends KubeObject>(obj: T): Promise<T> {
    return this.request<T>('PUT', await this.pathFor(this.#refOf(obj), 'status'), {
      body: obj,
      query: { fieldManager: this.fieldManager },
    });
  }

  /**
   * PATCH in one of the four forms. `fieldManager` overrides the client's for this call: a
   * server-side apply records ownership per field manager, so each writer applies with its own.
   */
  async patch<T extends KubeObject = KubeObject>(
    ref: ObjectRef,
    patch: unknown,
    opts: { type?: PatchType; subresource?: string; force?: boolean; fieldManager?: string } = {},
  ): Promise<T> {
    const type = opts.type ?? 'merge';
    return this.request<T>('PATCH', await this.pathFor(ref, opts.subresource), {
      body: patch,
      contentType: PATCH_CONTENT_TYPE[type],
      query: { fieldManager: opts.fieldManager ?? this.fieldManager, force: type === 'apply' && opts.force ? true : undefined },
    });
  }

  async patchStatus<T extends KubeObject = KubeObject>(ref: ObjectRef, patch: unknown, type: PatchType = 'merge'): Promise<T> {
    return this.patch<T>(ref, patch, { type, subresource: 'status' });
  }

  /** Deletes; resolves `false` when the object was already gone. */
  async delete(
    ref: ObjectRef,
    opts: { propagationPolicy?: 'Background' | 'Foreground' | 'Orphan'; preconditions?: { uid?: string; resourceVersion?: string } } = {},
  ): Promise<boolean> {
    try {
      await this.request('DELETE', await this.pathFor(ref), {
        body: { kind: 'DeleteOptions', apiVersion: 'v1', ...opts },
      });
      return true;
    } catch (err) {
      if (err instanceof NotFoundError) return false;
      throw err;
    }
  }

  /**
   * One watch request. Resolves when the server ends the stream (timeout, closed connection);
   * rejects with a KubeApiError when the server refuses it (HTTP 410 → GoneError) or with the
   * network error. An ERROR event is handed to `onEvent` like any other: the caller decides.
   */
  async watch<T extends KubeObject = KubeObject>(ref: KindRef, opts: WatchOptions, onEvent: (ev: WatchEvent<T>) => void): Promise<void> {
    const path = await this.pathFor({ ...ref, namespace: opts.namespace });
    const res = await this.#open('GET', path, {
      signal: either(this.#signal, opts.signal),
      query: {
        watch: 1,
        resourceVersion: opts.resourceVersion,
        allowWatchBookmarks: opts.allowWatchBookmarks ? true : undefined,
        timeoutSeconds: opts.timeoutSeconds,
        labelSelector: selectorString(opts.labelSelector),
      },
    });
    const code = res.statusCode ?? 0;
    if (code !== 200) throw apiError('GET', path, code, await readText(res));
    opts.onOpen?.();
    let buf = '';
    for await (const chunk of res) {
      opts.onData?.();
      buf += (chunk as Buffer).toString('utf8');
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line) continue;
        const ev = JSON.parse(line) as WatchEvent<T>;
        if (ev.type !== 'BOOKMARK' && ev.type !== 'ERROR') describe(ev.object, ref);
        onEvent(ev);
      }
    }
  }
}

/** The typed error an ERROR watch event stands for (code 410 → GoneError). */
export function watchEventError(path: string, obj: unknown): ReturnType<typeof statusError> {
  const status = obj as StatusBody;
  return statusError('WATCH', path, status.code ?? 500, status);
}
