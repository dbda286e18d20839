// What a controller is, for the Manager: a name, a reconcile function of one key, and the kinds
// whose changes enqueue keys. See docs/runtime.md.
import type { Registry } from 'prom-client';
import type { EventRecorder } from './events.ts';
import type { Informer } from './informer.ts';
import type { KubeClient } from './kube/client.ts';
import { groupOf, objectKey, type KindRef, type KubeObject, type LabelSelector } from './kube/types.ts';
import type { Logger } from './logger.ts';
import type { Permission } from './permissions.ts';
import type { SettingTable } from './settings.ts';
import type { Projection } from './projection.ts';

/** A kind to watch, optionally narrowed. The namespace defaults to the manager's watch namespace. */
export interface WatchTarget extends KindRef {
  /** `''` = all namespaces; omitted = the manager's `--namespace`. Ignored for cluster-scoped kinds. */
  namespace?: string;
  labelSelector?: LabelSelector;
  /**
   * What the cache keeps of each object (`src/runtime/projection.ts`); part of the informer's
   * identity, so every reader of a kind should name the same one (declare it with the kind).
   */
  projection?: Projection;
}

/** What reconcile is asked to make true: the object `namespace/name` of the primary kind. */
export interface Request {
  namespace: string;
  name: string;
  /** `namespace/name` (just `name` for cluster-scoped kinds): the work-queue key. */
  key: string;
}

export interface ReconcileResult {
  /** Reconcile this key again after this delay, even if nothing changes. */
  requeueAfterMs?: number;
}

/**
 * What the manager hands to controllers: shared clients, caches, events, logs. Not the runtime's
 * settings: a controller's own come as its options object (`ControllerDefinition.build`).
 */
export interface ControllerContext {
  client: KubeClient;
  /**
   * The shared informer of a kind, started and synced on first use (so it may wait for a list).
   * Read objects from its cache instead of GETting them: `(await ctx.informer(t)).get(ns, name)`.
   */
  informer<T extends KubeObject = KubeObject>(target: WatchTarget): Promise<Informer<T>>;
  events: EventRecorder;
  /** A logger with `{ controller: <name> }` on every line. */
  log: Logger;
  /**
   * Aborted when the controller stops (leadership lost, shutdown). In `reconcile`, also at the
   * reconcile's deadline (`--reconcile-timeout`); `client` there is bound to it, so every request
   * it makes is aborted then. Pass it on to other slow calls (MySQL, Orchestrator, sleeps).
   */
  signal: AbortSignal;
  /**
   * The manager's Prometheus registry, for a controller's own metrics (served on /metrics).
   * Create each metric once: `registry.getSingleMetric(name) ?? new Gauge({ ..., registers: [registry] })`.
   */
  registry: Registry;
  /** Adds a key of this controller's primary kind to its queue (after `afterMs` if given). */
  enqueue(key: string, afterMs?: number): void;
}

/**
 * An HTTP endpoint of a controller on the manager's server (e.g. a hook Orchestrator calls on
 * failover). Served only while the controller runs; otherwise the answer is 503, so a caller
 * retries and reaches the leader.
 */
export interface HttpRoute {
  method: 'GET' | 'POST' | 'PUT';
  /** Exact path, e.g. `/hooks/orchestrator/recovery`. */
  path: string;
  handle(req: HttpRequest, ctx: ControllerContext): Promise<HttpAnswer>;
}

export interface HttpRequest {
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  /** The request body as text (at most 1 MiB). */
  body: string;
}

export interface HttpAnswer {
  status: number;
  /** Sent as JSON (a string is sent as text). */
  body?: unknown;
}

/** A watched kind that is not the primary one, and how its objects map to primary keys. */
export interface SecondaryWatch {
  target: WatchTarget;
  /** Keys (`namespace/name`) of primary objects to reconcile when `obj` changes. */
  map: (obj: KubeObject) => string[];
}

export interface ControllerSpec {
  /** Unique, short, used in logs and metric labels: `cluster`, `node`, `backup`... */
  name: string;
  /** The primary kind: every change of an object enqueues its own key. */
  for: WatchTarget;
  /**
   * Kinds this controller creates and owns: a change enqueues the key of the owner named by
   * `metadata.ownerReferences` whose kind and API group are the primary's.
   */
  owns?: WatchTarget[];
  /** Other kinds, mapped to primary keys by a function (e.g. by a label naming the cluster). */
  watches?: SecondaryWatch[];
  /** Concurrent reconciles of distinct keys. Default: the manager's `--workers`. */
  workers?: number;
  /** Every key of the primary cache is reconciled at least this often. Default: `--resync-period`. */
  resyncPeriodMs?: number;
  /** Deadline of one reconcile. Default: `--reconcile-timeout`. */
  reconcileTimeoutMs?: number;
  /** Retry backoff after a thrown error: first delay and cap. Defaults 500 ms and 5 min. */
  backoff?: { baseMs?: number; maxMs?: number };
  /**
   * Makes what `for`'s key names true. Level-triggered and idempotent: it reads the current state,
   * never an event. Throwing retries the key with backoff; returning `requeueAfterMs` polls.
   * Past its deadline it is abandoned and retried with backoff; the key is not reconciled again
   * until the abandoned call settles.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a reconcile with nothing to ask resolves to nothing; `void` lets a plain `async` function without `return` be one, where `undefined` would not
  reconcile(req: Request, ctx: ControllerContext): Promise<ReconcileResult | void>;
  /**
   * Optional: runs once each time the controller starts (it became leader), for work that is not
   * keyed (timers, webhooks). Must stop when `ctx.signal` aborts.
   */
  start?(ctx: ControllerContext, enqueue: (key: string) => void): void | Promise<void>;
  /** HTTP endpoints served on the manager's server while the controller runs. */
  routes?: HttpRoute[];
}

/**
 * How `src/controllers/index.ts` lists a controller: what it takes from the command line and
 * environment, what it does with the API (the chart's RBAC is generated from this), and how it is
 * built from its own validated options. See docs/runtime.md.
 */
export interface ControllerDefinition<O extends object = object> {
  /** The controller's name, as in `ControllerSpec.name`. */
  readonly name: string;
  /** One setting per field of its options object; a setting object shared with another controller is one flag. */
  readonly settings: SettingTable<O>;
  /** Every API resource and verb it uses, including the informers it opens and its subresources. */
  readonly permissions: readonly Permission[];
  build(options: O): ControllerSpec;
}

/** Keys of the owners of `obj` whose kind and API group are those of `owner`. */
export function ownerKeys(obj: KubeObject, owner: KindRef): string[] {
  const group = groupOf(owner.apiVersion);
  const ns = obj.metadata?.namespace;
  const keys: string[] = [];
  for (const ref of obj.metadata?.ownerReferences ?? []) {
    if (ref.kind === owner.kind && groupOf(ref.apiVersion) === group) keys.push(objectKey({ namespace: ns, name: ref.name }));
  }
  return keys;
}

/** A `map` for `watches`: the key named by a label (`LABEL_CLUSTER` → `<ns>/<cluster>`). */
export function keyFromLabel(label: string): (obj: KubeObject) => string[] {
  return (obj) => {
    const v = obj.metadata?.labels?.[label];
    return v ? [objectKey({ namespace: obj.metadata?.namespace, name: v })] : [];
  };
}
